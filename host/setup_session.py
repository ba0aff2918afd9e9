"""The board and the person as the bring-up's steps use them: requests to
the board (a restart of the board during the bring-up noticed at the next
one), a steady reading of the load cell, what a step holds on the board
until it is stored, and the person's answers read until they are ones the
step takes (host/setup.py drives the steps; host/setup_count.py,
setup_touch.py, setup_feed.py and setup_battery.py are the steps)."""
from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from firmware import protocol as wire
from host import check
from host import device_messages
from host import readings
from host import setup_steps
from host import setup_words
from host.device_link import Link
from host.parts import Finding
from host.setup_records import AnswerAgain, Found, Told

TOUCH_WAIT_S = 30  # the person's time to touch the pad
STEADY_WAIT_S = 30.0  # a reading that has not settled by then will not
STEADY_READS = 3
POLL_S = 0.2


class Person(Protocol):
    """The front-end: shows a step and returns what the person typed ("" for
    Enter); tells what the bring-up tells (a record of host/setup_records.py)."""

    def ask(self, step: setup_steps.Step) -> str: ...
    def tell(self, told: Told) -> None: ...


class Stop(Exception):
    """The bring-up cannot go on: `told` says why (its words are the
    message), `code` is the exit code."""

    def __init__(self, told: Told, code: int = 1) -> None:
        super().__init__(setup_words.words(told))
        self.told = told
        self.code = code


Flash = Callable[[str], None]  # flashes this tool's firmware onto the port, or raises Stop


class Session:
    """One bring-up's hold on the board and the person."""

    def __init__(self, port: str, person: Person, open_link: Callable[[str], Link] = Link.open,
                 touch_wait_s: int = TOUCH_WAIT_S) -> None:
        self.port = port
        self.person = person
        self.open_link = open_link
        self.touch_wait_s = touch_wait_s
        self.link: Link | None = None
        self.hello: dict[str, Any] = {}
        self.touches_before: int | None = None  # the board's touch count before the touch was asked for
        self.last_feed: Any = None  # the last feed's end: its Done or Fault event record, or check.Refused
        self.meter_refused = False  # the battery step's meter and the board disagreed: nothing trimmed

    # -- the board -----------------------------------------------------------------------
    @property
    def board(self) -> str:
        return str(device_messages.hello_view(self.hello).board or "sim") if self.hello else "sim"

    def ln(self) -> Link:
        assert self.link is not None
        return self.link

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None

    def req(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """A request answered; readings.BoardRestarted once the board has
        started again since the last one (its hello event came): what the
        bring-up held on it is gone, and a reading now is a fresh board's."""
        reply = self.ln().request(cmd, **fields)
        if any(readings.is_hello(item) for item in list(self.ln().events.queue)):
            raise readings.BoardRestarted(f"{self.port} restarted")
        return reply

    def settle(self) -> None:
        """Idle again: a paused pass aborted, a latched fault cleared (the board tests its sensors again)."""
        st = device_messages.reply_view(self.req(wire.CMD_STATUS)).state
        if st == wire.ST_PAUSED:
            self.req(wire.CMD_ABORT)
        if st in (wire.ST_PAUSED, wire.ST_ALARM):
            self.req(wire.CMD_CLEAR)

    def read(self) -> Any:
        """The sensors as the board reads them now (a ReadReply)."""
        return device_messages.reply_view(self.req(wire.CMD_READ))

    def cal(self, what: str, **fields: Any) -> Any:
        """Calibrate `what`, held on the board (in use, not stored: the
        driver stores it whole once every step passed): the calibration after it (a CalObject)."""
        return device_messages.reply_view(self.req(wire.CMD_CALIBRATE, what=what, hold=True, **fields)).cal

    def steady(self, per_card: int = 0) -> Any:
        """A reading of the load cell that has held still over STEADY_READS
        readings (or one without its answer); None if it never settles."""
        deadline = time.monotonic() + self.ln().wait_s(STEADY_WAIT_S)
        last: list[Any] = []
        while time.monotonic() < deadline:
            r = self.read()
            if r.raw is None:
                return r
            last = (last + [r])[-STEADY_READS:]
            raws = [x.raw for x in last]
            tol = max(max(x.spread for x in last), per_card // 3 if per_card else 100)
            if len(last) == STEADY_READS and max(raws) - min(raws) <= tol:
                return r
            time.sleep(POLL_S)
        return None

    def snapshot(self, feed: Any = None) -> check.Snapshot:
        return readings.snapshot(self.ln(), feed)

    # -- the person ----------------------------------------------------------------------
    def tell(self, told: Told) -> None:
        self.person.tell(told)

    def found(self, finding: Finding) -> None:
        self.person.tell(Found(finding, self.board))

    def yes(self, step: setup_steps.FlashOffer) -> bool:
        while True:
            answer = self.person.ask(step).strip().lower()
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            self.tell(AnswerAgain(setup_steps.YES_NO))

    def ask_number(self, step: setup_steps.SecondCount) -> int:
        while True:
            text = self.person.ask(step).strip()
            if text.isdigit() and step.least <= int(text) <= step.most:
                return int(text)
            self.tell(AnswerAgain(setup_steps.NUMBER, step.least, step.most))

    def ask_side(self, step: setup_steps.WhereLanded) -> str:
        while True:
            text = self.person.ask(step).strip().lower()
            if text in ("l", "left", "r", "right"):
                return text[0]
            self.tell(AnswerAgain(setup_steps.SIDE))

    def ask_volts(self) -> int | None:
        while True:
            text = self.person.ask(setup_steps.Meter()).strip().lower().rstrip("v").strip().replace(",", ".")
            if not text:
                return None
            try:
                v = float(text)
            except ValueError:
                v = -1.0
            if 1.0 <= v <= 20.0:
                return round(v * 1000)
            self.tell(AnswerAgain(setup_steps.VOLTS))
