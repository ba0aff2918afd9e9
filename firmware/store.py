"""Settings files written atomically: write a temporary file, then rename it
over the old one, so a power cut during a write never loses the old values."""

import json
import os

# A seam for tests: the simulated board swaps this to model a power cut
# between the write and the rename.
_rename = os.rename


def save(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(obj))
    try:
        _rename(tmp, path)
    except OSError:
        # FAT cannot rename onto an existing file; littlefs and POSIX can.
        # A power cut here leaves only the complete temp file, which load
        # falls back to.
        if _rename is not os.rename:
            raise
        try:
            os.remove(path)
        except OSError:
            pass
        _rename(tmp, path)


def _read(path):
    try:
        with open(path) as f:
            obj = json.loads(f.read())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def load(path):
    """The saved object, or None. A leftover temp file counts only when the
    main file is missing and the temp file parses completely."""
    obj = _read(path)
    if obj is None:
        obj = _read(path + ".tmp")
    return obj


def present(path):
    """Whether the file itself is there (a temp file alone is a write that
    never finished: nothing stored)."""
    try:
        os.stat(path)
        return True
    except OSError:
        return False
