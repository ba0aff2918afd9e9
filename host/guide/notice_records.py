"""What the guide tells the person besides the steps, as records: a kind
and its fields, nothing worded (host/guide/notice_words.py words them, once;
host/guide/notices.py is the one place the rest of the host reads them
from)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shuffling import steps as step_kinds


# -- where the routine stands ------------------------------------------------------------

@dataclass(frozen=True)
class Where:
    """A place in the routine, as a notice says it: 'round 2 of 8, load A
    (pass 3 of 16)', or after its pass 'round 2 of 8, after load A's pass
    (3 of 16 passes done)'."""

    round: int
    of_rounds: int
    load: str
    pass_number: int
    of_passes: int
    after: bool = False

    def __str__(self) -> str:
        if self.after:
            return (f"round {self.round} of {self.of_rounds}, after load {self.load}'s pass "
                    f"({self.pass_number} of {self.of_passes} passes done)")
        return f"round {self.round} of {self.of_rounds}, load {self.load} (pass {self.pass_number} of {self.of_passes})"


# -- the notices ----------------------------------------------------------------------------

@dataclass(frozen=True)
class RoutineHeader:
    """What the run will do, said first."""

    title: str
    cards: int
    exact: bool
    rounds: int
    passes: int
    loads: tuple[int, ...]
    quality: str
    threshold: float
    distance: float  # random mode: where the rounds bring the pack
    seconds: float | None = None  # the time model's estimate for the whole run
    on_loss: str = "exact"  # exact mode: what follows should exactness be lost


@dataclass(frozen=True)
class DeviceFound:
    port: str
    fw: str
    board: str
    proto: int
    capacity: int


@dataclass(frozen=True)
class VirtualStarted:
    port: str


@dataclass(frozen=True)
class RoundStart:
    round: int
    of_rounds: int
    exact: bool
    seconds_left: float | None = None  # the time model's estimate for this round and the rest


@dataclass(frozen=True)
class WaitingForLoad:
    load: str
    keyboard: bool  # the person can say with Enter that the cards are in


@dataclass(frozen=True)
class TrayStillEmpty:
    """Enter said the cards are in, and the tray reads empty."""

    load: str


@dataclass(frozen=True)
class LoadKept:
    """Random mode: a load off its size within tolerance, dealt as it is."""

    load: str
    want: int
    n: int
    next_load: str
    began: bool = False  # the pass had already begun with it


@dataclass(frozen=True)
class LoadToMove:
    """A load off its size that cards moved to or from the next load put right."""

    load: str
    want: int
    n: int
    about: bool
    capacity: int
    move: step_kinds.Move


@dataclass(frozen=True)
class LoadShort:
    """The last load of a round (or one with no load below it) is short."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class LoadLong:
    load: str
    want: int
    n: int
    capacity: int


@dataclass(frozen=True)
class OtherPackCard:
    """The last load of a round holds more than the pack has left for it:
    not a card gone missing, one come in (a card of another pack)."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class PackHolds:
    """The pack is not the game's: asked once for the cards, it is shuffled
    as the pack it is (`fresh`: exact mode's fresh routine for it)."""

    held: int
    game: int
    fresh: bool = False


@dataclass(frozen=True)
class LoadDealtAsItIs:
    """Put right several times and still off: dealt as it is."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class PassBeganOffSize:
    """The last load's pass began with a count other than the plan's."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class StacksSwapped:
    load: str
    want: int
    n: int
    stack: str  # "left" or "right": the stack that is this load
    other_stack: str


@dataclass(frozen=True)
class LoadsSwapped:
    """Exact mode's split: the tray holds another load's count (the loads
    of its parts look taken for one another)."""

    load: str
    want: int
    n: int
    other: str


@dataclass(frozen=True)
class RoundCountOff:
    round: int
    dealt: int
    cards: int


@dataclass(frozen=True)
class StepsTakenAsDone:
    """A fact the shuffler saw (a load in the tray, a pass begun) shows the
    person has gone on: the steps shown before it count as done."""

    by: str  # "load" or "pass"
    load: str
    steps: int
    cards: int | None = None


@dataclass(frozen=True)
class PassNotInRoutine:
    """A pass began where the routine has none."""

    cards: int


@dataclass(frozen=True)
class EmptyTouch:
    """The sensor was touched with the tray empty: nothing moved."""


@dataclass(frozen=True)
class TrayReadsEmpty:
    """A start refused: the shuffler reads the tray as empty."""

    load: str


@dataclass(frozen=True)
class TooFullForTray:
    load: str
    n: int
    capacity: int


@dataclass(frozen=True)
class BatteryTooLowToStart:
    pass


@dataclass(frozen=True)
class StartRefused:
    """A start the device refused: `event` is its fault event, which
    notice_words says (device_words.event_words)."""

    event: Any


@dataclass(frozen=True)
class FaultLeftOver:
    name: str


