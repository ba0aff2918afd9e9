"""Shuffler firmware (MicroPython). On the device these modules sit flat in the
filesystem root; on the host only `firmware.protocol` is imported."""
