"""Strangers flooding the guide's page with connections from 8 loopback
addresses (127.0.0.2 to 127.0.0.9) for 20 s, none with the secret, while the
person asks for the page 64 times on fresh connections from 127.0.0.1: how
many of the person's requests were lost, (a) each request sent as soon as
its connection is open, (b) each connection opened early, as a browser does,
32 strangers' connections before its request is sent.

The server is the page's own (host/web/server.py), in this process as in
`shuffler guide --web`; the flood is tests/web/flood_support.py's, which
tests/web/test_strangers.py runs for about a second.

Run: python benchmarks/page_flood.py [--seconds 20] [--addresses 8] [--asks 64]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from flood_support import flood  # noqa: E402
from host.web.page_state import PageState  # noqa: E402
from host.web.server import PageServer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--addresses", type=int, default=8)
    ap.add_argument("--asks", type=int, default=64)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name, meanwhile in (("sent at once", 0), ("opened early (32 strangers' connections before)", 32)):
        server = PageServer(PageState(), host="127.0.0.1", port=0)
        server.start()
        try:
            got = asyncio.run(flood(server.port, server.secret, args.addresses, args.seconds, args.asks,
                                    meanwhile=meanwhile))
        finally:
            server.stop()
        assert server.site is not None
        print(f"{name}: {len(got.lost)} of the person's {got.asked} requests lost in {got.seconds:.1f} s; "
              f"strangers opened {got.opened} connections from {args.addresses} addresses, "
              f"{server.site.evicted} closed to make room")
        for why in sorted(set(got.lost)):
            print(f"   lost: {why} ({got.lost.count(why)})")


if __name__ == "__main__":
    main()
