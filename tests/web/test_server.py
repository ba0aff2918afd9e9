"""The page's server: every page gets the whole state at once and every
change after it; only this machine's pages are served; a busy address is
one clear line; nothing a page sends can crash the guide (fuzzed while a
guide runs)."""
from __future__ import annotations

import asyncio
import errno
import json
import socket
from typing import Any, Iterator

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.web.page_state import PageState
from host.web.server import AddressBusy, PageServer, parse_bind
from test_adapter import manual_guide, next_step, run_in_thread
from web_support import next_state, page_says, url


@pytest.fixture
def served() -> Iterator[tuple[PageServer, PageState]]:
    page = PageState()
    server = PageServer(page, host="127.0.0.1", port=0)
    server.start()
    yield server, page
    server.stop()


async def _get(url: str, **headers: str) -> tuple[int, str]:
    # unsafe: keep cookies from an IP address (the page's own, after its redirect)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        async with s.get(url, headers=headers) as r:
            return r.status, await r.text()


def test_the_page_and_its_files_are_served(served: tuple[PageServer, PageState]) -> None:
    server, _ = served
    status, html = asyncio.run(_get(server.address))  # the redirect is followed with its cookie
    assert status == 200 and '<svg id="table-picture"' in html and "/static/app.js" in html
    for name in ("app.js", "picture.js", "style.css"):
        assert asyncio.run(_get(url(server.address, "static/" + name)))[0] == 200
    assert asyncio.run(_get(url(server.address, "static/../page_state.py")))[0] in (403, 404)


def test_a_second_page_and_a_reload_get_the_current_state_at_once(served: tuple[PageServer, PageState]) -> None:
    server, page = served
    page.update(title="Samba", step={"number": 5, "kind": "lift", "words": "Lift", "answer": "done",
                                     "answered": False})

    async def two_pages() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as s:
            origin = server.base.rstrip("/")
            async with s.ws_connect(url(server.address, "ws"), origin=origin) as a, \
                    s.ws_connect(url(server.address, "ws"), origin=origin) as b:
                first = [await next_state(a), await next_state(b)]
                page.update(title="Samba, round 2")  # a change reaches both
                return first + [await next_state(a), await next_state(b)]

    got = asyncio.run(two_pages())
    assert [g["title"] for g in got] == ["Samba", "Samba", "Samba, round 2", "Samba, round 2"]
    assert got[0]["step"]["number"] == 5 and got[0]["version"] == got[1]["version"]


def test_each_run_has_an_id_of_its_own() -> None:
    """A tab left open from an earlier run can tell the state it holds is not this run's."""
    a, b = PageState(), PageState()
    ids = [json.loads(p.text()[1])["run"] for p in (a, b)]
    assert ids[0] != ids[1] and all(len(i) == 16 and int(i, 16) >= 0 for i in ids)
    a.update(title="Samba")
    assert json.loads(a.text()[1])["run"] == ids[0]  # the same all through the run


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {"Host": "evil.example"},
                                     {"Host": "evil.example", "Origin": "http://evil.example"}])
def test_requests_from_other_origins_are_refused(served: tuple[PageServer, PageState],
                                                 headers: dict[str, str]) -> None:
    server, _ = served
    for path in ("", "state", "static/app.js"):
        assert asyncio.run(_get(url(server.address, path)))[0] in (200, 303)  # the secret alone is enough
        status, _ = asyncio.run(_get(url(server.address, path), **headers))  # with the secret, still refused
        assert status == 403
    with pytest.raises(aiohttp.WSServerHandshakeError) as err:
        asyncio.run(page_says(server.address, [], origin=headers.get("Origin", "http://evil.example")))
    assert err.value.status == 403


def test_a_busy_address_is_one_clear_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(AddressBusy) as err:
            PageServer(PageState(), host="127.0.0.1", port=port).start()
    assert (err.value.where, err.value.errno) == (f"127.0.0.1:{port}", errno.EADDRINUSE)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text, want", [("127.0.0.1:8000", ("127.0.0.1", 8000)), ("9000", ("127.0.0.1", 9000)),
                                        (":0", ("127.0.0.1", 0)), ("0.0.0.0", ("0.0.0.0", 8765)),
                                        ("[::1]:81", ("::1", 81))])
def test_bind_addresses(text: str, want: tuple[str, int]) -> None:
    assert parse_bind(text) == want


@pytest.mark.parametrize("text", ["host:port", "1.2.3.4:70000", "a b", "[::1]x"])
def test_bad_bind_addresses_are_one_line(text: str) -> None:
    with pytest.raises(ValueError):
        parse_bind(text)


