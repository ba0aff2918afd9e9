"""The one English wording of each notice (host/guide/notice_records/):
a function of its fields. The console, the page and the steps file show
these words; nothing parses them back, and no front-end rewrites them (the
page's Done is a parameter of the wording, `answer`)."""
from __future__ import annotations

from typing import Any

from firmware import protocol
from host import device_words, fault_catalogue
from host.guide.notice_records import *  # noqa: F403 - every record (its __all__) is worded here
from shuffling import steps as step_kinds

def _cards(n: int) -> str:
    return step_kinds.cards(n)


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def duration(seconds: float) -> str:
    """'4 min 05 s', '35 s'."""
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


HAND = "hand"  # cards of the load in hand moved by hand (the host saw its count off)
RESTART = "restart"  # exactness lost with the codes in a restart (the host's own reason; the device's are device_words.LOST)


def reason_words(reason: str) -> str:
    """Why exactness (or a part's order) went, as the guide says it after
    "Exactness is lost:": the device's reason by its name, in the one table
    of its words (host/device_words.py)."""
    if reason == RESTART:
        return "the shuffler restarted and its codes are gone"
    for name, sentence in device_words.LOST.values():
        if name == reason:
            return sentence[0].lower() + sentence[1:].rstrip(".")
    return f"the shuffler reports {reason}"


def _header(n: RoutineHeader) -> str:
    time = f" About {duration(n.seconds)} at the table." if n.seconds is not None else ""
    if n.exact:
        loss = ("a fresh exact routine follows" if n.on_loss == "exact"
                else f"random rounds finish the job for '{n.quality}'")
        return (f"{n.title}: {_cards(n.cards)}, exact mode: {_plural(n.rounds, 'round')} "
                f"({_plural(n.passes, 'pass', 'passes')}), then every order equally likely (distance from random "
                f"exactly 0). Should exactness be lost, {loss}.{time}")
    reach = (f"for '{n.quality}' (distance from random {n.distance:.3f}, at most {n.threshold:g})"
             if n.distance <= n.threshold else
             f"then distance from random {n.distance:.3f}, short of '{n.quality}' (at most {n.threshold:g})")
    return (f"{n.title}: {_cards(n.cards)}, loads {' / '.join(str(x) for x in n.loads)}, "
            f"{_plural(n.rounds, 'round')} ({_plural(n.passes, 'pass', 'passes')}) {reach}.{time}")


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _exact_round_dealt(n: ExactRoundDealt) -> str:
    """'round 2 of 14 dealt: load P, its pass 1 of 7; load Q waits aside'."""
    head = f"round {n.round} of {n.of_rounds} dealt"
    if not n.dealt:
        return head
    if n.part_pass is not None:
        what = f"{step_kinds.place(n.dealt[0])}, its pass {n.part_pass} of {n.part_passes}"
    else:
        what = (step_kinds.place(n.dealt[0]) if len(n.dealt) == 1
                else "loads " + _listed(list(n.dealt)))
        if n.source is not None:
            what += f", cut from {step_kinds.place(n.source)}"
    if not n.aside:
        return f"{head}: {what}"
    marked = [(x, " (done)" if x in n.done else "") for x in n.aside]
    if len(marked) > 1 and all(step_kinds.place(x) == f"load {x}" for x, _ in marked):
        aside = "loads " + _listed([x + done for x, done in marked])  # 'loads P (done) and Q'
    else:
        aside = _listed([step_kinds.place(x) + done for x, done in marked])
    return f"{head}: {what}; {aside} {'waits' if len(marked) == 1 else 'wait'} aside"


def _round_start(n: RoundStart) -> str:
    head = f"Round {n.round} of {n.of_rounds}" + (" (exact)" if n.exact else "")
    if n.seconds_left is not None:
        head += f" · about {duration(n.seconds_left)} left"
    return head


def _waiting(n: WaitingForLoad) -> str:
    tail = " (press Enter when they are in)" if n.keyboard else ""
    return f"waiting for the cards of load {n.load} in the tray{tail}"


