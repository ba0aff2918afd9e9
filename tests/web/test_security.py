"""Who may drive the guide's page: only a browser that was given the
printed address (the run's secret), reaching this machine by one of its own
names, from the page itself; never inside another site's frame; and never
more connections, pages or messages than a person makes. On a loopback and
on a LAN bind alike. Every refusal is one line."""
from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Iterator

import aiohttp
import pytest

from host.guide.options import GuideOptions
from host.web import connections as conn
from host.web import page_socket as sockets
from host.web import refusals
from host.web.page_state import PageState
from host.web.run import WebSession, address_lines
from host.web.server import PageServer, route_address
from web_support import base_of, is_beat, next_reply, url

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


def refused(headers: Any, body: str, reason: str, **fields: Any) -> bool:
    """The answer refuses for `reason` (its header), in that reason's one line."""
    h = {k.lower(): v for k, v in headers.items()}
    return h.get(refusals.HEADER.lower()) == reason and body == refusals.words(reason, **fields) + "\n"


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
    status, headers, text = get(served.base + "state", cookies=jar)
    assert status == 403
    assert refused(headers, text, "earlier_run")
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
        status, headers, text = get(url(served.address, path), headers={"Origin": o})
        assert status == 403 and refused(headers, text, "foreign_site")
    assert asyncio.run(ws_status(url(served.address, "ws"), origin=o)) == 403
    # The page's own origin, by each of this machine's names, is accepted.
    for address in targets(served):
        assert asyncio.run(ws_status(url(address, "ws"), origin=base_of(address).rstrip("/"))) == 101
    assert asyncio.run(ws_status(url(served.address, "ws"), origin=f"http://localhost:{served.port}",
                                 headers={"Host": f"localhost:{served.port}"})) == 101


def secured(headers: Any) -> list[str]:
    """What an answer lacks of the headers every answer carries ([] when nothing)."""
    h = {k.lower(): v for k, v in headers.items()}
    lacks = [f"{k}: {v}" for k, v in (("x-frame-options", "DENY"), ("referrer-policy", "no-referrer"),
                                      ("x-content-type-options", "nosniff"), ("cache-control", "no-store"))
             if h.get(k) != v]
    if "frame-ancestors 'none'" not in h.get("content-security-policy", ""):
        lacks.append("content-security-policy with frame-ancestors 'none'")
    if any(c.isdigit() for c in h.get("server", "")):
        lacks.append(f"a server without a version (it is {h['server']!r})")
    return lacks


async def raw(port: int, data: bytes, until: bytes | None = None) -> bytes:
    """`data` sent on a connection of its own from 127.0.0.1: what the server sends until it
    closes (or up to `until`)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        # The limits only turn a server that never answers into a failure.
        if until is not None:
            return await asyncio.wait_for(reader.readuntil(until), 60)
        return await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()


def answer(got: bytes) -> tuple[int, dict[str, str], str]:
    """An HTTP answer as bytes: its status, headers (lower-case names) and body."""
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1."), got[:200]
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body.decode(errors="replace")


def request(server: PageServer, path: str = "state", extra: bytes = b"") -> bytes:
    """A whole GET of `path` with the run's secret, as a script sends it."""
    return (b"GET /%s?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n"
            % (path.encode(), server.secret.encode(), server.port, extra))