junk = st.one_of(
    st.text(max_size=200),
    st.builds(lambda n: json.dumps({"op": "done", "step": n}), st.integers(-3, 40)),
    st.fixed_dictionaries({"op": st.sampled_from(["done", "close", "put", "touch", "lift", "do_step", "fault", "x"])},
                          optional={"step": st.one_of(st.integers(-5, 10**12), st.text(max_size=5), st.none()),
                                    "stack": st.text(max_size=60), "n": st.integers(-3, 2000),
                                    "pile": st.text(max_size=8), "onto": st.text(max_size=8),
                                    "spec": st.text(max_size=20)}).map(json.dumps),
)


def _answers_the_first_step(raw: str) -> bool:
    """Junk that would rightly confirm the step shown (step 1) or close the page."""
    try:
        m = json.loads(raw)
    except ValueError:
        return False
    return isinstance(m, dict) and (m.get("op") == "close" or (m.get("op") == "done" and m.get("step") == 1))


@settings(max_examples=60, deadline=None)
@given(st.lists(junk, min_size=1, max_size=8))
def test_nothing_a_page_sends_crashes_the_guide(batch: list[str]) -> None:
    """Junk from a page while a real guide waits: every message gets a
    reply, the guide is still waiting on the same step, and "done" for that
    step still works afterwards."""
    page, guide, _ = manual_guide(rounds=1, wait_s=60)
    server = PageServer(page, host="127.0.0.1", port=0)
    server.start()
    t, out = run_in_thread(guide)
    try:
        step = next_step(page, 0)
        assert step["number"] == 1
        replies = asyncio.run(page_says(server.address, [m for m in batch if not _answers_the_first_step(m)]))
        assert all(("ok" in r) != ("error" in r) and (set(r) == {"ok"} or "reason" in r) for r in replies)
        assert t.is_alive() and "error" not in out and page.get("step")["number"] == step["number"]
        asyncio.run(page_says(server.address, [{"op": "done", "step": step["number"]}]))
        assert next_step(page, step["number"])["number"] == step["number"] + 1
    finally:
        page.close("example over")
        t.join(10)
        server.stop()


def test_a_stopped_server_gives_its_address_back_at_once() -> None:
    """A guide started again right after a stop gets the same address,
    though the stop closed a page's connections first (they linger on the
    server's side in TIME_WAIT)."""
    first = PageServer(PageState(), host="127.0.0.1", port=0)
    first.start()
    port = first.port

    async def a_page_open_through_the_stop() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /state?token={first.secret} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await reader.readuntil(b"\r\n\r\n")  # the state comes; the connection is kept alive
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url(first.address, "ws"), origin=first.base.rstrip("/")) as ws:
                await ws.receive_json()
                await asyncio.get_running_loop().run_in_executor(None, first.stop)
                async for _ in ws:
                    pass
        rest = await reader.read()  # the server closed it
        writer.close()
        return rest

    asyncio.run(a_page_open_through_the_stop())
    again = PageServer(PageState(), host="127.0.0.1", port=port)
    again.start()  # AddressBusy without SO_REUSEADDR
    try:
        assert asyncio.run(_get(again.address))[0] == 200
    finally:
        again.stop()


def test_the_beat_says_how_long_the_guide_has_been_silent() -> None:
    # The guide's thread looks for answers a few times a second; the beat tells a page how
    # long ago it last did, so a guide stuck with its server still up is noticed too.
    now = [100.0]
    page = PageState(clock=lambda: now[0])
    server = PageServer(page, host="127.0.0.1", port=0)
    server.start()

    async def beats() -> list[Any]:
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url(server.address, "ws"), origin=server.base.rstrip("/")) as ws:
                await next_state(ws)
                heard = []
                for change, expected in ((None, None), (page.guide_looked, 0.0),
                                         (lambda: now.__setitem__(0, 105.0), 5.0),
                                         (lambda: page.update(finished=True), None)):
                    if change is not None:
                        change()
                    # The beat that says it (one sent before the change may come first).
                    for _ in range(30):
                        while "beat" not in (got := await asyncio.wait_for(ws.receive_json(), 60)):
                            pass
                        if got["guide_s"] == expected:
                            break
                    heard.append(got["guide_s"])
                return heard

    try:
        heard = asyncio.run(beats())
    finally:
        server.stop()
    # Before the guide first looked: nothing to say; then 0 s, 5 s silent; after its end: nothing waited for.
    assert heard == [None, 0.0, 5.0, None]
