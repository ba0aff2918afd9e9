"""The slip matrix for the packs people play: one slip of the catalogue a
run (tests/slip_matrix.py), a guided exact routine on the virtual shuffler,
the guide's fixes followed as told; what the guide did, what it claimed,
and the truth (the board's codes, read from its flash, against the pack the
person ends with). The suite runs the same catalogue on 12 cards
(tests/host/test_slip_matrix.py).

    python benchmarks/exact_mode_slips.py [--pack samba] [--pack canasta]   # a few minutes
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "host")]

from firmware import build  # noqa: E402
from firmware import exact_routes  # noqa: E402
from host import plan as planlib  # noqa: E402
from simulator.virtual import VirtualShuffler  # noqa: E402
from slip_matrix import catalogue  # noqa: E402
from test_slip_matrix import run  # noqa: E402

TRAY = 104


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", action="append", choices=["samba", "canasta"])
    args = parser.parse_args()
    for name in args.pack or ["samba", "canasta"]:
        cards = planlib.choose_pack(name, None).cards
        print(f"\n{name}: {cards} cards on a {TRAY}-card tray")
        print(f"{'slip':<66} | {'what the guide did':<70} | {'claim':<28} | truth")
        dev = VirtualShuffler(time_scale=0.0, keep_cards=True)
        build.install_to_dir(build.build_image("sim", Path(tempfile.mkdtemp())), dev.flash_dir)
        dev.start()
        try:
            # The catalogue is the split's (canasta's device choice is the pipelined routine: asked for the split).
            kind = exact_routes.SPLIT if exact_routes.split_route(cards, TRAY) else None
            for slip in catalogue(exact_routes.route(cards, TRAY, kind)):
                t0 = time.perf_counter()
                got = run(dev, slip, cards, TRAY, kind)
                claim = got.claim + (", on its condition" if got.conditional else ", unconditionally")
                truth = "in code order" if got.truth else "not in code order"
                print(f"{slip.name[:66]:<66} | {got.did[:70]:<70} | {claim:<28} | {truth} "
                      f"({time.perf_counter() - t0:.0f} s)", flush=True)
        finally:
            dev.stop()


if __name__ == "__main__":
    main()
