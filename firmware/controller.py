"""The shuffler's state machine: commands, touch, passes, faults."""

import os
import time

try:
    import micropython
except ImportError:  # CPython unit tests
    micropython = None  # type: ignore

import protocol
import load_cell
import report
import store
from dealer import DONE, LISTEN_MS, R_ABORT, R_BATTERY, R_BLOCKED, R_LONG, R_SENSOR, R_TIMEOUT, Dealer
from exact import ALL_DONE, MAX_CARDS, NEXT_LOAD, REST_MORE, ExactRoutine
from sides import LEFT, RIGHT, FixedSides, RandomSides
from touch import Touch, baseline_ok, plausible

CAL_FILE = "cal.json"
CONFIG_FILE = "config.json"
EXACT_FILE = "exact.json"  # the exact routine while it runs (a restart keeps it)
CAL_WEIGHT = 26  # cards the stored counts-per-card figure counts for when a pass refines it
# Losses a part of the split survives by being dealt again: the cards in
# hand are certainly the part's own, only where they lie is not known. A
# load whose count is not the part's (LOST_COUNT), or cards come into a pass
# from elsewhere (LOST_REST), may mix two parts: the routine is lost.
REPAIRABLE = (protocol.LOST_DOUBLE_FEED, protocol.LOST_ABORTED, protocol.LOST_EXIT_COUNT, protocol.LOST_HAND)


def device_uid():
    """Hex of machine.unique_id(): the same board gives the same id at every
    boot, so a host can tell it from another one on the same port."""
    try:
        import machine
        return protocol.uid_hex(machine.unique_id())
    except (ImportError, AttributeError):  # no unique id on this port
        return ""


