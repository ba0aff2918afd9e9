"""The guide engine, unchanged, behind the page's Voice and Person: with
--manual (no device) every step waits for the page's "done" for that very
step number; the state carries the step as data, the round and pass, the
distance so far and at the end the summary; notices are data, worded once."""
from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from firmware import protocol
from guide_in_memory import exit_beam_missed_three
from host import device_words
from host import guide as guide_machine
from host import person as persons
from host import plan as planlib
from host.guide import notices, stop_reasons
from host.web import messages
from host.web.adapter import WebPerson, WebVoice, page_words
from host.web.page_state import PageState, put_table
from host.web.table import WebTable, control
from shuffling import steps
from simulator.virtual.world_client import WorldError


def manual_guide(rounds: int = 2, wait_s: float = 30.0) -> tuple[PageState, guide_machine.Guide, WebPerson]:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)
    options = guide_machine.GuideOptions(manual=True, web=True, wait_s=wait_s, read_s=0)
    guide = guide_machine.Guide(plan, person, voice, options)
    voice.attach(guide)
    return page, guide, person


def run_in_thread(guide: guide_machine.Guide) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def work() -> None:
        try:
            out["summary"] = guide.run()
        except BaseException as exc:  # noqa: BLE001
            out["error"] = exc

    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t, out


def next_step(page: PageState, after: int, timeout: float = 10.0) -> dict[str, Any]:
    with page._cond:  # noqa: SLF001 - the test waits on the state's own condition
        assert page._cond.wait_for(lambda: (page._state["step"] or {}).get("number", 0) > after, timeout)
        return dict(page._state["step"])


def test_a_manual_guide_is_done_entirely_from_the_page() -> None:
    page, guide, _ = manual_guide(rounds=2)
    t, out = run_in_thread(guide)
    seen: list[dict[str, Any]] = []
    number = 0
    while True:
        step = next_step(page, number)
        seen.append(step)
        number = step["number"]
        assert step["answer"] == "done" and step["words"]
        assert not page.answer(number + 1) and not page.answer(number - 1)  # only the step shown now
        assert page.answer(number)
        if step["kind"] == "gather":
            break
    t.join(10)
    summary = out["summary"]
    assert summary.rounds == 2 and summary.passes == 4
    kinds = [s["kind"] for s in seen]
    assert kinds[0] == "cut" and kinds.count("touch") == 4 and kinds.count("lift") == 4 and kinds[-1] == "gather"
    # The step on the page is the engine's step data, word for word.
    lift = next(s for s in seen if s["kind"] == "lift")
    assert lift["words"] == steps.words(steps.Lift(lift["load"], lift["left"], lift["right"], lift["rows"]))
    touches = [s for s in seen if s["kind"] == "touch"]
    assert [s["round"] for s in touches] == [1, 1, 2, 2]
    assert page.get("distance") == {"rounds_done": 2, "value": planlib.distance_after(162, 104, 2), "kind": "exact"}


def test_round_pass_and_distance_so_far_follow_the_guide() -> None:
    page, guide, _ = manual_guide(rounds=2)
    t, _ = run_in_thread(guide)
    number, places = 0, []
    try:
        while True:
            step = next_step(page, number)
            number = step["number"]
            if step["kind"] == "touch":
                places.append((page.get("place"), page.get("distance")["rounds_done"]))
            page.answer(number)
            if step["kind"] == "gather":
                break
    finally:
        page.close("test over")
        t.join(10)
    assert [(p["round"], p["pass"], p["of_passes"], p["load"], done) for p, done in places] == [
        (1, 1, 4, "A", 0), (1, 2, 4, "B", 0), (2, 3, 4, "A", 1), (2, 4, 4, "B", 1)]


def test_nobody_answering_stops_the_guide_with_its_place() -> None:
    page, guide, _ = manual_guide(wait_s=0.3)
    t, out = run_in_thread(guide)
    t.join(10)
    assert isinstance(out["error"], guide_machine.GuideStopped)
    assert "nobody answered the step within 0.3 s" in str(out["error"])


