"""The page's connections, watched from the moment they are made: within
the caps, cut at their deadlines, and a place made for the person before
anyone else.

- at most MAX_CONNECTIONS connections at once and PER_PEER from one address
  (one device on the network cannot take every place);
- when full, a connection no request with the secret has come on is closed
  for the newcomer: one whose request was refused first (a proven stranger),
  from the address holding the most such places, the oldest of them. So a
  flood from many addresses closes its own connections, never the person's,
  even the person's newest, whose request is still on its way;
- a connection that sends no byte within SILENT_S is closed, a request's
  headers not whole HEADERS_S after their first byte closed (a byte now and
  then keeps no place), one waiting IDLE_S for its next request closed (by
  aiohttp's keep-alive timeout, set by the server);
- a request aiohttp cannot read is answered in one line of its own, never
  quoting it, and nothing is written on the console.
"""
from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

from aiohttp import web

from host.web import refusals
from host.web.guard import SECURITY_HEADERS

MAX_CONNECTIONS = 64  # HTTP connections at once: a browser opens about 6 per page
PER_PEER = MAX_CONNECTIONS // 2  # connections from one address: a few tabs' worth
SILENT_S = 10.0  # a connection that has sent nothing by then is closed
HEADERS_S = 10.0  # a request's headers whole within this of their first byte (a browser's take milliseconds)
IDLE_S = 30.0  # a connection waiting that long for its next whole request is closed (a browser opens another)
LOG = logging.getLogger("host.web")


class Forwarding(asyncio.Protocol):
    """Hands every event of a connection to `inner`; the subclasses add what they watch."""

    inner: asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class QuietHandler(web.RequestHandler):
    """aiohttp's protocol for one connection, answering a request it cannot
    read (a line too long, too many headers, not HTTP) in one line of its
    own: aiohttp's answer quotes the request (the secret, when it carried
    it, and whatever the sender chose) and its logger prints that with a
    traceback on the guide's console."""

    __slots__ = ()

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if status >= 500:
            # A fault of the page's own server: one line on the console, never the request's text nor a
            # traceback (which quotes it); the traceback only at debug level.
            LOG.debug("the guide's page failed on a request", exc_info=exc)
            LOG.error("the guide's page failed on a request from %s (%s)", request.remote,
                      type(exc).__name__ if exc else status)
            reason = "failed"
        else:
            # The sender's doing: nothing on the console, which a stranger could fill.
            LOG.debug("refused a request it could not read from %s (%d)", request.remote, status)
            reason = "unreadable"
        if request.writer.output_size > 0:  # an answer had begun: only closing is left (as aiohttp does)
            raise ConnectionError("an answer had begun")
        response = refusals.answer(status, reason)
        response.headers.update(SECURITY_HEADERS)
        response.force_close()
        return response


class Watched(Forwarding):
    """One connection, between the listening socket and aiohttp's protocol:
    admitted by its site when it is made (the peer is known only then);
    closed when it sends no byte within SILENT_S, or when a request's headers
    are not whole HEADERS_S after their first byte. aiohttp reads a request
    only once its headers are whole, so the deadline is kept here, where the
    bytes arrive: every request's headers end with a blank line, CRLF CRLF
    (aiohttp refuses bare LFs). A WebSocket, once upgraded, sends frames, not
    requests, for as long as the page is open: no deadline."""

    def __init__(self, handler: asyncio.Protocol, site: CappedSite) -> None:
        self.inner = self.handler = handler  # inner becomes Busy for a connection refused
        self.site = site
        self.peer: Any = None
        self.transport: asyncio.Transport | None = None
        self.trusted = False  # a request on it came with the secret (set by the guard)
        self.refused = False  # a request on it was refused: a stranger's for certain
        self.upgraded = False
        self.heard = False
        self.tail = b""  # the end of the last read, for a blank line split between two reads
        self.timer: asyncio.TimerHandle | None = None  # the deadline running, if any

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a TCP connection's
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if isinstance(peer, tuple) and peer else peer
        refused = self.site.admit(self)
        if refused is not None:
            self.inner = refused
        else:
            self.timer = asyncio.get_running_loop().call_later(SILENT_S, self.cut)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self.upgraded and self.inner is self.handler:
            self._watch(data)
        self.inner.data_received(data)

    def _watch(self, data: bytes) -> None:
        seen = self.tail + data
        end = seen.rfind(b"\r\n\r\n")
        if not self.heard or end >= 0:  # the silence is over, or a request's headers are whole
            self.heard = True
            self.stop()
        rest = seen if end < 0 else seen[end + 4:]  # the next request's headers, begun
        if rest and self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(HEADERS_S, self.cut)
        self.tail = rest[-3:]

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def cut(self) -> None:
        """Its deadline passed (or a newcomer needs its place): closed, its place free at once."""
        self.timer = None
        self.site.live.pop(self.handler, None)
        if self.transport is not None:
            self.transport.abort()  # nothing owed: its request never arrived, or it lacked the secret

    def connection_lost(self, exc: Exception | None) -> None:
        self.site.live.pop(self.handler, None)
        self.stop()
        self.inner.connection_lost(exc)


