"""Who may drive the guide's page: only a browser that was given the
printed address (the run's secret), reaching this machine by one of its own
names, from the page itself; never inside another site's frame; and never
more connections, pages or messages than a person makes. On a loopback and
on a LAN bind alike. Every refusal is one line."""
from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Iterator

import aiohttp
import pytest

from host.web import server as srv
from host.web.page_state import PageState
from host.web.run import WebSession
from host.web.server import PageServer, route_address
from web_support import base_of, url

LAN = route_address()


@pytest.fixture(params=["127.0.0.1", "0.0.0.0"], ids=["loopback", "lan-bind"])
def served(request: pytest.FixtureRequest) -> Iterator[PageServer]:
    server = PageServer(PageState(), host=request.param, port=0)
    server.start()
    yield server
    server.stop()


def targets(server: PageServer) -> list[str]:
    """The page's address (with its secret) as each way to reach it gives it."""
    out = [server.address]
    if server.host == "0.0.0.0" and LAN is not None:
        out.append(f"http://{LAN}:{server.port}/?token={server.secret}")
    return out


async def fetch(address: str, headers: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
                redirects: bool = False) -> tuple[int, dict[str, str], str]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), cookies=cookies) as s:
        async with s.get(address, headers=headers or {}, allow_redirects=redirects) as r:
            return r.status, dict(r.headers), await r.text()


def get(address: str, **kw: Any) -> tuple[int, dict[str, str], str]:
    return asyncio.run(fetch(address, **kw))