def test_closing_the_page_state_ends_a_wait_at_once() -> None:
    page, guide, _ = manual_guide(wait_s=600)
    t, out = run_in_thread(guide)
    next_step(page, 0)
    page.close(stop_reasons.Interrupted())
    t.join(10)
    assert not t.is_alive() and out["error"].reason == stop_reasons.Interrupted(), out


def test_a_page_closed_under_a_waiting_guide_stops_it_with_that_reason() -> None:
    page, guide, _ = manual_guide(wait_s=600)
    t, out = run_in_thread(guide)
    next_step(page, 0)
    page.close(stop_reasons.PageClosed())
    t.join(10)
    assert not t.is_alive() and out["error"].reason == stop_reasons.PageClosed(), out


def test_the_cards_are_in_is_the_persons_answer_to_the_load() -> None:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    voice.step(guide_machine.Shown(steps.PutInTray("A", 81), 7, 1, "ready", 0.0))  # the device sees the load: it may be said
    assert page.get("step")["answer"] == "ready" and person.answers() == []
    assert page.answer(7) and person.answers() == [persons.Said(7, "Done")]
    assert person.answers() == []  # once
    voice.step(guide_machine.Shown(steps.Touch("start"), 8, 1, None, 0.0))
    assert page.get("step")["answer"] is None and not page.answer(8)


def test_problems_stay_until_their_stage_is_over() -> None:
    page = PageState()
    voice = WebVoice(page)
    where = guide_machine.Where(1, 2, "A", 1, 4)
    voice.notice(notices.PassPaused(where, 30, 81, protocol.FAULT_JAM))
    voice.notice(notices.RoundStart(1, 2, False))
    assert [p["text"] for p in page.get("problems")] == [notices.words(notices.PassPaused(where, 30, 81, protocol.FAULT_JAM))]
    assert page.get("log")[-1]["text"] == "Round 1 of 2"
    # Each problem shown carries the record its words were made from.
    assert [p["record"] for p in page.get("problems")] == [{
        "kind": "PassPaused", "level": "problem", "dealt": 30, "of": 81, "code": protocol.FAULT_JAM,
        "where": {"kind": "Where", "round": 1, "of_rounds": 2, "load": "A", "pass_number": 1, "of_passes": 4,
                  "after": False}}]
    voice.bar_start("load A", 81)
    voice.bar_update(30, 81, 14, 16)
    assert page.get("pass") == {"label": "load A", "load": None, "dealt": 30, "total": 81, "left": 14, "right": 16,
                                "active": True}
    assert page.get("problems") == []  # a new pass
    voice.bar_end()
    assert page.get("pass")["active"] is False


def test_a_problem_goes_when_its_cause_does() -> None:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    voice.step(guide_machine.Shown(steps.PutInTray("A", 81), 2, 1, "ready", 0.0))
    assert page.answer(2) and person.answers() == [persons.Said(2, "Done")]
    voice.notice(notices.TrayStillEmpty("A"))  # the shuffler reads the tray: empty
    voice.notice(notices.TrayStillEmpty("A"))
    empty = notices.words(notices.TrayStillEmpty("A"))
    assert [p["text"] for p in page.get("problems")] == [empty]  # said twice, one line
    # Not taken: the button is given back (and a page that missed the answered state can tell).
    assert not page.get("step")["answered"] and page.get("step")["returned"] == 1
    assert page.answer(2) and person.answers() == [persons.Said(2, "Done")]
    # The virtual table shows cards in the tray: the problem goes in the same change.
    page.edit(lambda state: put_table(state, {"stacks": [], "places": {"tray": 0}}))
    assert [p["text"] for p in page.get("problems")] == [empty]
    page.edit(lambda state: put_table(state, {"stacks": [], "places": {"tray": 81}}))
    assert page.get("problems") == [] and page.get("table")["places"]["tray"] == 81
    # Without a table to see it: it goes with its step.
    voice.notice(notices.TrayStillEmpty("A"))
    voice.step(guide_machine.Shown(steps.Touch("start"), 3, 1, None, 0.0))
    assert page.get("problems") == []


