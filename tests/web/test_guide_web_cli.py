"""`shuffler guide --web` as a command: the same engine on the virtual
shuffler, its page's address printed, --json still only the JSON summary,
a second --web on a busy address is one clear line, a stop (on a
problem, Ctrl-C or SIGTERM) is one line on the console and the same line on
the page before its server goes, and a request the page cannot read leaves
nothing on the console."""
from __future__ import annotations

import asyncio
import errno
import json
import re
import shlex
import signal
import subprocess
import sys
import threading
from typing import Any

import aiohttp
import pytest

from host.web.run import address_lines
from host.web.server import AddressBusy
from web_support import ROOT, Guide, base_of, page_says, url

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.micropython, pytest.mark.slow]


def test_json_still_prints_only_the_summary_and_the_page_shows_it() -> None:
    g = Guide("--sim", "--unattended", "--mode", "random", "--rounds", "1", "--json")
    try:
        state = g.wait(lambda s: s["finished"])
        assert state["summary"]["passes"] == 2 and state["stopped"] is None
        assert state["step"]["kind"] == "gather" and state["step"]["answer"] is None  # the scripted person did it
        code, out = g.close()
    finally:
        g.kill()
    assert code == 0
    assert json.loads(out) == state["summary"]  # one line of JSON, the page's summary
    assert out.count("\n") == 1


def test_a_second_web_guide_on_a_busy_address_is_one_clear_line() -> None:
    g = Guide("--manual", "--rounds", "1")
    try:
        port = re.search(r":(\d+)/$", g.base).group(1)  # type: ignore[union-attr]
        second = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--manual", "--web", "--no-browser",
                                 "--bind", f"127.0.0.1:{port}"], cwd=ROOT, capture_output=True, text=True,
                                timeout=120)
        assert second.returncode == 1
        err = second.stderr.strip().splitlines()
        assert err == [f"shuffler: {AddressBusy(f'127.0.0.1:{port}', errno.EADDRINUSE)}"]
        # The first one is unharmed: its first step still waits for the page.
        assert g.state()["step"]["kind"] == "cut"
        replies = asyncio.run(page_says(g.address, [{"op": "close"}]))
        assert replies[0]["reason"] == "still_running" and "ok" not in replies[0]
    finally:
        g.kill()


async def _last_state(address: str, listening: threading.Event | None = None) -> dict[str, Any]:
    """Listen as a page until the server closes: the last state it sent."""
    last: dict[str, Any] = {}
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url(address, "ws"), origin=base_of(address).rstrip("/")) as ws:
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    last = json.loads(msg.data)
                    if listening is not None:
                        listening.set()
    return last


def test_a_stop_is_one_line_on_the_console_and_shown_on_the_page() -> None:
    g = Guide("--manual", "--rounds", "1", "--wait", "3")
    try:
        last = asyncio.run(_last_state(g.address))
        code = g.proc.wait(60)
        err = g.stderr().strip().splitlines()
    finally:
        g.kill()
    assert code == 1 and len(err) == 1
    # The page holds the stop's record beside its line: why (no answer within --wait's 3 s), the way on.
    stop = last["stop"]
    assert stop["reason"] == {"kind": "WaitedOut", "waited_for": "answer", "seconds": 3.0}, stop
    assert stop["way"] == "gathered" and shlex.split(stop["command"])[:2] == ["shuffler", "guide"], stop
    assert last["finished"] and err[0] == f"shuffler: {last['stopped']}"
    assert last["step"]["kind"] == "cut" and last["summary"] is None


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_stop_the_guide_and_its_page_in_one_line(sig: signal.Signals) -> None:
    g = Guide("--manual", "--rounds", "1")
    got: dict[str, Any] = {}
    try:
        g.wait(lambda s: s["step"] is not None)
        listening = threading.Event()
        page = threading.Thread(target=lambda: got.update(last=asyncio.run(_last_state(g.address, listening))))
        page.start()
        assert listening.wait(60)
        g.proc.send_signal(sig)
        code = g.proc.wait(60)
        page.join(60)
        err = g.stderr().strip().splitlines()
    finally:
        g.kill()
    assert code == 128 + int(sig) and len(err) == 1  # 130 for Ctrl-C, 143 for SIGTERM, as a shell says them
    # The page was told before its server went: the same line, the command that goes on, and its record.
    last = got["last"]
    assert last["finished"] and err[0] == f"shuffler: {last['stopped']}"
    assert last["stop"]["reason"] == {"kind": "Interrupted"} and last["stop"]["way"] == "gathered", last["stop"]
    assert last["step"]["kind"] == "cut" and last["summary"] is None
    with pytest.raises(aiohttp.ClientConnectionError):
        g.state()  # the page's server went with it


def test_a_lan_bind_prints_the_address_for_other_devices_and_still_wants_the_secret() -> None:
    from host.web.server import route_address

    g = Guide("--manual", "--rounds", "1", bind="0.0.0.0:0")
    try:
        state = g.wait(lambda s: s["step"] is not None)
        printed = g.stdout()
        lan, port = route_address(), g.base.rsplit(":", 1)[1].rstrip("/")
        other = None if lan is None else f"http://{lan}:{port}/?token={g.token}"
        lines = address_lines(g.address, other, lan_bind=True)  # the address, another device's, who can drive it
        assert len(lines) == 3 and all(line.strip() in printed for line in lines), printed
        if other is not None:
            assert asyncio.run(_status(base_of(other) + "state")) == 403  # without the secret
            assert asyncio.run(_status(url(other, "state"))) == 200
        assert state["run"] and state["step"]["kind"] == "cut"
    finally:
        g.kill()


async def _status(address: str) -> int:
    async with aiohttp.ClientSession() as s:
        async with s.get(address) as r:
            return r.status


def test_a_request_the_page_cannot_read_leaves_the_console_alone() -> None:
    # Each carries the secret and words of the sender's choosing; aiohttp's logger had
    # printed the request line with a traceback, secret and words included.
    g = Guide("--manual", "--rounds", "1")
    try:
        g.wait(lambda s: s["step"] is not None)
        port = int(g.base.rsplit(":", 1)[1].rstrip("/"))
        start = b"GET /state?token=%s" % str(g.token).encode()
        host = b"Host: 127.0.0.1:%d\r\n" % port
        said = b"SENT-BY-A-STRANGER"
        sent = [start + b"&said=" + said * 600 + b" HTTP/1.1\r\n" + host + b"\r\n",
                start + b" HTTP/1.1\r\n" + host + b"X-Said: " + said * 600 + b"\r\n\r\n",
                start + b" HTTP/1.1\r\n" + host + b"".join(b"X-Said-%d: %s\r\n" % (i, said) for i in range(200))
                + b"\r\n"]
        answers = [asyncio.run(_raw(port, data)) for data in sent]
        assert g.state()["step"]["kind"] == "cut"  # the guide goes on, its page served
        console = g.stdout() + g.stderr()
    finally:
        g.kill()
    for got in answers:
        assert got.startswith(b"HTTP/1.") and b" 400 " in got.split(b"\r\n", 1)[0], got[:200]
        assert got.endswith(b"\r\n\r\nthe guide's page could not read this request\n"), got[-200:]
    assert "SENT-BY-A-STRANGER" not in console and "Traceback" not in console, console[-3000:]
    # The secret only where the command printed the address.
    assert [line for line in console.splitlines() if str(g.token) in line] == [f"The guide's page: {g.address}"]


async def _raw(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        return await asyncio.wait_for(reader.read(), 60)  # the server answers and closes
    finally:
        writer.close()
