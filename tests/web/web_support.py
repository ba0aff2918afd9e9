"""Helpers for the page's tests: `shuffler guide --web` in a subprocess, a
WebSocket client that speaks as a page, and Debian's chromium driven by
Selenium (headless, a fresh profile, no background connections)."""
from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

import aiohttp

from pty_screen import AS_AT_A_TERMINAL

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
# The printed address, with the run's secret: http://HOST:PORT/?token=SECRET (a whole line:
# the line's end is waited for, so a half-written secret is never taken)
ADDRESS = re.compile(rb"The guide's page: (http://[^\s/]+/(?:\?token=[A-Za-z0-9_-]+)?)\r?\n")


def base_of(address: str) -> str:
    """http://HOST:PORT/ of a printed address (without its secret)."""
    parts = urlsplit(address)
    return f"{parts.scheme}://{parts.netloc}/"


def token_of(address: str) -> str | None:
    return parse_qs(urlsplit(address).query).get("token", [None])[0]


def url(address: str, path: str = "") -> str:
    """`path` on the page's server, with the secret of `address` in its query (as a script asks)."""
    token = token_of(address)
    return base_of(address) + path + (f"?token={token}" if token else "")


# `python -m host.cli` as a person starts it in a terminal, where Ctrl-C raises
# KeyboardInterrupt (pty_screen.AS_AT_A_TERMINAL says why it must be so).
AT_A_TERMINAL = (*AS_AT_A_TERMINAL, sys.executable, "-m", "host.cli")


class Guide:
    """`shuffler guide --web ...` running; its page's address."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, read_s: float = 0.0,
                 bind: str = "127.0.0.1:0") -> None:
        # These tests answer a step as soon as they have checked it (read_s:
        # how long the guide waits before an answer counts; the person tests
        # that answer too soon set it). The transcript goes to stdout, or to
        # stderr with --json: both are read here.
        if "--read-time" not in args:
            args = (*args, "--read-time", str(read_s))
        self.err_path = Path(tempfile.mkstemp(prefix="guide-web-", suffix=".err")[1])
        self.out_path = Path(tempfile.mkstemp(prefix="guide-web-", suffix=".out")[1])
        self.err = self.err_path.open("wb")
        self.out = self.out_path.open("wb")
        cmd = [*AT_A_TERMINAL, "guide", "--web", "--no-browser", "--bind", bind, *args]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.out, stderr=self.err,
                                     env={**os.environ, **(env or {})}, start_new_session=True)
        self.address = self._wait_address()  # with the run's secret, as printed
        self.base = base_of(self.address)
        self.token = token_of(self.address)

    def _wait_address(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = ADDRESS.search(self.err_path.read_bytes() + self.out_path.read_bytes())
            if m:
                return m.group(1).decode()
            if self.proc.poll() is not None:
                raise AssertionError(f"the guide ended: {self.stderr()}")
            time.sleep(0.1)
        raise AssertionError(f"no address printed: {self.stderr()}")

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    def state(self) -> dict[str, Any]:
        return asyncio.run(_get_state(self.address))

    def wait(self, ok: Callable[[dict[str, Any]], bool], timeout: float = 120.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            s = self.state()
            if ok(s):
                return s
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"state never came: {json.dumps(s)[:2000]}\n{self.stdout()[-2000:]}"
                                     f"\n{self.stderr()[-2000:]}")
            time.sleep(0.1)

    def close(self) -> tuple[int, str]:
        """Press Close (as a page would) and wait for the command to end."""
        try:
            asyncio.run(page_says(self.address, [{"op": "close"}]))
        except (aiohttp.ClientError, OSError):
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        return self.proc.returncode, self.stdout()

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.err.close()
        self.out.close()
        self.err_path.unlink(missing_ok=True)
        self.out_path.unlink(missing_ok=True)


async def _get_state(address: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as s:
        async with s.get(url(address, "state")) as r:
            return await r.json()


def is_beat(got: dict[str, Any]) -> bool:
    """The guide's beat (host/web/page_socket.py), neither a state nor a reply."""
    return "beat" in got and "version" not in got


async def next_reply(ws: Any, timeout: float = 60.0) -> dict[str, Any]:
    """The next reply to what the page sent, past the states and beats before it."""
    while True:
        got = await asyncio.wait_for(ws.receive_json(), timeout)
        if "version" not in got and not is_beat(got):
            return got


async def next_state(ws: Any, timeout: float = 60.0) -> dict[str, Any]:
    """The next state sent, past any beat."""
    while True:
        got = await asyncio.wait_for(ws.receive_json(), timeout)
        if not is_beat(got):
            return got


async def page_says(address: str, messages: list[Any], origin: str | None = None) -> list[dict[str, Any]]:
    """Send messages over the WebSocket as a page of `origin` would; the replies.
    The secret of `address` (its ?token=) goes in the WebSocket's query."""
    origin = origin or base_of(address).rstrip("/")
    replies = []
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url(address, "ws"), origin=origin) as ws:
            await next_state(ws)  # the state, at once
            for m in messages:
                await ws.send_str(m if isinstance(m, str) else json.dumps(m))
                replies.append(await next_reply(ws))
    return replies


def browser(width: int = 1280, height: int = 900) -> Any:
    """Headless chromium under Selenium; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM or "chromium"
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER or "chromedriver"))
    driver.profile_dir = profile  # removed by quit_browser
    return driver


def quit_browser(driver: Any) -> None:
    try:
        driver.quit()
    finally:
        shutil.rmtree(getattr(driver, "profile_dir", ""), ignore_errors=True)


def page_state(driver: Any) -> dict[str, Any] | None:
    """The state the page itself shows (its last message)."""
    return driver.execute_script("return state;")


def wait_page(driver: Any, ok: Callable[[dict[str, Any]], bool], timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        s = page_state(driver)
        if s is not None and ok(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never showed it: {json.dumps(s)[:2000]}")
        time.sleep(0.05)


def screenshot(driver: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    return path
