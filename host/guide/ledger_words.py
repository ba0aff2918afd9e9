"""The ledger's one wording (host/guide/ledger.py): each entry's record
said as the summary shows it, "where: what happened; what was done". The
console and the page show these words; the summary's data keeps the
records beside them, and nothing reads the words back."""
from __future__ import annotations

from typing import Any, Callable

from host import device_words
from host.guide import ledger as proof
from host.guide.notice_words import lost_cause, part_cause, stack_cause, stack_then
from shuffling.steps import cards

BEFORE = "before the first pass"


def _load_off(r: proof.LoadOff) -> str:
    first = " at its first pass" if r.first_pass else ""
    return f"load {r.load} held {r.n} cards{first}, not {r.want}"


def _fresh(r: proof.FreshRoutine) -> str:
    pack = f"the whole pack of {r.cards} cards" if r.cards is not None else "the whole pack"
    rounds = f" ({r.rounds} rounds)" if r.rounds is not None else ""
    return f"{pack} went through a fresh exact routine{rounds}"


WHAT: dict[type, Callable[[Any], str]] = {
    proof.LoadOff: _load_off,
    proof.LoadsTakenForOneAnother: lambda r: (f"load {r.load} held load {r.other}'s count ({r.n} cards): the two "
                                              "looked taken for one another"),
    proof.PackOff: lambda r: f"the pack holds {r.held} cards, not {r.game}",
    proof.PassStopped: lambda r: f"the pass stopped after {r.dealt} of {r.total} cards",
    proof.DeviceContradiction: lambda r: device_words.contradiction_words(r.name, **dict(r.values)),
    proof.DeviceChanged: lambda r: r.line,
    proof.ExactLost: lost_cause,
    proof.PartDealtAgain: part_cause,
    proof.StackDealtAgain: stack_cause,
}

THEN: dict[type, Callable[[Any], str]] = {
    proof.SwappedBack: lambda r: "swapped back before either was dealt",
    proof.PutBackAtBottom: lambda r: ("its missing cards to be put back at its bottom before any pass of its part, "
                                      "where cards of its own do not matter"),
    proof.PutRightUndealt: lambda r: "put right before any of its cards was dealt, where it does not matter",
    proof.DealtOnFromCount: lambda r: ("the rest was dealt on from the tray's count, which shows the shuffler where "
                                       "each card of it belongs"),
    proof.PartAgain: lambda r: f"load {r.part} was dealt again from fresh codes ({r.passes} passes)",
    proof.StackAgain: stack_then,
    proof.LookedForOtherPack: lambda r: f"every card was looked through for {cards(r.cards)} of another pack",
    proof.FreshRoutine: _fresh,
    proof.RandomFinish: lambda r: f"random rounds finished the pack ({r.rounds} rounds)",
    proof.StoppedThere: lambda r: "the guide stopped: nothing is claimed of the pack's order",
}


def words(entry: proof.Entry) -> str:
    where = str(entry.where) if entry.where is not None else BEFORE
    then = f"; {THEN[type(entry.then)](entry.then)}" if entry.then is not None else ""
    return f"{where}: {WHAT[type(entry.what)](entry.what)}{then}"


def as_data(ledger: proof.Ledger) -> list[dict[str, Any]]:
    """The entries as data (the summary's `exactness`): the records, and
    each entry's words for the console and the page to show."""
    return [{"where": proof.record_dict(e.where) if e.where is not None else None, "what": proof.record_dict(e.what),
             "outcome": e.outcome, "then": proof.record_dict(e.then) if e.then is not None else None,
             "words": words(e)} for e in ledger.entries]
