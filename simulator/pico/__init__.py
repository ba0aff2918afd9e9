"""The emulated Raspberry Pi Pico: MicroPython's rp2 port in rp2040js, wired
to the simulated mechanism (see docs/firmware.md)."""
from simulator.pico.emulator import EmulatedPico, EmulatorError
from simulator.pico.image import ImageMissing, find_image

__all__ = ["EmulatedPico", "EmulatorError", "ImageMissing", "find_image"]
