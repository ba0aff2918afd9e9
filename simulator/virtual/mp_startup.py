# Runs inside the MicroPython unix port (not CPython). machine.reset() comes
# from mp_lib/machine.py. It stands in for a
# board's C start-up code: set sys.path, run boot.py, then main.py (only when
# the board comes up in the friendly REPL, as on a real port), print the
# start-up marker, and fall through to the interpreter's own REPL (-i).
import os as _vs_os
import sys as _vs_sys

# The serial bridge strips this marker from the output. "ready": start-up is
# over (in a raw-REPL start the banner to hide follows); "exit=N": boot.py or
# main.py raised SystemExit, which on a board is a reset (here -i would go on
# to the REPL, so the bridge ends the process instead).
_VS_MARKER = "\x1e\x1evirtual-shuffler:%s\x1e\x1e"


def _vs_exists(name):
    try:
        _vs_os.stat(name)
        return True
    except OSError:
        return False


def _vs_run(name):
    # Like pyexec_file_if_exists: errors are printed, SystemExit is a soft
    # reset (the process ends and the bridge restarts it).
    if not _vs_exists(name):
        return
    try:
        with open(name) as f:
            source = f.read()
        exec(compile(source, name, "exec"), globals())
    except SystemExit:
        raise
    except BaseException as exc:  # KeyboardInterrupt from Ctrl-C included
        _vs_print_exception(exc)


def _vs_print_exception(exc):
    # As a board prints it: without this script's own frame.
    import io

    buf = io.StringIO()
    _vs_sys.print_exception(exc, buf)
    for line in buf.getvalue().split("\n"):
        if line and "mp_startup.py" not in line:
            _vs_sys.stdout.write(line + "\n")


def _vs_start():
    extra = _vs_os.getenv("VIRTUAL_SHUFFLER_PATH") or ""
    _vs_sys.path[:] = ["", ".frozen"] + [p for p in extra.split(":") if p]
    status = "ready"
    try:
        _vs_run("boot.py")
        if (_vs_os.getenv("VIRTUAL_SHUFFLER_MODE") or "friendly") == "friendly":
            _vs_run("main.py")
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:
        code = exc.args[0] if exc.args else 0
        status = "exit=%d" % (code if isinstance(code, int) else 1)
    _vs_sys.stdout.write(_VS_MARKER % status)


_vs_start()
