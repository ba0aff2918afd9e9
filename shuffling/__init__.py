"""The shuffle mathematics the host uses: packs, limits, routines and their steps, quality, exact mode.

Subpackages: quality (exact distances, kernels, routines, bounds, the report) and
exact_mode (the exactly uniform routine, built on the quality tools). Modules:
limits (every limit, named for what it limits), packs, start_orders, steps (the
person's instructions as data), report_catalogue (the routines a report offers).
Nothing here imports the virtual shuffler, the emulated Pico or the host; from the firmware
only the portable code set (firmware/exact_codes.py), which the device runs as it is.
"""
