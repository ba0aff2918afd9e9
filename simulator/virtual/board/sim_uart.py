"""The receive side of a board's serial port, as an ESP32's: bytes come off
the wire at the line's rate into a receive ring; a byte that arrives while
the ring is full is dropped, and nobody is told (ports/esp32/uart.c puts
each byte with ringbuf_put, which refuses it when full). The sizes are the
board profile's data ("uart_rx_ring", "uart_baud").

The host's bytes wait in the process's stdin (standing for the host and its
USB-serial bridge) until the wire has had time to carry them, in the
board's virtual time. They are read from stdin only as the firmware takes
them, except when the ring may overflow: then the wire's bytes are read at
once, the ring keeps what fits and the rest is dropped. So bytes the
firmware leaves unread after a Ctrl-C stay in stdin for the REPL, as they
stay in a real board's ring.

Nothing here allocates after construction: the firmware drains the port
under micropython.heap_lock().
"""

import select
import sys


class Uart:
    def __init__(self, clock, ring, baud, stream=None):
        """clock(): the board's virtual time in ms."""
        stream = stream or sys.stdin
        self.clock = clock
        self.size = ring
        self.ring = bytearray(ring)
        self.head = 0
        self.n = 0  # bytes in self.ring
        self.mb_per_ms = baud // 10  # 8N1: ten bits a byte, in thousandths of a byte per ms
        self.credit = 0  # what the wire has carried since, not read yet (thousandths of a byte)
        self.last = clock()
        self.dropped = 0  # bytes the full ring refused
        self.eof = False
        self.one = bytearray(1)
        self._readinto = getattr(stream, "buffer", stream).readinto
        self.poller = select.poll()
        self.poller.register(stream, select.POLLIN)
        self._waiting()  # let ipoll allocate its result tuple now

    def _waiting(self):
        for _obj, ev in self.poller.ipoll(0):
            return ev != 0
        return False

    def _update(self):
        now = self.clock()
        self.credit += (now - self.last) * self.mb_per_ms
        self.last = now
        if not self._waiting():
            self.credit = 0  # an idle wire carries nothing forward
            return
        if self.n * 1000 + self.credit <= self.size * 1000:
            return  # all the wire carried fits: the firmware reads it from stdin
        # The ring may overflow: take what the wire carried, as it came.
        while self.credit >= 1000 and self._waiting():
            if not self._readinto(self.one):
                self.eof = True
                return
            self.credit -= 1000
            if self.n < self.size:
                self.ring[(self.head + self.n) % self.size] = self.one[0]
                self.n += 1
            else:
                self.dropped += 1
        if not self._waiting():
            self.credit = 0

    def any(self):
        """True when a byte can be read (or stdin has ended)."""
        self._update()
        return self.n > 0 or self.eof or (self.credit >= 1000 and self._waiting())

    def readinto(self, buf):
        """One byte into buf[0]; 0 at the end of input."""
        if self.n > 0:
            buf[0] = self.ring[self.head]
            self.head = (self.head + 1) % self.size
            self.n -= 1
            return 1
        if self.eof or self.credit < 1000:
            return 0
        k = self._readinto(self.one)
        if not k:
            self.eof = True
            return 0
        self.credit -= 1000
        buf[0] = self.one[0]
        return 1