def _load_kept(n: LoadKept) -> str:
    diff = n.n - n.want
    how = "the pass began with" if n.began else "holds"
    verb = "It is dealing anyway" if n.began else "It is dealt as it is"
    return (f"Load {n.load} should hold about {n.want} and {how} {n.n}. {verb}: the shuffle does not depend on "
            f"where the loads are cut, only on keeping the order, so load {n.next_load} will hold {abs(diff)} "
            f"{'fewer' if diff > 0 else 'more'}.")


def _over(n: int, capacity: int) -> str:
    return f", more than the {capacity} the tray takes" if n > capacity else ""


def _load_to_move(n: LoadToMove) -> str:
    about = "about " if n.about else ""
    return f"Load {n.load} should hold {about}{n.want} and holds {n.n}{_over(n.n, n.capacity)}: {step_kinds.move_phrase(n.move)}."


def _load_short(n: LoadShort) -> str:
    missing = n.want - n.n
    return (f"Load {n.load} should hold {n.want} and holds {n.n}: {_cards(missing)} {_are(missing)} missing from it. "
            f"Look on the table, in the exit and under the machine, and put them at the bottom of load {n.load}.")


def _load_long(n: LoadLong) -> str:
    extra = n.n - n.want
    return (f"Load {n.load} should hold {n.want} and holds {n.n}{_over(n.n, n.capacity)}: {_cards(extra)} too many. "
            "Another load or pile may have gone in with it: take the extra cards off its bottom.")


def _other_pack(n: OtherPackCard) -> str:
    extra = n.n - n.want
    return (f"Load {n.load} should hold {n.want} and holds {n.n}: {_cards(extra)} more than the pack has, so "
            f"{'a card' if extra == 1 else 'cards'} of another pack may have come in.")


def _pack_holds(n: PackHolds) -> str:
    found = "the missing cards were not found" if n.held < n.game else "no card of another pack was found"
    then = (f" Every card goes back into one pack for a fresh exact routine of {n.held} cards." if n.fresh else "")
    return f"The pack holds {n.held} cards, not {n.game}: {found}, so it is shuffled as the pack it is.{then}"


def _began_off(n: PassBeganOffSize) -> str:
    return (f"Load {n.load} should hold {n.want} and the pass began with {n.n}: "
            f"{'cards are missing' if n.n < n.want else 'extra cards came in'}; the guide carries on and counts "
            "them at the end of the round.")


def _swapped(n: StacksSwapped) -> str:
    return (f"Load {n.load} should be the {n.stack} stack ({n.want} cards); the tray holds {n.n}, the "
            f"{n.other_stack} stack's count: the stacks look swapped.")


def _loads_swapped(n: LoadsSwapped) -> str:
    return (f"Load {n.load} should hold {n.want} cards; the tray holds {n.n}, load {n.other}'s count: the two "
            "loads look taken for one another.")


def _round_count(n: RoundCountOff) -> str:
    what = "cards are missing" if n.dealt < n.cards else "extra cards came in"
    return (f"Round {n.round} dealt {n.dealt} cards but the pack has {n.cards}: {what}; look around the machine "
            "before the next hand.")


def _taken_as_done(n: StepsTakenAsDone) -> str:
    steps = "the step before it counts" if n.steps == 1 else f"the {n.steps} steps before it count"
    if n.by == "pass" and n.steps == 0:
        return f"The pass of load {n.load} began before the guide asked for the touch; the guide follows it."
    if n.by == "pass":
        return f"The pass of load {n.load} has begun, so {steps} as done."
    held = f" ({_cards(n.cards)})" if n.cards is not None else ""
    return f"Load {n.load} is in the tray{held}, so {steps} as done."


def _not_in_routine(n: PassNotInRoutine) -> str:
    return (f"A pass of {_cards(n.cards)} began where the routine has none: when it stops, put its left pile on its "
            "right pile and put those cards back where they came from, then go on with the step shown.")


