"""Start-up and the main loop."""

import boardsel
import protocol as P
from controller import Controller
from link import Link


def main():
    profile = boardsel.load_profile(boardsel.profile_name())
    board = boardsel.open_board(profile)
    link = Link()
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
                link.send(P.error_reply("", None, P.E_INTERNAL, detail=str(e)[:80]))
    except KeyboardInterrupt:
        # Ctrl-C: let the REPL (and mpremote) in. The watchdog first: a
        # second Ctrl-C during the motor's 20 ms brake must not skip it.
        board.wdt_release()
        board.motor_stop()
        link.send({P.F_EV: P.EV_STOPPED, "reason": "interrupt"})
    finally:
        board.motor_stop()
