"""The guide's handlers while a pass runs (DEALING), while a jam holds it
(PAUSED), and for what may come in any phase: a restart, the port going
away, noise.

A pass may be dealt in parts: dealing the rest of a load onto the same
piles gives exactly the piles of one whole pass, because the bottom card is
fed first and every card lands on top of its pile (docs/mechanism.md).
After any stop part way the tray's count is the truth of what is left; the
pile counts are then no longer known, and nothing shows them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from firmware import protocol
from host import device_messages, device_words
from host.device_messages import Event, Reply
from host.guide import notices
from host.guide.device import Stop
from host.guide.table import ONWARD, PASS_OVER, Closed, Do, Noise, Phase, Tick, on, refusal
from host.guide.waiting import STALE, sensor_fix, sensor_name
from host.device_link import REQUEST_TIMEOUT_S, LinkClosed, LinkTimeout
from shuffling import steps

if TYPE_CHECKING:
    from host.guide.machine import Machine

MAX_RESTARTS_PER_PASS = 3  # more hellos than this in one pass is a device at fault
MAX_RECONNECTS_PER_PASS = 5
MAX_FRUITLESS_PARTS = 3  # parts of one pass in a row that stop before their first card
PASS = (Phase.DEALING, Phase.PAUSED)


class DealingHandlers:
    def init_dealing(self: Machine) -> None:
        self.quiet_since = self.clock()  # the last event that was a sign of life
        self.moved_at = self.clock()  # the last card known to have gone through
        self.bar = False

    # -- a part of the pass begins, goes on, ends ---------------------------------------------
    def begin_part(self: Machine, ev: Event) -> None:
        p = self.pass_
        assert p is not None
        n = ev.n or 0
        if p.size is None:
            p.size = n + p.dealt
            if p.dealt == 0:
                self.check_loaded(n)
        elif n > p.total - p.aside - p.dealt:
            p.size = p.dealt + n + p.aside  # cards came in: the device's count is the fact
        elif n < p.total - p.aside - p.dealt:
            p.dealt = p.total - p.aside - n  # more went through than counted: the tray's count is the fact
            p.left = p.right = None
        p.part_n, p.k, p.k_left, p.k_right = n, 0, 0, 0
        self.phase = Phase.DEALING
        self.quiet_since = self.moved_at = self.clock()
        self.voice.bar_start(f"load {p.load}", p.total, p.dealt, p.left, p.right)
        self.bar = True

    def check_loaded(self: Machine, n: int) -> None:
        """The count the pass began with, when it differs from the plan's (a
        touch before the guide judged the load)."""
        p = self.pass_
        assert p is not None and self.routine is not None
        if n == p.want or p.off_said or self.routine.exact:
            return  # exact mode: the device judges the count itself (exact_lost when it is wrong)
        p.off_said = True
        nxt = self.routine.next_load(p.load)
        if nxt is not None:
            self.tell(notices.LoadKept(p.load, p.want, n, nxt, began=True))
        else:
            self.tell(notices.PassBeganOffSize(p.load, p.want, n))

    def end_part(self: Machine, k: int, k_left: int | None, k_right: int | None) -> None:
        """A part of the pass is over: add what it dealt. Parts that end
        before their first card, again and again, are a machine at fault."""
        p = self.pass_
        assert p is not None
        self.end_bar()
        p.fruitless = 0 if k > 0 else p.fruitless + 1
        if p.fruitless >= MAX_FRUITLESS_PARTS:
            raise self.stop(f"the pass stopped {p.fruitless} times in a row before its first card went through: "
                            "the shuffler needs looking at (its last fault is above)")
        p.dealt += k
        p.left = None if p.left is None or k_left is None else p.left + k_left
        p.right = None if p.right is None or k_right is None else p.right + k_right
        p.parts += 1
        p.part_n, p.k = None, 0

    def end_bar(self: Machine) -> None:
        if self.bar:
            self.voice.bar_end()
            self.bar = False

    @on("loaded", Phase.DEALING, goes=(Phase.STOPPED,))
    def loaded_in_pass(self: Machine, ev: Event) -> None:
        raise self.protocol_fault(f"it began a pass of {ev.n} cards in the middle of another")

    @on("progress", *PASS, goes=(Phase.DEALING, Phase.STOPPED))
    def progress(self: Machine, ev: Event) -> None:
        p = self.pass_
        if p is None or p.part_n is None:
            return  # the rest of a part that was already ended
        if ev.n != p.part_n:
            raise self.protocol_fault(f"progress for a pass of {ev.n} cards while it deals {p.part_n}")
        if self.phase is Phase.PAUSED:
            self.resumed()
        self.quiet_since = self.clock()
        if (ev.k or 0) > p.k:
            self.moved_at = self.clock()
        p.k, p.k_left, p.k_right = ev.k or 0, ev.left, ev.right
        left, right = p.piles()
        self.voice.bar_update(p.through, p.total, left, right)

    @on("done", *PASS, goes=PASS_OVER + (Phase.STOPPED,))
    def done(self: Machine, ev: Event) -> None:
        p = self.pass_
        if p is None:
            return
        if p.part_n is not None and ev.n != p.part_n:
            raise self.protocol_fault(f"done for a pass of {ev.n} cards while it dealt {p.part_n}")
        self.end_part(ev.k or 0, ev.left, ev.right)
        self.phase = Phase.HANDLING
        if p.aside:
            # The cards lifted off the top are dealt last, onto the same piles.
            count, p.aside = p.aside, 0
            self.todo.extendleft([steps.Touch("aside"), steps.PutInTray(steps.ASIDE, count)])
        elif p.dealt < p.total:
            self.todo.appendleft(Do("count_rest"))
        else:
            self.pass_finished()
        self.advance()

    def same_part(self: Machine, ev: Event, what: str) -> None:
        """An event about the part being dealt names that part's size."""
        p = self.pass_
        if p is not None and p.part_n is not None and ev.n is not None and ev.n != p.part_n:
            raise self.protocol_fault(f"{what} for a pass of {ev.n} cards while it deals {p.part_n}")

    @on("aborted", *PASS, goes=PASS_OVER + (Phase.STOPPED,))
    def aborted(self: Machine, ev: Event) -> None:
        p = self.pass_
        if p is None:
            return
        self.same_part(ev, "aborted")
        self.end_part(ev.k if ev.k is not None else p.k, ev.left, ev.right)
        self.phase = Phase.HANDLING
        self.todo.appendleft(Do("count_rest"))
        self.advance()

    def count_rest(self: Machine) -> None:
        """The pass stopped part way: the tray's count (the truth, whatever
        the device saw go by) is what is left, dealt onto the same piles."""
        p = self.pass_
        assert p is not None
        rest = p.total - p.dealt
        n = self.count() if rest > 0 else 0
        if n == STALE:
            # Events came first (a fault cleared, exactness judged, the rest's own pass begun).
            self.after_events("count_rest")
            return
        if n is not None and n != rest:
            p.dealt = max(0, p.total - n)
            p.left = p.right = None
            rest = n
        if rest <= 0:
            if self.routine is not None and self.routine.exact and self.device is not None and p.parts:
                # The device still waits for the rest of its stopped pass: an
                # empty tray's start tells it the pass is whole.
                self.device.start()
            self.pass_finished()
            return
        if p.dealt:
            self.tell(notices.PassGoesOn(p.load, p.dealt, rest))
        self.todo.appendleft(steps.Touch("rest", p.load, rest) if p.dealt else steps.Touch("start"))

    # -- a fault stops the pass ---------------------------------------------------------------
    @on("fault", Phase.DEALING, goes=(Phase.PAUSED, Phase.HANDLING, Phase.STOPPED))
    def fault_in_pass(self: Machine, ev: Event) -> None:
        p = self.pass_
        assert p is not None and self.place is not None
        if refusal(ev):
            return  # a second touch while dealing, refused: nothing changed
        self.same_part(ev, "a fault")
        k = ev.k or 0
        self.end_bar()
        if ev.code in protocol.RESUMABLE:
            p.k = k
            self.phase = Phase.PAUSED
            self.tell(notices.Jam(self.place, p.dealt + k, p.total))
            self.note(f"jam during {self.place}")
            self.todo.extendleft([steps.Touch("go_on"), steps.Fix("jam")])
            self.advance()
            return
        if ev.k is None:
            k = p.k  # a fault that does not say: the last card the device reported
        self.tell(self.fault_notice(ev, p.dealt + k, p.total))
        if p.part_n is not None:
            self.end_part(k, ev.left if ev.k is not None else None, ev.right if ev.k is not None else None)
        if ev.code == protocol.FAULT_DOUBLE_FEED:
            p.left = p.right = None  # what went where is the tray's count to tell
        self.phase = Phase.HANDLING
        # Cleared once put right (a sensor still lost would latch again at once), then the tray counted.
        self.todo.extendleft([Do("count_rest"), Do("clear"), self.fault_fix(ev, p.total - p.dealt)])
        self.advance()

    def fault_notice(self: Machine, ev: Event, dealt: int, of: int) -> notices.Notice:
        where = self.place
        assert where is not None
        code = ev.code
        self.note(f"{device_words.event_name(ev)} during {where}")
        if code == protocol.FAULT_DOUBLE_FEED:
            return notices.ExitBlocked(where, dealt, of)
        if code == protocol.FAULT_TRAY_EMPTIED:
            return notices.TrayEmptied(where, dealt, of, (ev.n or 0) - (ev.k or 0))
        if code == protocol.FAULT_BATTERY_LOW:
            return notices.BatteryRanDown(where, dealt, of)
        if code == protocol.FAULT_SENSOR:
            return notices.SensorLost(sensor_name(ev), dealt, of)
        return notices.DeviceFault(device_words.event_words(ev))

    def fault_fix(self: Machine, ev: Event, rest: int) -> steps.Step:
        code = ev.code
        if code == protocol.FAULT_DOUBLE_FEED:
            return steps.Fix("exit")
        if code == protocol.FAULT_TRAY_EMPTIED:
            return steps.Fix("put_back", (ev.n or 0) - (ev.k or 0))
        if code == protocol.FAULT_BATTERY_LOW:
            return steps.Fix("battery")
        if code == protocol.FAULT_SENSOR:
            return steps.Fix(sensor_fix(ev))
        return steps.Fix("exit")  # an internal stop: whatever is caught in the exit goes back

    # -- a jam -----------------------------------------------------------------------------------
    @on("touch", Phase.PAUSED, goes=(Phase.DEALING,))
    def touch_in_paused(self: Machine, ev: Event) -> None:
        if ev.state == protocol.ST_PAUSED:
            self.resumed()

    def resumed(self: Machine) -> None:
        """The jammed pass goes on: the steps shown for it are done."""
        p = self.pass_
        assert p is not None
        while self.todo and isinstance(self.todo[0], steps.Touch):
            self.todo.popleft()
        self.phase = Phase.DEALING
        self.quiet_since = self.moved_at = self.clock()
        left, right = p.piles()
        self.voice.bar_start(f"load {p.load}", p.total, p.through, left, right)
        self.bar = True

    @on("answer", Phase.PAUSED, goes=(Phase.PAUSED,))
    def answer_in_paused(self: Machine, fact: object) -> None:
        if self.answered(fact):  # type: ignore[arg-type]
            self.advance()

    @on("fault", Phase.PAUSED, goes=(Phase.PAUSED,))
    def fault_in_paused(self: Machine, ev: Event) -> None:
        """The touch that should take the pass up again was refused (a card
        left in the exit would be counted as the next)."""
        exit_blocked = ev.part == protocol.PART_EXIT
        self.tell(notices.ExitBlockedAtStart() if exit_blocked else notices.StartRefused(device_words.event_words(ev)))
        if self.shown is not None and isinstance(self.shown.step, steps.Touch):
            self.todo.appendleft(self.shown.step)
            self.todo.appendleft(steps.Fix("exit_sensor") if exit_blocked else steps.Fix("jam"))
            self.advance()

    # -- the device starts again ---------------------------------------------------------------
    @on("hello", goes=ONWARD)
    def hello(self: Machine, ev: Event) -> None:
        """A hello nobody asked for: the same shuffler, restarted; more than a
        few in one pass is a device at fault."""
        assert self.device is not None
        self.device.check_uid(ev.uid)
        self.end_bar()
        p = self.pass_
        if p is not None:
            p.restarts += 1
            if p.restarts > MAX_RESTARTS_PER_PASS:
                raise self.protocol_fault(f"it sent hello {p.restarts} times during one pass: it keeps restarting or "
                                          "does not keep to the protocol")
        mid_pass = p is not None and (p.part_n is not None or p.dealt > 0)
        self.tell(notices.Restarted(self.place, p.through if p and mid_pass else None, p.total if p and mid_pass else None))
        self.note(f"the shuffler restarted during {self.place}")
        self.after_device_restart()
        if mid_pass:
            self.after_restart()

    def after_restart(self: Machine) -> None:
        """The device has forgotten the pass: what is on the piles stays, the
        rest is counted in the tray and dealt onto them."""
        p = self.pass_
        assert p is not None
        if p.part_n is not None:
            self.end_part(p.k, p.k_left, p.k_right)
        p.left = p.right = None  # events may have gone with the restart
        self.todo.clear()
        self.phase = Phase.HANDLING
        if p.total - p.dealt <= 0:
            self.pass_finished()
        else:
            self.todo.append(steps.PutInTray(p.load, None, rest=True))
        self.advance()

    # -- the port goes away ---------------------------------------------------------------------
    @on("closed", goes=ONWARD)
    def closed(self: Machine, fact: Closed) -> None:
        """Say so, wait for the same shuffler to come back, and make what the
        guide believes agree with its status."""
        assert self.device is not None
        p = self.pass_
        self.end_bar()
        if p is not None:
            p.reconnects += 1
            if p.reconnects > MAX_RECONNECTS_PER_PASS:
                raise self.stop(f"the connection to the shuffler was lost {p.reconnects} times during one pass")
        dealing = p is not None and p.part_n is not None
        self.tell(notices.ConnectionLost(self.place, p.through if p and dealing else None, p.total if p and dealing else None,
                                   self.reconnect_s))
        self.note(f"connection lost during {self.place}")
        try:
            st = self.device.reconnect(self.reconnect_s, fact.why)
        except Stop as exc:
            raise self.stop(str(exc)) from None
        self.tell(notices.DeviceBack())
        self.quiet_since = self.moved_at = self.last_line = self.clock()
        self.resync(st)

    def resync(self: Machine, st: Reply) -> None:
        p = self.pass_
        if self.device_forgot(st):
            self.tell(notices.Restarted(None, unplugged=True))
            self.note(f"the shuffler restarted during {self.place}")
            self.after_device_restart()
            if p is not None and (p.part_n is not None or p.dealt):
                self.after_restart()
            return
        if p is None or self.phase in (Phase.HANDLING, Phase.LOADING):
            return
        if p.part_n is None:
            self.resync_between_parts()
            return
        self.resync_mid_part(st)

    def resync_mid_part(self: Machine, st: Reply) -> None:
        p = self.pass_
        assert p is not None
        if st.state == protocol.ST_DEALING:
            self.voice.bar_start(f"load {p.load}", p.total, p.through, *p.piles())
            self.bar = True
            return
        if st.state == protocol.ST_PAUSED:
            self.phase = Phase.DEALING
            self.fault_in_pass(device_messages.make_event(protocol.EV_FAULT, k=st.k or 0, n=st.n, code=protocol.FAULT_JAM, latched=True))
            return
        if st.n == p.part_n and st.k == p.part_n:
            self.done(device_messages.make_event(protocol.EV_DONE, k=st.k, n=st.n, left=st.left, right=st.right))
            return
        self.tell(notices.Restarted(None, unplugged=True))
        self.note(f"the shuffler restarted during {self.place}")
        self.after_device_restart()
        self.after_restart()

    def resync_between_parts(self: Machine) -> None:
        """No part of the pass was known to run when the cable went: the
        tray's count says whether one began. Either way the touch is asked
        for again: one made while the cable was out may never have arrived."""
        p = self.pass_
        assert p is not None
        rest = p.total - p.dealt
        n = self.count()
        if n is not None and n != STALE and n < rest:
            self.tell(notices.PassBeganUnplugged(rest, n))
            p.dealt = p.total - n
            p.left = p.right = None
            rest = n
        if rest <= 0:
            self.pass_finished()
            self.advance()
            return
        self.todo.appendleft(steps.Touch("rest", p.load, rest) if p.dealt else steps.Touch("start"))
        self.phase = Phase.HANDLING
        self.advance()

    # -- the clock while dealing -----------------------------------------------------------------
    @on("tick", Phase.DEALING, goes=ONWARD)
    def tick_dealing(self: Machine, fact: Tick) -> None:
        """No sign of life for a while: ask the device how it is doing. A
        device that says it deals while no card comes out, or does not
        answer, ends the pass in one line."""
        assert self.device is not None
        now = self.clock()
        if now - self.quiet_since <= self.device.wait_s(self.stall_s):
            return
        self.quiet_since = now
        try:
            st = self.device.status(timeout=self.device.wait_s(min(REQUEST_TIMEOUT_S, self.stall_s)))
        except LinkTimeout:
            self.tell(notices.NotAnswering())
            self.device.close()
            self.handle(Closed(f"no answer within {self.device.wait_s(min(REQUEST_TIMEOUT_S, self.stall_s)):g} s"))
            return
        except LinkClosed as exc:
            self.handle(Closed(str(exc)))
            return
        self.last_line = now
        self.status_in_pass(st, now)

    def status_in_pass(self: Machine, st: Reply, now: float) -> None:
        p = self.pass_
        assert p is not None and self.device is not None
        if st.state == protocol.ST_DEALING:
            if st.k is not None and p.part_n is not None and st.k > p.k:
                self.moved_at = now
                self.progress(device_messages.make_event(protocol.EV_PROGRESS, k=st.k, n=p.part_n, left=st.left, right=st.right))
            elif now - self.moved_at > self.device.wait_s(2 * self.stall_s):
                raise self.protocol_fault(f"it says it is dealing, yet no card has gone through for "
                                          f"{now - self.moved_at:.0f} s and it sends no events"
                                          + (f" ({self.device.garbage} lines that are not protocol)"
                                             if self.device.garbage else ""))
        elif st.state == protocol.ST_PAUSED:
            self.fault_in_pass(device_messages.make_event(protocol.EV_FAULT, k=st.k or 0, n=st.n, code=st.fault or protocol.FAULT_JAM, latched=True))
        elif st.state == protocol.ST_ALARM:
            self.fault_in_pass(device_messages.make_event(protocol.EV_FAULT, k=st.k or 0, n=st.n, code=st.fault or protocol.FAULT_INTERNAL,
                                       latched=True, left=st.left, right=st.right))
        elif st.n == p.part_n and st.k == p.part_n:
            self.done(device_messages.make_event(protocol.EV_DONE, k=st.k, n=st.n, left=st.left, right=st.right))

    def follow_stray_pass(self: Machine, ev: Event) -> None:
        """A pass began where the routine has none: said once; the step on
        screen stays (its cards are the person's to put back)."""
        self.tell(notices.PassNotInRoutine(ev.n or 0))
        self.note(f"a pass of {ev.n} cards nobody asked for, during {self.place}")

    # -- lines that are not the pass's -----------------------------------------------------------
    @on("garbage")
    def garbage(self: Machine, fact: Noise) -> None:
        """Not protocol: counted (device.garbage), never shown, and no sign of life."""

    @on("warn")
    def warn(self: Machine, ev: Event) -> None:
        self.tell(notices.BatteryWarning(ev.mv))

    @on("stopped", goes=(Phase.STOPPED,))
    def stopped_event(self: Machine, ev: Event) -> None:
        raise self.stop("the shuffler's firmware was interrupted and left for its prompt; unplug it and plug it in "
                        "again")