def _restarted(n: Restarted) -> str:
    if n.unplugged:
        how = " while the cable was out"
    elif n.where is not None:
        how = f" during {n.where}"
    else:
        how = ""
    when = f", after {n.dealt} of {n.of} cards" if n.dealt is not None and n.of is not None else ""
    kept = " The cards dealt stay on the piles and the guide keeps its place." if n.dealt else ""
    return f"The shuffler restarted{how}{when}.{kept}"


def _connection_lost(n: ConnectionLost) -> str:
    during = f" during {n.where}" if n.where else ""
    after = f", after {n.dealt} of {n.of} cards" if n.dealt is not None and n.of is not None else ""
    return (f"Lost the connection to the shuffler{during}{after}. Check the USB cable and leave the cards as they "
            f"are; waiting up to {n.wait_s:g} s for it to come back.")


def paused_note(n: PassPaused) -> str:
    """The summary's note of a pass a fault paused and the person took up again."""
    return f"{fault_catalogue.noted(n.code)} during {n.where}; put right, the pass went on"


def _during(where: Where | None, sep: str = "") -> str:
    """' during round 1 of 2, load B (pass 2 of 4)' (after `sep`); "" nowhere known."""
    return f"{sep} during {where}" if where is not None else ""


def _in_pass(code: int, where: Where | None, dealt: int | None, of: int | None) -> str:
    """A fault's sentence from the catalogue, with where it stopped the pass."""
    happened = fault_catalogue.what_happened(code)
    return happened if where is None else f"{happened[:-1]} ({where}, after {dealt} of {of} cards)."


def _why(reason: Any) -> str:
    """The device's reason a fault record gives, in the words `shuffler
    check` uses (host/device_words.py); "" for none."""
    return device_words.why_words(reason) if reason is not None else ""


def _device_fault(n: DeviceFault) -> str:
    why = _why(n.reason)
    return _in_pass(n.code, n.where, n.dealt, n.of) + (f" The shuffler says: {why}." if why else "")


def _unknown_fault(n: UnknownFault) -> str:
    what = "a warning" if n.event == "warn" else "a fault"
    part = f", part {n.part}" if n.part else ""
    why = f": {_why(n.reason)}" if _why(n.reason) else ""
    held = "" if n.event == "warn" else " Nothing is guessed about it: the guide stops here."
    return f"The shuffler reports {what} this tool does not know (code {n.code}{part}{why}).{held}"


def _sensor(n: SensorLost) -> str:
    at = f" after {n.dealt} of {n.of} cards" if n.dealt is not None and n.of is not None else ""
    stopped = "; the pass stopped" if n.dealt is not None else "; the pass did not start"
    why = f" ({_why(n.reason)})" if _why(n.reason) else ""
    sensor = fault_catalogue.sensor_name(n.part)
    return f"{sensor[0].upper()}{sensor[1:]} does not answer{at}{stopped}{why}."


def lost_cause(n: ExactLost) -> str:
    """Why exactness went, as a clause: the sentence's and the ledger's."""
    if n.reason == "count" and n.n is not None and n.expected is not None:
        gone = "a card went missing" if n.n < n.expected else "a card of another pack came in"
        return (f"load {n.load or '?'} holds {n.n} cards, not the {n.expected} the shuffler expected: a stack or a "
                f"pile was swapped, a load came in out of turn, or {gone}")
    return reason_words(n.reason)


def _exact_lost(n: ExactLost) -> str:
    during = f" during {n.where}" if n.where else ""
    return f"Exactness is lost{during}: {lost_cause(n)}."


def part_cause(n: PartDealtAgain) -> str:
    """Why a part's order went, as a clause: the sentence's and the ledger's."""
    if n.want is not None and n.n is not None:
        return (f"load {n.part} should hold {n.want} and holds {n.n}: {_cards(n.want - n.n)} left it, and the "
                "shuffler cannot know where they go back")
    return reason_words(n.reason)


