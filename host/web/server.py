"""The page's server: aiohttp on its own thread and event loop.

GET / is the page, /static/NAME its files (host/web/static_files.py),
/state the state as JSON, /ws the WebSocket (host/web/page_socket.py).
Every request passes the guard first (host/web/guard.py: the secret, the
Host, the Origin, other sites), its `Expect` included; the connections are
watched and capped where they are made (host/web/connections.py). Any path
is a 404 line at worst, and nothing a request sends puts a traceback on the
console. The messages a page sends are answered here: the person's answers
and the virtual table's controls, each held to its step.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import secrets
import socket
import threading
from pathlib import Path
from typing import Any

from aiohttp import web

from host.web import connections, messages, refusals
from host.web.addresses import (ANY_ADDRESS, DEFAULT_HOST, DEFAULT_PORT, allowed_hosts, hostport, is_lan_bind,
                                own_names, parse_bind, route_address)
from host.web.guard import Guard
from host.web.page_socket import Pages
from host.web.page_state import PageState, put_table
from host.web.static_files import ICON, StaticFiles
from host.web.table import SEES_DONE, TableRefused, WebTable, not_done

__all__ = ["AddressBusy", "PageServer", "is_lan_bind", "parse_bind", "route_address", "DEFAULT_HOST", "DEFAULT_PORT"]

STATIC_DIR = Path(__file__).resolve().parent / "static"
LOG = logging.getLogger("host.web")
BUSY_WORDS = {errno.EADDRINUSE: "is in use (another `shuffler guide --web`?)",
              errno.EACCES: "is not allowed for this user",
              errno.EADDRNOTAVAIL: "is not an address of this machine"}


class AddressBusy(Exception):
    """The page cannot be served on `where` (host:port): `errno` says why
    (BUSY_WORDS; another `shuffler guide --web`, most often), or `strerror`
    for a refusal with no words of its own."""

    def __init__(self, where: str, errno: int | None = None, strerror: str = "") -> None:
        self.where = where
        self.errno = errno
        self.strerror = strerror
        super().__init__(where, errno, strerror)

    def __str__(self) -> str:
        if self.errno in BUSY_WORDS:
            return (f"cannot serve the page on {self.where}: the address {BUSY_WORDS[self.errno]}; "
                    "choose another with --bind HOST:PORT")
        return f"cannot serve the page on {self.where}: {self.strerror}"


class PageServer:
    def __init__(self, page: PageState, table: WebTable | None = None, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT, static_dir: Path = STATIC_DIR) -> None:
        self.page = page
        self.table = table
        self.host = host
        self.port = port
        self.static = StaticFiles(static_dir)
        self.secret = secrets.token_urlsafe(24)  # this run's: in the printed address, nowhere else
        self.names: set[str] = set()  # this machine's names, found at start
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.runner: web.AppRunner | None = None
        self.site: connections.CappedSite | None = None
        self.guard = Guard(self.secret, lambda: self.port, self.allowed_hosts, self._mark)
        self.pages = Pages(page, self.handle, self._upgraded)

    @property
    def pages_open(self) -> int:
        return self.pages.open

    @property
    def requests_refused(self) -> int:
        return self.guard.refused + self.pages.refused

    # -- the address -------------------------------------------------------------------
    @property
    def base(self) -> str:
        """The page's address on this machine, without the secret."""
        shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        return f"http://{hostport(shown, self.port)}/"

    @property
    def address(self) -> str:
        """The page's address on this machine, with the secret (what is printed)."""
        return f"{self.base}?token={self.secret}"

    def lan_address(self) -> str | None:
        """For a bind other machines reach: the address they use, with the secret."""
        if not is_lan_bind(self.host):
            return None
        if self.host not in ANY_ADDRESS:
            return f"http://{hostport(self.host, self.port)}/?token={self.secret}"
        found = route_address(socket.AF_INET6 if self.host == "::" else socket.AF_INET)
        return None if found is None else f"http://{hostport(found, self.port)}/?token={self.secret}"

    def allowed_hosts(self) -> set[str]:
        """Host headers accepted (lower case): this machine's names and addresses, with the port."""
        return allowed_hosts(self.names, self.port)

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
            raise self._why_not(failure[0])
        self.page.listen(self._wake_all)
        return self.address

    def _why_not(self, exc: BaseException) -> BaseException:
        where = hostport(self.host, self.port)
        if isinstance(exc, OSError) and exc.errno in BUSY_WORDS:
            return AddressBusy(where, exc.errno)
        if isinstance(exc, OSError):
            return AddressBusy(where, strerror=exc.strerror or str(exc))
        return exc

    def stop(self) -> None:
        self.page.unlisten(self._wake_all)
        loop, thread = self.loop, self.thread
        if loop is None or thread is None or not thread.is_alive():
            return
        try:
            # Every page gets the last state (how it ended) before the sockets close.
            asyncio.run_coroutine_threadsafe(self.pages.close_all(), loop).result(5.0)
        except (TimeoutError, RuntimeError, ConnectionError):
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    async def _start(self) -> None:
        app = web.Application(middlewares=[self.guard.middleware], client_max_size=messages.MAX_BYTES * 4)
        app.on_response_prepare.append(self.guard.secure)
        # One route for every path and method, so the guard sees each request
        # (its Expect too) before anything answers it, and a path is looked up
        # here, never on the disk.
        app.router.add_route("*", "/{path:.*}", self._dispatch, expect_handler=self.guard.expect)
        # shutdown_timeout: at a stop every page has had its last state and its
        # socket is closed; nothing is worth aiohttp's default wait of 60 s.
        # keepalive_timeout: aiohttp closes a connection that has not brought a
        # whole request this long after it opened or after its last answer
        # (its default, an hour, let a stranger keep a place all that time).
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0,
                                    keepalive_timeout=connections.IDLE_S)
        await self.runner.setup()
        self.site = connections.CappedSite(self.runner, self.host, self.port, connections.MAX_CONNECTIONS)
        try:
            await self.site.start()
        except BaseException:
            await self.runner.cleanup()
            raise
        self.port = self.site.port  # the port the system chose, for port 0

    async def _cleanup(self) -> None:
        await self.pages.close_all()
        if self.runner is not None:
            await self.runner.cleanup()

    # -- the connections, as the guard and the sockets tell ------------------------------------
    def _mark(self, request: web.BaseRequest, trusted: bool) -> None:
        if self.site is not None:
            self.site.mark(request.protocol, trusted)

    def _upgraded(self, request: web.BaseRequest) -> None:
        if self.site is not None:
            self.site.upgraded(request.protocol)

    def _wake_all(self) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self.pages.wake_all)
        except RuntimeError:  # the loop just closed
            pass

    # -- the paths ---------------------------------------------------------------------------
    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        """Every request the guard let through: a page's path, or a 404 line."""
        if request.method not in ("GET", "HEAD"):
            refused = refusals.answer(405, "only_read")
            refused.headers["Allow"] = "GET"
            return refused
        path = request.path
        try:
            if path == "/":
                return self.static.answer("index.html")
            if path == "/state":
                return web.Response(text=self.page.text()[1], content_type="application/json")
            if path == "/ws":
                return await self.pages.serve(request)
            if path == "/favicon.ico":
                return self.static.answer(ICON)
            if path.startswith("/static/"):
                return self.static.answer(path.removeprefix("/static/"))
        except web.HTTPException as exc:  # e.g. a WebSocket handshake it could not read: one line
            return refusals.answer(exc.status, "handshake", what=exc.reason.lower())
        return refusals.answer(404, "not_found")

    # -- what a page says --------------------------------------------------------------------
    async def handle(self, raw: str | bytes) -> dict[str, Any] | None:
        """One message from a page: the reply to that page. Never raises."""
        try:
            msg = messages.parse(raw)
        except messages.Refused as exc:
            return {"error": str(exc), "reason": "message"}
        if msg.op == "done":
            why = await self._table_says_not_done(msg.args["step"])
            if why is None:
                why = self.page.try_answer(msg.args["step"])
            return {"ok": f"step {msg.args['step']} done"} if why is None else why
        if msg.op == "close":
            if not self.page.get("finished"):
                return refusals.reply("still_running")
            self.page.quit.set()
            return {"ok": "closed"}
        return await self._table_control(msg)

    async def _table_control(self, msg: messages.Message) -> dict[str, Any]:
        table = self.table
        if table is None:
            return refusals.reply("no_table")
        # The step it was pressed at, and once per step: the same op with the
        # same arguments (do_step has none but the step) is one press.
        step = msg.args["step"]
        control = (msg.op, tuple(sorted((k, v) for k, v in msg.args.items() if k != "step")))
        why = self.page.claim(step, control)
        if why is not None:
            return why
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

    async def _table_says_not_done(self, number: int) -> dict[str, Any] | None:
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
