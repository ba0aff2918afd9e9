"""The page's server: aiohttp on its own thread and event loop.

GET / is the page, /static/* its files, /state the state as JSON, /ws the
WebSocket: on connecting a page gets the whole current state at once, then
every newer state (a slow page skips to the newest); what it sends is
checked by host/web/messages.py and answered to that page alone.

Who may ask (every request, on every bind), each refusal one line:
- the run's secret, as Jupyter's token: the printed address carries
  `?token=SECRET`; GET / with it sets a cookie and redirects to / so the
  secret leaves the address bar; every request needs the cookie (or the
  token in its query, for scripts); compared in constant time;
- a Host that names this machine (loopback names, its own names and
  addresses, with the port), so a site whose name is made to point here
  (DNS rebinding) is refused; an Origin, when sent, must be one of them too;
- no framing (frame-ancestors, X-Frame-Options) and no Referer, on every
  answer: aiohttp's own (a request it cannot read: one line, not the
  request's text, and nothing on the console) and the over-cap lines too;
  no version in Server;
- at most MAX_CONNECTIONS connections and MAX_PAGES WebSockets at once,
  at most PER_PEER connections from one address (one device on the network
  cannot take every place); when full, the oldest connection no request
  with the secret has come on is closed for the newcomer, so strangers never
  hold a place the person needs; a connection that sends no byte within
  SILENT_S closed, a request's headers not whole HEADERS_S after their first
  byte closed (a byte now and then does not keep a place), a connection
  waiting IDLE_S for its next request closed; and RATE messages a second on
  each WebSocket (a socket that keeps on flooding is closed).
"""
from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import WSMsgType, web

from host.web import messages
from host.web.page_state import PageState, put_table
from host.web.table import SEES_DONE, TableRefused, WebTable, not_done

STATIC_DIR = Path(__file__).resolve().parent / "static"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_CONNECTIONS = 64  # HTTP connections at once: a browser opens about 6 per page
MAX_PAGES = 16  # WebSockets at once: tabs and devices showing the guide
PER_PEER = MAX_CONNECTIONS // 2  # connections from one address: a few tabs' worth
SILENT_S = 10.0  # a connection that has sent nothing by then is closed
HEADERS_S = 10.0  # a request's headers whole within this of their first byte (a browser's take milliseconds)
IDLE_S = 30.0  # a connection waiting that long for its next whole request is closed (a browser opens another)
RATE = 20  # messages a second a page may send (a person presses far fewer)
FLOOD = 4 * RATE  # refused messages (refilled at RATE a second) before the socket is closed
# On every answer, refusals and aiohttp's own included. Server: aiohttp's default names its
# version and Python's, which tell a stranger what to try.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Server": "shuffler",
}
UNREADABLE = "the guide's page could not read this request\n"
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")


class AddressBusy(Exception):
    """Another program (another `shuffler guide --web`?) serves on the address."""


def parse_bind(text: str) -> tuple[str, int]:
    """'HOST', 'HOST:PORT', ':PORT' or 'PORT' -> (host, port); ValueError with one line."""
    text = text.strip()
    host, port = DEFAULT_HOST, DEFAULT_PORT
    if text.isdigit():
        port = int(text)
    elif text.startswith("["):  # [::1]:8765
        inside, _, rest = text[1:].partition("]")
        host = inside
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise ValueError(f"not an address: {text!r} (HOST:PORT)")
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, p = text.partition(":")
        host = host or DEFAULT_HOST
        if not p.isdigit():
            raise ValueError(f"not a port: {p!r} (HOST:PORT, PORT from 0 to 65535)")
        port = int(p)
    elif text:
        host = text
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not between 0 and 65535")
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"not a host: {host!r}")
    return host, port


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_lan_bind(host: str) -> bool:
    """Whether other machines can reach a server bound to `host`."""
    return host in ANY_ADDRESS or not _is_loopback(host)


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def route_address(family: socket.AddressFamily = socket.AF_INET) -> str | None:
    """The address this machine would use to reach the network, or None.
    Connecting a UDP socket only picks the route: no packet is sent."""
    target = ("192.0.2.1", 9) if family == socket.AF_INET else ("2001:db8::1", 9)  # documentation addresses
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(target)
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if address in ("0.0.0.0", "::") else address


