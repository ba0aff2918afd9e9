"""The shuffler's parts as the bring-up and the checks speak of them, and a
finding about one: what it reads, what a working one reads, and why it is
judged so, as records (host/finding_records.py) rendered into one line
saying what is wrong and what to check (the wiring table's rows, from
host/wiring.py) for `shuffler setup` and `shuffler check`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware import protocol
from host import finding_words, wiring
from host.finding_records import NotReady, Ready

OK = "ok"
WARN = "warn"
FAIL = "fail"
SKIP = "not checked"

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
    """What one part reads now, what a working one reads, and why it is
    judged so: each a record (host/finding_records.py), worded once by
    host/finding_words.py; or words of their own (`shuffler setup`'s steps)."""

    part: str  # a key of PARTS
    verdict: str  # OK, WARN, FAIL or SKIP
    read: Any  # what it reads now
    working: Any  # what a working one reads
    why: Any  # what it means, what to do
    wiring: bool = False  # the diagnosis points at the wiring: name the table's rows
    untried: str = ""  # not tried now: the command that tries it (its words say so too)

    @property
    def value(self) -> str:
        return finding_words.words(self.read)

    @property
    def plausible(self) -> str:
        return finding_words.words(self.working)

    @property
    def diagnosis(self) -> str:
        return finding_words.words(self.why)

    def advice(self, board: str) -> str:
        if not self.wiring:
            return self.diagnosis
        return f"{self.diagnosis}; {wiring.rows(board, PARTS[self.part].signals)}"

    def line(self, board: str) -> str:
        return finding_words.line(self.verdict, PARTS[self.part].name, self.value, self.plausible, self.advice(board))

    def to_dict(self, board: str) -> dict[str, Any]:
        """Its words and, beside them, the records they are worded from."""
        return {"part": self.part, "name": PARTS[self.part].name, "verdict": self.verdict, "value": self.value,
                "plausible": self.plausible, "diagnosis": self.advice(board), "untried": self.untried or None,
                "read": finding_words.as_dict(self.read), "working": finding_words.as_dict(self.working),
                "why": finding_words.as_dict(self.why)}


def ready(findings: list[Finding]) -> bool:
    """Ready to shuffle: nothing failed."""
    return not any(f.verdict == FAIL for f in findings)


def untried_groups(findings: list[Finding]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The parts not tried now (and not failed), grouped by the command that tries them."""
    groups: dict[str, list[str]] = {}
    for f in findings:
        if f.untried and f.verdict != FAIL:
            groups.setdefault(f.untried, []).append(f.part)
    return tuple((command, tuple(keys)) for command, keys in groups.items())


def verdict(findings: list[Finding]) -> Ready | NotReady:
    """Ready or not, and the parts not tried now."""
    return Ready(untried_groups(findings)) if ready(findings) else NotReady()


def untried(findings: list[Finding]) -> str:
    """The parts not tried now, each group with the command that tries it
    ("" when every part was read or tried now)."""
    return finding_words.untried_words(untried_groups(findings), PARTS)


def verdict_line(findings: list[Finding]) -> str:
    """`shuffler check`'s last line: ready or not, and what was not tried now."""
    return finding_words.verdict_words(verdict(findings), PARTS)
