"""The pages' WebSockets: on connecting a page gets the whole current state
at once, then every newer state (a slow page skips to the newest) and a beat
every BEAT_S seconds; what it sends is handed to `handle` and the reply goes
to that page alone.

The beat says the guide is there to answer: it carries how long ago the
guide's own thread last looked for the person's answers (`guide_s`, None
before it first did and after it ended). A page that hears no beat for 3 s,
or hears that the guide has not looked for 3 s (the process stopped, the
machine asleep, the network gone without closing, the guide stuck), says
so and holds Done until the guide answers again.

Caps: MAX_PAGES WebSockets at once (more get a 503 line), RATE messages a
second on each (a token bucket: more are answered with one line, and a page
that keeps on flooding is closed).
"""
from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Awaitable, Callable

from aiohttp import WSMsgType, web

from host.web import messages, refusals
from host.web.page_state import PageState

MAX_PAGES = 16  # WebSockets at once: tabs and devices showing the guide
RATE = 20  # messages a second a page may send (a person presses far fewer)
FLOOD = 4 * RATE  # refused messages (refilled at RATE a second) before the socket is closed
BEAT_S = 1.0  # the guide's beat to every page; a page waits 3 of them before it says the guide is not answering


class Bucket:
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


class Pages:
    """Every page's socket of one server, on the server's event loop."""

    def __init__(self, page: PageState, handle: Callable[[str | bytes], Awaitable[dict[str, Any] | None]],
                 upgraded: Callable[[web.BaseRequest], None]) -> None:
        self.page = page
        self.handle = handle
        self.upgraded = upgraded
        self.wakers: set[asyncio.Event] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.open = 0  # WebSockets accepted or being accepted
        self.refused = 0

    def wake_all(self) -> None:
        for ev in self.wakers:
            ev.set()

    async def serve(self, request: web.Request) -> web.StreamResponse:
        if self.open >= MAX_PAGES:
            self.refused += 1
            return refusals.answer(503, "too_many_pages", most=MAX_PAGES)
        self.open += 1  # counted before the first await, so a burst cannot slip past the cap
        try:
            return await self._page(request)
        finally:
            self.open -= 1

    async def _page(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=messages.MAX_BYTES * 4, heartbeat=30)
        await ws.prepare(request)
        self.upgraded(request)
        wake = asyncio.Event()
        self.wakers.add(wake)
        self.sockets.add(ws)
        sender = asyncio.ensure_future(self._send_states(ws, wake))
        try:
            await self._read(ws)
        except (ConnectionError, RuntimeError):
            pass  # the page went away mid-reply
        finally:
            sender.cancel()
            self.wakers.discard(wake)
            self.sockets.discard(ws)
        return ws

    async def _read(self, ws: web.WebSocketResponse) -> None:
        bucket = Bucket(RATE, RATE)
        strikes = Bucket(FLOOD, RATE)
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                break
            if not bucket.take():
                if not strikes.take():
                    await ws.close(code=1008, message=b"too many messages")
                    break
                reply: dict[str, Any] | None = refusals.reply("too_many_messages", most=RATE)
            elif msg.type == WSMsgType.TEXT:
                reply = await self.handle(msg.data)
            else:
                reply = refusals.reply("not_text")
            if reply is not None and not ws.closed:
                await ws.send_str(json.dumps(reply))

    async def _send_states(self, ws: web.WebSocketResponse, wake: asyncio.Event) -> None:
        """The newest state whenever it changes, and the beat between: the
        socket waits on an event, never polls."""
        sent = -1
        beat = 0
        try:
            while not ws.closed:
                version, text = self.page.text()
                if version != sent:
                    await ws.send_str(text)
                    sent = version
                try:
                    await asyncio.wait_for(wake.wait(), BEAT_S)
                    wake.clear()
                except asyncio.TimeoutError:
                    beat += 1
                    await ws.send_str(json.dumps({"beat": beat, "guide_s": self.page.guide_silent_s()}))
        except (ConnectionError, RuntimeError):
            pass  # the page went away; its handler ends

    async def close_all(self) -> None:
        """Every page gets the last state (how it ended), then its socket closes."""
        _, text = self.page.text()
        for ws in list(self.sockets):
            if not ws.closed:
                try:
                    await ws.send_str(text)
                    await ws.close(message=b"the guide has ended")
                except (ConnectionError, RuntimeError):
                    pass