@dataclass(frozen=True)
class BatteryWarning:
    mv: int | None


@dataclass(frozen=True)
class LoadCellCorrected:
    """The load cell's count of a load was wrong by the exit's: the shuffler
    corrected its weight a card (the device's warn, said once)."""

    counted: int  # the load cell's count at the pass's start
    held: int  # what the load held: the exit's count and any cards left in the tray
    was: int | None
    per_card: int | None


@dataclass(frozen=True)
class PassPaused:
    """A fault that pauses a pass (the catalogue's PAUSES: a jam) stopped it
    after `dealt` of `of` cards: put right, a touch takes it up again."""

    where: Where
    dealt: int
    of: int
    code: int  # the fault's declared code: the catalogue says what happened


@dataclass(frozen=True)
class ExitBlocked:
    """The exit beam stayed blocked too long: two cards together, or a card
    caught in the exit. Nothing is said of where they went: the tray's count
    tells, once the caught cards are back."""

    where: Where
    dealt: int
    of: int
    reason: Any = None  # the device's fault record, whose reason notice_words says (device_words.why_words)


@dataclass(frozen=True)
class TwoAsOne:
    """At a pass's end the tray was empty one card before the exit's count:
    two cards went through as one somewhere in it. Nothing is caught."""

    where: Where
    counted: int
    of: int


@dataclass(frozen=True)
class ExitBlockedAtStart:
    """A start refused: the exit reads blocked before any card moved."""


@dataclass(frozen=True)
class TrayEmptied:
    where: Where
    dealt: int
    of: int
    missing: int


@dataclass(frozen=True)
class BatteryRanDown:
    where: Where
    dealt: int
    of: int


@dataclass(frozen=True)
class SensorLost:
    part: str | None  # the part the device named (protocol.PART_*; fault_catalogue.sensor_name words it)
    dealt: int | None = None
    of: int | None = None
    reason: Any = None  # the device's fault record, whose reason notice_words says


@dataclass(frozen=True)
class DeviceFault:
    """A fault of the catalogue's with no notice of its own (an internal
    stop), said in its words, with where it stopped the pass when it did."""

    code: int
    where: Where | None = None
    dealt: int | None = None
    of: int | None = None
    reason: Any = None  # the device's fault record, whose reason notice_words says


@dataclass(frozen=True)
class UnknownFault:
    """A fault or warning this tool does not know (another firmware's, or a
    device that breaks the protocol): its code, part and reason as sent. A
    fault holds the guide; nothing is guessed about it."""

    event: str  # "fault" or "warn": the event that carried it
    code: int | None
    part: str | None = None
    reason: Any = None  # the event as sent, whose reason notice_words says


@dataclass(frozen=True)
class PassGoesOn:
    """After a stop part way, the tray's count shows where it stopped."""

    load: str
    dealt: int
    rest: int


@dataclass(frozen=True)
class Restarted:
    """The shuffler started again. `dealt` of `of` cards of the pass in hand
    lie on the piles (None: between passes). exact: None in random mode;
    True when the shuffler kept its exact routine; False when it is gone
    (then ExactLost follows: this notice says nothing of exactness)."""

    where: Where | None
    dealt: int | None = None
    of: int | None = None
    unplugged: bool = False  # it restarted while the cable was out


@dataclass(frozen=True)
class PassBeganUnplugged:
    held: int
    rest: int


@dataclass(frozen=True)
class ConnectionLost:
    where: Where | None
    dealt: int | None
    of: int | None
    wait_s: float


@dataclass(frozen=True)
class DeviceBack:
    pass


@dataclass(frozen=True)
class NotAnswering:
    pass


@dataclass(frozen=True)
class ClearUnanswered:
    pass


@dataclass(frozen=True)
class ExactIntro:
    rounds: int
    passes: int


@dataclass(frozen=True)
class ExactRoundDealt:
    """A round of the exact routine dealt: its loads (place names), the
    stack they were cut from (None: the pack), a part's pass number among
    its passes, and what waits aside (`done`: the parts among it already
    dealt); shuffling/exact_mode/round_loads.py."""

    round: int
    of_rounds: int
    dealt: tuple[str, ...] = ()
    source: str | None = None
    part_pass: int | None = None
    part_passes: int | None = None
    aside: tuple[str, ...] = ()
    done: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExactLost:
    """Exactness is gone, and the evidence that shows it."""

    where: Where | None
    reason: str  # a reason name (reason_words)
    load: str | None = None
    n: int | None = None
    expected: int | None = None


@dataclass(frozen=True)
class PartDealtAgain:
    """A part of the split lost its order while its cards stayed its own: it
    is dealt again from fresh codes (docs/exact-mode.md, "A part dealt
    again"). want, n: the load's count that showed it (cards gone by hand)."""

    where: Where | None
    part: str
    reason: str  # why its order went: a reason name (reason_words)
    passes: int
    seconds: float
    after: bool = False  # a pass of it is in hand: it goes on at random first
    want: int | None = None
    n: int | None = None


