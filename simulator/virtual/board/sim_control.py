"""The simulated world's control endpoint: JSON lines over a Unix socket
(SHUFFLER_SIM_CONTROL=/path) or TCP on 127.0.0.1 (SHUFFLER_SIM_CONTROL=tcp:PORT).
Non-blocking: service() handles whatever has arrived and returns."""

import json
import os
import select
import socket
import struct

MAX_REQUEST = 65536


def _listen(addr):
    if addr.startswith("tcp:"):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(socket.getaddrinfo("127.0.0.1", int(addr[4:]))[0][-1])
    else:
        try:
            os.remove(addr)
        except OSError:
            pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # The unix port takes a raw sockaddr_un: family, then the path.
        s.bind(struct.pack("H", socket.AF_UNIX) + addr.encode() + b"\0")
    s.listen(4)
    s.setblocking(False)
    return s


class Control:
    def __init__(self, addr, handler):
        self.handler = handler  # dict request -> dict reply
        self.server = _listen(addr)
        self.poller = select.poll()
        self.poller.register(self.server, select.POLLIN)
        self.conns = {}  # socket -> bytearray of unfinished input
        self.pending()  # allocate ipoll's result tuple now

    def pending(self):
        """True when a connection or a request is waiting. Does not allocate."""
        for _obj, _ev in self.poller.ipoll(0):
            return True
        return False

    def service(self):
        try:
            self._service()
        except Exception as e:  # the world's endpoint must never stop the board
            import sys
            sys.stderr.write("sim control: %r\n" % (e,))

    def _service(self):
        for obj, ev in self.poller.poll(0):
            if obj is self.server:
                try:
                    conn, _ = self.server.accept()
                except OSError:
                    continue
                conn.setblocking(False)
                self.poller.register(conn, select.POLLIN)
                self.conns[conn] = bytearray()
                continue
            self._read(obj, ev)

    def _close(self, conn):
        try:
            self.poller.unregister(conn)
        except (OSError, KeyError):
            pass
        self.conns.pop(conn, None)
        conn.close()

    def _read(self, conn, ev):
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        buf = self.conns[conn]
        buf.extend(data)
        while True:
            i = buf.find(b"\n")
            if i < 0:
                if len(buf) > MAX_REQUEST:
                    self._close(conn)
                return
            line = bytes(buf[0:i])
            buf = buf[i + 1:]
            self.conns[conn] = buf
            self._answer(conn, line)

    def _answer(self, conn, line):
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("request is not an object")
            rep = self.handler(req)
        except (ValueError, TypeError, KeyError, IndexError) as e:
            rep = {"ok": False, "error": str(e)}
        out = json.dumps(rep).encode() + b"\n"
        conn.setblocking(True)  # replies are small; write them whole
        try:
            conn.write(out)
        except OSError:
            self._close(conn)
            return
        conn.setblocking(False)
