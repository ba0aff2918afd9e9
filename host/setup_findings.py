"""What the bring-up's own steps find (findings of host/parts.py's kind),
each kind made once here from its figures: the steps build them, the
tests compare them whole, and `Finding.line` says them. What a part
reads with no step of the bring-up's own (the firmware, a silent load
cell, the motor's direction, the battery) is `shuffler check`'s finding
(host/check.py)."""
from __future__ import annotations

from typing import Any

from firmware import protocol as wire
from host.parts import FAIL, OK, SKIP, Finding

TRY_AGAIN = "do this step again (r)"


# -- the load cell ---------------------------------------------------------------------------

def unsettled(r: Any) -> Finding:
    """The load cell's reading with cards on it: never steady (None), or no answer."""
    return Finding(wire.PART_STACK, FAIL, "moving" if r is None else "no answer", "a steady reading",
                   "the reading does not settle with cards on it", wiring=True)


def tare_unsettled() -> Finding:
    return Finding(wire.PART_STACK, FAIL, "moving", "a steady reading", "the reading does not settle: nothing "
                   "may touch the tray; a loose load cell wire", wiring=True)


def cell_falls(raw: int, tare: int, known: int) -> Finding:
    """A reading that falls as a deck goes on: the signal wires swapped."""
    return Finding(wire.PART_STACK, FAIL, f"raw {raw}, tare {tare}", "growing with every card",
                   f"the reading falls by {tare - raw} for {known} cards: its signal wires A+ and A- are swapped",
                   wiring=True)


def cell_unloaded(raw: int, tare: int, known: int) -> Finding:
    """A reading that barely grows with a deck on: no load on it, or a wire open."""
    return Finding(wire.PART_STACK, FAIL, f"raw {raw}, tare {tare}", "growing with every card",
                   f"the reading grows by only {raw - tare} for {known} cards: nothing presses on the load cell, "
                   "or a wire is open", wiring=True)


def counted(value: str, tare: int, per_card: int) -> Finding:
    return Finding(wire.PART_STACK, OK, value, "within half a card", f"calibrated: tare {tare}, {per_card} a card")


def counts_disagreed(value: str, least: int, most: int, tries: int) -> Finding:
    return Finding(wire.PART_STACK, FAIL, value, f"two counts that agree within half a card ({least} to {most} a card)",
                   f"the counts disagreed {tries} times, so nothing is stored: count each card one by one, "
                   f"and {TRY_AGAIN}")


# -- the touch pad ---------------------------------------------------------------------------

def pad_held_high(reading: int) -> Finding:
    """A touch module that reads touched with every hand away."""
    return Finding(wire.PART_TOUCH, FAIL, f"reads {reading} (touched) with your hand away", "0 at rest, 1 touched",
                   "it reads touched with no hand near: its output is held high (a short)", wiring=True)


def pad_silent(reading: int) -> Finding:
    """No rest reading the board takes: no pad answers."""
    return Finding(wire.PART_TOUCH, FAIL, f"reads {reading} at rest", "a steady reading at rest",
                   "no pad answers (a broken lead, or a short)", wiring=True)


def no_touch(reading: int, seconds: int) -> Finding:
    return Finding(wire.PART_TOUCH, FAIL, f"reads {reading}, no touch seen in {seconds} s",
                   "a touch seen", "the pad does not answer a touch", wiring=True)


def touched(rest: int) -> Finding:
    return Finding(wire.PART_TOUCH, OK, f"reads {rest} at rest", "a touch seen", "a touch seen and confirmed")


# -- the feed --------------------------------------------------------------------------------

def feed_unended() -> Finding:
    return Finding(wire.PART_MOTOR, FAIL, "no end to the feed", "the fed cards counted",
                   "the board did not finish the feed", wiring=True)


def beam_counted(cards: int, beam_ms: int) -> Finding:
    return Finding(wire.PART_EXIT, OK, f"saw the {cards} cards fed", "every card counted", f"{beam_ms} ms a card in the beam")


def sides_never_agree(answers: int, cards: int) -> Finding:
    return Finding(wire.PART_MOTOR, FAIL, f"{answers} answers, {cards} cards each", "left for left",
                   "your answers and where the cards landed disagree each time: the motor turned both ways (the "
                   "exit beam counted every card), so cards cannot land on one pile both ways; nothing is stored: "
                   f"watch the piles as the cards land and {TRY_AGAIN}")


def motor_uncounted() -> Finding:
    """The tray cannot be counted yet: which way the motor deals is not judged."""
    return Finding(wire.PART_MOTOR, SKIP, "not judged", "-",
                   "the tray cannot be counted until the load cell's step has passed: do it first")


def motor_after_beam() -> Finding:
    return Finding(wire.PART_MOTOR, SKIP, "not judged", "-",
                   "which way it deals is judged once the beam counts the cards")


def too_few_to_feed(tray: str, least: int) -> Finding:
    """`tray`: what the tray reads, in cards."""
    return Finding(wire.PART_STACK, FAIL, f"the tray reads {tray}", f"{least} or more",
                   f"put {least} or more cards in the tray, then {TRY_AGAIN}")


def feed_ended(what: str) -> Finding:
    """The feed ended other than done (`what`: the board's words for why)."""
    return Finding(wire.PART_EXIT, FAIL, f"the feed ended: {what}", "every card counted",
                   "take the cards out of the exit and the piles, then do this step again")


# -- the battery -----------------------------------------------------------------------------

def divider_off(board_mv: int, meter_mv: int) -> Finding:
    """The meter read the same again (or a voltage no battery has): the divider."""
    return Finding(wire.PART_BATTERY, FAIL, _volts(board_mv, meter_mv), "within 10 % of the meter",
                   "more than 10 % apart on the same meter reading again: its divider", wiring=True)


def meter_unsure(board_mv: int, meter_mv: int) -> Finding:
    """The meter read different voltages each time: nothing trimmed."""
    return Finding(wire.PART_BATTERY, FAIL, _volts(board_mv, meter_mv), "within 10 % of the meter",
                   "more than 10 % apart each time, the meter reading different voltages: nothing "
                   f"is trimmed; measure across the battery's terminals and {TRY_AGAIN}")


def _volts(board_mv: int, meter_mv: int) -> str:
    return f"the board reads {board_mv / 1000:.2f} V, the meter {meter_mv / 1000:.2f} V"
