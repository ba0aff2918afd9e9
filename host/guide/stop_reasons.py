"""Why the guide stops, as records: a kind and its fields, nothing worded.

A stop (host/guide/results.py GuideStopped) carries its reason as one of
these, or as the port's record (host/port_records.py: a broken message,
MicroPython's prompt) where the link said it. host/guide/stop_words.py
words each, once; the console's stop line, the steps file's "stop" line,
`--json` and the page's stop banner carry the same record.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Changed.what: what of the firmware changed
PROTOCOL, TABLE, VERSION = "protocol", "table", "version"


@dataclass(frozen=True)
class Changed:
    """One thing of the firmware that is not what the session began with."""

    what: str  # PROTOCOL, TABLE (the declaration's digest) or VERSION
    was: object
    now: object


@dataclass(frozen=True)
class OtherFirmware:
    """The shuffler on `name` answers with firmware other than the session's
    (reflashed): nothing it holds belongs to this run. No changes: it
    refused the handshake in another protocol without saying which."""

    name: str
    changes: tuple[Changed, ...] = ()


@dataclass(frozen=True)
class OtherShuffler:
    """Another shuffler (its uid) answers on the port the session began with."""

    name: str
    uid: str | None
    was: str


@dataclass(frozen=True)
class NotBack:
    """The port went and the same shuffler did not answer on it again in time."""

    seconds: float
    last: str  # what the port last said, in its own words


@dataclass(frozen=True)
class Stalled:
    """The shuffler says it is dealing, yet no card goes through and no event comes."""

    name: str
    seconds: int
    garbage: int = 0  # lines that were not protocol meanwhile


@dataclass(frozen=True)
class HelloFlood:
    """More hellos in one pass than a restarting board sends: a device at fault."""

    name: str
    hellos: int


@dataclass(frozen=True)
class RoutineUnfit:
    """The exact routine the shuffler began (or holds) is not one this guide
    can walk for the pack (another firmware's plan)."""

    cards: int
    detail: str  # what does not fit, as the routine's check said it


# WaitedOut.waited_for
ANSWER, CARDS, PASS_START, TAKEN_UP = "answer", "cards", "pass_start", "taken_up"


@dataclass(frozen=True)
class WaitedOut:
    """--wait's seconds went by at a step without what it waits for (an
    answer, cards in the tray, a pass begun, a paused pass taken up)."""

    waited_for: str  # ANSWER, CARDS, PASS_START or TAKEN_UP
    seconds: float


@dataclass(frozen=True)
class Interrupted:
    """Ctrl-C, or SIGTERM taken as it (host/commands/guide.py)."""


@dataclass(frozen=True)
class InputEnded:
    """The person's input ended (end of file) while a step waited for an answer."""


@dataclass(frozen=True)
class ReconnectsSpent:
    """The port went away more times in one pass than the guide waits out."""

    times: int


@dataclass(frozen=True)
class LeftForPrompt:
    """The firmware was interrupted (Ctrl-C on its console) and left for MicroPython's prompt."""


@dataclass(frozen=True)
class NotCalibrated:
    """The shuffler refused a pass: its count sensor is not calibrated (setup on `port` calibrates it)."""

    port: str


@dataclass(frozen=True)
class HeldOnUnknownFault:
    """A fault this tool does not know (its code): the guide holds; `check` on
    `port` looks at the machine, and `resume` (a command, or None) goes on."""

    code: int
    port: str
    resume: str | None


@dataclass(frozen=True)
class FruitlessParts:
    """The pass stopped again and again before its first card."""

    times: int


@dataclass(frozen=True)
class DeviceHeld:
    """A fault of the device (`note`, a notice record) holds the pass;
    `exactness_lost`: exactness was still claimed, and now nothing is."""

    note: Any
    exactness_lost: bool


@dataclass(frozen=True)
class PackOutOfRange:
    """The tray's counts say the pack holds `held` cards: not a pack this
    tool plans for (`least` to `most` cards)."""

    held: int
    least: int
    most: int


@dataclass(frozen=True)
class TrayOverPack:
    """The shuffler on `name` counts more cards in the tray than the whole
    pack holds: some are not of this pack, or its count sensor needs
    calibrating (the guide cannot tell which)."""

    name: str
    counted: int
    pack: int


@dataclass(frozen=True)
class Refused:
    """The shuffler refused a request: its reply as it came (numbers, as
    on the wire: the request, the error code, why; host/device_words.py
    words them)."""

    reply: dict[str, Any]


# NotDone.what: what the walk asked of the shuffler that it did not do
LEAVE_ROUTINE = "leave_routine"  # cancel its exact routine
DEAL_LOAD_AGAIN = "deal_load_again"  # deal load `load` again (exact_repair)
DEAL_STACK_AGAIN = "deal_stack_again"  # deal the stack load `load` was cut from again (exact_repair, parent)
ANSWER_AFTER_PASS = "answer_after_pass"  # say where its routine stands after a pass (status)


@dataclass(frozen=True)
class NotDone:
    """The shuffler did not do what the walk asked (`what`, one of the
    names above; `load`, the load it names): `cause`, the port's record of
    why (no answer, the port gone) or Refused."""

    what: str
    cause: Any
    load: str | None = None


@dataclass(frozen=True)
class CannotDoStep:
    """The person cannot do a step: `trouble`, what the table does not
    allow (shuffling/step_records.py TableTrouble)."""

    trouble: Any


@dataclass(frozen=True)
class PageClosed:
    """The guide's page was closed: nobody answers the steps any more."""


# OptionsRefused.why: options that do not go together (host/guide/options.py)
ONE_DEVICE = "one_device"  # not exactly one of --port, --sim, --manual (`chosen`: those given)
UNATTENDED_NEEDS_VIRTUAL = "unattended_needs_virtual"
RECORD_NEEDS_UNATTENDED = "record_needs_unattended"
EXACT_NEEDS_SHUFFLER = "exact_needs_shuffler"
ROUNDS_GO_WITH_RANDOM = "rounds_go_with_random"
ROUTINE_GOES_WITH_EXACT = "routine_goes_with_exact"
RESUME_NEEDS_PORT = "resume_needs_port"


@dataclass(frozen=True)
class OptionsRefused:
    """The command line's options do not go together: the guide does not begin."""

    why: str  # one of the names above
    chosen: tuple[str, ...] = ()  # ONE_DEVICE: the options given of the three


__all__ = ["PROTOCOL", "TABLE", "VERSION", "Changed", "OtherFirmware", "OtherShuffler", "NotBack", "Stalled",
           "HelloFlood", "RoutineUnfit", "ANSWER", "CARDS", "PASS_START", "TAKEN_UP", "WaitedOut", "Interrupted",
           "InputEnded", "ReconnectsSpent", "LeftForPrompt", "NotCalibrated", "HeldOnUnknownFault", "FruitlessParts",
           "DeviceHeld", "ONE_DEVICE", "UNATTENDED_NEEDS_VIRTUAL", "RECORD_NEEDS_UNATTENDED", "EXACT_NEEDS_SHUFFLER",
           "ROUNDS_GO_WITH_RANDOM", "ROUTINE_GOES_WITH_EXACT", "RESUME_NEEDS_PORT", "OptionsRefused", "PackOutOfRange",
           "TrayOverPack", "Refused", "LEAVE_ROUTINE", "DEAL_LOAD_AGAIN", "DEAL_STACK_AGAIN", "ANSWER_AFTER_PASS",
           "NotDone", "CannotDoStep", "PageClosed"]
