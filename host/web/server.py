"""The page's server: aiohttp on its own thread and event loop.

GET / is the page, /static/* its files, /state the state as JSON, /ws the
WebSocket: on connecting a page gets the whole current state at once, then
every newer state (a slow page skips to the newest); what it sends is
checked by host/web/messages.py and answered to that page alone.

Only this machine's pages are served: a request whose Host is not the
address the server is bound to (DNS rebinding) or whose Origin is another
site's (a page elsewhere opening our WebSocket) is refused with 403.
"""
from __future__ import annotations

import asyncio
import errno
import ipaddress
import json
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import WSMsgType, web

from host.web import messages
from host.web.page_state import PageState
from host.web.table import TableRefused, WebTable

STATIC_DIR = Path(__file__).resolve().parent / "static"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


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


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class PageServer:
    def __init__(self, page: PageState, table: WebTable | None = None, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT, static_dir: Path = STATIC_DIR) -> None:
        self.page = page
        self.table = table
        self.host = host
        self.port = port
        self.static_dir = static_dir
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.runner: web.AppRunner | None = None
        self.wakers: set[asyncio.Event] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.requests_refused = 0

    # -- the address -------------------------------------------------------------------
    @property
    def address(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{_hostport(shown, self.port)}/"

    def allowed_hosts(self) -> set[str] | None:
        """Host headers accepted; None when bound to every interface (a LAN tablet)."""
        if self.host in ("0.0.0.0", "::", ""):
            return None
        names = {self.host}
        if _is_loopback(self.host):
            names |= {"localhost", "127.0.0.1", "::1"}
        return {_hostport(n, self.port) for n in names}

    # -- start and stop --------------------------------------------------------------------
    def start(self) -> str:
        """Bind and serve on a thread of its own; the address, or AddressBusy."""
        started = threading.Event()
        failure: list[BaseException] = []

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
        app = web.Application(middlewares=[self._same_origin], client_max_size=messages.MAX_BYTES * 4)
        app.router.add_get("/", self._index)
        app.router.add_get("/state", self._state)
        app.router.add_get("/ws", self._ws)
        app.router.add_static("/static/", self.static_dir, show_index=False, follow_symlinks=False)
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port, reuse_address=False)
        try:
            await site.start()
        except BaseException:
            await self.runner.cleanup()
            raise
        if self.port == 0:  # the port the system chose
            server = site._server  # noqa: SLF001 - aiohttp keeps it there
            assert server is not None and isinstance(server, asyncio.base_events.Server)
            self.port = server.sockets[0].getsockname()[1]

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
    async def _same_origin(self, request: web.Request,
                           handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        allowed = self.allowed_hosts()
        host = request.headers.get("Host", "")
        if allowed is not None and host not in allowed:
            self.requests_refused += 1
            return web.Response(status=403, text="this page is served to this machine only\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{host}":
            self.requests_refused += 1
            return web.Response(status=403, text="requests from other sites are refused\n")
        response = await handler(request)
        response.headers["Content-Security-Policy"] = "default-src 'self'; img-src 'self' data:"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"
        return response

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
        ws = web.WebSocketResponse(max_msg_size=messages.MAX_BYTES * 4, heartbeat=30)
        await ws.prepare(request)
        wake = asyncio.Event()
        self.wakers.add(wake)
        self.sockets.add(ws)
        sender = asyncio.ensure_future(self._send_states(ws, wake))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    reply = await self.handle(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    reply = {"error": "a message must be UTF-8 JSON text"}
                else:
                    break
                if reply is not None and not ws.closed:
                    await ws.send_str(json.dumps(reply))
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

    def refresh_table(self) -> None:
        """Look at the virtual table again and put it in the state."""
        if self.table is None:
            return
        try:
            self.page.update(table=self.table.snapshot())
        except (OSError, ValueError, RuntimeError) as exc:
            self.page.update(table_error=f"cannot see the virtual table: {exc}")