def test_framing_and_referrers_are_refused_on_every_answer(served: PageServer) -> None:
    for address in (served.address, url(served.address, "state"), url(served.address, "static/app.js"),
                    served.base, url(served.address, "nothing")):
        _, headers, _ = get(address)
        assert secured(headers) == [], address
    # The WebSocket's handshake, and an answer aiohttp itself makes (a request it cannot read).
    upgrade = request(served, "ws", b"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                                    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
    status, headers, _ = answer(asyncio.run(raw(served.port, upgrade, until=b"\r\n\r\n")))
    assert status == 101 and secured(headers) == []
    status, headers, _ = answer(asyncio.run(raw(served.port, b"GET /" + b"x" * 10_000 + b" HTTP/1.1\r\n\r\n")))
    assert status == 400 and secured(headers) == []


def bad_requests(server: PageServer) -> dict[str, bytes]:
    """Requests aiohttp cannot read, each carrying the secret and words of the sender's choosing."""
    said = b"SENT-BY-A-STRANGER"
    start = b"GET /state?token=%s" % server.secret.encode()
    host = b"Host: 127.0.0.1:%d\r\n" % server.port
    return {"long-url": start + b"&said=" + said * 600 + b" HTTP/1.1\r\n" + host + b"\r\n",
            "long-header": start + b" HTTP/1.1\r\n" + host + b"X-Said: " + said * 600 + b"\r\n\r\n",
            "many-headers": start + b" HTTP/1.1\r\n" + host + b"".join(b"X-Said-%d: %s\r\n" % (i, said)
                                                                        for i in range(200)) + b"\r\n",
            "not-http": start + b" HTTP/1.1\n" + said + b"\n\n"}


@pytest.mark.parametrize("kind", ["long-url", "long-header", "many-headers", "not-http"])
def test_a_request_it_cannot_read_is_one_line_and_nothing_on_the_console(
        served: PageServer, kind: str, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)  # whatever is logged, at any level
    capfd.readouterr()
    status, headers, body = answer(asyncio.run(raw(served.port, bad_requests(served)[kind])))
    assert status == 400 and refused(headers, body, "unreadable")
    assert secured(headers) == []
    out, err = capfd.readouterr()
    console = caplog.text + out + err
    assert served.secret not in console and "SENT-BY-A-STRANGER" not in console, console[-3000:]
    assert "Traceback" not in console and not any(r.exc_info for r in caplog.records), console[-3000:]
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert get(url(served.address, "state"))[0] == 200  # the page is served as before


async def trusted(server: PageServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection from 127.0.0.1 that has made a request with the secret, kept alive."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(request(server))
    status, headers, _ = answer(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60))
    assert status == 200
    await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), 60)
    return reader, writer


async def closed_by_the_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                               trickle: float | None = None, limit: float = 60.0) -> tuple[float, bytes]:
    """Wait (sending a byte every `trickle` seconds, if given) until the server closes the
    connection: how long that took and what it sent first. AssertionError after `limit`."""
    started = time.monotonic()
    got = b""
    while time.monotonic() - started < limit:
        try:
            part = await asyncio.wait_for(reader.read(4096), trickle or limit)
        except asyncio.TimeoutError:
            writer.write(b"x")
            continue
        except ConnectionError:
            return time.monotonic() - started, got
        if not part:
            return time.monotonic() - started, got
        got += part
    raise AssertionError(f"the server did not close the connection within {limit} s (it sent {got[:200]!r})")


def test_a_flood_of_connections_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every place held by a connection that came with the secret: only then is a newcomer refused.
    monkeypatch.setattr(conn, "PER_PEER", conn.MAX_CONNECTIONS)  # the whole cap from one address here
    monkeypatch.setattr(conn, "IDLE_S", 600.0)  # kept while the others are made, on a busy machine too
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()

    async def flood() -> tuple[bytes, int]:
        held = [await trusted(server) for _ in range(conn.MAX_CONNECTIONS)]
        try:
            over = await raw(server.port, b"")  # the server answers and closes
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
        code, headers, body = answer(over)
        assert code == 503 and secured(headers) == []
        assert refused(headers, body, "too_many_connections", most=conn.MAX_CONNECTIONS)
        assert status in (503, 0)
        assert server.site is not None and server.site.refused >= 1
        # The held connections gone, the page is served again.
        deadline = time.monotonic() + 60
        while server.site.live and time.monotonic() < deadline:
            time.sleep(0.05)
        assert get(url(server.address, "state"))[0] == 200
    finally:
        server.stop()


def test_one_address_cannot_take_every_place(monkeypatch: pytest.MonkeyPatch) -> None:
    # A device on the network holding connections open, even with the secret, leaves room for the others.
    monkeypatch.setattr(conn, "IDLE_S", 600.0)
    server = PageServer(PageState(), host="0.0.0.0", port=0)
    server.start()

    async def hold() -> tuple[bytes, int | None]:
        held = [await trusted(server) for _ in range(conn.PER_PEER)]
        try:
            over = await raw(server.port, b"")
            other = None
            if LAN is not None:  # another address still gets the page
                other = (await fetch(f"http://{LAN}:{server.port}/state?token={server.secret}"))[0]
            return over, other
        finally:
            for _, w in held:
                w.close()

    try:
        over, other = asyncio.run(hold())
        code, headers, body = answer(over)
        assert code == 503 and secured(headers) == []
        assert body.endswith(f"from one address (at most {conn.PER_PEER}): close some tabs\n")
        assert other in (None, 200)
    finally:
        server.stop()