@dataclass(frozen=True)
class StackDealtAgain:
    """A load of the split held the wrong set of cards (a part's at its
    first pass, a split round's last load: a card stacked onto the other
    stack when the split round `round` split `stack`): that stack is put
    together again from `stacks` and dealt again from that round with
    fresh codes (docs/exact-mode.md, *Mended in place* (d)). want, n: the
    count that showed it; passes, seconds: what dealing it again costs;
    fresh: a fresh routine's passes."""

    where: Where | None
    load: str
    want: int
    n: int
    stack: str  # a place on the table (shuffling/step_names.py)
    stacks: tuple[str, ...]
    round: int
    passes: int
    seconds: float
    fresh: int


@dataclass(frozen=True)
class ExactNotConfirmed:
    pass


@dataclass(frozen=True)
class FreshExactRun:
    """After exactness was lost: the gathered pack goes through a fresh exact routine."""

    rounds: int
    passes: int


@dataclass(frozen=True)
class FinishAtRandom:
    rounds: int
    distance: float
    quality: str
    threshold: float


@dataclass(frozen=True)
class HeldRoutineDropped:
    """A fresh exact run on a shuffler that holds a routine from an earlier
    run (stopped part way): that routine is dropped, said first."""

    round: int | None
    of_rounds: int | None
    load: str | None
    resume: str | None  # the command that goes on with it instead


@dataclass(frozen=True)
class Resuming:
    round: int
    of_rounds: int
    load: str
    passes_left: int


@dataclass(frozen=True)
class TooSoon:
    """An answer that came before the step could be read."""

    number: int
    via: str = "Enter"  # how the person answers: "Enter", or the page's "Done"


@dataclass(frozen=True)
class StillWaiting:
    number: int
    minutes: int


# -- notes: what the summary keeps that no notice tells as it is ----------------------------
# Most of the summary's notes are the notices they tell (Summary.notes holds
# the notice itself); these are the few that are not.

@dataclass(frozen=True)
class OtherPackKeptApart:
    """Cards of another pack were found and kept out of the shuffled pack."""

    cards: int


@dataclass(frozen=True)
class NoOtherPackFound:
    """The person looked for cards of another pack and found none."""


@dataclass(frozen=True)
class EarlierRoundsCounted:
    """A run that went on with a routine begun earlier: the distance counts
    rounds 1 to `rounds` as dealt as guided."""

    rounds: int


@dataclass(frozen=True)
class LoadDealtOff:
    """A load dealt with a count other than the plan's (LoadDealtAsItIs),
    with the round it was in."""

    load: str
    round: int | None
    want: int
    n: int


@dataclass(frozen=True)
class StrayPass:
    """A pass where the routine has none (PassNotInRoutine), with where."""

    cards: int | None
    where: Where | None


@dataclass(frozen=True)
class UnknownFaultHeld:
    """The guide held on a fault this tool does not know (UnknownFault), with where."""

    code: int | None
    where: Where | None


@dataclass(frozen=True)
class DeviceContradicted:
    """The guide held on a fact of the device that cannot be true
    (host/device_words.py CONTRADICTIONS: `name`, with its values)."""

    name: str
    values: tuple[tuple[str, Any], ...]


__all__ = ["Where", "RoutineHeader", "DeviceFound", "VirtualStarted", "RoundStart", "WaitingForLoad",
           "TrayStillEmpty", "LoadKept", "LoadToMove", "LoadShort", "LoadLong", "OtherPackCard", "PackHolds",
           "LoadDealtAsItIs", "PassBeganOffSize", "StacksSwapped", "LoadsSwapped", "RoundCountOff",
           "StepsTakenAsDone", "PassNotInRoutine", "EmptyTouch", "TrayReadsEmpty", "TooFullForTray",
           "BatteryTooLowToStart", "StartRefused", "FaultLeftOver", "BatteryWarning", "LoadCellCorrected", "PassPaused",
           "ExitBlocked", "TwoAsOne", "ExitBlockedAtStart", "TrayEmptied", "BatteryRanDown", "SensorLost",
           "DeviceFault", "UnknownFault", "PassGoesOn", "Restarted", "PassBeganUnplugged", "ConnectionLost",
           "DeviceBack", "NotAnswering", "ClearUnanswered", "ExactIntro", "ExactRoundDealt", "ExactLost",
           "PartDealtAgain", "StackDealtAgain", "ExactNotConfirmed", "FreshExactRun", "FinishAtRandom",
           "HeldRoutineDropped", "Resuming", "TooSoon", "StillWaiting", "OtherPackKeptApart", "NoOtherPackFound",
           "EarlierRoundsCounted", "LoadDealtOff", "StrayPass", "UnknownFaultHeld", "DeviceContradicted"]