def _part_again(n: PartDealtAgain) -> str:
    during = f" during {n.where}" if n.where else ""
    why = part_cause(n)
    after = " once this pass is over (the rest of it goes at random)" if n.after else ""
    return (f"Load {n.part}'s order is lost{during}: {why}. Its cards are still its own, so load {n.part} alone is "
            f"dealt again from fresh codes{after}: {_plural(n.passes, 'pass', 'passes')}, about {duration(n.seconds)}. "
            "Every order of the pack is then equally likely again.")


def stack_cause(n: StackDealtAgain) -> str:
    """What showed a wrong set, as a clause: the sentence's and the ledger's."""
    return (f"load {n.load} should hold {n.want} and holds {n.n}: {_cards(abs(n.want - n.n))} went onto the wrong "
            f"stack when {step_kinds.place(n.stack)} was split in round {n.round}")


def stack_then(n: StackDealtAgain) -> str:
    """What was done about it, for the ledger."""
    return (f"{step_kinds.place(n.stack)} was put together again and dealt again from round {n.round} with fresh "
            f"codes ({_plural(n.passes, 'pass', 'passes')})")


def _stack_again(n: StackDealtAgain) -> str:
    during = f" during {n.where}" if n.where else ""
    said = step_kinds.place(n.stack)
    return (f"A wrong set of cards{during}: {stack_cause(n)}. No load alone can be dealt again to mend that, but "
            f"{said} still holds exactly its own cards, so it is put together again (the steps below say how) and "
            f"dealt again from round {n.round} with fresh codes: {_plural(n.passes, 'pass', 'passes')}, about "
            f"{duration(n.seconds)}, instead of a fresh routine's {n.fresh}. The loads outside it stay as they are. "
            "Every order of the pack is then equally likely again.")


def _fresh(n: FreshExactRun) -> str:
    return (f"The pack goes through a fresh exact routine: {_plural(n.rounds, 'round')} "
            f"({_plural(n.passes, 'pass', 'passes')}) with new codes, after which every order is again equally "
            "likely. The order the cards are in now does not matter.")


def _finish_random(n: FinishAtRandom) -> str:
    return (f"Finishing at random: {n.rounds} rounds bring any pack within {n.distance:.4f} of random "
            f"('{n.quality}' asks for at most {n.threshold:g}).")


def _held_dropped(n: HeldRoutineDropped) -> str:
    at = (f", at round {n.round} of {n.of_rounds}, load {n.load} next" if n.round is not None and n.of_rounds
          else "")
    instead = (f" To go on with it instead (the cards left as they lie), stop now with Ctrl-C and run `{n.resume}`."
               if n.resume else "")
    return (f"The shuffler holds an exact routine from an earlier run{at}: this run drops it and begins a fresh "
            f"one, so every card on the table and on the machine goes back into the pack.{instead}")


def _resuming(n: Resuming, answer: str) -> str:
    return (f"Going on with the shuffler's exact routine at round {n.round} of {n.of_rounds}, load {n.load} "
            f"({_plural(n.passes_left, 'pass', 'passes')} left). The steps since the last pass are shown again: "
            f"press {answer} for those you have done, or put load {n.load} in the tray to skip them all.")


