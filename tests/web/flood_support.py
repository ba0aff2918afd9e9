"""Strangers flooding the page's server with connections from many loopback
addresses (127.0.0.2, 127.0.0.3, ...: all of 127.0.0.0/8 is this machine's)
while the person asks for the page on fresh connections from 127.0.0.1.
Used by tests/web/test_strangers.py (a short flood) and
benchmarks/page_flood.py (the long one)."""
from __future__ import annotations

import asyncio
import collections
import time
from dataclasses import dataclass


@dataclass
class Flooded:
    asked: int  # the person's requests
    served: int  # of them answered 200
    lost: list[str]  # what each of the others got instead
    opened: int  # strangers' connections opened
    seconds: float


async def _stranger(port: int, address: str, done: asyncio.Event, held_max: int, counts: list[int]) -> None:
    """Connections from `address` as fast as it can: each silent or with a header
    begun, never whole, none with the secret; the oldest let go past `held_max`."""
    held: collections.deque[asyncio.StreamWriter] = collections.deque()
    begun = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port
    try:
        while not done.is_set():
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
            except OSError:
                await asyncio.sleep(0.01)
                continue
            counts[0] += 1
            if counts[0] % 2:
                writer.write(begun)
            held.append(writer)
            if len(held) > held_max:
                held.popleft().close()
            await asyncio.sleep(0)
    finally:
        for w in held:
            w.close()


async def _ask(port: int, secret: str, counts: list[int], meanwhile: int) -> str:
    """One request with the secret on a fresh connection: its status line, or why none came.
    As a browser does (it opens connections before it needs them), the connection is open
    while `meanwhile` strangers' connections are made before the request is sent."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        return f"could not connect: {exc}"
    try:
        target = counts[0] + meanwhile
        deadline = time.monotonic() + 10  # a flood too slow only makes the ask easier
        while counts[0] < target and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        writer.write(b"GET /state?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                     % (secret.encode(), port))
        got = await asyncio.wait_for(reader.read(), 60)
    except (OSError, asyncio.TimeoutError) as exc:
        return f"lost: {type(exc).__name__}"
    finally:
        writer.close()
    return got.split(b"\r\n", 1)[0].decode(errors="replace") or "closed without an answer"


async def flood(port: int, secret: str, strangers: int, seconds: float, asks: int,
                held_max: int = 16, meanwhile: int = 32) -> Flooded:
    """`strangers` addresses flooding while the person asks `asks` times, spread over `seconds`
    at least, each on a connection opened `meanwhile` strangers' connections before its request."""
    started = time.monotonic()
    done = asyncio.Event()
    counts = [0]
    tasks = [asyncio.ensure_future(_stranger(port, f"127.0.0.{2 + i}", done, held_max, counts))
             for i in range(strangers)]
    got = []
    try:
        for i in range(asks):
            got.append(await _ask(port, secret, counts, meanwhile))
            await asyncio.sleep(max(0.0, started + (i + 1) * seconds / asks - time.monotonic()))
    finally:
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    lost = [g for g in got if " 200 " not in g + " "]
    return Flooded(len(got), len(got) - len(lost), lost, counts[0], time.monotonic() - started)
