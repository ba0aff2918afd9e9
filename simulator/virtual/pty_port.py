"""A pseudo-terminal that plays the board's USB serial port.

The host opens the slave path (pyserial, mpremote, a terminal) exactly as it
opens /dev/ttyUSB0. We keep only the master: while no program has the slave
open the master reports a hang-up, which is how we know that nobody listens
(output is then dropped, as a USB-serial bridge drops it).
"""
from __future__ import annotations

import os
import select
import termios
import tty


class PtyPort:
    def __init__(self) -> None:
        master, slave = os.openpty()
        self.path = os.ttyname(slave)
        # Raw from the start: with the default cooked settings the line
        # discipline would echo our output back to us as if the host typed it.
        tty.setraw(slave, termios.TCSANOW)
        os.close(slave)
        os.set_blocking(master, False)
        self.master_fd = master
        self._poll = select.poll()
        self._poll.register(master, select.POLLIN)

    def host_connected(self) -> bool:
        """True while some program has the port open."""
        for _fd, events in self._poll.poll(0):
            if events & select.POLLHUP:
                return False
        return True

    def read(self) -> bytes:
        """What the host wrote; b"" when nothing is waiting or nobody is connected."""
        try:
            return os.read(self.master_fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        """Send output to the host; dropped when the host is away or not reading."""
        if not data or not self.host_connected():
            return
        view = memoryview(data)
        while view:
            try:
                sent = os.write(self.master_fd, view)
            except BlockingIOError:
                # The host is not reading; wait briefly, then drop the rest as
                # a full USB buffer would.
                if not select.select([], [self.master_fd], [], 0.5)[1]:
                    return
                continue
            except OSError:
                return
            view = view[sent:]

    def close(self) -> None:
        if self.master_fd >= 0:
            os.close(self.master_fd)
            self.master_fd = -1
