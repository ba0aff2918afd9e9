"""The virtual shuffler: the firmware on the MicroPython unix port, over the
simulated board, behind a pseudo-terminal that serial tools open like a board."""
from simulator.virtual.device import VirtualShuffler

__all__ = ["VirtualShuffler"]
