"""Exact mode as the board keeps it: the routine begun, kept in flash
across a restart, its next load said, a part dealt again, its loss. The
Controller (controller.py) takes these as its own methods."""

import os

import protocol
import request_check
import report
import store
from exact import ALL_DONE, NEXT_LOAD, REST_MORE
from controller_state import ControllerState

EXACT_FILE = "exact.json"  # the exact routine while it runs (a restart keeps it)
# Losses a part of the split survives by being dealt again: the cards in
# hand are certainly the part's own, only where they lie is not known. A
# load whose count is not the part's (LOST_COUNT), or cards come into a pass
# from elsewhere (LOST_REST), may mix two parts: the routine is lost.
REPAIRABLE = (protocol.LOST_DOUBLE_FEED, protocol.LOST_ABORTED, protocol.LOST_EXIT_COUNT, protocol.LOST_HAND)

class ExactKeeping(ControllerState):
    """Exact mode's routine: methods of the Controller's own, kept here."""

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

    def repair_part(self, reason, n=None, expected=None, after=False, cmd=None, rid=None, parent=False):
        """The part in hand is dealt again from its first round with fresh
        codes (ExactRoutine.repair); said with exact_repair, then (once the
        pass in hand is over, when there is one) exact_next. cmd, rid: the
        request that asked for it, answered first. False where the load in
        hand is no part of the split. parent: the stack the load in hand was
        cut from is dealt again instead, from the split round that cut it."""
        e = self.exact
        part = e.load_name()
        if not e.repair(self.randbytes, parent):
            return False
        e.random_rest = after
        self.save_exact()
        if cmd is not None:
            report.reply(cmd, rid, mode=protocol.MODE_EXACT, routine=self.routine_obj())
        report.event(protocol.EV_EXACT_REPAIR, part=part, code=reason, round=e.round + 1, rounds=e.rounds,
                     after=after or None, n=n, expected=expected, parent=parent or None)
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
            # Which routine the device holds, for a host that goes on with it;
            # `dealt`: the load in hand is part dealt, its cards known to be out.
            ex = self.exact
            if not ex.active:
                report.reply(cmd, rid, mode=protocol.MODE_RANDOM)
                return
            dealt = (ex.stopped_at if ex.stopped_at >= 0 else ex.offset) if ex.in_pass else None
            report.reply(cmd, rid, mode=protocol.MODE_EXACT, routine=self.routine_obj(dealt))
            return
        if obj.get("repair") is True:
            self.exact_repair(cmd, rid, obj)
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
        bad = request_check.need(cmd, obj, "n", self.limits)
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

    def exact_repair(self, cmd, rid, obj):
        """exact repair: the person moved cards of the load in hand by hand
        (the host saw its count off), so where they lie is not known."""
        if self.refused_unless_idle(cmd, rid):
            return
        after = self.exact.in_pass  # a pass of it stopped part way: its rest goes at random
        if obj.get("parent") is True:
            self.repair_parent(cmd, rid, after)
            return
        # No routine held (none since the board started, say): no part in hand.
        if not self.exact.active or not self.repair_part(protocol.LOST_HAND, after=after, cmd=cmd, rid=rid):
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_PART)

    def repair_parent(self, cmd, rid, after):
        """exact repair with parent: the count of the stack in hand showed a
        card stacked into the wrong part at the split round that cut it; that
        round's stack is dealt again from fresh codes (ExactRoutine.repair).
        Refused where no split round cut it off a bigger stack, and where
        that stack is the whole pack (a fresh routine does the same)."""
        e = self.exact
        t = e.parent_round()
        if t < 0:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_NO_PARENT)
        elif e.route.size[t] >= e.n:
            report.error(cmd, rid, protocol.E_STATE, why=protocol.WHY_WHOLE_PACK)
        else:
            self.repair_part(protocol.LOST_HAND, after=after, cmd=cmd, rid=rid, parent=True)

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
