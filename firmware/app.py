"""Start-up and the main loop."""

import boardsel
import protocol
import report
from controller import Controller
from link import Link

try:
    import micropython
    from micropython import const
except ImportError:  # CPython unit tests
    micropython = None  # type: ignore
    const = int  # type: ignore[assignment,misc]

_CTRL_C = const(3)


def kbd_intr(c):
    """micropython.kbd_intr, where the port has it."""
    if micropython is not None and hasattr(micropython, "kbd_intr"):
        micropython.kbd_intr(c)


def main():
    # 0x03 is the firmware's own byte while it runs (link.py): inside a
    # line it is a bad line, not a KeyboardInterrupt that would leave the
    # appliance in the REPL mid-pass.
    kbd_intr(-1)
    try:
        run()
    finally:
        kbd_intr(_CTRL_C)


def run():
    profile = boardsel.load_profile(boardsel.profile_name())
    board = boardsel.open_board(profile)
    link = Link(source=getattr(board, "uart", None))
    ctl = Controller(board, profile, link)
    try:
        ctl.boot()
        while True:
            try:
                ctl.step()
            except KeyboardInterrupt:
                raise
            except Exception as e:  # keep running: report, motor off, go on
                board.motor_stop()
                report.error("", None, protocol.E_INTERNAL, detail=str(e)[:80] or type(e).__name__)
    except KeyboardInterrupt:
        # A lone Ctrl-C: let the REPL (and mpremote) in. The watchdog
        # first, then the motor (a 20 ms brake).
        board.wdt_release()
        board.motor_stop()
        kbd_intr(_CTRL_C)
        report.event(protocol.EV_STOPPED, reason="interrupt")
    finally:
        board.motor_stop()
