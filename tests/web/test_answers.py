"""Answers only a person can give, held by the server whatever the page
sends: a "done" counts for the step it names, once, and only after that
step has been on screen for the read time; a table control acts at most
once per step and only at the step shown now. A double click, a second tab
or a stale tab gets one line and changes nothing.

The read time runs on a clock the test moves, so nothing here depends on
how fast the machine is."""
from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Iterator

import aiohttp
import pytest

from host import guide as guide_machine
from host import plan as planlib
from host.web import refusals
from host.web.adapter import WebPerson, WebVoice
from host.web.messages import Message
from host.web.page_state import PageState
from host.web.server import PageServer
from host.web.table import TableRefused
from test_adapter import next_step, run_in_thread
from web_support import base_of, next_reply, page_says, url
from suite import Clock

READ_S = 1.0


class Table:
    """A virtual table that only counts what it is asked to do."""

    def __init__(self) -> None:
        self.did: list[tuple[str, dict[str, Any]]] = []
        self.refuse = False
        self.places: dict[str, int] = {}  # what the machine holds, as the table sees it

    def do(self, msg: Message, current_step: dict[str, Any] | None) -> str:
        if self.refuse:
            raise TableRefused("no such stack: X")
        self.did.append((msg.op, dict(msg.args)))
        return f"did {msg.op}"

    def snapshot(self) -> dict[str, Any]:
        return {"stacks": [], "places": dict(self.places), "check": {"ok": True}}


@pytest.fixture
def guided() -> Iterator[tuple[PageServer, PageState, Clock, guide_machine.Guide]]:
    """A manual guide whose page holds the read time on a test clock."""
    clock = Clock()
    page = PageState(read_s=READ_S, clock=clock)
    voice = WebVoice(page)
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=1)
    # The guide's own read time is the console's; here the page's is tested.
    options = guide_machine.GuideOptions(manual=True, web=True, wait_s=60, read_s=0)
    guide = guide_machine.Guide(plan, WebPerson(page, voice), voice, options)
    voice.attach(guide)
    server = PageServer(page, host="127.0.0.1", port=0)
    server.start()
    t, _ = run_in_thread(guide)
    yield server, page, clock, guide
    page.close("test over")
    t.join(10)
    server.stop()


@pytest.fixture
def with_table() -> Iterator[tuple[PageServer, PageState, Table]]:
    page = PageState()
    table = Table()
    server = PageServer(page, table, host="127.0.0.1", port=0)  # type: ignore[arg-type]
    server.start()
    page.update(step={"number": 5, "kind": "lift", "words": "Lift", "answer": "done", "answered": False})
    yield server, page, table
    server.stop()


def done(n: int) -> dict[str, Any]:
    return {"op": "done", "step": n}


def says(server: PageServer, *msgs: dict[str, Any]) -> list[dict[str, Any]]:
    return asyncio.run(page_says(server.address, list(msgs)))


def test_a_double_done_200_ms_apart_answers_one_step_only(
        guided: tuple[PageServer, PageState, Clock, guide_machine.Guide]) -> None:
    server, page, clock, _ = guided
    assert next_step(page, 0)["number"] == 1
    clock.advance(READ_S)
    assert says(server, done(1)) == [{"ok": "step 1 done"}]
    second = next_step(page, 1)
    assert second["number"] == 2 and second["answer"] == "done"
    clock.advance(0.2)  # the second click: whichever step the page showed by then
    late, early = says(server, done(1), done(2))
    assert late == refusals.reply("no_longer_shown", step=1, shown=2)
    assert early == refusals.reply("too_soon", step=2, up=0.2, read_s=READ_S)
    assert page.answered == 1 and page.get("step")["number"] == 2 and not page.get("step")["answered"]
    clock.advance(READ_S)  # read: now it counts
    assert says(server, done(2)) == [{"ok": "step 2 done"}]
    assert next_step(page, 2)["number"] == 3


def test_a_done_before_the_read_time_is_refused_and_the_step_still_waits(
        guided: tuple[PageServer, PageState, Clock, guide_machine.Guide]) -> None:
    server, page, clock, _ = guided
    next_step(page, 0)
    clock.advance(READ_S / 2)
    [reply] = says(server, done(1))
    assert reply == refusals.reply("too_soon", step=1, up=0.5, read_s=READ_S)
    assert page.answered == 0 and page.get("step") is not None and not page.get("step")["answered"]
    assert page.get("read_s") == READ_S  # the page knows how long to hold its button
    clock.advance(READ_S / 2)
    assert says(server, done(1)) == [{"ok": "step 1 done"}]
    assert says(server, done(1))[0] in (refusals.reply("already_answered", step=1),
                                        refusals.reply("no_longer_shown", step=1, shown=2))


def test_two_tabs_answering_the_same_step_one_counts(guided: tuple[PageServer, PageState, Clock, guide_machine.Guide]) -> None:
    server, page, clock, _ = guided
    next_step(page, 0)
    clock.advance(READ_S)

    async def two_tabs() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as s:
            origin = base_of(server.address).rstrip("/")
            async with s.ws_connect(url(server.address, "ws"), origin=origin) as a, \
                    s.ws_connect(url(server.address, "ws"), origin=origin) as b:
                await a.receive_json()
                await b.receive_json()
                await asyncio.gather(a.send_str(json.dumps(done(1))), b.send_str(json.dumps(done(1))))
                replies = []
                for ws in (a, b):
                    replies.append(await next_reply(ws))
                return replies

    replies = asyncio.run(two_tabs())
    assert sorted("ok" in r for r in replies) == [False, True]
    refused = next(r for r in replies if "error" in r)
    assert refused["reason"] in ("already_answered", "no_longer_shown") and refused["step"] == 1, refused
    assert next_step(page, 1)["number"] == 2 and page.answered == 1


