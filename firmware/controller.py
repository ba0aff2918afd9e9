"""The shuffler's state machine: commands, touch, passes, faults."""

import os
import sys
import time

try:
    import micropython
except ImportError:  # CPython unit tests
    micropython = None  # type: ignore

import protocol
import request_check
import load_cell
import report
from dealer import LISTEN_MS, Dealer
from exact import MAX_CARDS, ExactRoutine
from sides import FixedSides, RandomSides
from touch import Touch, plausible
from exact_keeping import EXACT_FILE, ExactKeeping
from pass_running import PassRunning
from settings_keeping import CAL_FILE, CONFIG_FILE, SettingsKeeping


def device_uid():
    """Hex of machine.unique_id(): the same board gives the same id at every
    boot, so a host can tell it from another one on the same port."""
    try:
        import machine
        return protocol.uid_hex(machine.unique_id())
    except (ImportError, AttributeError):  # no unique id on this port
        return ""


class Controller(PassRunning, ExactKeeping, SettingsKeeping):
    def __init__(self, board, profile, link):
        self.board = board
        self.profile = profile
        self.link = link
        self.capacity = profile["capacity"]
        d = board.data_dir
        self.cal_path = d + "/" + CAL_FILE if d else CAL_FILE
        self.config_path = d + "/" + CONFIG_FILE if d else CONFIG_FILE
        self.exact_path = d + "/" + EXACT_FILE if d else EXACT_FILE
        self.cfg = dict(profile["defaults"])
        # This board's figures for protocol.BOUNDS, which every request is checked against.
        self.limits = {"capacity": self.capacity, "exact_max": MAX_CARDS,
                       "battery_min": profile["battery_min_mv"], "meter_max": profile["battery_max_mv"] + 2000,
                       "wait_max": profile["wdt_ms"] // 2}
        self.cal = {}
        self.bad = 0  # the settings files found unusable at start (protocol.BAD_* bits)
        self.held = False
        self.state = protocol.ST_IDLE
        self.fault = protocol.FAULT_NONE
        self.sides = RandomSides(self.capacity)
        self.fixed = FixedSides()  # the side source of a feed
        self.exact = ExactRoutine(self.capacity)
        # The device's own random bytes (the simulated board's fixed stream in tests).
        self.randbytes = getattr(board, "randbytes", None) or os.urandom
        self.dealer = Dealer(board, self, link.write_raw, self.sides, profile)
        self.pass_raw = None  # the stack reading a pass started from, for refining the calibration
        self.touch = Touch(profile["touch_kind"], self.cfg["touch_pct"], self.cfg["debounce_ms"])
        self.touch_source = "measured"
        self.touch_bad_since = -1  # when the touch sensor began reading implausibly
        self.touches = 0  # debounced touches since boot
        self.touches_at_base = 0  # ... when the touch baseline was last measured
        self.touch_due = False  # a press felt during a command, handled by the main loop
        self.last_activity = 0
        self.last_line = 0  # when a host last sent a line (ticks_ms)
        self.strict = bool(profile.get("heap_lock_pass")) and hasattr(micropython, "heap_lock")
        self.mid_pass = False
        self.uid = device_uid()
        self.digest = protocol.digest()  # of the declaration table this firmware was built with
        report.use(link)

    # ----- boot -------------------------------------------------------
    def boot(self):
        # A file that is there but unusable is never used, and never silently:
        # the hello's `bad` names it until a write replaces it.
        saved, bad = self.settings(self.config_path, "config", protocol.BAD_CONFIG_DAMAGED)
        if saved:
            self.cfg.update(saved)
        self.cal, self.bad = self.settings(self.cal_path, "cal", protocol.BAD_CAL_DAMAGED)
        self.bad |= bad
        self.apply_cal()
        self.apply_cfg()
        self.restore_exact()
        self.board.wdt_start(self.profile["wdt_ms"])
        part, found = self.self_test()
        self.send_hello(None, None)
        if found:
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_SELF_TEST, found=found, part=part)
        else:
            self.warn_battery()
        self.last_activity = self.board.ticks_ms()
        self.last_line = self.last_activity

    def battery(self):
        """The battery in mV, corrected by the meter's trim; None if unread."""
        mv = self.board.battery_mv()
        return None if mv is None else mv * self.dealer.trim // 1000

    def self_test(self):
        """(part, found): the start-up check (calibration.py)."""
        return self.lazily("calibration", "self_test")

    def cmd_read(self, cmd, rid, obj):
        self.lazily("calibration", "read", cmd, rid, obj)

    def lazily(self, name, fn, *args):
        """Module `name`'s `fn` called with the controller and args. The
        module is imported for the call and dropped from sys.modules after
        it: the board holds its code only while it runs. The garbage is
        collected first, so the module (compiled, where it is source) finds
        the heap whole: at boot it is the last and largest thing loaded."""
        import gc

        gc.collect()
        try:
            return getattr(__import__(name), fn)(self, *args)
        finally:
            sys.modules.pop(name, None)

    def hello_fields(self):
        _, _, stack_state = self.stack_cal()
        return {"fw": protocol.FIRMWARE_VERSION, "proto": protocol.PROTOCOL_VERSION, "board": self.profile["name"],
                "capacity": self.capacity, "cal": report.obj("hello", stack=stack_state, touch=self.touch_source),
                "state": self.state, "uid": self.uid, "digest": self.digest, "bad": self.bad or None}

    def send_hello(self, cmd, rid):
        if cmd is None:
            report.event(protocol.EV_HELLO, **self.hello_fields())
        else:
            report.reply(cmd, rid, **self.hello_fields())

    # ----- faults -----------------------------------------------------
    def raise_fault(self, code, latched=True, pf=None, **fields):
        """A fault event of `code` and the fields given by name (the fault
        event's declared ones: why with the values it names, part, n,
        capacity, mv, ...); pf: the pass's counts (pass_fields())."""
        self.board.motor_stop()
        if latched:
            self.fault = code
            self.state = protocol.ST_PAUSED if code in protocol.RESUMABLE else protocol.ST_ALARM
        if pf is not None:
            fields.update(pf)
        report.event(protocol.EV_FAULT, code=code, latched=latched, **fields)

    def warn_battery(self):
        mv = self.battery()
        if mv is not None and mv < self.profile["battery_warn_mv"]:
            report.event(protocol.EV_WARN, code=protocol.FAULT_BATTERY_LOW, mv=mv)

    def pass_fields(self):
        """The pass's counts: k, n, left, right (the piles of an exact pass
        are left out: they depend on the codes)."""
        d = self.dealer
        if d.hide:
            return {"k": d.k, "n": d.n}
        return {"k": d.k, "n": d.n, "left": d.left, "right": d.right}













    # ----- the main loop's step ---------------------------------------
    def step(self):
        b = self.board
        b.wdt_feed()
        b.service()
        line = self.link.read_line()
        if line is not None:
            self.last_activity = self.last_line = b.ticks_ms()
            self.handle(line)
        raw = b.touch_raw()
        if self.touch_ok(raw) and self.touch.update(raw, b.ticks_ms(), time.ticks_diff) or self.touch_due:
            self.touch_due = False
            self.last_activity = b.ticks_ms()
            self.on_touch()
        self.maybe_sleep()
        self.wait_ms(self.profile["idle_poll_ms"])

    def wait_ms(self, ms):
        """Sleep, draining the serial input every LISTEN_MS meanwhile."""
        b = self.board
        while ms > 0:
            d = ms if ms < LISTEN_MS else LISTEN_MS
            b.sleep_ms(d)
            self.link.pump()
            ms -= d

    def read_stack(self):
        """One load-cell reading (up to a conversion period of waiting),
        the serial input drained and the touch pad felt first. A command
        that averages readings takes a tenth of a second or more; a host
        that asks for readings back to back (set-up's wait for a touch,
        `check --watch`) would otherwise keep the pad unfelt for most of
        the time, and a quick tap would fall between two of the main
        loop's looks. A press found here is handled by the main loop once
        the command is answered: a pass never starts inside a command."""
        self.link.pump()
        b = self.board
        raw = b.touch_raw()
        p = self.profile
        # An implausible reading is left to the main loop, which judges it.
        if plausible(p["touch_kind"], raw, self.touch.baseline, p["touch_baseline_max"]) \
                and self.touch.update(raw, b.ticks_ms(), time.ticks_diff):
            self.touch_due = True
        return b.stack_raw()

    def touch_ok(self, raw):
        """False for an implausible reading, which is never a touch; one
        that lasts the debounce time is a sensor fault."""
        p = self.profile
        if plausible(p["touch_kind"], raw, self.touch.baseline, p["touch_baseline_max"]):
            self.touch_bad_since = -1
            return True
        self.touch.reset()
        now = self.board.ticks_ms()
        if self.touch_bad_since < 0:
            self.touch_bad_since = now
        elif time.ticks_diff(now, self.touch_bad_since) >= self.cfg["debounce_ms"] \
                and self.state == protocol.ST_IDLE:
            # In idle it latches (clear re-runs the self-test); a paused
            # pass stays paused, resumable by command.
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_IMPLAUSIBLE, part=protocol.PART_TOUCH)
        return False

    def maybe_sleep(self):
        s = self.cfg["idle_sleep_s"]
        if not s or self.state == protocol.ST_DEALING:
            return
        b = self.board
        now = b.ticks_ms()
        if time.ticks_diff(now, self.last_activity) < s * 1000:
            return
        if time.ticks_diff(now, self.last_line) < self.profile["host_awake_ms"]:
            return  # a host is talking: stay awake so no byte is lost
        b.led(False)
        by_line = b.light_sleep(self.touch.threshold(), self.link.woken)
        b.led(True)
        now = b.ticks_ms()
        self.last_activity = now
        if by_line:
            # Woken by the serial line: the bytes that woke it may be lost,
            # so stay awake for the host to ask again.
            self.last_line = now
            return
        # Woken by a touch: that touch asked for a pass. It is often over by
        # the time the sensors have settled, so it is not waited for again;
        # a sensor that now reads implausibly (a shorted pad also wakes the
        # board) is a fault, never a touch.
        if self.touch_ok(b.touch_raw()):
            self.touch.consume(now)  # the same press is not a second touch
            self.on_touch()

    def on_touch(self):
        self.touches += 1
        report.event(protocol.EV_TOUCH, state=self.state)
        if self.state == protocol.ST_IDLE:
            self.start_pass(None, None)
        elif self.state == protocol.ST_PAUSED:
            self.resume_pass(None, None)

    # ----- commands -----------------------------------------------------
    def handle(self, line):
        if isinstance(line, int):
            report.error("", None, line)
            return
        code, cmd, rid, obj = request_check.parse_request(line)
        if code:
            # A known command with an unreadable id: say which field.
            if code == protocol.E_BAD_FIELD:
                report.error(cmd or "", rid, code, why=protocol.WHY_RANGE, field=protocol.F_ID, lo=0, hi=protocol.MAX_ID)
            else:
                report.error(cmd or "", rid, code)
            return
        if self.mid_pass and not protocol.mid_pass_ok(cmd, obj):
            report.error(cmd, rid, protocol.E_BUSY)
            return
        # Every field against its declared type and range, before any
        # handler reads it (handlers read fields the check has passed).
        bad = request_check.check_request(cmd, obj, self.limits)
        if bad:
            report.refused(cmd, rid, bad)
            return
        try:
            HANDLERS.get(cmd, Controller.cmd_unknown)(self, cmd, rid, obj)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # never fatal: answer and keep running
            self.board.motor_stop()
            report.error(cmd, rid, protocol.E_INTERNAL, detail=str(e)[:80] or type(e).__name__)

    def cmd_unknown(self, cmd, rid, obj):
        """A command without a handler here (parse_request answers names
        that are not commands at all)."""
        report.error(cmd, rid, protocol.E_UNKNOWN_CMD)

    def cmd_hello(self, cmd, rid, obj):
        proto = obj.get("proto")  # checked: a whole number
        if proto is not None and proto != protocol.PROTOCOL_VERSION:
            report.error(cmd, rid, protocol.E_PROTO, proto=protocol.PROTOCOL_VERSION)
            return
        if proto is not None and self.held:
            # A host's handshake begins its session: a calibration another
            # one held and never stored (its bring-up cut off) is dropped.
            self.cal, _ = self.settings(self.cal_path, "cal", 0)
            self.held = False
            self.apply_cal()
        self.send_hello(cmd, rid)

    def cmd_status(self, cmd, rid, obj):
        active = self.exact.active
        report.reply(cmd, rid, state=self.state, fault=self.fault,
                     mode=protocol.MODE_EXACT if active else protocol.MODE_RANDOM, mv=self.battery(),
                     uptime_ms=self.board.ticks_ms(), next=report.obj("next", **self.exact_next()) if active else None,
                     **self.pass_fields())

    def cmd_count(self, cmd, rid, obj):
        """The tray's count, read as a pass would read it, without dealing:
        a host checks a load against its plan before the touch."""
        if self.refused_unless_idle(cmd, rid):
            return
        tare, per_card, _ = self.stack_cal()
        if tare is None:
            report.error(cmd, rid, protocol.E_NOT_CALIBRATED)
            return
        p = self.profile
        raw = load_cell.average(self.read_stack, p["stack_samples"])
        if raw is None or not p["stack_raw_min"] <= raw <= p["stack_raw_max"]:
            report.error(cmd, rid, protocol.E_REFUSED, why=protocol.WHY_NO_ANSWER, part=protocol.PART_STACK)
            return
        n = load_cell.count_from_raw(raw, tare, per_card)
        report.reply(cmd, rid, n=n if n > 0 else 0, capacity=self.capacity)

    def refused_unless_idle(self, cmd, rid):
        """Answer the error and return True unless idle (a latched fault, a paused pass)."""
        if self.state == protocol.ST_ALARM:
            report.error(cmd, rid, protocol.E_ALARM)
        elif self.state != protocol.ST_IDLE:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_PAUSED)
        else:
            return False
        return True

    def cmd_clear(self, cmd, rid, obj):
        if self.state == protocol.ST_PAUSED:
            report.reply(cmd, rid)
            self.end_aborted()
            return
        if self.state == protocol.ST_ALARM and self.fault == protocol.FAULT_SENSOR:
            part, found = self.self_test()
            if found:
                report.reply(cmd, rid, state=self.state, fault=self.fault)
                self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_SELF_TEST, found=found, part=part)
                return
        self.state = protocol.ST_IDLE
        self.fault = protocol.FAULT_NONE
        report.reply(cmd, rid, state=self.state)
        report.event(protocol.EV_CLEARED)




















    # ----- called by the dealer between cards -----------------------
    def pending(self):
        return self.link.pending() or self.board.pending()

    def listen(self):
        """Called in every wait of a pass: drain the serial input (no
        allocation), and stop at once for a Ctrl-C."""
        link = self.link
        link.pump()
        if link.intr:
            raise link.kbd

    def service(self):
        if self.strict:
            micropython.heap_unlock()
        try:
            self.board.service()
            line = self.link.read_line()
            if line is not None:
                self.handle(line)
        finally:
            if self.strict:
                micropython.heap_lock()


# What `calibrate` sets: one handler per thing (protocol.CAL_WHATS).

# The command dispatch: one handler per command (Controller.handle), the
# unknown_cmd error for any other.
HANDLERS = {
    protocol.CMD_HELLO: Controller.cmd_hello,
    protocol.CMD_STATUS: Controller.cmd_status,
    protocol.CMD_START: Controller.cmd_start,
    protocol.CMD_ABORT: Controller.cmd_abort,
    protocol.CMD_RESUME: Controller.cmd_resume,
    protocol.CMD_CLEAR: Controller.cmd_clear,
    protocol.CMD_CALIBRATE: Controller.cmd_calibrate,
    protocol.CMD_CONFIG: Controller.cmd_config,
    protocol.CMD_EXACT: Controller.cmd_exact,
    protocol.CMD_COUNT: Controller.cmd_count,
    protocol.CMD_READ: Controller.cmd_read,
    protocol.CMD_FEED: Controller.cmd_feed,
}