def own_names(host: str) -> set[str]:
    """The names and addresses of this machine a page may use to reach a
    server bound to `host` (lower case, without the port)."""
    names = set(LOCAL_NAMES)
    if host not in ANY_ADDRESS:
        names.add(host)
    for name in {socket.gethostname(), socket.getfqdn()}:
        if not name:
            continue
        names.add(name)
        try:
            names |= {str(info[4][0]).partition("%")[0] for info in socket.getaddrinfo(name, None)}
        except (OSError, UnicodeError):
            pass  # a name that does not resolve: the name alone
    if is_lan_bind(host):
        for family in (socket.AF_INET, socket.AF_INET6):
            address = route_address(family)
            if address is not None:
                names.add(address)
    return {n.lower() for n in names}


def _cookie_name(port: int) -> str:
    # Cookies ignore the port: one name per port keeps two guides on one machine apart.
    return f"shuffler_guide_{port}"


class _Forwarding(asyncio.Protocol):
    """Hands every event of a connection to `inner`; the subclasses below
    add what they watch."""

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


class _Handler(web.RequestHandler):
    """aiohttp's protocol for one connection, answering a request it cannot
    read (a line too long, too many headers, not HTTP) in one line of its
    own: aiohttp's answer quotes the request (the secret, when it carried
    it, and whatever the sender chose) and its logger prints that with a
    traceback on the guide's console."""

    __slots__ = ()

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if status >= 500:
            # A fault of the page's own server (its code, not the request's text): worth its traceback.
            self.logger.error("the guide's page failed on a request from %s", request.remote, exc_info=exc)
            text = "the guide's page failed on this request\n"
        else:
            # The sender's doing: nothing on the console, which a stranger could fill.
            self.logger.debug("refused a request it could not read from %s (%d)", request.remote, status)
            text = UNREADABLE
        if request.writer.output_size > 0:  # an answer had begun: only closing is left (as aiohttp does)
            raise ConnectionError("an answer had begun")
        response = web.Response(status=status, text=text, headers=SECURITY_HEADERS)
        response.force_close()
        return response


class _Watched(_Forwarding):
    """One connection, between the listening socket and aiohttp's protocol:
    admitted by its site when it is made (the peer is known only then);
    closed when it sends no byte within SILENT_S, or when a request's headers
    are not whole HEADERS_S after their first byte. aiohttp reads a request
    only once its headers are whole, so the deadline is kept here, where the
    bytes arrive: every request's headers end with a blank line, CRLF CRLF
    (aiohttp refuses bare LFs). A WebSocket, once upgraded, sends frames, not
    requests, for as long as the page is open: no deadline."""

    def __init__(self, handler: asyncio.Protocol, site: _CappedSite) -> None:
        self.inner = self.handler = handler  # inner becomes _Busy for a connection refused
        self.site = site
        self.peer: Any = None
        self.transport: asyncio.Transport | None = None
        self.trusted = False  # a request on it came with the secret (set by the guard)
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
            self.inner = _Busy(refused)
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


class _Busy(asyncio.Protocol):
    """A connection over the cap: one line and closed."""

    LINE = f"too many connections to the guide's page (at most {MAX_CONNECTIONS}): close some tabs\n".encode()
    PEER_LINE = (f"too many connections to the guide's page from one address (at most {PER_PEER}): "
                 "close some tabs\n").encode()
    HEADERS = b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items())

    def __init__(self, line: bytes = LINE) -> None:
        self.line = line

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n%s"
                        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
                        % (self.HEADERS, len(self.line), self.line))
        transport.close()