def test_answers_from_many_threads_at_once_count_once() -> None:
    clock = Clock()
    page = PageState(read_s=READ_S, clock=clock)
    page.update(step={"number": 3, "kind": "lift", "words": "Lift", "answer": "done", "answered": False})
    clock.advance(READ_S)
    go = threading.Barrier(8)
    got: list[dict[str, Any] | None] = []

    def tab() -> None:
        go.wait()
        got.append(page.try_answer(3))

    threads = [threading.Thread(target=tab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert got.count(None) == 1 and got.count(refusals.reply("already_answered", step=3)) == 7
    assert page.answered == 3


def test_a_table_control_for_a_step_no_longer_shown_is_refused(
        with_table: tuple[PageServer, PageState, Table]) -> None:
    server, _, table = with_table
    [stale, future] = says(server, {"op": "touch", "step": 4}, {"op": "touch", "step": 6})
    assert stale == refusals.reply("control_step_gone", step=4, shown=5)
    assert future == refusals.reply("control_step_not_shown", step=6)
    assert table.did == []
    assert says(server, {"op": "touch", "step": 5}) == [{"ok": "did touch"}]
    assert table.did == [("touch", {"step": 5})]


def test_the_same_control_twice_at_one_step_acts_once(with_table: tuple[PageServer, PageState, Table]) -> None:
    server, page, table = with_table
    move = {"op": "move", "step": 5, "n": 5, "from": "A", "to": "B"}
    first, second = says(server, move, move)
    assert first == {"ok": "did move"}
    assert second == refusals.reply("control_used", step=5)
    # Another control, or the same with other arguments, is a person correcting a slip.
    assert says(server, {**move, "n": 6}, {**move, "from": "B", "to": "A"}) == [{"ok": "did move"}] * 2
    assert [args["n"] for _, args in table.did] == [5, 6, 5]
    page.update(step={"number": 6, "kind": "lift", "words": "Lift", "answer": "done", "answered": False})
    assert says(server, {**move, "step": 6}) == [{"ok": "did move"}]  # a new step: it may act again
    assert len(table.did) == 4


def test_do_this_step_twice_is_refused_the_second_time(with_table: tuple[PageServer, PageState, Table]) -> None:
    server, _, table = with_table
    first, second = says(server, {"op": "do_step", "step": 5}, {"op": "do_step", "step": 5})
    assert first == {"ok": "did do_step"} and second == refusals.reply("control_used", step=5)
    assert table.did == [("do_step", {"step": 5})]


def test_a_control_the_table_refused_may_be_pressed_again(with_table: tuple[PageServer, PageState, Table]) -> None:
    server, _, table = with_table
    table.refuse = True
    assert says(server, {"op": "put", "step": 5, "stack": "X"}) == [{"error": "no such stack: X"}]
    table.refuse = False
    assert says(server, {"op": "put", "step": 5, "stack": "X"}) == [{"ok": "did put"}]
    assert table.did == [("put", {"step": 5, "stack": "X"})]


def test_two_tabs_pressing_one_control_at_once_act_once() -> None:
    page = PageState()
    page.update(step={"number": 2, "kind": "cut", "words": "Cut", "answer": "done", "answered": False})
    go = threading.Barrier(8)
    got: list[dict[str, Any] | None] = []

    def tab() -> None:
        go.wait()
        got.append(page.claim(2, ("do_step", ())))

    threads = [threading.Thread(target=tab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert got.count(None) == 1 and got.count(refusals.reply("control_used", step=2)) == 7


def test_a_step_the_page_does_not_answer_is_refused_in_one_line(
        with_table: tuple[PageServer, PageState, Table]) -> None:
    """A touch (the device sees it) or a step a scripted person does: "done" changes nothing."""
    server, page, _ = with_table
    page.update(step={"number": 6, "kind": "touch", "words": "Touch", "answer": None, "answered": False})
    assert says(server, done(6)) == [refusals.reply("not_asked", step=6)]
    assert page.answered == 0 and not page.get("step")["answered"]


def test_done_on_a_lift_is_refused_while_the_table_shows_its_piles_on_the_machine(
        with_table: tuple[PageServer, PageState, Table]) -> None:
    """The virtual table sees the piles: Done at a lift counts only once they are off."""
    server, page, table = with_table
    table.places = {"tray": 0, "left": 43, "right": 38}
    assert says(server, done(5)) == [refusals.reply("piles_on_machine", step=5, left=43, right=38)]
    table.places["left"] = 0
    assert says(server, done(5)) == [refusals.reply("piles_on_machine", step=5, left=0, right=38)]
    assert page.answered == 0 and not page.get("step")["answered"]
    table.places["right"] = 0
    assert says(server, done(5)) == [{"ok": "step 5 done"}]
    assert page.answered == 5


def test_done_on_taking_a_load_out_is_refused_while_the_tray_holds_it(
        with_table: tuple[PageServer, PageState, Table]) -> None:
    server, page, table = with_table
    page.update(step={"number": 6, "kind": "unload", "load": "A", "words": "Take load A out", "answer": "done",
                      "answered": False})
    table.places = {"tray": 111, "left": 0, "right": 0}
    assert says(server, done(6)) == [refusals.reply("tray_holds", step=6, tray=111)]
    table.places["tray"] = 0
    assert says(server, done(6)) == [{"ok": "step 6 done"}]
