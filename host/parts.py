"""The shuffler's parts as the bring-up and the checks speak of them, and a
finding about one: what it reads, what a working one reads, and one line
saying what is wrong and what to check (the wiring table's rows, from
host/wiring.py), worded once here for `shuffler setup` and `shuffler check`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware import protocol
from host import wiring

OK = "ok"
WARN = "warn"
FAIL = "fail"
SKIP = "not checked"
MARK = {OK: "ok  ", WARN: "warn", FAIL: "FAIL", SKIP: "--  "}

FIRMWARE = "firmware"
STATE = "state"


@dataclass(frozen=True)
class Part:
    key: str
    name: str
    signals: tuple[str, ...]  # its rows in the wiring table


PARTS: dict[str, Part] = {p.key: p for p in (
    Part(FIRMWARE, "firmware", ()),
    Part(STATE, "state", ()),
    Part(protocol.PART_STACK, "load cell (HX711)", ("hx711_dout", "hx711_sck")),
    Part(protocol.PART_TOUCH, "touch pad", ("touch",)),
    Part(protocol.PART_EXIT, "exit beam", ("exit", "sensor_power")),
    Part(protocol.PART_MOTOR, "feed motor (DRV8833)", ("motor_in1", "motor_in2", "motor_sleep")),
    Part(protocol.PART_BATTERY, "battery", ("battery_adc",)),
)}
ORDER = tuple(PARTS)


@dataclass(frozen=True)
class Finding:
    part: str  # a key of PARTS
    verdict: str  # OK, WARN, FAIL or SKIP
    value: str  # what it reads now
    plausible: str  # what a working one reads
    diagnosis: str  # one sentence: what it means, what to do
    wiring: bool = False  # the diagnosis points at the wiring: name the table's rows
    untried: str = ""  # not tried now: the command that tries it (its words say so too)

    def advice(self, board: str) -> str:
        if not self.wiring:
            return self.diagnosis
        return f"{self.diagnosis}; {wiring.rows(board, PARTS[self.part].signals)}"

    def line(self, board: str) -> str:
        working = f" (a working one: {self.plausible})" if self.verdict != SKIP else ""
        return f"{MARK[self.verdict]} {PARTS[self.part].name}: {self.value}{working}: {self.advice(board)}"

    def to_dict(self, board: str) -> dict[str, Any]:
        return {"part": self.part, "name": PARTS[self.part].name, "verdict": self.verdict, "value": self.value,
                "plausible": self.plausible, "diagnosis": self.advice(board), "untried": self.untried or None}


def ready(findings: list[Finding]) -> bool:
    """Ready to shuffle: nothing failed."""
    return not any(f.verdict == FAIL for f in findings)


def untried(findings: list[Finding]) -> str:
    """The parts not tried now, each group with the command that tries it
    ("" when every part was read or tried now)."""
    groups: dict[str, list[str]] = {}
    for f in findings:
        if f.untried and f.verdict != FAIL:
            groups.setdefault(f.untried, []).append(PARTS[f.part].name)
    return "; ".join(f"{' and '.join(names)} (`{command}`)" for command, names in groups.items())


def verdict_line(findings: list[Finding]) -> str:
    """`shuffler check`'s last line: ready or not, and what was not tried now."""
    if not ready(findings):
        return "not ready to shuffle: see the lines marked FAIL"
    left = untried(findings)
    return f"ready to shuffle, as far as read now; not tried now: {left}" if left else "ready to shuffle"


def volts(mv: int) -> str:
    return f"{mv / 1000:.2f} V"
