"""The sensors measured while nothing moves: what `calibrate` sets, one
handler per thing calibrated (CALIBRATE); the start-up check (self_test,
at boot and when a sensor fault is cleared), which also takes the touch
pad's baseline; and the `read` request. Each is given the Controller. A
calibrate handler changes `new` and returns True, or answers the refusal
(err, why and the values it names) and returns False.

Imported by Controller.lazily for the one call and
dropped from sys.modules after it, so the board holds its code only while
it measures (docs/firmware.md, "Heap on the rp2 port"). Never in a pass:
none of these runs while one does."""

import protocol
import request_check
import load_cell
import report
from touch import baseline_ok, plausible


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
    if obj.get("confirm") is True:
        # The board's own fact: a debounced touch since the baseline.
        if ctl.touches <= ctl.touches_at_base:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_TOUCH)
            return False
        new["touch_seen"] = 1
        return True
    t = resting_touch(ctl)
    if t is None:
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


def calibrate(ctl, what, cmd, rid, obj, new):
    """Calibrate `what` into `new`; False when refused, the refusal answered."""
    return CALIBRATE[what](ctl, cmd, rid, obj, new)


CALIBRATE = {
    protocol.CAL_STACK: stack,
    protocol.CAL_TOUCH: touch,
    protocol.CAL_BEAM: beam,
    protocol.CAL_MOTOR: motor,
    protocol.CAL_BATTERY: battery,
}


def resting_touch(ctl):
    """The touch pad's reading at rest, or None when no untouched pad reads so."""
    p = ctl.profile
    t = load_cell.average(ctl.board.touch_raw, 16)
    if t is None or not baseline_ok(p["touch_kind"], t, p["touch_baseline_min"], p["touch_baseline_max"]):
        return None
    return t


def self_test(ctl):
    """(part, found): ("", 0) when every sensor answers plausibly; else the
    first part at fault and every problem found (protocol.SELF_* bits).
    Every check runs, so a working touch pad is usable even while another
    sensor is faulty."""
    b, p = ctl.board, ctl.profile
    found = 0
    parts = []
    raw = load_cell.average(ctl.read_stack, p["stack_samples"])
    if raw is None:
        found |= protocol.SELF_STACK_NO_ANSWER
        parts.append(protocol.PART_STACK)
    elif not p["stack_raw_min"] <= raw <= p["stack_raw_max"]:
        found |= protocol.SELF_STACK_RANGE
        parts.append(protocol.PART_STACK)
    if b.exit_blocked():
        found |= protocol.SELF_EXIT_BLOCKED
        parts.append(protocol.PART_EXIT)
    mv = ctl.battery()
    if mv is None or not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
        found |= protocol.SELF_BATTERY
        parts.append(protocol.PART_BATTERY)
    if not touch_baseline(ctl, p):
        found |= protocol.SELF_TOUCH
        parts.append(protocol.PART_TOUCH)
    return (parts[0] if parts else ""), found


def touch_baseline(ctl, p):
    """The touch pad's untouched reading now, set as its baseline; False
    when the pad reads implausibly. A boot reading far from a plausible
    calibrated one is a hand on the pad: the calibrated one is kept."""
    t = resting_touch(ctl)
    if t is None:
        return False
    stored = ctl.cal.get("touch_baseline")
    stored_ok = isinstance(stored, int) and baseline_ok(p["touch_kind"], stored, p["touch_baseline_min"],
                                                         p["touch_baseline_max"])
    if stored_ok and (t * 10 < stored * 7 or t * 7 > stored * 10):
        ctl.touch.baseline = stored
        ctl.touch_source = "calibrated"
    else:
        ctl.touch.baseline = t
        ctl.touch_source = "calibrated" if stored_ok else "measured"
    return True


def read(ctl, cmd, rid, obj):
    """The sensors as they read now (nothing moves), or the stored calibration."""
    if obj.get("what") == "cal":
        report.reply(cmd, rid, cal=ctl.cal)
        return
    b, d, p = ctl.board, ctl.dealer, ctl.profile
    n = None
    raw, spread = load_cell.spread(ctl.read_stack, p["stack_samples"])
    if raw is not None:
        tare, per_card, _ = ctl.stack_cal()
        if tare is not None:
            n = load_cell.count_from_raw(raw, tare, per_card)
    t = b.touch_raw()
    touched = t is not None and plausible(p["touch_kind"], t, ctl.touch.baseline,
                                          p["touch_baseline_max"]) and ctl.touch.is_touched(t)
    report.reply(cmd, rid, raw=raw, spread=spread if raw is not None else None, n=n,
                 touch=t if t is not None else -1, touched=touched, touches=ctl.touches, beam=b.exit_blocked(),
                 mv=ctl.battery(), card_ms=d.expected_ms() if d.block_norm else 0,
                 feed_ms=d.expected_feed_ms(), flip=1 if d.left_dir < 0 else 0)
