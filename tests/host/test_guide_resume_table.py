"""Going on after a stop (`--resume`) on the virtual shuffler, with the
cards where a person left them: the guide first asks whether the cards were
touched while it was stopped, and a step shown again does not tell the
person to stack piles that are already off the machine."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from firmware import build
from host import guide as guide_machine
from host import person as persons
from host import plan as planlib
from host.device_link import Link
from hosttest_support import ON_VIRTUAL, TextVoice
from shuffling import steps
from simulator.virtual import VirtualShuffler

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]

CARDS, CAPACITY = 12, 8  # the split: A and B, then P of 8 cards in 3 passes, then Q of 4 in 2


class Stopped(Exception):
    """Ctrl-C, as the guide's caller sees it."""


class PilesInHand(persons.ScriptedPerson):
    """Before P's second pass the person takes P's piles off the machine,
    left pile on right pile, and the guide is stopped with them in hand;
    going on, they put that stack in the tray."""

    def __init__(self, world: Any) -> None:
        super().__init__(world, CARDS)
        self.stopped = self.back = False
        self.shown: list[steps.Step] = []

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        self.shown.append(step)
        if isinstance(step, steps.Reload) and round == 3 and not self.stopped:
            self.stopped = True
            self.table["P"] = self.world.take("left") + self.world.take("right")
            raise Stopped
        if isinstance(step, steps.Reload) and self.stopped and not self.back:  # the stack in hand goes in
            self.back = True
            self.round = round
            self.world.load(self.table.pop("P"))
            self.in_tray = "P"
            self.said.append(persons.Said(number, "script"))
            return
        super().do(step, number, round)


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    dev = VirtualShuffler(time_scale=0.0, advertise=False,
                          env={"SHUFFLER_SIM_CAPACITY": str(CAPACITY), "SHUFFLER_SIM_MECHANISM": "fast"})
    try:
        build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
        dev.start()
        yield dev
    finally:
        dev.stop()


def run(dev: VirtualShuffler, person: PilesInHand, resume: bool) -> tuple[Any, TextVoice]:
    voice = TextVoice()
    link = Link.open(dev.port)
    link.handshake(timeout=10)
    plan = planlib.make_plan(planlib.choose_pack(None, CARDS), CAPACITY, "good")
    options = ON_VIRTUAL.vary(mode="exact", resume=resume, wait_s=10, settle_s=0.1)
    guide = guide_machine.Guide(plan, person, voice, options, link=link, reopen=lambda: Link.open(dev.port))
    try:
        result: Any = guide.run()
    except Stopped as exc:
        result = exc
    finally:
        (guide.link or link).close()
    return result, voice


def test_going_on_asks_about_the_table_and_never_says_to_stack_piles_already_off(machine: VirtualShuffler) -> None:
    with machine.world(timeout=10) as world:
        for place in ("tray", "left", "right", "throat", "removed"):
            world.take(place)
        person = PilesInHand(world)
        first, _ = run(machine, person, resume=False)
        assert isinstance(first, Stopped) and "P" in person.table
        assert world.take("left") == [] and world.take("right") == []  # off the machine, in hand
        before = len(person.shown)
        again, voice = run(machine, person, resume=True)
        assert isinstance(again, guide_machine.Summary), voice.text[-2000:]
        shown = person.shown[before:]
        assert shown[0] == steps.Fix("stopped")  # asked before anything is done: did anyone touch the cards?
        reload = next(s for s in shown if isinstance(s, steps.Reload))
        assert reload.after_stop  # its piles may be off the machine already: "if they still lie apart"
        assert again.mode == "exact" and again.distance == 0.0
        final = person.table[steps.PACK]
        assert sorted(final) == list(range(CARDS))
