"""How long a shuffle takes at the table: the machine's time for a pass
from the mechanism (hardware/mechanism.py), and the person's time for each
kind of step (shuffling/steps.py), written once as data in
firmware/table_time.py.

A routine is timed from its steps as the person meets them: a PutInTray
says how many cards the next pass deals, the Touch after it starts that
pass (the machine's time), and every step, those two included, takes the
person the time its kind takes. The plan times its routines so; the guide
can time what is left of one the same way.

Lives beside the steps it times, so the host (plan, guide) and the
simulator import it alike; it imports only the data below it: the
mechanism's, and the table's (firmware/table_time.py, which the device
also reads to choose its exact routine).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from firmware import table_time
from hardware import mechanism
from shuffling import steps as step_kinds

DRIVE_MV = 9000  # a fresh 9 V battery
DUTY_PCT = 65  # the boards' motor_duty (firmware/profile_esp32.py, profile_rp2.py)
# The figures themselves live in firmware/table_time.py, where the device
# reads them too (it chooses its exact routine by this model).
FIRMWARE_CARD_MS = table_time.FIRMWARE_CARD_MS
PASS_START_MS = table_time.PASS_START_MS

# Seconds a person takes for each kind of step, by the step's kind name
# (steps.to_dict's "kind").
HANDLING_S: dict[str, float] = {kind: ms / 1000 for kind, ms in table_time.HANDLING_MS.items()}


def card_ms(mv: int = DRIVE_MV, duty: int = DUTY_PCT) -> int:
    """One card, the motor's time (to the beam, through it, the brake) and the firmware's."""
    return mechanism.card_ms(mv, duty) + FIRMWARE_CARD_MS


def pass_s(cards: int, mv: int = DRIVE_MV, duty: int = DUTY_PCT) -> float:
    """The machine's time for a pass of `cards` cards, from the touch."""
    return (PASS_START_MS + cards * card_ms(mv, duty)) / 1000


def step_s(step: step_kinds.Step) -> float:
    """The person's time for one step."""
    return HANDLING_S[type(step).__name__.lower()]


@dataclass(frozen=True)
class Timing:
    machine_s: float
    handling_s: float

    @property
    def total_s(self) -> float:
        return self.machine_s + self.handling_s


def timing(steps: Iterable[step_kinds.Step], mv: int = DRIVE_MV, duty: int = DUTY_PCT) -> Timing:
    """A routine's time from its steps: each Touch deals the cards the last
    PutInTray put in (a Touch with no count before it deals nothing known)."""
    machine = handling = 0.0
    loaded: int | None = None
    for step in steps:
        handling += step_s(step)
        if isinstance(step, step_kinds.PutInTray):
            loaded = step.cards
        elif isinstance(step, step_kinds.Touch) and loaded is not None:
            machine += pass_s(loaded, mv, duty)
            loaded = None
    return Timing(machine_s=machine, handling_s=handling)


def duration(seconds: float) -> str:
    """'4 min 05 s', '35 s'."""
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def assumption(cards: int) -> str:
    """The figures a time rests on, in words, with a pass of `cards` cards as the example."""
    h = HANDLING_S
    return (f"{card_ms()} ms a card (hardware/mechanism.py at {DRIVE_MV / 1000:g} V and {DUTY_PCT} % duty): "
            f"{step_kinds.cards(cards)} in {pass_s(cards):.1f} s a pass; {h['putintray']:g} s to put a load in, "
            f"{h['touch']:g} s to touch, {h['lift']:g} s to lift off its piles, {h['reload']:g} s to put them "
            f"straight back in, {h['stack']:g} s a stack, "
            f"{h['move']:g} s to count cards across and {h['cut']:g} s to cut")
