"""The console's words for the records the guide's tests judge it by: each
notice (host/guide/notice_words.py) and each step (shuffling/step_words.py)
the guide gives in those tests, rendered from its record, says what a
person reads. The behaviour is the other tests' (tests/host/test_guide_*.py
assert on the records); the sentences are this file's."""
from __future__ import annotations

import pytest

from firmware import protocol
from host.guide import notices
from shuffling import steps

W = notices.Where
MOVE_DOWN_29 = steps.Move(29, "A", "B", down=True)
RESUME = "shuffler guide --port /dev/fake --pack samba --resume"

NOTICES = [
    (notices.ExactIntro(14, 15), ["Exact mode: 14 rounds (15 passes)."]),
    (notices.ExitBlocked(W(3, 14, "P", 4, 15), 10, 98),
     ["The exit stayed blocked too long (round 3 of 14, load P (pass 4 of 15), after 10 of 98 cards)"]),
    (notices.PassGoesOn("P", 10, 88), ["the pass goes on from card 11"]),
    (notices.PartDealtAgain(W(3, 14, "P", 4, 15), "P", "exit_count", 7, 600.0),
     ["Load P's order is lost during round 3 of 14", "the exit counted one card fewer than the tray held",
      "load P alone is dealt again from fresh codes: 7 passes"]),
    (notices.ExactLost(W(1, 14, "A", 1, 15), "exit_count"),
     ["Exactness is lost during round 1 of 14", "the exit counted one card fewer than the tray held"]),
    (notices.ExactLost(W(1, 14, "B", 2, 15), notices.RESTART), ["the shuffler restarted and its codes are gone"]),
    (notices.FreshExactRun(14, 15), ["The pack goes through a fresh exact routine: 14 rounds (15 passes)"]),
    (notices.FinishAtRandom(9, 0.2, "good", 0.25), ["Finishing at random: 9 rounds"]),
    (notices.LoadsSwapped("P", 98, 64, "Q"),
     ["Load P should hold 98 cards; the tray holds 64, load Q's count: the two loads look taken for one another."]),
    (notices.Restarted(W(4, 14, "P", 5, 15), 30, 98),
     ["The shuffler restarted during round 4 of 14, load P (pass 5 of 15), after 30 of 98 cards."]),
    (notices.Restarted(None, unplugged=True), ["The shuffler restarted while the cable was out."]),
    (notices.PassBeganUnplugged(81, 47),
     ["The tray holds 47 of the 81 cards it held: the pass began while the cable was out."]),
    (notices.ConnectionLost(W(1, 2, "B", 2, 4), 30, 81, 1.5),
     ["Lost the connection to the shuffler during round 1 of 2, load B (pass 2 of 4), after 30 of 81 cards."]),
    (notices.LoadShort("P", 98, 97), ["Load P should hold 98 and holds 97: 1 card is missing from it."]),
    (notices.LoadShort("A", 81, 79), ["2 cards are missing from it"]),
    (notices.TrayEmptied(W(1, 2, "B", 2, 4), 20, 81, 61),
     ["The tray ran out early (round 1 of 2, load B (pass 2 of 4)): 20 of 81 cards were dealt"]),
    (notices.TwoAsOne(W(1, 2, "B", 2, 4), 80, 81),
     ["Two cards went through the exit as one somewhere in the pass (round 1 of 2, load B (pass 2 of 4))"]),
    (notices.LoadToMove("A", 81, 110, True, 104, MOVE_DOWN_29),
     ["Load A should hold about 81 and holds 110, more than the 104 the tray takes: move 29 cards from the bottom of "
      "load A to the top of load B."]),
    (notices.LoadToMove("A", 81, 70, True, 104, steps.Move(11, "A", "B", down=False)),
     ["Load A should hold about 81 and holds 70: move 11 cards from the top of load B to the bottom of load A."]),
    (notices.LoadKept("A", 81, 95, "B", began=True),
     ["Load A should hold about 81 and the pass began with 95. It is dealing anyway", "load B will hold 14 fewer"]),
    (notices.LoadKept("A", 81, 52, "B"), ["Load A should hold about 81 and holds 52", "load B will hold 29 more"]),
    (notices.SensorLost(protocol.PART_STACK), ["The count sensor does not answer"]),
    (notices.TooFullForTray("B", 110, 104),
     ["Load B holds 110 cards, more than the 104 the tray takes: it is dealt in two parts"]),
    (notices.StepsTakenAsDone("pass", "B", 1), ["The pass of load B has begun, so the step before it counts as done."]),
    (notices.StepsTakenAsDone("load", "B", 1, 81),
     ["Load B is in the tray (81 cards), so the step before it counts as done."]),
    (notices.StepsTakenAsDone("pass", "P", 2), ["The pass of load P has begun, so the 2 steps before it count as done."]),
    (notices.StepsTakenAsDone("pass", "A", 0),
     ["The pass of load A began before the guide asked for the touch; the guide follows it."]),
    (notices.OtherPackCard("B", 81, 82),
     ["Load B should hold 81 and holds 82: 1 card more than the pack has, so a card of another pack may have come in"]),
    (notices.PackHolds(160, 162), ["The pack holds 160 cards, not 162"]),
    (notices.NotAnswering(), ["The shuffler has not answered for a while"]),
    (notices.DeviceBack(), ["The shuffler is back."]),
    (notices.FaultLeftOver("double_feed"), ["The shuffler had a fault left over (double_feed); clearing it."]),
    (notices.WaitingForLoad("A", keyboard=False), ["waiting for the cards of load A in the tray"]),
    (notices.HeldRoutineDropped(1, 8, "A", RESUME), ["at round 1 of 8, load A next", f"`{RESUME}`"]),
]

STEPS = [
    (steps.Touch("rest", "B", 41), "Leave the piles where they are and touch the sensor to deal the rest of load B "
                                   "(41 cards) onto them."),
    (steps.Fix("put_back", 3), "Find the 3 cards that came out of the tray and put them back in the tray in the same "
                               "order."),
    (steps.Fix("count_sensor"), "Check the count sensor's (load cell's) wiring and plug; leave the cards as they are."),
    (steps.SetAside("B", 6), "Lift the top 6 cards off the load in the tray and keep them aside, in order."),
    (steps.PutInTray("A", 81, about=True), "Put load A (about 81 cards) face down in the tray."),
    (steps.EvenOut("A", "B", (81, 81)), "Even them out by eye to about 81 and 81: move cards from the bottom of load A "
                                        "to the top of load B, or from the top of B to the bottom of A."),
    (MOVE_DOWN_29, "Move 29 cards from the bottom of load A to the top of load B."),
    (steps.Fix("missing", 11, "B"), "Find the 11 cards missing from load B (on the table, in the exit, under the "
                                    "machine) and put them at its bottom."),
]


@pytest.mark.parametrize("notice, said", NOTICES, ids=[type(n).__name__ for n, _ in NOTICES])
def test_a_notice_says_what_a_person_reads(notice: notices.Notice, said: list[str]) -> None:
    text = notices.words(notice)
    assert "\n" not in text
    for words in said:
        assert words in text, text


@pytest.mark.parametrize("step, said", STEPS, ids=[type(s).__name__ for s, _ in STEPS])
def test_a_step_says_what_a_person_does(step: steps.Step, said: str) -> None:
    assert steps.words(step) == said
