"""The firmware's controller over the simulated board with no serial link,
for scripts on the unix port that drive it by calling it (the firmware
tests and benchmarks). Not part of any image: nothing on a board imports it."""

import boardsel
from controller import Controller


class QuietLink:
    """No host: nothing arrives, and the last message sent is kept."""

    last = None

    intr = False
    def pump(self): pass
    def pending(self): return False
    def read_line(self): return None
    def send(self, obj): self.last = obj
    def write_raw(self, buf): pass


def controller(**overrides):
    """A booted controller over the simulated board; `overrides` change the
    sim profile before the board opens."""
    profile = boardsel.load_profile("sim")
    profile.update(overrides)
    board = boardsel.open_board(profile)
    ctl = Controller(board, profile, QuietLink())
    ctl.boot()
    return ctl
