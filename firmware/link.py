"""The serial link: input drained into the firmware's own bounded buffer,
and JSON line output.

pump() moves every waiting byte from the port into IN_BUF without
allocating, so the firmware calls it in every wait (card waits, settle
waits, sleeps) and the port's own receive ring (260 bytes on an ESP32,
dropped silently when full) never fills. A line that does not fit in IN_BUF
is not lost silently: input is dropped until the stored lines are handled,
and then read_line() says E_OVERFLOW once.

0x03 (Ctrl-C) is the firmware's own byte while it runs (app.py turns the
port's keyboard interrupt off): alone at the start of a line it asks for
the REPL (intr), as GRBL's real-time bytes act outside the line stream;
inside a line it makes that line bad_json. pump() stops at it, so what the
host sends next (mpremote's Ctrl-A) is left in the port for the REPL.
"""

import select
import sys

import protocol

try:
    from micropython import const
except ImportError:  # CPython: the tests import this module too
    const = int  # type: ignore[assignment,misc]

# Private constants, folded by const() (their names never reach the board).
_CTRL_C = const(3)
_LF = const(10)
_CR = const(13)
IN_BUF = protocol.IN_BUFFER
# Kept free while a line is stored: its newline and the two-byte mark that
# replaces a bad line (CTRL_C, code) always fit.
_SPARE = const(2)
_STORE = const(0)  # storing the line
_BAD = const(1)  # the line is bad: its mark is stored, the rest is skipped
_LOST = const(2)  # IN_BUF was full: dropping until the stored lines are handled
_SKIP = const(3)  # the tail of a line begun while dropping: skipped


class Link:
    def __init__(self, stream_in=None, stream_out=None, source=None):
        """source: a port with any() and readinto(buf) (the simulated
        board's UART); by default the REPL's stdin, through select.poll."""
        stream_out = stream_out or sys.stdout
        self.outb = getattr(stream_out, "buffer", stream_out)
        self.one = bytearray(1)
        self.poller = select.poll()
        if source is not None:
            self._any = source.any  # bound once: pump() must not allocate
            self._readinto = source.readinto
        else:
            stream_in = stream_in or sys.stdin
            self._readinto = getattr(stream_in, "buffer", stream_in).readinto
            self.poller.register(stream_in, select.POLLIN)
            self._any = self._polled
        self.q = bytearray(IN_BUF)
        self.count = 0  # bytes stored: whole lines, each ended by LF, then the open one
        self.lines = 0  # whole lines stored
        self.n = 0  # bytes of the open line stored
        self.col = 0  # bytes since the last line end, stored or not
        self.mode = _STORE
        self.lost = False  # input was dropped: E_OVERFLOW is owed
        self.closed = False
        self.after_cr = False  # the last byte ended a line with CR: an LF now is its CRLF
        self.intr = False  # a lone Ctrl-C came: hand the board to the REPL
        self.kbd = KeyboardInterrupt()  # raised under the heap lock: made now
        self._any()  # let ipoll allocate its result tuple now, not mid-pass

    def _polled(self):
        for _obj, ev in self.poller.ipoll(0):
            return ev != 0
        return False

    def pump(self):
        """Move waiting input into the buffer. Does not allocate."""
        while not (self.closed or self.intr) and self._any():
            if not self._readinto(self.one):
                self.closed = True  # end of input: the host went away
                return
            self._take(self.one[0])

    def _take(self, c):
        if c == _LF or c == _CR:
            # CR, LF and CRLF each end a line.
            crlf = c == _LF and self.after_cr
            self.after_cr = c == _CR
            if not crlf:
                self._end_line()
            return
        self.after_cr = False
        col = self.col
        self.col = col + 1
        mode = self.mode
        if c == _CTRL_C:
            if col == 0:
                self.col = 0
                self.intr = True
            elif mode == _STORE:
                self._mark(protocol.E_BAD_JSON)
            return
        if mode != _STORE:
            return
        if self.n + 1 >= protocol.MAX_LINE:
            self._mark(protocol.E_TOO_LONG)
        elif IN_BUF - self.count < 1 + _SPARE:
            # Full: this line and what follows are dropped until the lines
            # stored are handled; then E_OVERFLOW says so.
            self.count -= self.n
            self.n = 0
            self.mode = _LOST
            self.lost = True
        else:
            self.q[self.count] = c
            self.count += 1
            self.n += 1

    def _mark(self, code):
        """The open line is bad: keep only its code (CTRL_C, code)."""
        self.count -= self.n
        self.q[self.count] = _CTRL_C
        self.q[self.count + 1] = code
        self.count += 2
        self.n = 2
        self.mode = _BAD

    def _end_line(self):
        mode = self.mode
        self.col = 0
        if mode == _LOST:
            return
        self.mode = _STORE
        if mode == _SKIP or self.n == 0:
            return
        self.q[self.count] = _LF
        self.count += 1
        self.n = 0
        self.lines += 1

    def has_line(self):
        """A whole line (or the overflow report) is waiting. Does not allocate."""
        self.pump()
        return self.lines > 0 or self.lost

    def woken(self):
        """Any input at all, whole line or not: what ends a light sleep."""
        self.pump()
        return self.count > 0 or self.lost or self.intr or self.col > 0

    def pending(self):
        return self.has_line() or self.intr

    def read_line(self):
        """The next line (bytes without its end), an int error code for a
        bad, over-long or dropped line, or None. Raises KeyboardInterrupt
        after a lone Ctrl-C."""
        self.pump()
        if self.intr:
            raise self.kbd
        if self.lines == 0:
            if self.lost:
                self.lost = False
                # The line coming in began while input was dropped.
                self.mode = _SKIP if self.col else _STORE
                return protocol.E_OVERFLOW
            return None
        q = self.q
        end = q.find(b"\n", 0, self.count)
        line = q[1] if end == 2 and q[0] == _CTRL_C else bytes(q[0:end])
        rest = self.count - end - 1
        i = 0
        while i < rest:  # move what follows to the front, in place
            q[i] = q[end + 1 + i]
            i += 1
        self.count = rest
        self.lines -= 1
        return line

    def send(self, obj):
        try:
            line = protocol.encode(obj)
        except ValueError:
            # Too long or not ASCII: the only free text is an internal
            # error's detail or a field name echoed from the host; without
            # them the message still says what happened.
            obj.pop("detail", None)
            obj.pop("field", None)
            try:
                line = protocol.encode(obj)
            except ValueError:
                re = obj.get(protocol.F_RE, "")
                line = protocol.encode(protocol.error_reply(
                    re if re in protocol.COMMANDS else "", obj.get(protocol.F_ID),
                    protocol.E_INTERNAL))
        self.outb.write(line.encode())

    def write_raw(self, buf):
        """Write a preformatted line (bytes-like). Does not allocate."""
        self.outb.write(buf)
