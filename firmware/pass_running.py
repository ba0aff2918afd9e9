"""A pass: started, dealt card by card, paused, resumed, aborted and
finished, with the faults a pass can meet. The Controller (controller.py)
takes these as its own methods."""


try:
    import micropython
except ImportError:  # CPython unit tests
    micropython = None  # type: ignore

import protocol
import load_cell
import report
import store
from dealer import DONE, R_ABORT, R_BATTERY, R_BLOCKED, R_LONG, R_SENSOR, R_TIMEOUT
from sides import LEFT, RIGHT
from settings_keeping import CAL_WEIGHT
from controller_state import ControllerState

class PassRunning(ControllerState):
    """A pass and its faults: methods of the Controller's own, kept here."""

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

    # ----- passes -------------------------------------------------------
    def start_pass(self, cmd, rid, sides=None, feed=0):
        """sides: a side source with prepare(n) and side(k); random by
        default. feed: deal only this many of the tray's cards."""
        p = self.profile
        raw = self.stack_before_pass(cmd, rid)
        if raw is None:
            return
        tare, per_card, _ = self.stack_cal()
        tray = load_cell.count_from_raw(raw, tare, per_card)
        n = self.pass_size(cmd, rid, tray, sides, feed)
        if n <= 0:
            return
        mv = self.battery()
        if mv is None or not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
            self.sensor_refusal(cmd, rid, protocol.WHY_IMPLAUSIBLE, protocol.PART_BATTERY, mv=mv)
            return
        need = p["battery_cutoff_mv"] + p["battery_sag_mv"] + n * p["battery_per_card_mv"]
        self.dealer.mv = mv
        self.pass_raw = None if feed else raw  # a feed leaves cards: no clean count by weight
        if mv < need:
            self.refuse(cmd, rid, protocol.FAULT_BATTERY_LOW, mv=mv, need_mv=need)
            return
        src = self.side_source(cmd, rid, sides, n)
        if src is None:
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

    def stack_before_pass(self, cmd, rid):
        """The stack's reading a pass starts from; None when the pass is
        refused: no calibration, a load cell that does not answer, or the
        exit blocked."""
        p = self.profile
        if self.stack_cal()[0] is None:
            self.refuse(cmd, rid, protocol.FAULT_NOT_CALIBRATED)
            return None
        raw = load_cell.average(self.read_stack, p["stack_samples"])
        if raw is None or not p["stack_raw_min"] <= raw <= p["stack_raw_max"]:
            self.sensor_refusal(cmd, rid, protocol.WHY_NO_ANSWER, protocol.PART_STACK)
            return None
        if self.board.exit_blocked():
            # A card left in the exit (after a double feed, say) would be
            # counted as the first card of this pass.
            self.sensor_refusal(cmd, rid, protocol.WHY_BLOCKED, protocol.PART_EXIT)
            return None
        return raw

    def pass_size(self, cmd, rid, tray, sides, feed):
        """The cards a pass deals from a tray that holds `tray`; 0 when it
        deals none (refused, or an exact pass that was over already)."""
        e = self.exact
        if tray <= 0 and sides is None and e.active and e.in_pass:
            if e.rest_start(0) == e.pass_n:
                # The exact pass stopped at its last card, which went on to
                # its pile: nothing is left to deal, and the pass is over.
                p = self.profile
                self.dealer.begin(e, 0, self.cfg, p["battery_cutoff_mv"], p["poll_ms"], True, 0)
                if cmd is not None:
                    report.reply(cmd, rid, n=0)
                self.finish(DONE)
                return 0
            # Every card gone, more than the one the beam was feeding.
            self.lose_exact(protocol.LOST_DOUBLE_FEED, n=0, expected=e.pass_n - e.stopped_at)
        if tray <= 0:
            self.refuse(cmd, rid, protocol.FAULT_EMPTY, n=max(tray, 0))
            return 0
        if tray > self.capacity:
            self.refuse(cmd, rid, protocol.FAULT_OVER_CAPACITY, n=tray, capacity=self.capacity)
            return 0
        if feed > tray:
            if cmd is not None:
                report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_TRAY_HOLDS, n=tray)
            return 0
        return feed or tray

    def side_source(self, cmd, rid, sides, n):
        """The pass's side source, prepared for n cards: `sides`, else the
        exact routine's or random; None when a plan does not fit the load."""
        src = sides or self.sides
        if sides is None and self.exact.active:
            src = self.exact_source(n)
        if src is not self.exact:
            try:
                src.prepare(n)
            except ValueError:
                if cmd is not None:
                    report.error(cmd, rid, protocol.E_BAD_VALUE, why=protocol.WHY_NOT_THE_LOAD)
                return None
        return src

    def sensor_refusal(self, cmd, rid, why, part, latched=True, mv=None):
        """A pass refused for a sensor: the refusal, then the fault."""
        if cmd is not None:
            report.error(cmd, rid, protocol.E_REFUSED)
        self.raise_fault(protocol.FAULT_SENSOR, latched, why=why, part=part, mv=mv)

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
        the load cell, and is left alone. Otherwise the count was right when
        the pass went as the tray's count said (done, the tray empty); wrong
        when cards were still in the tray when the pass was done, or the
        tray was empty before it (`done` False). True when it was wrong."""
        raw0 = self.pass_raw
        self.pass_raw = None
        c = self.cal
        k = self.dealer.k
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
        self.keep_weight(raw1, measured, held, wrong)
        return wrong

    def keep_weight(self, raw, measured, held, wrong):
        """A pass's weight kept: `measured`, a card's weight over the pass,
        refines the stored figure, weighted by cards, when the count was
        right; when it was `wrong`, the stored figure is off by whole cards,
        far beyond the noise: it is replaced, and said (a warn naming the
        load cell, before the pass's end), once. An empty tray (`held` 0)
        reading `raw` is a fresh tare. An exact pass that held other cards
        than it planned for has lost its order."""
        d, old = self.dealer, self.cal["per_card"]
        k = d.k
        new = dict(self.cal)
        if held == 0:
            new["tare"] = raw
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

    def refuse(self, cmd, rid, fault, n=None, capacity=None, mv=None, need_mv=None):
        if cmd is not None:
            report.error(cmd, rid, protocol.E_REFUSED, fault=fault)
        self.raise_fault(fault, latched=False, n=n, capacity=capacity, mv=mv, need_mv=need_mv)

    def resume_pass(self, cmd, rid):
        if self.board.exit_blocked():
            # The card the jam left in the exit would be counted as the next.
            self.sensor_refusal(cmd, rid, protocol.WHY_BLOCKED, protocol.PART_EXIT, False)
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
