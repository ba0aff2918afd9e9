"""What `calibrate` measures: one handler per thing calibrated (CALIBRATE),
each given the Controller. A handler changes `new` and returns True, or
answers the refusal (err, why and the values it names) and returns False.

Imported by SettingsKeeping.measure for the one request and dropped from
sys.modules after it, so the board holds its code only while it
calibrates (docs/firmware.md, "Heap on the rp2 port"). Never in a pass:
calibrate is refused while one runs."""

import protocol
import request_check
import load_cell
import report
from touch import baseline_ok


def needs(ctl, cmd, rid, obj, name):
    """Whether the request has field `name` (answered with its refusal when not)."""
    bad = request_check.need(cmd, obj, name, ctl.limits)
    if bad:
        report.refused(cmd, rid, bad)
    return bad is None


def stack(ctl, cmd, rid, obj, new):
    p = ctl.profile
    if not needs(ctl, cmd, rid, obj, "n"):
        return False
    n = obj["n"]
    raw = load_cell.average(ctl.read_stack, 4 * p["stack_samples"])
    if raw is None:
        report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_NO_ANSWER, part=protocol.PART_STACK)
        return False
    if n == 0:
        new["tare"] = raw
        new.pop("per_card", None)
        return True
    tare = new.get("tare")
    if not isinstance(tare, int):
        report.error(cmd, rid, protocol.E_NOT_CALIBRATED, why=protocol.WHY_TARE_FIRST)
        return False
    pc = load_cell.per_card_from(raw, tare, n)
    if pc < p["stack_per_card_min"]:
        # The reading must grow with the cards: a reading that falls is
        # a load cell wired the wrong way round, one that stays is
        # no load on the cell.
        report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_FALLS if pc < 0 else protocol.WHY_GROWS_LITTLE,
                     by=raw - tare, n=n)
        return False
    new["per_card"] = pc
    return True


def touch(ctl, cmd, rid, obj, new):
    b, p = ctl.board, ctl.profile
    if obj.get("confirm") is True:
        # The board's own fact: a debounced touch since the baseline.
        if ctl.touches <= ctl.touches_at_base:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_TOUCH)
            return False
        new["touch_seen"] = 1
        return True
    t = load_cell.average(b.touch_raw, 16)
    if t is None or not baseline_ok(p["touch_kind"], t, p["touch_baseline_min"],
                                    p["touch_baseline_max"]):
        report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_IMPLAUSIBLE, part=protocol.PART_TOUCH)
        return False
    new["touch_baseline"] = t
    new.pop("touch_seen", None)  # the new baseline waits for a touch again
    ctl.touches_at_base = ctl.touches
    return True


def beam(ctl, cmd, rid, obj, new):
    d = ctl.dealer
    if not d.seen:
        report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_CARD)
        return False
    new["beam_ms"] = d.block_norm  # a card's time in the beam at the reference drive
    return True


def motor(ctl, cmd, rid, obj, new):
    if not needs(ctl, cmd, rid, obj, "flip"):
        return False
    if not ctl.dealer.seen:
        report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_CARD)
        return False
    new["flip"] = obj["flip"]
    return True


def battery(ctl, cmd, rid, obj, new):
    if not needs(ctl, cmd, rid, obj, "mv"):
        return False
    mv = obj["mv"]
    raw = ctl.board.battery_mv()
    if not raw:
        report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_IMPLAUSIBLE, part=protocol.PART_BATTERY, mv=0)
        return False
    trim = (mv * 1000 + raw // 2) // raw
    if not protocol.TRIM_MIN <= trim <= protocol.TRIM_MAX:
        report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_METER, mv=raw, meter_mv=mv)
        return False
    new["mv_trim"] = trim
    return True


CALIBRATE = {
    protocol.CAL_STACK: stack,
    protocol.CAL_TOUCH: touch,
    protocol.CAL_BEAM: beam,
    protocol.CAL_MOTOR: motor,
    protocol.CAL_BATTERY: battery,
}