_WORDING: dict[type, Any] = {
    RoutineHeader: _header,
    DeviceFound: lambda n: (f"Shuffler on {n.port}: firmware {n.fw}, board {n.board}, protocol {n.proto}, tray holds "
                            f"{n.capacity} cards."),
    VirtualStarted: lambda n: f"Started a virtual shuffler on {n.port}; flashing it:",
    RoundStart: _round_start,
    WaitingForLoad: _waiting,
    TrayStillEmpty: lambda n: f"The tray reads empty: put load {n.load} in first.",
    LoadKept: _load_kept,
    LoadToMove: _load_to_move,
    LoadShort: _load_short,
    LoadLong: _load_long,
    OtherPackCard: _other_pack,
    PackHolds: _pack_holds,
    LoadDealtAsItIs: lambda n: f"Load {n.load} still holds {n.n} cards, not {n.want}; it is dealt as it is.",
    PassBeganOffSize: _began_off,
    StacksSwapped: _swapped,
    LoadsSwapped: _loads_swapped,
    RoundCountOff: _round_count,
    StepsTakenAsDone: _taken_as_done,
    PassNotInRoutine: _not_in_routine,
    EmptyTouch: lambda n: "The sensor was touched with the tray empty; nothing moved.",
    TrayReadsEmpty: lambda n: f"The shuffler reads an empty tray: check that load {n.load} sits flat in it.",
    TooFullForTray: lambda n: (f"Load {n.load} holds {n.n} cards, more than the {n.capacity} the tray takes: "
                               "it is dealt in two parts onto the same piles."),
    BatteryTooLowToStart: lambda n: fault_catalogue.what_happened(protocol.FAULT_BATTERY_LOW),
    StartRefused: lambda n: f"The shuffler refused the pass: {device_words.event_words(n.event)}.",
    FaultLeftOver: lambda n: f"The shuffler had a fault left over ({n.name}); clearing it.",
    BatteryWarning: lambda n: ("The battery is running low" + (f" ({n.mv / 1000:.1f} V)" if n.mv else "")
                               + ": replace it soon."),
    LoadCellCorrected: lambda n: (f"The shuffler's load cell counted {n.counted} cards where the load held {n.held} "
                                  "(the exit beam's count): "
                                  + (f"its weight a card is corrected from {n.was} to {n.per_card}, "
                                     if n.was and n.per_card else "its weight a card is corrected, ")
                                  + "so the next loads count right."),
    PassPaused: lambda n: _in_pass(n.code, n.where, n.dealt, n.of),
    ExitBlocked: lambda n: (f"The exit stayed blocked too long ({n.where}, after {n.dealt} of {n.of} cards): two "
                            "cards went through together or a card is caught in the exit. The pass stopped"
                            + (f" (the shuffler says: {_why(n.reason)})." if _why(n.reason) else ".")),
    TwoAsOne: lambda n: (f"Two cards went through the exit as one somewhere in the pass ({n.where}): it counted "
                         f"{n.counted} of the {n.of} cards the tray held. Nothing is caught in the exit; every card "
                         "of the load is on a pile."),
    ExitBlockedAtStart: lambda n: ("The exit sensor reads blocked before the pass: take out any card in the exit. "
                                   "If there is none, the sensor's receiver is unplugged or broken."),
    TrayEmptied: lambda n: (f"The tray ran out early ({n.where}): {n.dealt} of {n.of} cards were dealt and "
                            f"{_cards(n.missing)} {_are(n.missing)} not in the tray any more."),
    BatteryRanDown: lambda n: _in_pass(protocol.FAULT_BATTERY_LOW, n.where, n.dealt, n.of),
    SensorLost: _sensor,
    DeviceFault: _device_fault,
    UnknownFault: _unknown_fault,
    PassGoesOn: lambda n: (f"The tray holds the {_cards(n.rest)} of load {n.load} not yet dealt: the pass goes on "
                           f"from card {n.dealt + 1}."),
    Restarted: _restarted,
    PassBeganUnplugged: lambda n: (f"The tray holds {n.rest} of the {n.held} cards it held: the pass began while "
                                   "the cable was out."),
    ConnectionLost: _connection_lost,
    DeviceBack: lambda n: "The shuffler is back.",
    NotAnswering: lambda n: "The shuffler has not answered for a while; checking the connection.",
    ClearUnanswered: lambda n: "The shuffler did not answer the request to clear the fault; carrying on.",
    ExactIntro: lambda n: (f"Exact mode: {_plural(n.rounds, 'round')} ({_plural(n.passes, 'pass', 'passes')}). "
                           "The shuffler chose a secret code for every card and deals each card by its code; after "
                           "the last round every order of the pack is equally likely. Follow the steps exactly: "
                           "which pile goes on top matters."),
    ExactRoundDealt: _exact_round_dealt,
    ExactLost: _exact_lost,
    PartDealtAgain: _part_again,
    StackDealtAgain: _stack_again,
    ExactNotConfirmed: lambda n: "The shuffler did not confirm the end of exact mode.",
    FreshExactRun: _fresh,
    FinishAtRandom: _finish_random,
    Resuming: _resuming,
    HeldRoutineDropped: _held_dropped,
    TooSoon: lambda n: (f"({n.via} came before step {n.number} could be read, so it does not count: press "
                        f"{n.via} once the step is done)"),
    StillWaiting: lambda n: (f"Still at step {n.number} after {n.minutes} min; the shuffler is kept awake, take "
                             "your time."),
}


