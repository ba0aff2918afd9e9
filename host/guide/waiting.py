"""The guide's handlers while it waits for the person: a table step's
answer (HANDLING), a load in the tray (LOADING), the touch that begins the
pass (TOUCH).

A load is judged once the tray's count has held still for settle_s (or the
person says the cards are in); one off its size is put right before its
touch, with how many cards are missing or extra and where. Cards move
between this load's bottom and the next load's top, which keeps the pack's
order. A load put in the tray, or a pass begun, while table steps are still
on screen completes them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from firmware import protocol
from host import person as persons
from host import device_words
from host.device_messages import Event
from host.guide import notices
from host.guide import routines
from host.guide.table import ONWARD, Answer, Do, Phase, Tick, Tray, on, refusal
from host.device_link import LinkClosed
from shuffling import steps

if TYPE_CHECKING:
    from host.guide.machine import Item, Machine, Pass

KEEP_AWAKE_S = 20.0  # a line to the device at least this often while the person works
LONG_WAIT_S = 300.0  # then the person hears that the guide still waits, and that this is fine
MAX_RECOUNTS = 3  # then deal what is there and adjust the loads after it
PERSON = (Phase.HANDLING, Phase.LOADING, Phase.TOUCH, Phase.PAUSED)
STALE = -1  # a count read while events older than it still wait: they come first


class WaitingHandlers:
    def init_waiting(self: Machine) -> None:
        self.too_soon_said: int | None = None
        self.long_wait_said: int | None = None
        self.tray_n: int | None = None  # the last count read, and since when it has held
        self.tray_since = 0.0
        self.saw_empty = False  # the tray read empty since the table step was shown
        self.waiting_said = False
        self.last_line = self.clock()

    def on_shown(self: Machine, step: steps.Step) -> None:
        self.too_soon_said = None
        self.tray_n, self.tray_since = None, self.clock()
        if self.phase is Phase.LOADING:
            self.waiting_said = False
        elif isinstance(step, (steps.Unload, steps.SetAside)):
            self.saw_empty = False  # the cards now in the tray are not a new load until it has been empty

    # -- a table step ------------------------------------------------------------------------
    @on("answer", Phase.HANDLING, goes=ONWARD)
    def answer_in_handling(self: Machine, fact: Answer) -> None:
        if self.answered(fact):
            self.advance()

    @on("tray", Phase.HANDLING, goes=ONWARD)
    def tray_in_handling(self: Machine, fact: Tray) -> None:
        """A load put in the tray after the tray was empty: the steps before
        its load are done, whatever was answered."""
        if fact.n == 0:
            self.saw_empty = True
        if not self.settled(fact.n) or fact.n == 0 or not self.saw_empty:
            return
        ahead = self.load_ahead()
        if ahead is None:
            return
        skipped = self.skip_to(ahead)
        put = self.todo.popleft()
        assert isinstance(put, steps.PutInTray)
        self.tell(notices.StepsTakenAsDone("load", put.load, skipped, fact.n))
        self.start_or_continue_pass(put)  # its step is done too: not shown, judged
        self.phase = Phase.LOADING
        self.judge(fact.n, put)

    def load_ahead(self: Machine) -> int | None:
        """Where the next load's step stands in the queue, when only table
        steps and notices come before it."""
        for i, item in enumerate(self.todo):
            if isinstance(item, steps.PutInTray):
                return None if item.rest or item.load == steps.ASIDE else i
            if isinstance(item, steps.Touch) or not isinstance(item, (steps.STEP_TYPES, notices.NOTICE_TYPES, routines.RoundMark)):
                return None
        return None

    def skip_to(self: Machine, index: int) -> int:
        """Drop the table steps before todo[index] (telling its notices);
        how many steps were taken as done, the one on screen included."""
        skipped = 1 if self.shown is not None and self.shown.answer is not None else 0
        for _ in range(index):
            item = self.todo.popleft()
            if isinstance(item, notices.NOTICE_TYPES):
                self.tell(item)
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round
            elif steps.asks_action(item):
                skipped += 1
        return skipped

    # -- a load -------------------------------------------------------------------------------
    @on("tray", Phase.LOADING, goes=ONWARD)
    def tray_in_loading(self: Machine, fact: Tray) -> None:
        if fact.n == 0 and not self.waiting_said:
            self.waiting_said = True
            self.tell(notices.WaitingForLoad(self.pass_.load if self.pass_ else "?", self.voice.keyboard))
        if self.settled(fact.n) and fact.n > 0:
            self.judge(fact.n)

    @on("answer", Phase.LOADING, goes=ONWARD)
    def answer_in_loading(self: Machine, fact: Answer) -> None:
        """The person says the cards are in: the count now is the load."""
        if not self.answered(fact):
            return
        n = self.count()
        if self.phase is not Phase.LOADING or n == STALE:
            return  # the pass has begun, or events come first (the tray's count settles the load anyway)
        if n == 0:
            self.tell(notices.TrayStillEmpty(self.pass_.load if self.pass_ else "?"))
        else:
            self.judge(n)

    def settled(self: Machine, n: int) -> bool:
        """The count has held still for settle_s."""
        now = self.clock()
        if n != self.tray_n:
            self.tray_n, self.tray_since = n, now
        return now - self.tray_since >= self.settle_s

    def judge(self: Machine, n: int | None, step: steps.Step | None = None) -> None:
        """The load in the tray holds n (None: the device cannot count; the
        pass itself will say): go on to the touch, or put it right first.
        step: the load's step (the one on screen unless it was done unseen)."""
        p = self.pass_
        assert p is not None and self.shown is not None and self.routine is not None
        step = step or self.shown.step
        if isinstance(step, steps.PutInTray) and (step.rest or step.load == steps.ASIDE):
            self.judge_rest(n)
            return
        tolerance = self.routine.tolerance(p.load)
        if n is None or abs(n - p.want) <= tolerance:
            nxt = self.routine.next_load(p.load)
            if n is not None and n != p.want and nxt is not None and not p.off_said:
                p.off_said = True
                self.tell(notices.LoadKept(p.load, p.want, n, nxt))
            self.advance()
            return
        p.recounts += 1
        if p.recounts > MAX_RECOUNTS:
            self.tell(notices.LoadDealtAsItIs(p.load, p.want, n))
            self.note(f"load {p.load} of round {self.place.round if self.place else '?'} was dealt with {n} cards "
                      f"instead of {p.want}")
            self.advance()
            return
        self.todo.extendleft(reversed(self.put_right(p, n)))
        self.advance()

    def put_right(self: Machine, p: Pass, n: int) -> list[Item]:
        """What to say and do about a load of n cards that should hold p.want."""
        assert self.routine is not None
        capacity = self.device.capacity if self.device and self.device.capacity else self.plan.capacity
        again = steps.PutInTray(p.load, p.want, again=True)
        nxt = self.routine.next_load(p.load)
        if self.routine.exact:
            other = self.routine.swapped_with(p.load, n)
            if other is not None:
                return [self.routine.swap_notice(p.load, p.want, n, other), steps.Unload(p.load),
                        steps.Swap(p.load, other), again]
            if not self.routine.by_eye():
                nxt = None  # the stacks of a two-load round: nothing to trade with
        if nxt is not None:
            move = steps.Move(abs(n - p.want), p.load, nxt, down=n > p.want)
            about = self.routine.tolerance(p.load) > 0
            return [notices.LoadToMove(p.load, p.want, n, about, capacity, move), steps.Unload(p.load), move, again]
        if n < p.want:
            return [notices.LoadShort(p.load, p.want, n), steps.Unload(p.load), steps.Fix("missing", p.want - n, p.load), again]
        return [notices.LoadLong(p.load, p.want, n, capacity), steps.Unload(p.load), steps.Fix("extra", n - p.want, p.load), again]

    def judge_rest(self: Machine, n: int | None) -> None:
        """What is left of a load (or the cards kept aside) is in the tray."""
        p = self.pass_
        assert p is not None and self.shown is not None
        step = self.shown.step
        if isinstance(step, steps.PutInTray) and step.rest and n is not None:
            p.dealt = max(0, p.total - n)  # the tray's count is the fact
            if n == 0:
                self.pass_finished()
                self.advance()
                return
            self.todo.appendleft(steps.Touch("rest", p.load, n))
        self.advance()

    def count(self: Machine) -> int | None:
        """The tray's count (None: the device cannot count now; STALE: events
        that came before it are still to be looked at)."""
        assert self.device is not None
        if self.device.events_waiting():
            return STALE
        try:
            n = self.device.count()
        except LinkClosed as exc:
            from host.guide.table import Closed
            self.handle(Closed(str(exc)))
            return None
        self.last_line = self.clock()
        if self.device.events_waiting():
            return STALE
        if n is not None and n > self.plan.cards:
            raise self.stop(f"{self.device.name} counts {n} cards in the tray, more than the whole pack "
                            f"({self.plan.cards}): its count sensor needs calibrating")
        return n

    # -- the touch -----------------------------------------------------------------------------
    @on("loaded", Phase.TOUCH, Phase.LOADING, goes=(Phase.DEALING, Phase.STOPPED))
    def loaded_waiting(self: Machine, ev: Event) -> None:
        """The pass began (in LOADING: before the guide had judged the count)."""
        if self.phase is Phase.LOADING:
            assert self.pass_ is not None
            self.tell(notices.StepsTakenAsDone("pass", self.pass_.load, 0))
            self.drop_to_touch()
        self.begin_part(ev)

    @on("loaded", Phase.HANDLING, goes=(Phase.DEALING, Phase.STOPPED))
    def loaded_out_of_turn(self: Machine, ev: Event) -> None:
        """A pass began while table steps were on screen: if the routine has
        a pass ahead, those steps are done and this is its pass."""
        ahead = self.load_ahead()
        if ahead is None and self.pass_ is not None and self.pass_.part_n is None:
            self.drop_to_touch()  # the rest of a pass, touched before the guide asked
            self.begin_part(ev)
            return
        if ahead is None:
            self.follow_stray_pass(ev)
            return
        skipped = self.skip_to(ahead)
        put = self.todo.popleft()
        assert isinstance(put, steps.PutInTray)
        self.tell(notices.StepsTakenAsDone("pass", put.load, skipped))
        self.start_or_continue_pass(put)
        self.drop_to_touch()
        self.begin_part(ev)

    def drop_to_touch(self: Machine) -> None:
        """The pass has begun: the steps up to its touch are done."""
        while self.todo:
            item = self.todo.popleft()
            if isinstance(item, steps.Touch):
                return
            if isinstance(item, notices.NOTICE_TYPES):
                self.tell(item)
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round

    @on("fault", Phase.TOUCH, goes=(Phase.HANDLING, Phase.TOUCH, Phase.LOADING, Phase.STOPPED))
    def fault_waiting(self: Machine, ev: Event) -> None:
        """A pass refused (nothing moved): say why and what to do, then the touch again."""
        p = self.pass_
        assert p is not None and self.shown is not None
        self.voice.bar_end()
        touch = self.shown.step if isinstance(self.shown.step, steps.Touch) else steps.Touch("start")
        items = self.refusal_steps(p, ev, touch)
        self.todo.extendleft(reversed(items))
        self.advance()

    def refusal_steps(self: Machine, p: Pass, ev: Event, touch: steps.Touch) -> list[Item]:
        code = ev.code
        if code == protocol.FAULT_OVER_CAPACITY:
            return self.too_full(p, ev)
        if code == protocol.FAULT_EMPTY:
            return [notices.TrayReadsEmpty(p.load), steps.Touch("again", p.load)]
        if code == protocol.FAULT_BATTERY_LOW:
            return [notices.BatteryTooLowToStart(), steps.Fix("battery_idle"), touch]
        if code == protocol.FAULT_NOT_CALIBRATED:
            port = self.device.name if self.device is not None else "PORT"
            raise self.stop(f"the count sensor is not calibrated: run `shuffler setup --port {port}` first")
        if code == protocol.FAULT_SENSOR:
            return self.sensor_at_start(ev, touch)
        return [notices.StartRefused(device_words.event_words(ev)), steps.Touch("retry")]

    def too_full(self: Machine, p: Pass, ev: Event) -> list[Item]:
        n = ev.n or 0
        capacity = ev.capacity or self.plan.capacity
        assert self.routine is not None
        nxt = self.routine.next_load(p.load)
        if nxt is not None and p.parts == 0 and not self.routine.exact:
            extra = n - p.want if n > p.want else n - capacity
            move = steps.Move(extra, p.load, nxt, down=True)
            return [notices.LoadToMove(p.load, p.want, n, True, capacity, move), steps.Unload(p.load), move,
                    steps.PutInTray(p.load, n - extra, again=True), steps.Touch("start")]
        p.aside = n - capacity
        return [notices.TooFullForTray(p.load, n, capacity), steps.SetAside(p.load, p.aside), steps.Touch("rest_in_tray")]

    def sensor_at_start(self: Machine, ev: Event, touch: steps.Touch) -> list[Item]:
        """A sensor that does not answer: put right, then cleared (a sensor
        still lost would latch again at once), then the touch again."""
        return [*self.sensor_notice_and_fix(ev), Do("clear"), touch]

    def sensor_notice_and_fix(self: Machine, ev: Event) -> list[Item]:
        if ev.part == protocol.PART_EXIT:
            return [notices.ExitBlockedAtStart(), steps.Fix("exit_sensor")]
        return [notices.SensorLost(sensor_name(ev)), steps.Fix(sensor_fix(ev))]

    @on("fault", Phase.HANDLING, Phase.LOADING, goes=ONWARD)
    def fault_between(self: Machine, ev: Event) -> None:
        """A touch out of turn that the device refused (nothing moved), or a
        sensor it found lost while idle: that is put right first."""
        if ev.code == protocol.FAULT_EMPTY:
            self.tell(notices.EmptyTouch())
        elif refusal(ev):
            self.tell(notices.StartRefused(device_words.event_words(ev)))
        elif ev.code == protocol.FAULT_SENSOR and self.shown is not None:
            again = self.shown.step  # shown again once the sensor is right
            self.todo.extendleft(reversed([*self.sensor_notice_and_fix(ev), Do("clear"), again]))
            self.advance()
        else:
            self.tell(notices.DeviceFault(device_words.event_words(ev)))
            self.clear()

    def clear(self: Machine) -> None:
        if self.device is not None and not self.device.clear():
            self.tell(notices.ClearUnanswered())

    # -- the clock while the person works --------------------------------------------------------
    @on("tick", Phase.HANDLING, Phase.TOUCH, Phase.PAUSED, goes=ONWARD)
    def tick_waiting(self: Machine, fact: Tick) -> None:
        self.keep_time()
        if self.phase is Phase.HANDLING and self.device is not None and self.load_ahead() is not None:
            n = self.count()
            if n is not None and n != STALE and self.phase is Phase.HANDLING:
                self.handle(Tray(n))

    @on("tick", Phase.LOADING, goes=ONWARD)
    def tick_loading(self: Machine, fact: Tick) -> None:
        self.keep_time()
        if self.device is None:
            return
        n = self.count()
        if self.phase is not Phase.LOADING or n == STALE:
            return
        if n is None:
            self.judge(None)
        else:
            self.handle(Tray(n))

    def keep_time(self: Machine) -> None:
        """No fixed limit on the person, unless one was given; the device is
        kept awake meanwhile, and a long wait is said once."""
        shown = self.shown
        now = self.clock()
        if shown is None:
            return
        waited = now - shown.at
        if self.person_wait_s is not None and waited > self.person_wait_s:
            raise self.stop(WAIT_WORDS[self.phase].format(self.person_wait_s))
        if shown.answer is not None and getattr(self.person, "closed", False):
            raise persons.PersonGaveUp("the input ended, so no step can be answered")
        if waited > LONG_WAIT_S and self.long_wait_said != shown.number:
            self.long_wait_said = shown.number
            self.tell(notices.StillWaiting(shown.number, int(waited // 60)))
        if self.device is not None and now - self.last_line > KEEP_AWAKE_S:
            self.last_line = now
            try:
                self.device.keep_awake()
            except LinkClosed as exc:
                from host.guide.table import Closed
                self.handle(Closed(str(exc)))


WAIT_WORDS = {
    Phase.HANDLING: "nobody answered the step within {:g} s",
    Phase.LOADING: "no cards came into the tray within {:g} s",
    Phase.TOUCH: "no pass started within {:g} s",
    Phase.PAUSED: "the pass was not taken up again within {:g} s",
}

# A sensor fault's part (firmware/protocol.py PARTS): its name in the guide's words, and its fix.
SENSORS = {protocol.PART_EXIT: ("the exit sensor", "exit_sensor"), protocol.PART_STACK: ("the count sensor", "count_sensor"),
           protocol.PART_TOUCH: ("the touch sensor", "touch_sensor"), protocol.PART_BATTERY: ("the battery sensor", "battery_sensor")}


def sensor_name(ev: Event) -> str:
    """Which sensor a fault names, in the guide's words."""
    return SENSORS.get(ev.part, ("a sensor", "sensor"))[0]


def sensor_fix(ev: Event) -> str:
    return SENSORS.get(ev.part, ("a sensor", "sensor"))[1]