def _head() -> bytes:
    return b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items())


class Busy(asyncio.Protocol):
    """A connection over the cap: one line and closed."""

    def __init__(self, reason: str, most: int) -> None:
        self.reason = reason
        self.line = (refusals.words(reason, most=most) + "\n").encode()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n%s"
                        b"%s: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                        % (_head(), refusals.HEADER.encode(), self.reason.encode(), len(self.line), self.line))
        transport.close()


def eviction_order(among: list[Watched]) -> list[Watched]:
    """The connections that may be closed for a newcomer, the first to go first:
    those no request with the secret came on; refused ones (strangers for
    certain) before undecided ones; within each, from the address holding the
    most places, the oldest first (`among` is oldest first)."""
    open_ = [c for c in among if not c.trusted]
    held = Counter(c.peer for c in open_)
    ranked = sorted(enumerate(open_), key=lambda ic: (not ic[1].refused, -held[ic[1].peer], ic[0]))
    return [c for _, c in ranked]


class CappedSite(web.TCPSite):
    """aiohttp's TCPSite, watching its connections (Watched) and keeping them
    within the caps."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, cap: int) -> None:
        # reuse_address: a guide started again at once gets its address back
        # (the last run's closed connections linger in TIME_WAIT); a
        # listening socket still refuses it.
        super().__init__(runner, host, port, reuse_address=True)
        self.cap = cap
        self.live: dict[asyncio.Protocol, Watched] = {}  # by aiohttp's protocol; oldest first
        self.refused = 0
        self.evicted = 0

    def _protocol(self) -> asyncio.Protocol:
        server = self._runner.server
        assert server is not None
        # As Server.__call__ of the pinned aiohttp makes its protocol, with the quiet answer.
        return Watched(QuietHandler(server, loop=asyncio.get_running_loop(), **server._kwargs), self)

    async def start(self) -> None:
        # TCPSite.start of the pinned aiohttp, with the watching protocol factory.
        await web.BaseSite.start(self)  # registers the site with the runner
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._protocol, self._host, self._port, backlog=self._backlog,
                                                reuse_address=self._reuse_address)
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port

    def admit(self, conn: Watched) -> Busy | None:
        """Count a new connection in; the refusal it gets instead when there is no place.
        A full cap closes a connection no request with the secret has come on
        (eviction_order): strangers never keep the person out, and only the
        person's own connections can fill it."""
        same = [c for c in self.live.values() if c.peer == conn.peer]
        if len(same) >= PER_PEER and not self._make_room(same):  # room made by its own address first
            self.refused += 1
            return (Busy("too_many_connections", MAX_CONNECTIONS) if len(self.live) >= self.cap
                    else Busy("too_many_from_one", PER_PEER))
        if len(self.live) >= self.cap and not self._make_room(list(self.live.values())):
            self.refused += 1
            return Busy("too_many_connections", MAX_CONNECTIONS)
        self.live[conn.handler] = conn
        return None

    def _make_room(self, among: list[Watched]) -> bool:
        for conn in eviction_order(among):
            self.evicted += 1
            conn.cut()
            return True
        return False

    def mark(self, handler: Any, trusted: bool) -> None:
        """A request on this connection came with the secret (it keeps its
        place) or was refused (it is the first to go)."""
        conn = self.live.get(handler)
        if conn is not None:
            if trusted:
                conn.trusted = True
            else:
                conn.refused = True

    def upgraded(self, handler: Any) -> None:
        """This connection is a WebSocket now: frames, not requests, with no deadline."""
        conn = self.live.get(handler)
        if conn is not None:
            conn.upgraded = True
            conn.stop()
