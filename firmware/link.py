"""The serial link: non-blocking, bounded line input and JSON line output."""

import select
import sys

import protocol

CTRL_C = 3
LF = 10
CR = 13


class Link:
    def __init__(self, stream_in=None, stream_out=None):
        stream_in = stream_in or sys.stdin
        stream_out = stream_out or sys.stdout
        self.inb = getattr(stream_in, "buffer", stream_in)
        self.outb = getattr(stream_out, "buffer", stream_out)
        self.poller = select.poll()
        self.poller.register(stream_in, select.POLLIN)
        self.buf = bytearray(protocol.MAX_LINE)
        self.n = 0
        self.over = False
        self.one = bytearray(1)
        self.closed = False
        self.after_cr = False  # the last byte ended a line with CR: an LF now is its CRLF
        self.pending()  # let ipoll allocate its result tuple now, not mid-pass

    def pending(self):
        """True when input is waiting. Does not allocate."""
        if self.closed:
            return False
        for _obj, ev in self.poller.ipoll(0):
            return ev != 0
        return False

    def read_line(self):
        """Consume waiting input. Returns a complete line (bytes without the
        newline), an int error code for an over-long line, or None."""
        while self.pending():
            k = self.inb.readinto(self.one)
            if not k:
                self.closed = True  # end of input: the host went away
                return None
            c = self.one[0]
            if c == CTRL_C:
                # Like kbd_intr on a UART REPL, for hosts that send Ctrl-C as
                # a byte down a pipe.
                self.n = 0
                self.over = False
                raise KeyboardInterrupt
            if c == LF or c == CR:
                # CR, LF and CRLF each end a line.
                crlf = c == LF and self.after_cr
                self.after_cr = c == CR
                if crlf:
                    continue
                n, over = self.n, self.over
                self.n = 0
                self.over = False
                if over:
                    return protocol.E_TOO_LONG
                if n == 0:
                    continue
                return bytes(self.buf[0:n])
            self.after_cr = False
            if self.over:
                continue
            if self.n + 1 >= protocol.MAX_LINE:
                self.over = True
                continue
            self.buf[self.n] = c
            self.n += 1
        return None

    def send(self, obj):
        try:
            line = protocol.encode(obj)
        except ValueError:
            # Too long or not ASCII: the free-text detail is the usual
            # culprit; without it the message still says what happened.
            obj.pop("detail", None)
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
