"""The board's settings: the calibration and the configuration read from
flash and checked, the `calibrate`, `read` and `config` commands, and their
storage. The Controller (controller.py) takes these as its own methods."""


import protocol
import request_check
import load_cell
import report
import store
from touch import baseline_ok, plausible
from controller_state import ControllerState

CAL_FILE = "cal.json"
CONFIG_FILE = "config.json"
CAL_WEIGHT = 26  # cards the stored counts-per-card figure counts for when a pass refines it

class SettingsKeeping(ControllerState):
    """Calibration and configuration: methods of the Controller's own, kept here."""

    def settings(self, path, name, damaged):
        """(the stored object, or {}; its `bad` bits: `damaged`, or the
        next bit for values the object does not declare)."""
        obj = store.load(path)
        if obj is None:
            return {}, damaged if store.present(path) else 0
        if request_check.stored_problem(name, obj, self.limits) is not None:
            return {}, damaged * 2
        return obj, 0

    def apply_cfg(self):
        self.touch.pct = self.cfg["touch_pct"]
        self.touch.debounce_ms = self.cfg["debounce_ms"]

    def apply_cal(self):
        """What the stored calibration sets in the card loop: the motor's
        direction, the battery's correction and the card time seen at set-up."""
        c, d = self.cal, self.dealer
        d.left_dir = -1 if c.get("flip") == 1 else 1
        trim = c.get("mv_trim")
        d.trim = trim if isinstance(trim, int) and protocol.TRIM_MIN <= trim <= protocol.TRIM_MAX else 1000
        beam = c.get("beam_ms")
        d.block_prior = beam if isinstance(beam, int) and beam > 0 else self.profile["block_ref_ms"]

    def stack_cal(self):
        c = self.cal
        if isinstance(c.get("tare"), int) and isinstance(c.get("per_card"), int):
            return c["tare"], c["per_card"], "calibrated"
        d = self.profile.get("stack_cal_default")
        if d:
            return d[0], d[1], "factory"
        return None, None, "none"

    def cmd_calibrate(self, cmd, rid, obj):
        if self.state not in (protocol.ST_IDLE, protocol.ST_ALARM):
            report.error(cmd, rid, protocol.E_STATE)
            return
        what = obj["what"]  # required, one of CAL_WHATS: checked
        if what == protocol.CAL_DROP:
            new, _ = self.settings(self.cal_path, "cal", 0)
        else:
            new = dict(self.cal)
            if what != protocol.CAL_STORE and not CALIBRATE[what](self, cmd, rid, obj, new):
                return
        held = obj.get("hold") is True and what != protocol.CAL_STORE
        if not held and what != protocol.CAL_DROP:
            try:
                store.save(self.cal_path, new)  # one write: a new file, then a rename
            except OSError:
                report.error(cmd, rid, protocol.E_STORAGE)
                return
            self.bad &= ~protocol.BAD_CAL
        self.held = held
        self.cal = new
        self.apply_cal()
        if what in (protocol.CAL_TOUCH, protocol.CAL_DROP) and isinstance(new.get("touch_baseline"), int):
            self.touch.baseline = new["touch_baseline"]
            self.touch_source = "calibrated"
        elif what == protocol.CAL_DROP:
            self.touch_source = "measured"
        report.reply(cmd, rid, cal=new, held=held or None)

    # One handler per thing calibrated (the CALIBRATE table below): each
    # changes `new` and returns True, or answers the refusal (err, why and
    # the values it names) and returns False.
    def needs(self, cmd, rid, obj, name):
        """Whether the request has field `name` (answered with its refusal when not)."""
        bad = request_check.need(cmd, obj, name, self.limits)
        if bad:
            report.refused(cmd, rid, bad)
        return bad is None

    def cal_stack(self, cmd, rid, obj, new):
        p = self.profile
        if not self.needs(cmd, rid, obj, "n"):
            return False
        n = obj["n"]
        raw = load_cell.average(self.read_stack, 4 * p["stack_samples"])
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

    def cal_touch(self, cmd, rid, obj, new):
        b, p = self.board, self.profile
        if obj.get("confirm") is True:
            # The board's own fact: a debounced touch since the baseline.
            if self.touches <= self.touches_at_base:
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
        self.touches_at_base = self.touches
        return True

    def cal_beam(self, cmd, rid, obj, new):
        d = self.dealer
        if not d.seen:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_CARD)
            return False
        new["beam_ms"] = d.block_norm  # a card's time in the beam at the reference drive
        return True

    def cal_motor(self, cmd, rid, obj, new):
        if not self.needs(cmd, rid, obj, "flip"):
            return False
        if not self.dealer.seen:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_CARD)
            return False
        new["flip"] = obj["flip"]
        return True

    def cal_battery(self, cmd, rid, obj, new):
        if not self.needs(cmd, rid, obj, "mv"):
            return False
        mv = obj["mv"]
        raw = self.board.battery_mv()
        if not raw:
            report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_IMPLAUSIBLE, part=protocol.PART_BATTERY, mv=0)
            return False
        trim = (mv * 1000 + raw // 2) // raw
        if not protocol.TRIM_MIN <= trim <= protocol.TRIM_MAX:
            report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_METER, mv=raw, meter_mv=mv)
            return False
        new["mv_trim"] = trim
        return True

    def cmd_read(self, cmd, rid, obj):
        """The sensors as they read now (nothing moves), or the stored calibration."""
        if obj.get("what") == "cal":
            report.reply(cmd, rid, cal=self.cal)
            return
        b, d, p = self.board, self.dealer, self.profile
        n = None
        raw, spread = load_cell.spread(self.read_stack, p["stack_samples"])
        if raw is not None:
            tare, per_card, _ = self.stack_cal()
            if tare is not None:
                n = load_cell.count_from_raw(raw, tare, per_card)
        t = b.touch_raw()
        touched = t is not None and plausible(p["touch_kind"], t, self.touch.baseline,
                                              p["touch_baseline_max"]) and self.touch.is_touched(t)
        report.reply(cmd, rid, raw=raw, spread=spread if raw is not None else None, n=n,
                     touch=t if t is not None else -1, touched=touched, touches=self.touches, beam=b.exit_blocked(),
                     mv=self.battery(), card_ms=d.expected_ms() if d.block_norm else 0,
                     feed_ms=d.expected_feed_ms(), flip=1 if d.left_dir < 0 else 0)

    def cmd_config(self, cmd, rid, obj):
        updates = obj.get("set")
        if updates is not None:
            if self.state == protocol.ST_DEALING:
                report.error(cmd, rid, protocol.E_BUSY)
                return
            # Its keys and values are checked (check_request): each one the
            # config object declares, in its range.
            new = dict(self.cfg)
            new.update(updates)
            try:
                store.save(self.config_path, new)
            except OSError:
                report.error(cmd, rid, protocol.E_STORAGE)
                return
            self.bad &= ~protocol.BAD_CONFIG
            self.cfg = new
            self.apply_cfg()
        report.reply(cmd, rid, config=self.cfg)


CALIBRATE = {
    protocol.CAL_STACK: SettingsKeeping.cal_stack,
    protocol.CAL_TOUCH: SettingsKeeping.cal_touch,
    protocol.CAL_BEAM: SettingsKeeping.cal_beam,
    protocol.CAL_MOTOR: SettingsKeeping.cal_motor,
    protocol.CAL_BATTERY: SettingsKeeping.cal_battery,
}