ENTER = "Enter"  # how the person says a step is done at the console; the page's is its Done button
# Notices whose words name how the person answers (words()'s `answer`).
_ANSWERED: frozenset[type] = frozenset({Resuming})


def words(n: Any, answer: str = ENTER) -> str:
    """The one English wording of a notice, for a front-end whose person
    says a step is done with `answer` (the console's Enter, the page's Done)."""
    fn = _WORDING.get(type(n))
    if fn is None:
        raise TypeError(f"not a notice: {n!r}")
    return fn(n, answer) if type(n) in _ANSWERED else fn(n)


# -- the summary's notes ---------------------------------------------------------------------
# A note is a notice the summary keeps (said in the past, shorter than the
# notice), the notice's own words for those noted as told, or a record of
# its own (notice_records/_notes.py).
_NOTED: dict[type, Any] = {
    PassPaused: paused_note,
    Restarted: lambda n: f"the shuffler restarted{_during(n.where)}",
    ConnectionLost: lambda n: f"connection lost{_during(n.where)}",
    LoadCellCorrected: lambda n: (f"the load cell counted {n.counted} cards where the load held {n.held}: its weight "
                                  "a card was corrected"
                                  + (f" from {n.was} to {n.per_card}" if n.was and n.per_card else "")),
    PackHolds: lambda n: f"the pack holds {n.held} cards, not {n.game}: it was shuffled as the pack it is",
    ExactNotConfirmed: lambda n: "the shuffler did not confirm the end of exact mode",
    OtherPackKeptApart: lambda n: (f"{_cards(n.cards)} of another pack {'was' if n.cards == 1 else 'were'} found and "
                                   "kept apart: not in the shuffled pack"),
    NoOtherPackFound: lambda n: "no card of another pack was found: none was kept apart",
    EarlierRoundsCounted: lambda n: (f"the distance counts rounds 1 to {n.rounds} as done as guided before this "
                                     "run"),
    LoadDealtOff: lambda n: (f"load {n.load} of round {n.round if n.round is not None else '?'} was dealt with {n.n} "
                             f"cards instead of {n.want}"),
    StrayPass: lambda n: (f"a pass of {_cards(n.cards) if n.cards is not None else 'cards'} nobody asked for"
                          f"{_during(n.where, ',')}"),
    UnknownFaultHeld: lambda n: (f"the shuffler reported fault {n.code}, which this tool does not know"
                                 f"{_during(n.where, ',')}"),
    DeviceContradicted: lambda n: ("a fault of the shuffler: "
                                   + device_words.contradiction_words(n.name, **dict(n.values))),
}
# Notices the summary keeps in the words they were told.
NOTED_AS_TOLD: frozenset[type] = frozenset({RoundCountOff, ExitBlocked, TwoAsOne, TrayEmptied, BatteryRanDown,
                                            SensorLost, DeviceFault})
NOTE_KINDS: frozenset[type] = frozenset(_NOTED) | NOTED_AS_TOLD


def note_words(n: Any) -> str:
    """The one wording of a summary's note (Summary.notes): the console,
    the page and `--json`'s `notes` show these words."""
    fn = _NOTED.get(type(n))
    if fn is not None:
        return fn(n)
    if type(n) in NOTED_AS_TOLD:
        return words(n)
    raise TypeError(f"not a note: {n!r}")