@pytest.mark.parametrize("whole", [True, False], ids=["every-place", "one-address"])
def test_strangers_make_room_for_the_page(served: PageServer, whole: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Places held without the secret, each way a stranger can: silent, or a header begun (a
    # request refused closes its connection: test_strangers.py). The page's own request is
    # served all the same, and the oldest stranger's connection is the one closed for it.
    if whole:
        monkeypatch.setattr(conn, "PER_PEER", conn.MAX_CONNECTIONS)
    places = conn.MAX_CONNECTIONS if whole else conn.PER_PEER
    begun = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % served.port

    async def strangers() -> tuple[list[int], float, int]:
        held = []
        for i in range(places):
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write([b"", begun][i % 2])
            held.append((reader, writer))
        try:
            statuses = [(await fetch(url(served.address, "state")))[0] for _ in range(3)]
            took, _ = await closed_by_the_server(*held[0])  # the oldest stranger made room
            return statuses, took, len(served.site.live) if served.site else -1
        finally:
            for _, w in held:
                w.close()

    statuses, _, live = asyncio.run(strangers())
    assert statuses == [200, 200, 200]
    assert served.site is not None and served.site.evicted >= 1 and served.site.refused == 0
    assert live <= places


def test_a_connection_that_sends_nothing_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conn, "SILENT_S", 0.5)
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


def test_headers_that_never_end_are_cut_but_a_page_lives_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conn, "HEADERS_S", 1.0)
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()
    origin = server.base.rstrip("/")

    async def slow() -> tuple[tuple[float, bytes], tuple[float, bytes], dict[str, Any]]:
        # A header begun and a byte every 0.2 s, never its end.
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % server.port)
        first = await closed_by_the_server(reader, writer, trickle=0.2)
        writer.close()
        # The same on a connection kept alive after a request with the secret.
        reader, writer = await trusted(server)
        writer.write(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % server.port)
        second = await closed_by_the_server(reader, writer, trickle=0.2)
        writer.close()
        # A page's WebSocket is not a request's headers: it outlives the deadline many times over.
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url(server.address, "ws"), origin=origin) as ws:
                await ws.receive_json()
                await asyncio.sleep(3 * conn.HEADERS_S)
                await ws.send_str(json.dumps({"op": "done", "step": 7}))
                reply = await next_reply(ws)
        return first, second, reply

    try:
        first, second, reply = asyncio.run(slow())
    finally:
        server.stop()
    assert first[0] >= conn.HEADERS_S and first[1] == b"", first  # cut by the deadline, without an answer
    assert second[0] >= conn.HEADERS_S and second[1] == b"", second
    assert reply == refusals.reply("not_shown", step=7)


def test_a_connection_idle_after_its_answer_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conn, "IDLE_S", 1.0)
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()

    async def idle() -> tuple[float, bytes]:
        reader, writer = await trusted(server)
        try:
            return await closed_by_the_server(reader, writer)
        finally:
            writer.close()

    try:
        took, got = asyncio.run(idle())
    finally:
        server.stop()
    assert got == b"" and took >= 0.5 * conn.IDLE_S, (took, got)