def test_a_loads_size_problem_goes_once_its_load_is_judged_right() -> None:
    page = PageState()
    voice = WebVoice(page)
    move = steps.Move(30, "A", "B", down=True)
    voice.notice(notices.LoadToMove("A", 81, 111, True, 104, move))
    voice.notice(notices.PassPaused(guide_machine.Where(1, 2, "A", 1, 4), 30, 81, protocol.FAULT_JAM))
    for number, step in enumerate((steps.Unload("A"), move, steps.PutInTray("A", 81, again=True)), start=3):
        voice.step(guide_machine.Shown(step, number, 1, "done", 0.0))
        assert len(page.get("problems")) == 2, step  # being put right: still the matter in hand
    voice.step(guide_machine.Shown(steps.Touch("start"), 6, 1, None, 0.0))
    assert [p["text"] for p in page.get("problems")] == [notices.words(notices.PassPaused(guide_machine.Where(1, 2, "A", 1, 4), 30, 81, protocol.FAULT_JAM))]


def test_the_pass_card_is_one_pass_at_one_moment() -> None:
    page = PageState()
    voice = WebVoice(page)
    looks = {"places": {"tray": 0, "left": 0, "right": 0}}
    voice.look = lambda: {"stacks": [], **looks}
    voice.bar_start("load A", 52)
    voice.bar_update(52, 52, None, None)  # exact mode: the device keeps the piles to itself
    looks["places"] = {"tray": 0, "left": 30, "right": 22}  # as the pass leaves them
    voice.bar_end()
    # The pass over and the table as it left the piles, in one change; the step says what was done.
    assert page.get("pass")["active"] is False and page.get("table")["places"]["left"] == 30
    assert page.get("doing") == {"kind": "dealt", "load": None, "label": "load A",
                                 "words": "The shuffler has dealt load A."}
    # The next pass's load (its piles go back in the tray) and its touch: no card of the pass before.
    voice.step(guide_machine.Shown(steps.Reload("A", 52), 4, 2, "ready", 0.0))
    assert page.get("pass") is None and page.get("doing") is None
    voice.bar_start("load A", 52, 30, 14, 16)  # a pass stopped part way goes on: its card stays
    voice.bar_end()
    voice.step(guide_machine.Shown(steps.Touch("rest", "A", 22), 5, 2, None, 0.0))
    assert page.get("pass")["dealt"] == 30
    voice.step(guide_machine.Shown(steps.Touch("start"), 6, 2, None, 0.0))
    assert page.get("pass") is None


def test_an_answer_too_soon_leaves_the_step_waiting_on_the_page() -> None:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    voice.step(guide_machine.Shown(steps.Lift("A"), 4, 1, "done", 0.0))
    page.answered = 3
    assert page.answer(4) and page.get("step")["answered"]
    assert person.answers() == [persons.Said(4, "Done")]
    voice.notice(notices.TooSoon(4, "Done"))
    assert not page.get("step")["answered"] and page.answered == 3
    assert person.answers() == []
    assert page.answer(4) and person.answers() == [persons.Said(4, "Done")]  # pressed again: it counts


def test_a_scripted_person_inside_is_watched_and_its_answers_count() -> None:
    class Did:
        unattended = True

        def __init__(self) -> None:
            self.done: list[int] = []

        def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
            self.done.append(number)

        def answers(self) -> list[persons.Said]:
            return [persons.Said(n) for n in self.done]

    page = PageState()
    inner = Did()
    person = WebPerson(page, WebVoice(page), inner=inner)
    person.do(steps.Gather(("A", "B")), 3, 1)
    assert inner.done == [3] and person.unattended and person.answers() == [persons.Said(3)]


def test_a_closed_page_ends_the_persons_answers() -> None:
    page = PageState()
    person = WebPerson(page, WebVoice(page))
    page.close(stop_reasons.PageClosed())
    with pytest.raises(persons.PersonGaveUp) as gave_up:
        person.answers()
    assert gave_up.value.record == stop_reasons.PageClosed()


