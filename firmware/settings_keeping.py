"""The board's settings: the calibration and the configuration read from
flash and checked, the `calibrate` (what it measures: calibration.py)
and `config` commands, and their storage. The Controller
(controller.py) takes these as its own methods."""

import protocol
import request_check
import report
import store
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
            # What it measures: calibration.py, imported for this request alone.
            if what != protocol.CAL_STORE and not self.lazily("calibration", "calibrate", what, cmd, rid, obj, new):
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