class _CappedSite(web.TCPSite):
    """aiohttp's TCPSite, watching its connections (_Watched) and keeping them
    within the caps."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, cap: int) -> None:
        # reuse_address: a guide started again at once gets its address back
        # (the last run's closed connections linger in TIME_WAIT); a
        # listening socket still refuses it.
        super().__init__(runner, host, port, reuse_address=True)
        self.cap = cap
        self.live: dict[asyncio.Protocol, _Watched] = {}  # by aiohttp's protocol; oldest first
        self.refused = 0
        self.evicted = 0

    def _protocol(self) -> asyncio.Protocol:
        server = self._runner.server
        assert server is not None
        # As Server.__call__ of the pinned aiohttp makes its protocol, with the quiet answer.
        return _Watched(_Handler(server, loop=asyncio.get_running_loop(), **server._kwargs), self)

    async def start(self) -> None:
        # TCPSite.start of the pinned aiohttp, with the watching protocol factory.
        await web.BaseSite.start(self)  # registers the site with the runner
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._protocol, self._host, self._port, backlog=self._backlog,
                                                reuse_address=self._reuse_address)
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port

    def admit(self, conn: _Watched) -> bytes | None:
        """Count a new connection in; the line it gets instead when there is no place.
        A full cap closes the oldest connection no request with the secret has come
        on: strangers never keep the person out, and only the person's own
        connections can fill it."""
        same = [c for c in self.live.values() if c.peer == conn.peer]
        if len(same) >= PER_PEER and not self._make_room(same):  # room made by its own address first
            self.refused += 1
            return _Busy.LINE if len(self.live) >= self.cap else _Busy.PEER_LINE
        if len(self.live) >= self.cap and not self._make_room(list(self.live.values())):
            self.refused += 1
            return _Busy.LINE
        self.live[conn.handler] = conn
        return None

    def _make_room(self, among: list[_Watched]) -> bool:
        for conn in among:  # oldest first
            if not conn.trusted:
                self.evicted += 1
                conn.cut()
                return True
        return False

    def trust(self, handler: Any) -> None:
        """A request on this connection came with the secret: it keeps its place."""
        conn = self.live.get(handler)
        if conn is not None:
            conn.trusted = True

    def upgraded(self, handler: Any) -> None:
        """This connection is a WebSocket now: frames, not requests, with no deadline."""
        conn = self.live.get(handler)
        if conn is not None:
            conn.upgraded = True
            conn.stop()


class PageServer:
    def __init__(self, page: PageState, table: WebTable | None = None, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT, static_dir: Path = STATIC_DIR) -> None:
        self.page = page
        self.table = table
        self.host = host
        self.port = port
        self.static_dir = static_dir
        self.secret = secrets.token_urlsafe(24)  # this run's: in the printed address, nowhere else
        self.names: set[str] = set()  # this machine's names, found at start
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.runner: web.AppRunner | None = None
        self.site: _CappedSite | None = None
        self.wakers: set[asyncio.Event] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.pages_open = 0  # WebSockets accepted or being accepted
        self.requests_refused = 0

    # -- the address -------------------------------------------------------------------
    @property
    def base(self) -> str:
        """The page's address on this machine, without the secret."""
        shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        return f"http://{_hostport(shown, self.port)}/"

    @property
    def address(self) -> str:
        """The page's address on this machine, with the secret (what is printed)."""
        return f"{self.base}?token={self.secret}"

    def lan_address(self) -> str | None:
        """For a bind other machines reach: the address they use, with the secret."""
        if not is_lan_bind(self.host):
            return None
        if self.host not in ANY_ADDRESS:
            return f"http://{_hostport(self.host, self.port)}/?token={self.secret}"
        found = route_address(socket.AF_INET6 if self.host == "::" else socket.AF_INET)
        return None if found is None else f"http://{_hostport(found, self.port)}/?token={self.secret}"

    def allowed_hosts(self) -> set[str]:
        """Host headers accepted (lower case): this machine's names and addresses, with the port."""
        hosts = {_hostport(n, self.port) for n in self.names}
        if self.port == 80:  # a browser leaves the default port out
            hosts |= {f"[{n}]" if ":" in n else n for n in self.names}
        return hosts

    # -- start and stop --------------------------------------------------------------------
    def start(self) -> str:
        """Bind and serve on a thread of its own; the address, or AddressBusy."""
        started = threading.Event()
        failure: list[BaseException] = []
        self.names = own_names(self.host)

        def main() -> None:
            loop = asyncio.new_event_loop()
            self.loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._start())
            except BaseException as exc:  # noqa: BLE001 - handed to the starting thread
                failure.append(exc)
                started.set()
                loop.close()
                return
            started.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._cleanup())
                loop.close()

        self.thread = threading.Thread(target=main, name="page-server", daemon=True)
        self.thread.start()
        started.wait()
        if failure:
            exc = failure[0]
            if isinstance(exc, OSError) and exc.errno in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
                why = {errno.EADDRINUSE: "is in use (another `shuffler guide --web`?)",
                       errno.EACCES: "is not allowed for this user",
                       errno.EADDRNOTAVAIL: "is not an address of this machine"}[exc.errno]
                raise AddressBusy(f"cannot serve the page on {_hostport(self.host, self.port)}: the address {why}; "
                                  "choose another with --bind HOST:PORT") from None
            if isinstance(exc, OSError):
                raise AddressBusy(f"cannot serve the page on {_hostport(self.host, self.port)}: "
                                  f"{exc.strerror or exc}") from None
            raise exc
        self.page.listen(self._wake_all)
        return self.address

    def stop(self) -> None:
        self.page.unlisten(self._wake_all)
        loop, thread = self.loop, self.thread
        if loop is None or thread is None or not thread.is_alive():
            return
        try:
            # Every page gets the last state (how it ended) before the sockets close.
            asyncio.run_coroutine_threadsafe(self._close_sockets(), loop).result(5.0)
        except (TimeoutError, RuntimeError, ConnectionError):
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    async def _start(self) -> None:
        app = web.Application(middlewares=[self._guard], client_max_size=messages.MAX_BYTES * 4)
        app.on_response_prepare.append(self._secure)
        app.router.add_get("/", self._index)
        app.router.add_get("/state", self._state)
        app.router.add_get("/ws", self._ws)
        app.router.add_static("/static/", self.static_dir, show_index=False, follow_symlinks=False)
        # shutdown_timeout: at a stop every page has had its last state and its
        # socket is closed; nothing is worth aiohttp's default wait of 60 s.
        # keepalive_timeout: aiohttp closes a connection that has not brought a
        # whole request this long after it opened or after its last answer
        # (its default, an hour, let a stranger keep a place all that time).
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0,
                                    keepalive_timeout=IDLE_S)
        await self.runner.setup()
        self.site = _CappedSite(self.runner, self.host, self.port, MAX_CONNECTIONS)
        try:
            await self.site.start()
        except BaseException:
            await self.runner.cleanup()
            raise
        self.port = self.site.port  # the port the system chose, for port 0

    async def _close_sockets(self) -> None:
        _, text = self.page.text()
        for ws in list(self.sockets):
            if not ws.closed:
                try:
                    await ws.send_str(text)
                    await ws.close(message=b"the guide has ended")
                except (ConnectionError, RuntimeError):
                    pass

    async def _cleanup(self) -> None:
        await self._close_sockets()
        if self.runner is not None:
            await self.runner.cleanup()

    # -- who may ask ----------------------------------------------------------------------
    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        refused = self._refusal(request)
        if refused is not None:
            self.requests_refused += 1
            return refused
        if self.site is not None:  # the person's: its connection keeps its place
            self.site.trust(request.protocol)
        if request.path == "/" and "token" in request.query:
            # The secret leaves the address bar (and the history): a cookie, and / again.
            response = web.Response(status=303, headers={"Location": "/"}, text="the guide's page: /\n")
            response.set_cookie(_cookie_name(self.port), self.secret, path="/", httponly=True, samesite="Strict")
            return response
        try:
            return await handler(request)
        except web.HTTPException as exc:  # e.g. no such file: one line (with the headers of every answer)
            return web.Response(status=exc.status, text=f"{exc.reason.lower()}\n")

    async def _secure(self, request: web.Request, response: web.StreamResponse) -> None:
        """Every answer the application makes, as its headers go out (a WebSocket's
        handshake, a file, a refusal alike)."""
        response.headers.update(SECURITY_HEADERS)

    def _refusal(self, request: web.Request) -> web.Response | None:
        """403 with one line for a request that may not be answered; None when it may."""
        host = request.headers.get("Host", "").lower()
        allowed = self.allowed_hosts()
        if host not in allowed:
            return web.Response(status=403, text="this page answers only to this machine's own names and "
                                                 "addresses (the address the guide printed)\n")
        origin = request.headers.get("Origin")
        if origin is not None and not (origin.lower().startswith("http://")
                                       and origin.lower().removeprefix("http://") in allowed):
            return web.Response(status=403, text="requests from other sites are refused\n")
        token = request.query.get("token")
        if token is not None:
            if hmac.compare_digest(token.encode(), self.secret.encode()):
                return None
            return web.Response(status=403, text="that is not this run's address: open the address the guide "
                                                 "printed\n")
        cookie = request.cookies.get(_cookie_name(self.port))
        if cookie is None:
            return web.Response(status=403, text="the guide's page needs the address the guide printed (with its "
                                                 "?token=)\n")
        if not hmac.compare_digest(cookie.encode(), self.secret.encode()):
            return web.Response(status=403, text="this page is from an earlier run of the guide: open the address "
                                                 "the guide printed\n")
        return None

    # -- handlers ----------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(self.static_dir / "index.html")

    async def _state(self, request: web.Request) -> web.StreamResponse:
        _, text = self.page.text()
        return web.Response(text=text, content_type="application/json")

    def _wake_all(self) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._set_wakers)
        except RuntimeError:  # the loop just closed
            pass

    def _set_wakers(self) -> None:
        for ev in self.wakers:
            ev.set()

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        if self.pages_open >= MAX_PAGES:
            self.requests_refused += 1
            return web.Response(status=503, text=f"too many pages are open on the guide (at most {MAX_PAGES}): "
                                                 "close some\n")
        self.pages_open += 1  # counted before the first await, so a burst cannot slip past the cap
        try:
            return await self._page(request)
        finally:
            self.pages_open -= 1

    async def _page(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=messages.MAX_BYTES * 4, heartbeat=30)
        await ws.prepare(request)
        if self.site is not None:
            self.site.upgraded(request.protocol)
        wake = asyncio.Event()
        self.wakers.add(wake)
        self.sockets.add(ws)
        sender = asyncio.ensure_future(self._send_states(ws, wake))
        bucket = _Bucket(RATE, RATE)
        strikes = _Bucket(FLOOD, RATE)
        try:
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                if not bucket.take():
                    if not strikes.take():
                        await ws.close(code=1008, message=b"too many messages")
                        break
                    reply: dict[str, Any] | None = {
                        "error": f"too many messages (at most {RATE} a second): this one was not read"}
                elif msg.type == WSMsgType.TEXT:
                    reply = await self.handle(msg.data)
                else:
                    reply = {"error": "a message must be UTF-8 JSON text"}
                if reply is not None and not ws.closed:
                    await ws.send_str(json.dumps(reply))
        except (ConnectionError, RuntimeError):
            pass  # the page went away mid-reply
        finally:
            sender.cancel()
            self.wakers.discard(wake)
            self.sockets.discard(ws)
        return ws

    async def _send_states(self, ws: web.WebSocketResponse, wake: asyncio.Event) -> None:
        sent = -1
        try:
            while not ws.closed:
                version, text = self.page.text()
                if version != sent:
                    await ws.send_str(text)
                    sent = version
                await wake.wait()
                wake.clear()
        except (ConnectionError, RuntimeError):
            pass  # the page went away; its handler ends

    async def handle(self, raw: str | bytes) -> dict[str, Any] | None:
        """One message from a page: the reply to that page. Never raises."""
        try:
            msg = messages.parse(raw)
        except messages.Refused as exc:
            return {"error": str(exc)}
        if msg.op == "done":
            why = await self._table_says_not_done(msg.args["step"])
            if why is None:
                why = self.page.try_answer(msg.args["step"])
            return {"ok": f"step {msg.args['step']} done"} if why is None else {"error": why}
        if msg.op == "close":
            if not self.page.get("finished"):
                return {"error": "the guide is still running: it ends with its summary or Ctrl-C"}
            self.page.quit.set()
            return {"ok": "closed"}
        table = self.table
        if table is None:
            return {"error": "there is no virtual table (start the guide with --sim)"}
        # The step it was pressed at, and once per step: the same op with the
        # same arguments (do_step has none but the step) is one press.
        step = msg.args["step"]
        control = (msg.op, tuple(sorted((k, v) for k, v in msg.args.items() if k != "step")))
        why = self.page.claim(step, control)
        if why is not None:
            return {"error": why}
        try:
            said = await asyncio.get_running_loop().run_in_executor(None, table.do, msg, self.page.get("step"))
        except TableRefused as exc:
            self.page.unclaim(step, control)  # it did nothing: it may be pressed again
            return {"error": str(exc)}
        except OSError as exc:
            self.page.unclaim(step, control)
            return {"error": f"lost the virtual shuffler: {exc.strerror or exc}"}
        await asyncio.get_running_loop().run_in_executor(None, self.refresh_table)
        return {"ok": said}

    async def _table_says_not_done(self, number: int) -> str | None:
        """Why the virtual table shows step `number` is not done (its piles
        still on the machine), looked at now; None when it cannot tell, and
        the guide's own checks decide."""
        step, table = self.page.get("step"), self.table
        if (table is None or step is None or step.get("number") != number or step.get("answer") != "done"
                or step.get("answered") or step.get("kind") not in SEES_DONE):
            return None  # the page's own checks say why not, if not
        try:
            seen = await asyncio.get_running_loop().run_in_executor(None, table.snapshot)
        except (OSError, ValueError, RuntimeError):
            return None
        return not_done(step, seen)

    def refresh_table(self) -> None:
        """Look at the virtual table again and put it in the state."""
        if self.table is None:
            return
        try:
            seen = self.table.snapshot()
        except (OSError, ValueError, RuntimeError) as exc:
            self.page.update(table_error=f"cannot see the virtual table: {exc}")
            return
        self.page.edit(lambda state: put_table(state, seen))


class _Bucket:
    """A token bucket: `size` at once, refilled at `rate` a second."""

    def __init__(self, size: float, rate: float) -> None:
        self.size = size
        self.rate = rate
        self.tokens = size
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.size, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