def test_the_lift_gives_the_pass_the_devices_own_final_count() -> None:
    page = PageState()
    voice = WebVoice(page)
    voice.bar_start("load A", 81)
    voice.bar_update(78, 81, 37, 41)  # the last progress the device sent
    voice.bar_end()
    voice.step(guide_machine.Shown(steps.Lift("A", 38, 43), 4, 1, "done", 0.0))
    assert page.get("pass") == {"label": "load A", "load": None, "dealt": 81, "total": 81, "left": 38, "right": 43,
                                "active": False}


def test_while_a_pass_deals_the_page_says_what_the_shuffler_does_not_the_touch() -> None:
    page = PageState()
    voice = WebVoice(page)
    voice.step(guide_machine.Shown(steps.Touch("start"), 5, 1, None, 0.0))
    assert page.get("doing") is None
    voice.bar_start("load A", 81)
    assert page.get("doing")["kind"] == "dealing" and page.get("doing")["words"] == (
        "The shuffler is dealing load A: wait until it stops, and leave the piles alone.")
    voice.bar_end()
    # Stopped part way: said so (not the touch) until the next step says what to do.
    assert page.get("doing")["kind"] == "stopped_dealing"
    assert page.get("doing")["words"] == "The shuffler has stopped dealing load A."
    voice.bar_start("load A", 81, 30, 14, 16)
    voice.step(guide_machine.Shown(steps.Lift("A", 40, 41), 6, 1, "done", 0.0))
    assert page.get("doing") is None


def test_the_page_says_done_where_the_console_says_enter() -> None:
    page = PageState()
    voice = WebVoice(page)
    voice.notice(notices.TooSoon(4, "Enter"))
    voice.notice(notices.Resuming(2, 8, "B", 3))
    said = " ".join(line["text"] for line in page.get("log"))
    assert "Enter" not in said and "press Done" in said
    assert page_words(notices.WaitingForLoad("A", True)) == notices.words(notices.WaitingForLoad("A", False))


class FakeWorld:
    """The control endpoint's card moves on plain lists (top first), enough
    to carry out any step; a stack that is not there is refused as the
    endpoint refuses it."""

    def __init__(self, stacks: dict[str, int], places: dict[str, int] | None = None) -> None:
        n = iter(range(10_000))
        self.stacks = {k: [next(n) for _ in range(v)] for k, v in stacks.items()}
        self.places = {p: [] for p in ("left", "right", "tray", "throat", "removed")}
        for k, v in (places or {}).items():
            self.places[k] = [next(n) for _ in range(v)]

    def show(self) -> dict[str, Any]:
        return {"stacks": {k: list(v) for k, v in self.stacks.items()},
                "places": {k: list(v) for k, v in self.places.items()},
                "check": {"ok": True, "made": 0, "missing": [], "twice": [], "stray": []}}

    def _take(self, name: str) -> list[int]:
        if name not in self.stacks:
            raise WorldError(f"no stack {name}")
        return self.stacks.pop(name)

    def _add(self, name: str, cards: list[int], end: str) -> None:
        old = self.stacks.get(name, [])
        self.stacks[name] = cards + old if end == "top" else old + cards

    def put(self, stack: str, n: int | None = None, end: str = "top") -> int:
        cards = self._take(stack)
        tray = self.places["tray"]
        self.places["tray"] = cards + tray if end == "top" else tray + cards
        return len(cards)

    def lift(self, pile: str, onto: str, end: str = "top", n: int | None = None) -> int:
        cards = self.places[pile]
        taken, self.places[pile] = (cards, []) if n is None else (cards[:n], cards[n:])
        self._add(onto, taken, end)
        return len(taken)

    def put_stack(self, what: str, onto: str, end: str = "top") -> int:
        self._add(onto, self._take(what), end)
        return len(self.stacks[onto])

    def move(self, n: int, src: str, dst: str, from_end: str = "top", to_end: str = "top") -> None:
        cards = self._take(src)
        if n > len(cards):
            raise WorldError(f"{src} holds {len(cards)}")
        moved, rest = (cards[:n], cards[n:]) if from_end == "top" else (cards[len(cards) - n:], cards[:len(cards) - n])
        if rest:
            self.stacks[src] = rest
        self._add(dst, moved, to_end)

    def touch(self, ms: int = 100) -> None:
        pass

    def fix(self) -> None:
        pass

    def set_battery(self, mv: int) -> None:
        pass