async def ws_status(address: str, headers: dict[str, str] | None = None, origin: str | None = None,
                    cookies: dict[str, str] | None = None) -> int:
    """101 when the WebSocket opens (and sends the state at once), else the refusal's status."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), cookies=cookies) as s:
        try:
            async with s.ws_connect(address, headers=headers or {}, origin=origin) as ws:
                assert "version" in await ws.receive_json()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def one_line(text: str) -> bool:
    return text.endswith("\n") and text.count("\n") == 1 and len(text) > 10


def test_without_the_secret_the_page_state_and_websocket_are_refused(served: PageServer) -> None:
    for address in targets(served):
        for path in ("", "state", "static/app.js"):
            status, _, text = get(base_of(address) + path)
            assert status == 403 and one_line(text), (address, path, status, text)
            assert get(base_of(address) + path + "?token=wrong")[0] == 403
            assert get(url(address, path))[0] in (200, 303)  # the secret is what was missing
        origin = base_of(address).rstrip("/")
        assert asyncio.run(ws_status(base_of(address) + "ws", origin=origin)) == 403
        assert asyncio.run(ws_status(base_of(address) + "ws")) == 403  # no Origin: the secret is still needed
        assert asyncio.run(ws_status(url(address, "ws"), origin=origin)) == 101
        assert asyncio.run(ws_status(url(address, "ws"))) == 101  # a script, with the secret


def test_the_secret_in_the_address_gives_a_cookie_and_a_redirect_without_it(served: PageServer) -> None:
    status, headers, _ = get(served.address)
    assert status == 303 and headers["Location"] == "/"
    cookie = headers["Set-Cookie"]
    name = f"shuffler_guide_{served.port}"
    assert cookie.startswith(f"{name}={served.secret};")
    assert {"HttpOnly", "Path=/", "SameSite=Strict"} <= {part.strip() for part in cookie.split(";")}
    jar = {name: served.secret}
    for path in ("", "state", "static/app.js"):
        assert get(served.base + path, cookies=jar)[0] == 200
    assert asyncio.run(ws_status(served.base + "ws", origin=served.base.rstrip("/"), cookies=jar)) == 101
    status, _, html = get(served.address, redirects=True)  # as a browser: the redirect, with the cookie
    assert status == 200 and "/static/app.js" in html


def test_a_tab_from_an_earlier_run_is_told_so(served: PageServer) -> None:
    jar = {f"shuffler_guide_{served.port}": "the-secret-of-an-earlier-run"}
    status, _, text = get(served.base + "state", cookies=jar)
    assert status == 403
    assert text == "this page is from an earlier run of the guide: open the address the guide printed\n"
    assert asyncio.run(ws_status(served.base + "ws", origin=served.base.rstrip("/"), cookies=jar)) == 403


@pytest.mark.parametrize("headers", [
    {"Host": "evil.example:{port}"},
    {"Host": "evil.example:{port}", "Origin": "http://evil.example:{port}"},  # DNS rebinding: both agree
    {"Host": "evil.example", "Origin": "http://evil.example"},
    {"Host": "127.0.0.1.evil.example:{port}"},
    {"Host": "127.0.0.1:1{port}"},  # this machine, another port
], ids=["host", "rebinding", "rebinding-no-port", "lookalike", "other-port"])
def test_a_foreign_host_is_refused_on_every_bind(served: PageServer, headers: dict[str, str]) -> None:
    h = {k: v.format(port=served.port) for k, v in headers.items()}
    for path in ("", "state", "static/app.js"):
        status, _, text = get(url(served.address, path), headers=h)  # even with the secret
        assert status == 403 and one_line(text)
    assert asyncio.run(ws_status(url(served.address, "ws"), headers={"Host": h["Host"]},
                                 origin=h.get("Origin"))) == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "http://evil.example:{port}", "null",
                                    "https://127.0.0.1:{port}", "http://127.0.0.1:1{port}",
                                    "http://127.0.0.1:{port}.evil.example"])
def test_a_foreign_origin_is_refused_on_every_bind(served: PageServer, origin: str) -> None:
    o = origin.format(port=served.port)
    for path in ("", "state"):
        status, _, text = get(url(served.address, path), headers={"Origin": o})
        assert status == 403 and text == "requests from other sites are refused\n"
    assert asyncio.run(ws_status(url(served.address, "ws"), origin=o)) == 403
    # The page's own origin, by each of this machine's names, is accepted.
    for address in targets(served):
        assert asyncio.run(ws_status(url(address, "ws"), origin=base_of(address).rstrip("/"))) == 101
    assert asyncio.run(ws_status(url(served.address, "ws"), origin=f"http://localhost:{served.port}",
                                 headers={"Host": f"localhost:{served.port}"})) == 101


def test_framing_and_referrers_are_refused_on_every_answer(served: PageServer) -> None:
    for address in (served.address, url(served.address, "state"), url(served.address, "static/app.js"),
                    served.base, url(served.address, "nothing")):
        _, headers, _ = get(address)
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"


def test_a_flood_of_connections_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(srv, "PER_PEER", srv.MAX_CONNECTIONS)  # the whole cap from one address here
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()

    async def flood() -> tuple[bytes, int]:
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(srv.MAX_CONNECTIONS)]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            # The server answers and closes (the limit only turns a missing cap into a failure).
            over = await asyncio.wait_for(reader.read(), 60)
            writer.close()
            async with aiohttp.ClientSession() as s:  # a real request over the cap is refused too
                try:
                    async with s.get(url(server.address, "state")) as r:
                        status = r.status
                except aiohttp.ClientConnectionError:
                    status = 0
            return over, status
        finally:
            for _, w in held:
                w.close()

    try:
        over, status = asyncio.run(flood())
        assert over.startswith(b"HTTP/1.1 503 ")
        assert over.endswith(f"too many connections to the guide's page (at most {srv.MAX_CONNECTIONS}): "
                             "close some tabs\n".encode())
        assert status in (503, 0)
        assert server.site is not None and server.site.refused >= 1
        # The held connections gone, the page is served again.
        deadline = time.monotonic() + 60
        while server.site.live and time.monotonic() < deadline:
            time.sleep(0.05)
        assert get(url(server.address, "state"))[0] == 200
    finally:
        server.stop()


def test_one_address_cannot_take_every_place() -> None:
    # A device on the network holding connections open leaves room for the others.
    server = PageServer(PageState(), host="0.0.0.0", port=0)
    server.start()

    async def hold() -> tuple[bytes, int | None]:
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(srv.PER_PEER)]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            over = await asyncio.wait_for(reader.read(), 60)
            writer.close()
            other = None
            if LAN is not None:  # another address still gets the page
                other = (await fetch(f"http://{LAN}:{server.port}/state?token={server.secret}"))[0]
            return over, other
        finally:
            for _, w in held:
                w.close()

    try:
        over, other = asyncio.run(hold())
        assert over.startswith(b"HTTP/1.1 503 ")
        assert over.endswith(f"from one address (at most {srv.PER_PEER}): close some tabs\n".encode())
        assert other in (None, 200)
    finally:
        server.stop()


def test_a_connection_that_sends_nothing_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(srv, "SILENT_S", 0.5)
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()

    async def silent() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            return await asyncio.wait_for(reader.read(), 60)  # the server closes it: end of stream
        finally:
            writer.close()

    try:
        assert asyncio.run(silent()) == b""
        assert server.site is not None
        deadline = time.monotonic() + 60
        while server.site.live and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not server.site.live  # its place is free again
        assert get(url(server.address, "state"))[0] == 200  # one that asks is served
    finally:
        server.stop()


def test_too_many_pages_at_once_are_refused() -> None:
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()
    origin = server.base.rstrip("/")

    async def pages() -> tuple[int, str, int]:
        async with aiohttp.ClientSession() as s:
            open_ = [await s.ws_connect(url(server.address, "ws"), origin=origin) for _ in range(srv.MAX_PAGES)]
            try:
                async with s.get(url(server.address, "ws"), headers={
                        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": origin}) as r:
                    over, text = r.status, await r.text()
                await open_.pop().close()
                while server.pages_open >= srv.MAX_PAGES:  # the server has seen it go
                    await asyncio.sleep(0.02)
                async with s.ws_connect(url(server.address, "ws"), origin=origin) as again:
                    assert "version" in await again.receive_json()
                    after = 101
            finally:
                for ws in open_:
                    await ws.close()
            return over, text, after

    try:
        over, text, after = asyncio.run(pages())
    finally:
        server.stop()
    assert over == 503 and text == f"too many pages are open on the guide (at most {srv.MAX_PAGES}): close some\n"
    assert after == 101


def test_a_message_flood_is_capped_and_a_page_that_keeps_on_is_closed() -> None:
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()
    origin = server.base.rstrip("/")
    msg = json.dumps({"op": "done", "step": 7})

    async def flood() -> tuple[list[dict[str, Any]], float, Any, list[dict[str, Any]]]:
        async with aiohttp.ClientSession() as s:
            # A person's pace is never refused.
            async with s.ws_connect(url(server.address, "ws"), origin=origin) as calm:
                await calm.receive_json()
                paced = []
                for _ in range(10):
                    await calm.send_str(msg)
                    paced.append(await calm.receive_json())
            async with s.ws_connect(url(server.address, "ws"), origin=origin) as ws:
                await ws.receive_json()
                started = time.monotonic()
                for _ in range(2000):
                    try:
                        await ws.send_str(msg)
                    except (ConnectionError, aiohttp.ClientConnectionError):
                        break  # closed by the server mid-flood
                replies = []

                async def read_to_the_end() -> None:
                    async for m in ws:
                        if m.type == aiohttp.WSMsgType.TEXT:
                            replies.append(json.loads(m.data))

                # The server closes it (the limit only turns a missing cap into a failure).
                await asyncio.wait_for(read_to_the_end(), 120)
                return replies, time.monotonic() - started, ws.close_code, paced

    try:
        replies, took, code, paced = asyncio.run(flood())
    finally:
        server.stop()
    too_many = f"too many messages (at most {srv.RATE} a second): this one was not read"
    assert all(r["error"] != too_many for r in paced)
    read = [r for r in replies if r.get("error") != too_many]
    refused = len(replies) - len(read)
    assert refused >= srv.FLOOD and all(r == {"error": "step 7 is not shown: nothing was answered"} for r in read)
    assert len(read) <= srv.RATE + srv.RATE * took + 1  # the bucket, however long the flood took
    assert code == 1008  # kept on flooding: closed


def test_a_lan_bind_prints_its_address_with_the_secret_and_says_it_is_reachable() -> None:
    said: list[str] = []
    session = WebSession("0.0.0.0", 0, open_browser=False, say=said.append)
    session.start("Samba")
    try:
        secret = session.server.secret
        assert said[0] == f"The guide's page: http://127.0.0.1:{session.server.port}/?token={secret}"
        assert said[-1] == ("   The page is reachable from the network: anyone with this address can drive the "
                            "guide.")
        if LAN is not None:
            port = session.server.port
            assert said[1] == f"The guide's page from another device: http://{LAN}:{port}/?token={secret}"
    finally:
        session.stop()
    quiet: list[str] = []
    session = WebSession("127.0.0.1", 0, open_browser=False, say=quiet.append)
    session.start("Samba")
    session.stop()
    assert len(quiet) == 1 and quiet[0].startswith("The guide's page: http://127.0.0.1:")
