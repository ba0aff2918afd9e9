"""The one English wording of each reason the guide stops
(host/guide/stop_reasons.py), and of the port's records that stop it
(host/port_words.py words those): a function of its fields."""
from __future__ import annotations

from typing import Any, Callable

from host import device_words, fault_catalogue, port_words
from host.guide.notice_words import note_words
from host.guide.stop_reasons import *  # noqa: F403 - every record (its __all__) is worded here
from shuffling.step_words import trouble_words

_CHANGED = {PROTOCOL: "protocol", TABLE: "message table", VERSION: "version"}


def _other_firmware(r: OtherFirmware) -> str:
    changes = "; ".join(f"{_CHANGED[c.what]} {c.was}, now {c.now}" for c in r.changes) or "another protocol"
    return (device_words.contradiction_words("reflash", changes=changes) + ": this run claims nothing of the "
            f"pack's order; flash the firmware that comes with this tool (`shuffler flash --port {r.name}`), "
            "then start the guide again")


def _stalled(r: Stalled) -> str:
    junk = f" ({r.garbage} lines that are not protocol)" if r.garbage else ""
    return (f"{r.name} broke the protocol: it says it is dealing, yet no card has gone through for "
            f"{r.seconds} s and it sends no events{junk}")


def _held(r: DeviceHeld) -> str:
    tail = "; exactness is lost: nothing is claimed of the pack's order" if r.exactness_lost else ""
    return f"{note_words(r.note)}; the pass is held{tail}"


_REFUSED = {
    UNATTENDED_NEEDS_VIRTUAL: "--unattended needs the virtual shuffler: --sim, or --port with --world",
    RECORD_NEEDS_UNATTENDED: "--record goes with --unattended",
    EXACT_NEEDS_SHUFFLER: "exact mode needs the shuffler (--port or --sim); --manual is random mode",
    ROUNDS_GO_WITH_RANDOM: "--rounds and --from-round go with --mode random (exact mode always runs its whole routine)",
    ROUTINE_GOES_WITH_EXACT: "--routine chooses exact mode's routine: it goes with --mode exact",
    RESUME_NEEDS_PORT: ("--resume goes on with an exact routine on a shuffler: use it with --port "
                        "(in random mode, --from-round goes on)"),
}


def _refused(r: OptionsRefused) -> str:
    if r.why == ONE_DEVICE:
        return "choose one of --port PORT, --sim or --manual" + (f" (got {' and '.join(r.chosen)})" if r.chosen else "")
    return _REFUSED[r.why]


_WAITED = {
    ANSWER: "nobody answered the step within {:g} s",
    CARDS: "no cards came into the tray within {:g} s",
    PASS_START: "no pass started within {:g} s",
    TAKEN_UP: "the pass was not taken up again within {:g} s",
}

_NOT_DONE = {
    LEAVE_ROUTINE: "the shuffler could not leave its exact routine: {cause}",
    DEAL_LOAD_AGAIN: "the shuffler could not deal load {load} again: {cause}",
    DEAL_STACK_AGAIN: "the shuffler could not deal the stack load {load} was cut from again: {cause}",
    ANSWER_AFTER_PASS: "the shuffler did not answer after the pass ({cause})",
}


def _not_done(r: NotDone) -> str:
    cause = r.cause if isinstance(r.cause, str) else words(r.cause)  # a string: a fault said in words alone
    return _NOT_DONE[r.what].format(load=r.load, cause=cause)


_WORDING: dict[type, Callable[[Any], str]] = {
    WaitedOut: lambda r: _WAITED[r.waited_for].format(r.seconds),
    OptionsRefused: _refused,
    OtherFirmware: _other_firmware,
    OtherShuffler: lambda r: (f"another shuffler answers on {r.name} (uid {r.uid or 'none'}, not {r.was}): the guide "
                              "will not go on with a device it did not start with"),
    NotBack: lambda r: f"the shuffler did not come back within {r.seconds:g} s ({r.last})",
    Stalled: _stalled,
    HelloFlood: lambda r: (f"{r.name} broke the protocol: it sent hello {r.hellos} times during one pass: it keeps "
                           "restarting or does not keep to the protocol"),
    RoutineUnfit: lambda r: f"the shuffler's exact routine does not fit this pack: {r.detail}",
    InputEnded: lambda r: "the input ended, so no step can be answered",
    ReconnectsSpent: lambda r: f"the connection to the shuffler was lost {r.times} times during one pass",
    LeftForPrompt: lambda r: ("the shuffler's firmware was interrupted and left for its prompt; unplug it and plug it "
                              "in again"),
    NotCalibrated: lambda r: f"the count sensor is not calibrated: run `shuffler setup --port {r.port}` first",
    HeldOnUnknownFault: lambda r: (f"the shuffler reports fault {r.code}, which this tool does not know; "
                             f"{fault_catalogue.advice(r.code)} (`shuffler check --port {r.port}`)"
                             + (f", then `{r.resume}` goes on" if r.resume else "")),
    Interrupted: lambda r: "interrupted",
    FruitlessParts: lambda r: (f"the pass stopped {r.times} times in a row before its first card went through: "
                               "the shuffler needs looking at (its last fault is above)"),
    DeviceHeld: _held,
    PackOutOfRange: lambda r: (f"the pack holds {r.held} card{'s' * (r.held != 1)}: this tool plans for packs of "
                               f"{r.least} to {r.most} cards"),
    TrayOverPack: lambda r: (f"{r.name} counts {r.counted} cards in the tray, more than the whole pack ({r.pack}): "
                             "some are not of this pack, or its count sensor needs calibrating (`shuffler setup`)"),
    Refused: lambda r: device_words.refusal_words(r.reply),
    NotDone: _not_done,
    CannotDoStep: lambda r: trouble_words(r.trouble),
    PageClosed: lambda r: "the guide's page was closed",
}

KINDS: frozenset[type] = frozenset(_WORDING)


def words(r: Any) -> str:
    """A stop's reason in one line: its own wording, or the port's for a port's record."""
    fn = _WORDING.get(type(r))
    return fn(r) if fn is not None else port_words.words(r)
