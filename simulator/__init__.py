"""The simulator: the shuffle mathematics and the devices it is checked against.

shuffling: the mathematics the host uses (no device code). virtual: the virtual
shuffler (the firmware on MicroPython's unix port over a simulated board).
pico: the emulated Raspberry Pi Pico running MicroPython's rp2 port.
"""
