# MicroPython, on the virtual shuffler's path: the unix port's machine module
# plus reset(), which ends the interpreter with the exit code the serial
# bridge reads as a hard reset (HARD_RESET_EXIT in ../interpreter.py).
import sys

_path = sys.path
sys.path = ()
try:
    from machine import *  # noqa: F401,F403  (the built-in module)
finally:
    sys.path = _path
    del _path


def reset():
    raise SystemExit(77)


def unique_id():
    # The virtual board's identity, given by the host that started it
    # (SHUFFLER_SIM_UID, hex): the same virtual shuffler keeps it across
    # resets and restarts, two of them differ.
    import os
    uid = os.getenv("SHUFFLER_SIM_UID") or ""
    try:
        return bytes.fromhex(uid)
    except ValueError:
        return b""
