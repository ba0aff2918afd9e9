"""The firmware's per-card loop against the card time, on MicroPython's rp2
port: a 104-card pass on the emulated Pico with the world at the Lotus speed
(hardware/mechanism.py), timed on the chip; prints the card's time, the
firmware's own work in it and the margin between them.

    python benchmarks/card_loop_rp2.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulator.pico.card_loop import card_loop_lines  # noqa: E402


def main() -> None:
    for line in card_loop_lines():
        print(line)


if __name__ == "__main__":
    main()
