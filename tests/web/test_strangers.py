"""Strangers on the network, as a socket sends them: a request without the
secret is refused before anything else of it is read (its Expect included,
nothing of it echoed) and its connection closed; any path is a 404 at worst,
and nothing a request sends puts a line or a traceback on the console; the
request line must be the page's own path (never absolute-form), from the
page's own site; and a flood of connections from many addresses never
closes one of the person's. Each on a loopback bind."""
from __future__ import annotations

import asyncio
import logging
from typing import Iterator
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flood_support import flood
from host.web.page_state import PageState
from host.web.server import PageServer
from test_security import answer, closed_by_the_server, one_line, raw, refused, secured

SAID = "SENT-BY-A-STRANGER"


@pytest.fixture
def served() -> Iterator[PageServer]:
    server = PageServer(PageState(), host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


def ask(server: PageServer, target: bytes, extra: bytes = b"", secret: bool = True) -> tuple[int, dict[str, str], str]:
    """A GET of `target` (the secret added to its query when `secret`), on a connection of its own."""
    if secret:
        target += b"%stoken=%s" % (b"&" if b"?" in target else b"?", server.secret.encode())
    data = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n%s\r\n" % (target, server.port, extra)
    return answer(asyncio.run(raw(server.port, data)))


def quiet(caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> str:
    """Whatever was written on the console or logged at INFO or above since the last look."""
    out, err = capfd.readouterr()
    logged = "".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO or r.exc_info)
    caplog.clear()
    return out + err + logged


@pytest.mark.parametrize("expect", [b"100-continue", SAID.encode()], ids=["100-continue", "made-up"])
def test_a_strangers_expect_is_never_answered_only_refused(served: PageServer, expect: bytes) -> None:
    # aiohttp answers an Expect before any middleware: "100 Continue" to anyone, or 417 quoting it.
    status, headers, body = ask(served, b"/state", b"Expect: %s\r\n" % expect, secret=False)
    got = asyncio.run(raw(served.port, b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nExpect: %s\r\n\r\n"
                          % (served.port, expect)))
    assert status == 403 and one_line(body) and SAID not in body and secured(headers) == []
    assert not got.startswith(b"HTTP/1.1 100") and SAID.encode() not in got, got[:300]
    # The person's own Expect is answered as HTTP says, and a made-up one refused without quoting it.
    mine = asyncio.run(raw(served.port, b"GET /state?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nExpect: %s\r\n"
                           b"Connection: close\r\n\r\n" % (served.secret.encode(), served.port, expect)))
    if expect == b"100-continue":
        assert mine.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 "), mine[:200]
    else:
        assert answer(mine)[0] == 417 and SAID.encode() not in mine, mine[:300]


def test_a_refused_request_closes_its_connection(served: PageServer) -> None:
    async def refused() -> tuple[float, bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % served.port)
        try:
            return await closed_by_the_server(reader, writer, limit=5)  # IDLE_S is 30
        finally:
            writer.close()

    _, got = asyncio.run(refused())
    assert answer(got)[0] == 403  # answered once, then closed: nothing more of it is read


def test_a_long_file_name_is_a_404_and_nothing_on_the_console(
        served: PageServer, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    quiet(caplog, capfd)
    for target in (b"/static/" + b"a" * 300, b"/static/" + b"a" * 300 + b".js", b"/" + b"b" * 300):
        status, headers, body = ask(served, target)
        assert status == 404 and refused(headers, body, "not_found") and secured(headers) == [], (target[:20], status, body)
    said = quiet(caplog, capfd)
    assert "Traceback" not in said and "aaaaaaaa" not in said and served.secret not in said, said[-2000:]


# Paths of every kind: parts of the page's own, parent folders, encodings, control characters, long.
PARTS = st.one_of(st.sampled_from(["static", "..", ".", "app.js", "index.html", "state", "ws", "%2e%2e", "%00",
                                   "%2f", "", "favicon.ico", "x" * 300]),
                  st.text(min_size=1, max_size=40).map(lambda t: quote(t, safe="")))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(PARTS, min_size=1, max_size=4), secret=st.booleans())
def test_any_path_is_a_404_at_worst_and_nothing_on_the_console(
        served: PageServer, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str],
        parts: list[str], secret: bool) -> None:
    caplog.set_level(logging.DEBUG)
    quiet(caplog, capfd)
    status, headers, body = ask(served, ("/" + "/".join(parts)).encode(), secret=secret)
    assert status < 500 and one_line(body) and secured(headers) == [], (parts, status, body)
    said = quiet(caplog, capfd)
    assert "Traceback" not in said and served.secret not in said, said[-2000:]


def test_absolute_form_and_other_targets_are_refused(served: PageServer) -> None:
    token = served.secret.encode()
    for target in (b"http://127.0.0.1:%d/state?token=%s" % (served.port, token),
                   b"http://evil.example/state?token=%s" % token, b"*"):
        got = asyncio.run(raw(served.port, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (target, served.port)))
        status, headers, body = answer(got)
        assert status == 400 and one_line(body) and secured(headers) == [], (target, status, body)
    assert ask(served, b"/state")[0] == 200  # the page's own path, as a browser sends it


@pytest.mark.parametrize("site, status", [("cross-site", 403), ("same-site", 403), ("same-origin", 200),
                                          ("none", 200)])
def test_a_request_from_another_site_is_refused(served: PageServer, site: str, status: int) -> None:
    # With the secret all the same (another site's page can make a browser send the cookie
    # with a plain navigation or an image); Sec-Fetch-Site is set by the browser, not the page.
    for target in (b"/state", b"/static/app.js", b"/"):
        got, headers, body = ask(served, target, b"Sec-Fetch-Site: %s\r\n" % site.encode())
        assert got == (status if target != b"/" or status != 200 else 303), (target, got, body)
        if status == 403:
            assert refused(headers, body, "foreign_site") and secured(headers) == []


def test_a_flood_from_eight_addresses_never_costs_the_person_a_request(served: PageServer) -> None:
    # Short here (benchmarks/page_flood.py floods for 20 s): 8 addresses opening connections as
    # fast as they can, the person asking for the page 8 times on fresh connections meanwhile,
    # each opened (as a browser opens its connections early) 80 strangers' connections before
    # its request: more than the places there are, so the oldest of them has been closed.
    got = asyncio.run(flood(served.port, served.secret, strangers=8, seconds=1.0, asks=8, meanwhile=80))
    assert served.site is not None
    assert got.opened > 2 * served.site.cap and served.site.evicted > 0, got  # the places were fought over
    assert got.lost == [] and got.served == got.asked == 8, got
