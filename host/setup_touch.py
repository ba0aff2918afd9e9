"""The bring-up's touch pad step: the baseline with no hand near, then a
touch the board itself must see. A pad that reads as touched when no hand
should be near is a hand, until the person says it is away: the person is
asked to take it away, and the wiring is named only when the pad still
reads so. A baseline taken with a hand near shows once the hand is lifted
(the pad then reads well above it): it is taken again."""
from __future__ import annotations

import time
from typing import Any

from firmware import protocol as wire
from host import check
from host import device_messages
from host import setup_findings as finds
from host import setup_steps
from host.device_link import DeviceError
from host.parts import Finding
from host.setup_records import RestWasAHand
from host.setup_session import POLL_S, Session

HAND_TRIES = 2  # asks to take a hand off the pad


def touch(s: Session) -> list[Finding]:
    """The step's findings: one, the pad's."""
    digital = check.profile(s.board)["touch_kind"] == "digital"
    r = hands_away(s)
    if r.touched and digital:
        return [finds.pad_held_high(r.touch)]
    try:
        base = s.cal(wire.CAL_TOUCH).touch_baseline
    except DeviceError:
        return [finds.pad_silent(s.read().touch)]
    pct = int(device_messages.reply_view(s.req(wire.CMD_CONFIG)).config.touch_pct or 70)
    r, base = wait_for_touch(s, base, None if digital else pct)
    if r is not None:
        return [finds.no_touch(r.touch, s.touch_wait_s)]
    s.cal(wire.CAL_TOUCH, confirm=True)
    s.settle()  # the touch asked for a pass, which the empty tray refused
    return [finds.touched(base)]


def hands_away(s: Session) -> Any:
    """The pad's reading once the person was asked to keep hands away, and
    asked again (up to HAND_TRIES times) while it reads touched."""
    s.person.ask(setup_steps.HandsOff())
    r = s.read()
    for _ in range(HAND_TRIES):
        if not r.touched:
            break
        s.person.ask(setup_steps.HandAway(r.touch))
        r = s.read()
    return r


def wait_for_touch(s: Session, base: Any, pct: int | None) -> tuple[Any, Any]:
    """The person asked to touch the pad and the board watched for it: (None,
    the rest reading) once the board counted a touch, else (the last reading,
    the rest reading) after the person's seconds. With `pct` (an analogue
    pad's touch threshold, in % of the rest reading), a rest reading the
    pad now reads as a touch against was a hand's: it is taken again."""
    wait = s.touch_wait_s
    touches = int(s.read().touches or 0)
    s.touches_before = touches
    s.person.ask(setup_steps.TouchPad(wait))
    # The person's seconds, as a clock on the wall counts them: the board
    # counts the touch itself, so a slow device answers for it later.
    deadline = time.monotonic() + wait
    while True:
        r = s.read()
        if int(r.touches or 0) > touches:
            return None, base
        if pct is not None and isinstance(base, int) and r.touch is not None and base * 100 < r.touch * pct \
                and not r.touched:
            s.tell(RestWasAHand(base, r.touch))
            base = s.cal(wire.CAL_TOUCH).touch_baseline
            touches = int(s.read().touches or 0)
            s.person.ask(setup_steps.TouchPad(wait))
            deadline = time.monotonic() + wait
            continue
        if time.monotonic() >= deadline:
            return r, base
        time.sleep(POLL_S)
