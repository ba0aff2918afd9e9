# MicroPython, on the virtual shuffler's path: the unix port's os module with
# ilistdir() giving sizes, as a board's filesystem does (mpremote's `fs ls`
# shows them).
import sys

_path = sys.path
sys.path = ()
try:
    from os import *  # noqa: F401,F403  (the built-in module)
    import os as _os
finally:
    sys.path = _path
    del _path

_FILE = 0x8000


def ilistdir(path="."):
    for entry in _os.ilistdir(path):
        name = entry[0]
        full = name if path in ("", ".") else path.rstrip("/") + "/" + name
        size = 0
        if entry[1] == _FILE:
            try:
                size = _os.stat(full)[6]
            except OSError:
                pass
        yield (name, entry[1], entry[2], size)
