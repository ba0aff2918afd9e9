"""A careless person and a troubled device, drawn by hypothesis, against
the guide on a scripted device (a pty) over a Python table.

At every step the person may slip: cut the pack badly, keep cards back from
a load, touch before being asked, or stop (Ctrl-C) and later run the
command the guide suggests; the device may be unplugged mid-pass (coming
back restarted, or not at all), be replaced by another shuffler on the same
path, restart, or spray noise. Whatever happens:

* every count the guide prints for the tray ("holds N") is the table's
  count at that moment;
* no card is lost or duplicated: the cards on the table, in hand and in the
  machine are the pack, each once;
* the guide ends in a shuffled pack, or in one line that says how to go on,
  and that way of going on, followed, ends in a shuffled pack.
"""
from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from host import guide as G
from host import person as persons
from host import plan as planlib
from host.link import Link
from hosttest_support import FakeShuffler, TextVoice
from simulator.shuffling import steps as S

CARDS = 162
ROUNDS = 2


class Interrupted(Exception):
    """The person pressed Ctrl-C."""


class CarelessPerson(persons.ScriptedPerson):
    def __init__(self, world: FakeShuffler, data: Any, slips: bool) -> None:
        super().__init__(world, CARDS)
        self.data = data
        self.slips = slips
        self.hand: list[Any] = []
        self.fake = world

    def slip(self, what: str, chance: int = 8) -> bool:
        """One slip of the kind `what`, about once in `chance` chances."""
        if self.slips and self.data.draw(st.integers(0, chance - 1), label=what) == 0:
            event(f"slip: {what}")
            return True
        return False

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        if self.slip("ctrl-c", 40):
            raise Interrupted
        if isinstance(step, S.Cut) and step.first and len(step.sizes) == 2 and self.slip("miscut", 3):
            off = self.data.draw(st.integers(-30, 30), label="cut off by")
            a = max(1, min(CARDS - 1, step.sizes[0] + off))
            step = S.Cut(step.source, step.names, (a, CARDS - a), step.by_eye, step.counted, step.first)
        super().do(step, number, round)
        if isinstance(step, S.Cut) and step.first and self.slip("keeps cards back", 4):
            last = step.names[-1]
            keep = self.data.draw(st.integers(1, 10), label="cards kept back")
            self.hand, self.table[last] = self.table[last][-keep:], self.table[last][:-keep]
        if isinstance(step, S.Fix) and step.what == "missing" and self.hand and step.load in self.table:
            self.table[step.load] = self.table[step.load] + self.hand
            self.hand = []
        if isinstance(step, S.PutInTray) and not step.rest and self.slip("touches too soon", 4):
            self.world.touch()

    def all_cards(self) -> list[Any]:
        on_table = [c for pile in self.table.values() for c in pile]
        machine = self.fake.tray + self.fake.left + self.fake.right
        return on_table + self.hand + machine

    def gather(self) -> None:
        """Everything back into one pack, as a stop line asks."""
        pack = self.all_cards()
        self.fake.tray, self.fake.left, self.fake.right = [], [], []
        self.table = {S.PACK: pack}
        self.hand = []


class WatchfulVoice(TextVoice):
    """Checks each "holds N" against the tray at the moment it is said."""

    def __init__(self, fake: FakeShuffler) -> None:
        super().__init__()
        self.fake = fake

    def say(self, text: str) -> None:
        for n in re.findall(r"and holds (\d+)", text):
            assert int(n) == len(self.fake.tray), (text, len(self.fake.tray))
        super().say(text)


def trouble_from(data: Any) -> tuple[Any, str]:
    kind = data.draw(st.sampled_from(["none", "none", "unplug", "replug", "other device", "restart", "garbage"]),
                     label="trouble")
    at_pass = data.draw(st.integers(1, 2 * ROUNDS), label="in pass")
    at_card = data.draw(st.integers(1, 60), label="after card")
    what = {"unplug": "unplug", "replug": "unplug", "other device": "unplug", "restart": "restart",
            "garbage": "garbage"}.get(kind)
    fired: list[bool] = []

    def trouble(k: int, p: int) -> str | None:
        if what and not fired and (p, k) == (at_pass, at_card):
            fired.append(True)
            return what
        return None
    return trouble, kind


def run_once(fake: FakeShuffler, person: CarelessPerson, kind: str, from_round: int = 1
             ) -> tuple[G.Summary | G.GuideStopped | Interrupted, WatchfulVoice, G.Guide]:
    voice = WatchfulVoice(fake)
    person.say = voice.say

    def reopen() -> Link:
        if fake.dev._stop.is_set() and kind in ("replug", "other device"):
            fake.replug(restarted=True, uid="07e7" if kind == "other device" else None)
        return Link.open(fake.dev.port)

    link = Link.open(fake.dev.port)
    link.handshake(timeout=2)
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=ROUNDS)
    guide = G.Guide(plan, person, voice, link=link, reopen=reopen, from_round=from_round, person_wait_s=3,
                    reconnect_s=1.0, stall_s=0.5, settle_s=0.05)
    try:
        result: G.Summary | G.GuideStopped | Interrupted = guide.run()
    except (G.GuideStopped, Interrupted) as exc:
        result = exc
    finally:
        (guide.link or link).close()
    return result, voice, guide


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_careless_person_and_a_troubled_device_never_lose_a_card_or_the_way_on(data: Any) -> None:
    from host.guide_cmd import _Resume, _stopped

    trouble, kind = trouble_from(data)
    fake = FakeShuffler(trouble)
    person = CarelessPerson(fake, data, slips=True)
    try:
        result, voice, guide = run_once(fake, person, kind)
        assert sorted(person.all_cards()) == list(range(CARDS)), "a card was lost or duplicated"
        event(f"trouble: {kind}; ended in {type(result).__name__}")
        if isinstance(result, G.Summary):
            if sorted(person.table[S.PACK]) != list(range(CARDS)):
                # Cards kept back and never put in: the guide must have said so.
                assert any("cards are missing" in n for n in result.notes), voice.text
            return
        # A stop: one line, and a command that goes on from where it stopped.
        how = _Resume(fake.dev.port, False, False, "samba", None, 104, "good")
        line = _stopped("interrupted" if isinstance(result, Interrupted) else str(result), guide.place, "random",
                        how)
        assert "\n" not in line
        command = line.split("`")[1].split()
        round_to = int(command[command.index("--from-round") + 1]) if "--from-round" in command else 1
        assert 1 <= round_to <= ROUNDS
    finally:
        fake.dev.close()
    # Going on as told, with the cards gathered, on a shuffler that behaves, by a person who does.
    fresh = FakeShuffler()
    fresh.tray = []
    person.gather()
    person.fake = fresh
    person.world = fresh
    person.slips = False
    try:
        again, voice, _ = run_once(fresh, person, "none", from_round=round_to)
    finally:
        fresh.dev.close()
    assert isinstance(again, G.Summary), voice.text
    assert sorted(person.table[S.PACK]) == list(range(CARDS))