class Controller:
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
        # This board's figures for the bounds the declaration names
        # (protocol.BOUNDS): every request is checked against them.
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
        # The device's own random bytes; the simulated board may supply a
        # fixed stream for tests, real boards use os.urandom.
        self.randbytes = getattr(board, "randbytes", None) or os.urandom
        self.dealer = Dealer(board, self, link.write_raw, self.sides)
        self.dealer.min_mv = profile["battery_min_mv"]  # below: the divider is broken, not a flat battery
        self.dealer.setup(profile)
        self.pass_raw = None  # the stack reading a pass started from, for refining the calibration
        self.touch = Touch(profile["touch_kind"], self.cfg["touch_pct"], self.cfg["debounce_ms"])
        self.touch_source = "measured"
        self.touch_bad_since = -1  # when the touch sensor began reading implausibly
        self.touches = 0  # debounced touches since boot
        self.touches_at_base = 0  # ... when the touch baseline was last measured
        self.touch_due = False  # a press felt during a command, handled by the main loop
        self.last_activity = 0
        self.last_line = 0  # when a host last sent a line (ticks_ms)
        self.strict = bool(profile.get("heap_lock_pass")) and micropython is not None \
            and hasattr(micropython, "heap_lock")
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

    def settings(self, path, name, damaged):
        """(the stored object, or {}; its `bad` bits: `damaged`, or the
        next bit for values the object does not declare)."""
        obj = store.load(path)
        if obj is None:
            return {}, damaged if store.present(path) else 0
        if protocol.stored_problem(name, obj, self.limits) is not None:
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

    def battery(self):
        """The battery in mV, corrected by the meter's trim; None if unread."""
        mv = self.board.battery_mv()
        return None if mv is None else mv * self.dealer.trim // 1000

    def self_test(self):
        """(part, found): ("", 0) when every sensor answers plausibly; else
        the first part at fault and every problem found (protocol.SELF_*
        bits). Every check runs, so a working touch pad is usable even while
        another sensor is faulty."""
        b, p = self.board, self.profile
        found = 0
        parts = []
        raw = load_cell.average(self.read_stack, p["stack_samples"])
        if raw is None:
            found |= protocol.SELF_STACK_NO_ANSWER
            parts.append(protocol.PART_STACK)
        elif not p["stack_raw_min"] <= raw <= p["stack_raw_max"]:
            found |= protocol.SELF_STACK_RANGE
            parts.append(protocol.PART_STACK)
        if b.exit_blocked():
            found |= protocol.SELF_EXIT_BLOCKED
            parts.append(protocol.PART_EXIT)
        mv = self.battery()
        if mv is None or not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
            found |= protocol.SELF_BATTERY
            parts.append(protocol.PART_BATTERY)
        t = load_cell.average(b.touch_raw, 16)
        kind, lo, hi = p["touch_kind"], p["touch_baseline_min"], p["touch_baseline_max"]
        stored = self.cal.get("touch_baseline")
        sb = 0
        stored_ok = False
        if isinstance(stored, int) and baseline_ok(kind, stored, lo, hi):
            sb = stored
            stored_ok = True
        if t is None or not baseline_ok(kind, t, lo, hi):
            found |= protocol.SELF_TOUCH
            parts.append(protocol.PART_TOUCH)
        elif stored_ok and (t * 10 < sb * 7 or t * 7 > sb * 10):
            # A boot reading far from the calibrated one: a hand on the pad.
            self.touch.baseline = sb
            self.touch_source = "calibrated"
        else:
            self.touch.baseline = t
            self.touch_source = "calibrated" if stored_ok else "measured"
        return (parts[0] if parts else ""), found

    def stack_cal(self):
        c = self.cal
        if isinstance(c.get("tare"), int) and isinstance(c.get("per_card"), int):
            return c["tare"], c["per_card"], "calibrated"
        d = self.profile.get("stack_cal_default")
        if d:
            return d[0], d[1], "factory"
        return None, None, "none"

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

    # ----- exact mode ---------------------------------------------------
    def exact_next(self, rounds=True):
        """The load the routine expects next (the `next` object's fields)."""
        e = self.exact
        return {"round": e.round + 1, "rounds": e.rounds if rounds else None, "load": e.load_name(),
                "count": e.expected()}

    def send_exact_next(self):
        report.event(protocol.EV_EXACT_NEXT, **self.exact_next())

    def lose_exact(self, reason, n=None, expected=None, after=False):
        """Exactness is gone from the load in hand. A part of the split is
        dealt again from fresh codes (repair_part); else the routine ends:
        its codes forgotten, why said, dealt at random from now on. after:
        a pass of the load is in hand (it goes on at random)."""
        e = self.exact
        if not e.active:
            return
        if reason in REPAIRABLE and self.repair_part(reason, n, expected, after):
            return
        rnd, load = e.round + 1, e.load_name()
        self.end_exact()
        report.event(protocol.EV_EXACT_LOST, code=reason, round=rnd, load=load, n=n, expected=expected)

    def repair_part(self, reason, n=None, expected=None, after=False, cmd=None, rid=None):
        """The part in hand is dealt again from its first round with fresh
        codes (ExactRoutine.repair); said with exact_repair, then (once the
        pass in hand is over, when there is one) exact_next. cmd, rid: the
        request that asked for it, answered first. False where the load in
        hand is no part of the split."""
        e = self.exact
        part = e.load_name()
        if not e.repair(self.randbytes):
            return False
        e.random_rest = after
        self.save_exact()
        if cmd is not None:
            report.reply(cmd, rid, mode=protocol.MODE_EXACT, routine=self.routine_obj())
        report.event(protocol.EV_EXACT_REPAIR, part=part, code=reason, round=e.round + 1, rounds=e.rounds,
                     after=after or None, n=n, expected=expected)
        if not after:
            self.send_exact_next()
        return True

    def end_exact(self):
        """The routine is over: its codes wiped, in memory and in flash."""
        self.exact.end()
        try:
            os.remove(self.exact_path)
        except OSError:
            pass  # none kept

    def save_exact(self):
        """Keep the routine in flash, so a restart does not lose it (a board
        whose flash refuses still runs it; a restart would then end it)."""
        try:
            store.save(self.exact_path, self.exact.to_dict())
        except OSError:
            pass

    def restore_exact(self):
        saved = store.load(self.exact_path)
        if saved is not None and not self.exact.from_dict(saved):
            self.end_exact()  # not a routine this board can run

    def exact_source(self, n):
        """The side source of a pass in exact mode, the tray holding n cards:
        the routine when the load keeps its tracked order (the next load, or
        the rest of a pass that stopped part way), else random sides, with
        exactness lost and the evidence said."""
        e = self.exact
        if e.random_rest:
            return self.sides  # the pass in hand before a part dealt again: its cards go at random
        if e.in_pass:
            start = e.rest_start(n)
            if start >= 0:
                e.prepare_rest(start)
                self.save_exact()
                return e
            why = protocol.LOST_DOUBLE_FEED if start == REST_MORE else protocol.LOST_REST
            if e.stopped_at >= 0:
                self.lose_exact(why, n=n, expected=e.pass_n - e.stopped_at, after=True)
            else:
                self.lose_exact(why, n=n, after=True)
            return self.sides
        if e.check(n):
            e.prepare(n)
            self.save_exact()
            return e
        # A load out of turn, a swapped stack or pile, a lost card: the
        # tracked order no longer holds. This pass is dealt at random.
        self.lose_exact(protocol.LOST_COUNT, n=n, expected=e.expected(), after=True)
        return self.sides

    def stop_exact_pass(self):
        """The exact pass in hand stopped part way: the routine waits for
        its rest (ExactRoutine.rest_start judges it by the tray's count)."""
        if self.dealer.hide and self.exact.active:
            self.exact.stopped(self.dealer.k)
            self.save_exact()

    def exact_pass_done(self):
        e = self.exact
        r = e.pass_done()
        if r == NEXT_LOAD:
            self.save_exact()
            self.send_exact_next()
            return
        report.event(protocol.EV_EXACT_ROUND, round=e.round, rounds=e.rounds)
        if r == ALL_DONE:
            self.end_exact()
            report.event(protocol.EV_EXACT_DONE, rounds=e.rounds)
        else:
            self.save_exact()
            self.send_exact_next()

    def routine_obj(self, dealt=None):
        """The routine in hand, as the reply to exact gives it."""
        ex = self.exact
        return report.obj("routine", n=ex.n, loads=ex.loads, uneven=ex.uneven, kind=ex.route.kind, rounds=ex.rounds,
                          next=report.obj("next", **self.exact_next(rounds=False)), dealt=dealt)

    def cmd_exact(self, cmd, rid, obj):
        if obj.get("held") is True:
            # Which routine the device holds, for a host that goes on with it.
            ex = self.exact
            if not ex.active:
                report.reply(cmd, rid, mode=protocol.MODE_RANDOM)
                return
            dealt = None
            if ex.in_pass:
                # The load in hand is part dealt: how many of its cards are known to be out.
                dealt = ex.stopped_at if ex.stopped_at >= 0 else ex.offset
            report.reply(cmd, rid, mode=protocol.MODE_EXACT, routine=self.routine_obj(dealt))
            return
        if obj.get("repair") is True:
            # The person moved cards of the load in hand by hand (the host
            # saw its count off): where they lie is not known.
            if self.refused_unless_idle(cmd, rid):
                return
            after = self.exact.in_pass  # a pass of it stopped part way: its rest goes at random
            # No routine held (none since the board started, say): no part in hand.
            if not self.exact.active or not self.repair_part(protocol.LOST_HAND, after=after, cmd=cmd, rid=rid):
                report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_PART)
            return
        if obj.get("cancel") is True:
            if self.state == protocol.ST_PAUSED:
                # The paused pass deals its remaining cards by the codes.
                report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_PAUSED)
                return
            was = self.exact.active
            report.reply(cmd, rid, mode=protocol.MODE_RANDOM)
            if was:
                self.lose_exact(protocol.LOST_CANCELLED)
            return
        if self.refused_unless_idle(cmd, rid):
            return
        bad = protocol.need(cmd, obj, "n", self.limits)
        if bad:
            report.refused(cmd, rid, bad)
            return
        n = obj["n"]
        try:
            self.exact.begin(n, self.randbytes, obj.get("routine"))
        except ValueError:  # a split asked for a pack that fits the tray, more loads than a round names, ...
            report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_NO_ROUTINE, n=n, hi=self.capacity)
            return
        self.save_exact()
        report.reply(cmd, rid, mode=protocol.MODE_EXACT, routine=self.routine_obj())
        self.send_exact_next()

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
        code, cmd, rid, obj = protocol.parse_request(line)
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
        bad = protocol.check_request(cmd, obj, self.limits)
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

    def cmd_start(self, cmd, rid, obj):
        if self.refused_unless_idle(cmd, rid):
            return
        self.start_pass(cmd, rid)

    def cmd_feed(self, cmd, rid, obj):
        """n cards from the bottom of the tray to one side, as a pass deals
        them: the bring-up sees the beam count them and asks the person
        where they landed."""
        if self.refused_unless_idle(cmd, rid):
            return
        if self.exact.active:
            # The cards fed would leave the pack the routine tracks.
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_EXACT_RUNNING)
            return
        # n and side are required, and checked against the declaration.
        self.fixed.value = LEFT if obj["side"] == protocol.LEFT else RIGHT
        self.start_pass(cmd, rid, self.fixed, obj["n"])

    def cmd_resume(self, cmd, rid, obj):
        if self.state != protocol.ST_PAUSED:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NOTHING_TO_RESUME)
            return
        self.resume_pass(cmd, rid)

    def cmd_abort(self, cmd, rid, obj):
        if self.mid_pass:
            self.dealer.abort = True
            report.reply(cmd, rid)
            return
        if self.state != protocol.ST_PAUSED:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_PASS)
            return
        report.reply(cmd, rid)
        self.end_aborted()

    def end_aborted(self):
        self.state = protocol.ST_IDLE
        self.fault = protocol.FAULT_NONE
        report.event(protocol.EV_ABORTED, **self.pass_fields())
        self.lose_exact_pass(protocol.LOST_ABORTED)

    def lose_exact_pass(self, reason):
        """The exact pass in hand ended early (a random pass before a part
        dealt again: that part comes next)."""
        e = self.exact
        if self.dealer.hide:
            self.lose_exact(reason)
        elif e.active and e.random_rest:
            e.random_rest = False
            self.save_exact()
            self.send_exact_next()

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
        bad = protocol.need(cmd, obj, name, self.limits)
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

    # ----- passes -------------------------------------------------------
    def start_pass(self, cmd, rid, sides=None, feed=0):
        """sides: a side source with prepare(n) and side(k); random by
        default. feed: deal only this many of the tray's cards."""
        b, p = self.board, self.profile
        tare, per_card, _ = self.stack_cal()
        if tare is None:
            self.refuse(cmd, rid, protocol.FAULT_NOT_CALIBRATED)
            return
        raw = load_cell.average(self.read_stack, p["stack_samples"])
        if raw is None or not p["stack_raw_min"] <= raw <= p["stack_raw_max"]:
            if cmd is not None:
                report.error(cmd, rid, protocol.E_REFUSED)
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_NO_ANSWER, part=protocol.PART_STACK)
            return
        if b.exit_blocked():
            # A card left in the exit (after a double feed, say) would be
            # counted as the first card of this pass.
            if cmd is not None:
                report.error(cmd, rid, protocol.E_REFUSED)
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_BLOCKED, part=protocol.PART_EXIT)
            return
        tray = load_cell.count_from_raw(raw, tare, per_card)
        n = tray
        if n <= 0 and sides is None and self.exact.active and self.exact.in_pass:
            e = self.exact
            if e.rest_start(0) == e.pass_n:
                # The exact pass stopped at its last card, which went on to
                # its pile: nothing is left to deal, and the pass is over.
                self.dealer.begin(e, 0, self.cfg, p["battery_cutoff_mv"], p["poll_ms"], True, 0)
                if cmd is not None:
                    report.reply(cmd, rid, n=0)
                self.finish(DONE)
                return
            # Every card gone, more than the one the beam was feeding.
            self.lose_exact(protocol.LOST_DOUBLE_FEED, n=0, expected=e.pass_n - e.stopped_at)
        if n <= 0:
            self.refuse(cmd, rid, protocol.FAULT_EMPTY, n=max(n, 0))
            return
        if n > self.capacity:
            self.refuse(cmd, rid, protocol.FAULT_OVER_CAPACITY, n=n, capacity=self.capacity)
            return
        if feed:
            if feed > tray:
                if cmd is not None:
                    report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_TRAY_HOLDS, n=tray)
                return
            n = feed
        mv = self.battery()
        if mv is None or not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
            if cmd is not None:
                report.error(cmd, rid, protocol.E_REFUSED)
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_IMPLAUSIBLE, part=protocol.PART_BATTERY, mv=mv)
            return
        need = p["battery_cutoff_mv"] + p["battery_sag_mv"] + n * p["battery_per_card_mv"]
        self.dealer.mv = mv
        self.pass_raw = None if feed else raw  # a feed leaves cards: no clean count by weight
        if mv < need:
            self.refuse(cmd, rid, protocol.FAULT_BATTERY_LOW, mv=mv, need_mv=need)
            return
        src = sides or self.sides
        if sides is None and self.exact.active:
            src = self.exact_source(n)
        if src is not self.exact:
            try:
                src.prepare(n)
            except ValueError:  # a plan that does not fit the load
                if cmd is not None:
                    report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_NOT_THE_LOAD)
                return
        self.warn_battery()
        # dealer.hide marks an exact pass until the next begins (see pass_values).
        self.dealer.begin(src, n, self.cfg, p["battery_cutoff_mv"], p["poll_ms"], src is self.exact, tray)
        if feed:
            self.feed_wait()
        if cmd is not None:
            report.reply(cmd, rid, n=n)
        report.event(protocol.EV_LOADED, n=n)
        self.run_pass()

    def feed_wait(self):
        """A feed (a few cards to try the motor and the beam) waits for a
        card jam_pct of the time one blocks the beam, which is longer than
        its way to the beam, not the pass's longest wait: a beam that sees
        nothing then lets out a card or two, not the tray."""
        d, p = self.dealer, self.profile
        cap = d.expected_ms() * p["jam_pct"] // 100
        if cap < p["jam_min_ms"]:
            cap = p["jam_min_ms"]
        if cap < d.timeout_ms:
            d.timeout_ms = cap

    def weigh_pass(self, done):
        """The pass weighed against the exit's count of it. The beam counts
        the k cards exactly, so the weight they took out of the tray (its
        reading at the start less its reading now) over k is a card's weight,
        measured on far more cards than a deck counted by hand. A figure more
        than 10 % from the stored one is cards added or taken by hand, not
        the load cell, and is left alone. Otherwise: when the pass went as
        the tray's count said (done, the tray empty), the figure refines the
        stored one, weighted by cards; when the count was wrong (cards still
        in the tray when the pass was done, or the tray empty before it, `done`
        False), the stored figure is off by whole cards, far beyond the noise:
        it is replaced, and said (a warn naming the load cell, before the
        pass's end), once. An exact pass that held other cards than it
        planned for has lost its order. True when the count was wrong."""
        raw0 = self.pass_raw
        self.pass_raw = None
        d, c = self.dealer, self.cal
        k = d.k
        if raw0 is None or k < 8 or not (isinstance(c.get("tare"), int) and isinstance(c.get("per_card"), int)):
            return False
        raw1 = load_cell.average(self.read_stack, 4 * self.profile["stack_samples"])
        if raw1 is None:
            return False
        old = c["per_card"]
        measured = load_cell.per_card_from(raw0, raw1, k)
        if measured * 10 < old * 9 or measured * 10 > old * 11:
            return False
        held = load_cell.count_from_raw(raw1, c["tare"], measured)
        if held < 0:
            held = 0
        if not done and held:
            return False  # cards in the tray the beam never saw: not the load cell's count
        wrong = held > 0 or not done
        new = dict(c)
        if held == 0:
            new["tare"] = raw1  # an empty tray: a fresh tare
        if wrong:
            new["per_card"] = measured
        else:
            new["per_card"] = (old * CAL_WEIGHT + measured * k + (CAL_WEIGHT + k) // 2) // (CAL_WEIGHT + k)
        self.cal = new
        try:
            if not self.held:  # a bring-up's held calibration is stored by it, whole, or not at all
                store.save(self.cal_path, new)
        except OSError:
            pass  # counted right until the board restarts
        if wrong:
            report.event(protocol.EV_WARN, code=protocol.FAULT_SENSOR, part=protocol.PART_STACK,
                         why=protocol.WHY_MISCOUNTED, n=d.n, k=k, held=held, per_card=measured, was=old)
            if d.hide:
                self.lose_exact(protocol.LOST_COUNT, n=k + held, expected=d.n)
        return wrong

    def refuse(self, cmd, rid, fault, n=None, capacity=None, mv=None, need_mv=None):
        if cmd is not None:
            report.error(cmd, rid, protocol.E_REFUSED, fault=fault)
        self.raise_fault(fault, latched=False, n=n, capacity=capacity, mv=mv, need_mv=need_mv)

    def resume_pass(self, cmd, rid):
        if self.board.exit_blocked():
            # The card the jam left in the exit would be counted as the next.
            if cmd is not None:
                report.error(cmd, rid, protocol.E_REFUSED)
            self.raise_fault(protocol.FAULT_SENSOR, latched=False, why=protocol.WHY_BLOCKED, part=protocol.PART_EXIT)
            return
        self.fault = protocol.FAULT_NONE
        self.pass_raw = None  # cards moved by hand: no clean count by weight
        if cmd is not None:
            report.reply(cmd, rid, **self.pass_fields())
        self.run_pass()

    def run_pass(self):
        self.state = protocol.ST_DEALING
        self.mid_pass = True
        self.board.led(True)
        err = ""
        r = DONE
        try:
            if self.strict:
                micropython.heap_lock()
            try:
                r = self.dealer.run()
            finally:
                if self.strict:
                    micropython.heap_unlock()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # a driver failed mid-pass: motor off, latch it
            err = str(e)[:60] or type(e).__name__
        finally:
            self.mid_pass = False
            self.board.motor_stop()
        self.last_activity = self.board.ticks_ms()
        if err:
            self.raise_fault(protocol.FAULT_INTERNAL, detail=err, pf=self.pass_fields())
            self.stop_exact_pass()
        else:
            self.finish(r)

    def finish(self, r):
        f = self.pass_fields()
        if r == DONE:
            self.state = protocol.ST_IDLE
            self.weigh_pass(True)  # before done: a host learns first what the load held
            report.event(protocol.EV_DONE, **f)
            e = self.exact
            if self.dealer.hide and e.active:
                self.exact_pass_done()
            elif e.active and e.random_rest:
                # The pass before a part dealt again is over: that part comes next.
                e.random_rest = False
                self.save_exact()
                self.send_exact_next()
        elif r == R_ABORT:
            self.end_aborted()
        elif r == R_BLOCKED or r == R_LONG:
            self.beam_stop(r, f)
        elif r == R_SENSOR:
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_IMPLAUSIBLE, mv=self.battery() or 0,
                             part=protocol.PART_BATTERY, pf=f)
            self.stop_exact_pass()
        elif r == R_BATTERY:
            self.raise_fault(protocol.FAULT_BATTERY_LOW, pf=f)
            self.stop_exact_pass()
        elif r == R_TIMEOUT:
            self.no_card(f)

    def out_unseen(self):
        """Cards that have left the tray but not passed the exit beam (its
        count), from the load cell; None when it does not answer."""
        tare, per_card, _ = self.stack_cal()
        raw = load_cell.average(self.read_stack, self.profile["stack_samples"])
        if raw is None or tare is None:
            return None
        d = self.dealer
        return d.tray0 - d.k - load_cell.count_from_raw(raw, tare, per_card)

    def beam_stop(self, r, f):
        """The beam read blocked too long, or before the card was fed. Two
        cards out of the tray are a double feed; with one card out (or none
        before the card was fed) the beam itself reads blocked: a lost exit
        sensor, or a card stuck in the exit."""
        out = self.out_unseen()
        if out is not None and out < (2 if r == R_LONG else 1):
            # (a card stuck in the exit reads so too: the person looks)
            self.raise_fault(protocol.FAULT_SENSOR, part=protocol.PART_EXIT, why=protocol.WHY_BLOCKED,
                             out=out if out > 0 else 0, pf=f)
            self.stop_exact_pass()
            return
        why = protocol.WHY_LONG_BLOCK if r == R_LONG else protocol.WHY_EARLY_BLOCK
        self.raise_fault(protocol.FAULT_DOUBLE_FEED, why=why, pf=f)
        self.stop_exact_pass()

    def no_card(self, f):
        """No card reached the beam in time: the tray's count says why."""
        out = self.out_unseen()
        d = self.dealer
        left = d.tray0 - d.k  # the cards the tray should hold
        if out is None:
            self.raise_fault(protocol.FAULT_SENSOR, why=protocol.WHY_NO_ANSWER, part=protocol.PART_STACK, pf=f)
            self.stop_exact_pass()
        elif out <= 0:
            # Every card is still in the tray: a jam. Resuming deals the same
            # cards to the same sides, so exactness survives it.
            self.raise_fault(protocol.FAULT_JAM, resume=True, pf=f)
        elif out < left:
            # Cards went out with the beam never blocked: its receiver.
            self.raise_fault(protocol.FAULT_SENSOR, part=protocol.PART_EXIT, why=protocol.WHY_MISSED, out=out, pf=f)
            self.stop_exact_pass()
        elif out == 1:
            # One card fewer came out than the stack reading: two cards
            # passed the exit together.
            self.raise_fault(protocol.FAULT_DOUBLE_FEED, why=protocol.WHY_ONE_SHORT, pf=f)
            self.lose_exact_pass(protocol.LOST_EXIT_COUNT)
        elif self.weigh_pass(False):
            # The tray empty with every card counted out: the pass is whole,
            # and the tray's count at its start was the load cell's mistake.
            self.finish(DONE)
        else:
            self.raise_fault(protocol.FAULT_TRAY_EMPTIED, why=protocol.WHY_MISSING, out=out, pf=f)
            self.stop_exact_pass()

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
CALIBRATE = {
    protocol.CAL_STACK: Controller.cal_stack,
    protocol.CAL_TOUCH: Controller.cal_touch,
    protocol.CAL_BEAM: Controller.cal_beam,
    protocol.CAL_MOTOR: Controller.cal_motor,
    protocol.CAL_BATTERY: Controller.cal_battery,
}

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