# A step of every kind the guide shows, with a table it can be done on.
EVERY_STEP: list[tuple[steps.Step, dict[str, int], dict[str, int]]] = [
    (steps.Cut("pack", ("A", "B"), (3, 2), first=True), {"pack": 5}, {}),
    (steps.PutInTray("A", 3), {"A": 3}, {}),
    (steps.PutInTray("A", None, rest=True), {}, {"tray": 3}),
    (steps.Reload("A", 4), {}, {"left": 2, "right": 2}),
    (steps.Touch("start"), {}, {"tray": 3}),
    (steps.Lift("A", 2, 2), {}, {"left": 2, "right": 2}),
    (steps.Lift("A", rows=True), {}, {"left": 2, "right": 2}),
    (steps.Lift("A", stacked=True), {}, {"left": 2, "right": 2}),
    (steps.Stack(("A.left", "B.left"), "A", 4), {"A.left": 2, "B.left": 2}, {}),
    (steps.Move(2, "A", "B", True, (3, 4)), {"A": 5, "B": 2}, {}),
    (steps.Move(2, "A", "B", False, (7, 0)), {"A": 5, "B": 2}, {}),
    (steps.EvenOut("A", "B", (3, 4)), {"A": 5, "B": 2}, {}),
    (steps.Draw((("P", (("left stack", 2, False), ("right stack", 3, True))),), 2), {"left stack": 4, "right stack": 3}, {}),
    (steps.Gather(("A", "B")), {"A": 2, "B": 3}, {}),
    (steps.Swap("A", "B"), {"A": 2}, {"tray": 3}),
    (steps.Unload("A"), {}, {"tray": 3}),
    (steps.SetAside("A", 2), {}, {"tray": 5}),
    (steps.Fix("jam"), {}, {"tray": 3}),
    (steps.Fix("exit"), {}, {"tray": 3, "throat": 1}),
    (steps.Fix("put_back", 2), {}, {"removed": 2}),
    (steps.Collect(9), {"A": 2}, {"left": 2, "right": 2, "tray": 1, "throat": 1, "removed": 1}),
]


@pytest.mark.parametrize("step, stacks, places", EVERY_STEP, ids=[type(s[0]).__name__ + str(i) for i, s in enumerate(EVERY_STEP)])
def test_every_step_has_its_own_controls_and_do_this_step_does_it(step: steps.Step, stacks: dict[str, int],
                                                                  places: dict[str, int]) -> None:
    world = FakeWorld(stacks, places)
    table = WebTable(world)  # type: ignore[arg-type]
    controls = table.controls(step)
    # Only the rest of a load already in the tray has nothing to move.
    assert bool(controls) != (isinstance(step, steps.PutInTray) and step.rest), step
    for c in controls:
        assert c["label"] and "_" not in c["label"]
        # Every control is a message the server takes as it is, with the step it is pressed at.
        assert messages.parse(json.dumps({**c["msg"], "step": 3})).op == c["msg"]["op"]
    before = world.show()
    said = table.do(messages.Message("do_step", {"step": 3}), {**steps.to_dict(step), "number": 3})
    assert said.startswith("did step 3")
    moves_cards = bool(controls) and (not isinstance(step, (steps.Touch, steps.Fix))
                                      or bool(places.get("throat") or places.get("removed")))
    assert (world.show() != before) == moves_cards
    # Pressed in order by hand, the step's own controls leave the table as Do this step does.
    by_hand = FakeWorld(stacks, places)
    hand_table = WebTable(by_hand)  # type: ignore[arg-type]
    for c in controls:
        hand_table.do(messages.parse(json.dumps({**c["msg"], "step": 3})), {**steps.to_dict(step), "number": 3})
    assert by_hand.show() == world.show()


