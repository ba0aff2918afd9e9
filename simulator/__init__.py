"""The simulated shufflers the firmware runs on without the hardware.

virtual: the virtual shuffler (the firmware on MicroPython's unix port over
a simulated board). pico: the emulated Raspberry Pi Pico running
MicroPython's rp2 port. The shuffle mathematics is shuffling/, beside it.
"""
