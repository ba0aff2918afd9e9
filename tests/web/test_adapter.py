"""The guide engine, unchanged, behind the page's Voice and Person: with
--manual (no device) every step waits for the page's "done" for that very
step number; the state carries the step as data, the round and pass, the
distance so far and at the end the summary; notices are data, worded once."""
from __future__ import annotations

import threading
from typing import Any

import pytest

from host import guide as G
from host import person as persons
from host import plan as planlib
from host.guide import notices as N
from host.web.adapter import WebPerson, WebVoice
from host.web.page_state import PageState
from simulator.shuffling import steps as S


def manual_guide(rounds: int = 2, wait_s: float = 30.0) -> tuple[PageState, G.Guide, WebPerson]:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)
    guide = G.Guide(plan, person, voice, person_wait_s=wait_s, read_s=0)
    voice.attach(guide)
    return page, guide, person


def run_in_thread(guide: G.Guide) -> tuple[threading.Thread, dict[str, Any]]:
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
    assert lift["words"] == S.words(S.Lift(lift["load"], lift["left"], lift["right"], lift["rows"]))
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
    assert isinstance(out["error"], G.GuideStopped)
    assert "nobody answered the step within 0.3 s" in str(out["error"])


def test_closing_the_page_state_ends_a_wait_at_once() -> None:
    page, guide, _ = manual_guide(wait_s=600)
    t, out = run_in_thread(guide)
    next_step(page, 0)
    page.close("interrupted")
    t.join(10)
    assert not t.is_alive() and "interrupted" in str(out["error"])


def test_the_cards_are_in_is_the_persons_answer_to_the_load() -> None:
    page = PageState()
    voice = WebVoice(page)
    person = WebPerson(page, voice)
    voice.step(G.Shown(S.PutInTray("A", 81), 7, 1, "ready", 0.0))  # the device sees the load: it may be said
    assert page.get("step")["answer"] == "ready" and person.answers() == []
    assert page.answer(7) and person.answers() == [persons.Said(7, "Done")]
    assert person.answers() == []  # once
    voice.step(G.Shown(S.Touch("start"), 8, 1, None, 0.0))
    assert page.get("step")["answer"] is None and not page.answer(8)


def test_problems_stay_until_their_stage_is_over() -> None:
    page = PageState()
    voice = WebVoice(page)
    where = G.Where(1, 2, "A", 1, 4)
    voice.notice(N.Jam(where, 30, 81))
    voice.notice(N.RoundStart(1, 2, False))
    assert [p["text"] for p in page.get("problems")] == [N.words(N.Jam(where, 30, 81))]
    assert page.get("log")[-1]["text"] == "Round 1 of 2"
    voice.bar_start("load A", 81)
    voice.bar_update(30, 81, 14, 16)
    assert page.get("pass") == {"label": "load A", "dealt": 30, "total": 81, "left": 14, "right": 16, "active": True}
    assert page.get("problems") == []  # a new pass
    voice.bar_end()
    assert page.get("pass")["active"] is False


def test_an_answer_too_soon_leaves_the_step_waiting_on_the_page() -> None:
    page = PageState()
    voice = WebVoice(page)
    voice.step(G.Shown(S.Lift("A"), 4, 1, "done", 0.0))
    assert page.answer(4) and page.get("step")["answered"]
    voice.notice(N.TooSoon(4, "Done"))
    assert not page.get("step")["answered"] and page.answered == 3


def test_a_scripted_person_inside_is_watched_and_its_answers_count() -> None:
    class Did:
        unattended = True

        def __init__(self) -> None:
            self.done: list[int] = []

        def do(self, step: S.Step, number: int, round: int | None = None) -> None:
            self.done.append(number)

        def answers(self) -> list[persons.Said]:
            return [persons.Said(n) for n in self.done]

    page = PageState()
    inner = Did()
    person = WebPerson(page, WebVoice(page), inner=inner)
    person.do(S.Gather(("A", "B")), 3, 1)
    assert inner.done == [3] and person.unattended and person.answers() == [persons.Said(3)]


def test_a_closed_page_ends_the_persons_answers() -> None:
    page = PageState()
    person = WebPerson(page, WebVoice(page))
    page.close("the guide's page was closed")
    with pytest.raises(persons.PersonGaveUp, match="page was closed"):
        person.answers()


def test_the_lift_gives_the_pass_the_devices_own_final_count() -> None:
    page = PageState()
    voice = WebVoice(page)
    voice.bar_start("load A", 81)
    voice.bar_update(78, 81, 37, 41)  # the last progress the device sent
    voice.bar_end()
    voice.step(G.Shown(S.Lift("A", 38, 43), 4, 1, "done", 0.0))
    assert page.get("pass") == {"label": "load A", "dealt": 81, "total": 81, "left": 38, "right": 43,
                                "active": False}