SLOW = 40  # strangers at once, more than PER_PEER
HOLD_S = 25.0  # how long they keep it up, longer than two header deadlines
TRICKLE_S = 4.0  # a byte every 4 s: each keeps its connection from looking silent


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_slow_strangers_never_keep_the_page_from_its_person(served: PageServer) -> None:
    """40 connections from 127.0.0.1 without the secret, each sending a header it never ends,
    a byte every 4 s, reopened when closed, for 25 s; meanwhile the page with its secret is
    asked for every second from the same address. Every ask is served; every stranger's
    connection is closed by the server, never answered."""
    begun = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % served.port
    ends = time.monotonic() + HOLD_S

    async def stranger(closings: list[tuple[float, bytes]], opened: asyncio.Event) -> None:
        while time.monotonic() < ends:
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write(begun)
            opened.set()
            try:
                closings.append(await closed_by_the_server(reader, writer, trickle=TRICKLE_S,
                                                           limit=max(0.0, ends - time.monotonic())))
            except AssertionError:
                return  # still open when the time was up
            finally:
                writer.close()
            await asyncio.sleep(TRICKLE_S)  # back at the stranger's own pace

    async def person() -> list[tuple[float, str]]:
        asks = []
        started = time.monotonic()
        while time.monotonic() < ends:
            # A connection of its own each time: each ask has to find a place.
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True),
                                             timeout=aiohttp.ClientTimeout(total=60)) as s:
                try:
                    async with s.get(url(served.address, "state")) as r:
                        asks.append((time.monotonic() - started, f"{r.status} {(await r.text())[:100]}"))
                except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                    asks.append((time.monotonic() - started, repr(exc)))
            await asyncio.sleep(1.0)  # the person's pace, not a wait for anything
        return asks

    async def both() -> tuple[list[list[tuple[float, bytes]]], list[tuple[float, str]]]:
        closings: list[list[tuple[float, bytes]]] = [[] for _ in range(SLOW)]
        opened = [asyncio.Event() for _ in range(SLOW)]
        tasks = [asyncio.ensure_future(stranger(c, o)) for c, o in zip(closings, opened)]
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 60)
        asks = await person()
        await asyncio.gather(*tasks)
        return closings, asks

    closings, asks = asyncio.run(both())
    failed = [(round(at, 1), said) for at, said in asks if not said.startswith("200 ")]
    assert asks and not failed, (f"the page with its secret was refused ({len(failed)} of {len(asks)} asks): "
                                 f"{failed[:3]}")
    never = [i for i, c in enumerate(closings) if not c]
    assert not never, f"strangers {never} kept their first connection for all of {HOLD_S} s"
    answered = [got[:80] for c in closings for _, got in c if got]
    assert not answered, f"strangers were answered: {answered[:3]}"


def test_too_many_pages_at_once_are_refused() -> None:
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()
    origin = server.base.rstrip("/")

    async def pages() -> tuple[int, str, int]:
        async with aiohttp.ClientSession() as s:
            open_ = [await s.ws_connect(url(server.address, "ws"), origin=origin) for _ in range(sockets.MAX_PAGES)]
            try:
                async with s.get(url(server.address, "ws"), headers={
                        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": origin}) as r:
                    over, text, headers = r.status, await r.text(), dict(r.headers)
                await open_.pop().close()
                while server.pages_open >= sockets.MAX_PAGES:  # the server has seen it go
                    await asyncio.sleep(0.02)
                async with s.ws_connect(url(server.address, "ws"), origin=origin) as again:
                    assert "version" in await again.receive_json()
                    after = 101
            finally:
                for ws in open_:
                    await ws.close()
            return over, text, headers, after

    try:
        over, text, headers, after = asyncio.run(pages())
    finally:
        server.stop()
    assert over == 503 and refused(headers, text, "too_many_pages", most=sockets.MAX_PAGES)
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
                    paced.append(await next_reply(calm))
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
                        if m.type == aiohttp.WSMsgType.TEXT and not is_beat(got := json.loads(m.data)):
                            replies.append(got)

                # The server closes it (the limit only turns a missing cap into a failure).
                await asyncio.wait_for(read_to_the_end(), 120)
                return replies, time.monotonic() - started, ws.close_code, paced

    try:
        replies, took, code, paced = asyncio.run(flood())
    finally:
        server.stop()
    too_many = refusals.reply("too_many_messages", most=sockets.RATE)
    assert all(r != too_many for r in paced)
    read = [r for r in replies if r != too_many]
    refused = len(replies) - len(read)
    assert refused >= sockets.FLOOD and all(r == refusals.reply("not_shown", step=7) for r in read)
    assert len(read) <= sockets.RATE + sockets.RATE * took + 1  # the bucket, however long the flood took
    assert code == 1008  # kept on flooding: closed


def test_a_lan_bind_prints_its_address_with_the_secret_and_says_it_is_reachable() -> None:
    said: list[str] = []
    session = WebSession(GuideOptions(web=True, bind="0.0.0.0:0", no_browser=True), say=said.append)
    session.start("Samba")
    try:
        secret, port = session.server.secret, session.server.port
        lan = None if LAN is None else f"http://{LAN}:{port}/?token={secret}"
        assert said == address_lines(f"http://127.0.0.1:{port}/?token={secret}", lan, lan_bind=True)
    finally:
        session.stop()
    quiet: list[str] = []
    session = WebSession(GuideOptions(web=True, bind="127.0.0.1:0", no_browser=True), say=quiet.append)
    session.start("Samba")
    session.stop()
    assert quiet == address_lines(session.server.address, None, lan_bind=False)
    assert session.server.address.startswith("http://127.0.0.1:")