def test_a_cut_is_split_into_its_loads_by_its_controls() -> None:
    table = WebTable(FakeWorld({"pack": 162}))  # type: ignore[arg-type]
    controls = table.controls(steps.Cut("pack", ("A", "B"), (81, 81), first=True))
    assert [c["label"] for c in controls] == ["Take 81 cards off the top of the pack onto load A",
                                              "What is left of the pack (81 cards) is load B"]
    assert [c["msg"] for c in controls] == [{"op": "move", "n": 81, "from": "pack", "to": "A"},
                                            {"op": "stack", "what": "pack", "onto": "B"}]


def test_a_faults_reason_reaches_the_page_in_the_words_check_uses() -> None:
    """The device says why a pass stopped (the exit beam missed 3 cards);
    the guide's notice on the page carries that reason, worded as `shuffler
    check` words it (host/device_words.py), not just "a sensor"."""
    page = PageState()
    fault = exit_beam_missed_three(WebVoice(page))
    reason = device_words.why_words(fault)
    assert reason == "the exit beam missed 3 cards that left the tray"
    assert any(reason in p["text"] for p in page.get("problems")), page.get("problems")


def test_the_rounds_done_are_all_of_them_once_the_exact_routine_is_done() -> None:
    """The exact routine's round stays at its last once that is dealt: the
    page said 13 of 14 rounds done at the end."""
    from types import SimpleNamespace

    from host.web.adapter import where

    def guide(finished: bool, summary: object = None) -> Any:
        routine = SimpleNamespace(round=14, rounds=14, exact=True, finished=finished)
        return SimpleNamespace(mode="exact", plan=None,
                               machine=SimpleNamespace(place=None, routine=routine, summary=summary))

    assert where(guide(False))["distance"]["rounds_done"] == 13  # the last round's pass still in hand
    assert where(guide(True))["distance"]["rounds_done"] == 14
    assert where(guide(False, summary=object()))["distance"]["rounds_done"] == 14


def test_each_table_command_is_a_control_in_the_pages_words() -> None:
    assert control(("clear",)) == {"label": "Clear faults (frees a stuck card, fresh battery)", "msg": {"op": "clear"}}
    assert control(("touch",)) == {"label": "Touch the sensor", "msg": {"op": "touch"}}
    assert control(("move", "5", "B", "A", "--to-bottom")) == {
        "label": "Move 5 cards from the top of load B to the bottom of load A",
        "msg": {"op": "move", "n": 5, "from": "B", "to": "A", "to_bottom": True}}
    assert control(("lift", "left", "A.left")) == {"label": "Take the left pile off the machine as "
                                                            f"{steps.place('A.left')}",
                                                   "msg": {"op": "lift", "pile": "left", "onto": "A.left"}}
    assert control(("put", "A", "--under"))["msg"] == {"op": "put", "stack": "A", "under": True}
    with pytest.raises(ValueError):
        control(("fly",))


def test_a_notice_on_the_page_carries_its_record_as_json_data() -> None:
    """Every problem the page shows keeps the record it was worded from,
    nested records and a device's fault record too, as JSON."""
    page = PageState()
    voice = WebVoice(page)
    fault = exit_beam_missed_three(voice)
    [problem] = page.get("problems")
    record = problem["record"]
    assert (record["kind"], record["level"], record["part"], record["dealt"], record["of"]) == (
        "SensorLost", "problem", "exit", 40, 81)
    assert (record["reason"]["why"], record["reason"]["out"]) == (fault.why, fault.out) == (protocol.WHY_MISSED, 3)
    assert json.loads(json.dumps(record)) == record
    assert [line.get("kind") for line in page.get("log") if line["problem"]] == ["SensorLost"]
