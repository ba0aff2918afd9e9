"""The bring-up's battery step: the board's reading trimmed to a meter's.
A meter reading more than 10 % off is first the person's misread (a wrong
range, a probe off the terminal), said as such and asked again; the
divider is named only when the person reads the same voltage again."""
from __future__ import annotations

from firmware import protocol as wire
from host import check
from host import setup_findings as finds
from host.device_link import DeviceError
from host.parts import Finding
from host.setup_records import MeterApart
from host.setup_session import Session

METER_TRIES = 3  # meter readings that disagree with the board, asked again before the step gives up


def battery(s: Session) -> list[Finding]:
    """The step's findings: the battery's, as `shuffler check` reads it once trimmed (or skipped)."""
    s.meter_refused = False
    said: list[int] = []
    while True:
        mv = s.ask_volts()
        if mv is None:
            break
        try:
            s.cal(wire.CAL_BATTERY, mv=mv)
            break
        except DeviceError as exc:
            board = int(exc.reply.get("mv") or s.read().mv or 0)
            if exc.reply.get("why") == wire.WHY_IMPLAUSIBLE or (said and abs(mv - said[-1]) * 50 <= mv):
                s.meter_refused = True  # no battery reads so, or the meter read the same again
                return [finds.divider_off(board, mv)]
            said.append(mv)
            if len(said) >= METER_TRIES:
                s.meter_refused = True
                return [finds.meter_unsure(board, mv)]
            s.tell(MeterApart(board, mv))
    return [check.battery(s.snapshot())]
