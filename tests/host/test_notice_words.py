"""The console's words for the records the guide's tests judge it by: each
notice (host/guide/notice_words.py) and each step (shuffling/step_words.py)
the guide gives in those tests, rendered from its record, says what a
person reads. The behaviour is the other tests' (tests/host/test_guide_*.py
assert on the records); the sentences are this file's."""
from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from firmware import protocol
from host import plan as planlib
from host.commands.guide import RichVoice, _print_summary
from host import fault_catalogue
from host.guide import notices
from host.guide import stop_reasons as why
from host.guide import stop_words
from host.port_records import MicroPythonOnly, NoAnswer, ProtocolBroken
from host.guide.results import Summary
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
    (notices.ExactRoundDealt(1, 14, ("A", "B")), ["round 1 of 14 dealt: loads A and B"]),
    (notices.StackDealtAgain(W(2, 5, "Q", 4, 9), "Q", 6, 7, steps.group("P", "Q"), ("P", "Q"), 2, 7, 120.0, 9),
     ["load Q should hold 6 and holds 7: 1 card went onto the wrong stack when the stack for loads P to Q was split "
      "in round 2", "dealt again from round 2 with fresh codes: 7 passes"]),
    (notices.RoutineHeader("Bridge", 52, False, 1, 1, (52,), "good", 0.25, 1.0), ["1 round (1 pass)"]),
    (notices.RoutineHeader("Samba", 162, False, 2, 4, (81, 81), "good", 0.25, 0.9123),
     ["2 rounds (4 passes) then distance from random 0.912, short of 'good' (at most 0.25)."]),
    (notices.RoutineHeader("Samba", 162, False, 10, 20, (81, 81), "good", 0.25, 0.2012),
     ["for 'good' (distance from random 0.201, at most 0.25)."]),
    (notices.RoutineHeader("Samba", 162, True, 14, 15, (81, 81), "casino", 0.01, 0.0),
     ["exact mode: 14 rounds (15 passes)", "Should exactness be lost, a fresh exact routine follows."]),
    (notices.RoutineHeader("Samba", 162, True, 14, 15, (81, 81), "casino", 0.01, 0.0, on_loss="random"),
     ["Should exactness be lost, random rounds finish the job for 'casino'."]),
    (notices.ExactRoundDealt(2, 14, ("P",), None, 1, 7, ("Q",)),
     ["round 2 of 14 dealt: load P, its pass 1 of 7; load Q waits aside"]),
    (notices.ExactRoundDealt(9, 14, ("Q",), None, 1, 6, ("P",), ("P",)),
     ["round 9 of 14 dealt: load Q, its pass 1 of 6; load P (done) waits aside"]),
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
    (steps.Fix("stopped"), "The guide was stopped: did anyone touch the cards since, on the table or on the machine? "
                           "If not, press Enter and answer the steps below as the cards lie. If they were moved, put "
                           "them back as they lay when the guide stopped, then press Enter; if that cannot be done, "
                           "press Ctrl-C, gather every card into one pack and run the guide again without --resume "
                           "(a fresh routine)."),
    (steps.Reload("P", 98, after_stop=True), "Put load P back in the tray, face down (98 cards): its left pile on top "
                                             "of its right pile, if they still lie apart on the machine."),
    (steps.Gather(("A", "B"), "casino"), "Put load A on top of load B: that is the pack, after fewer rounds than "
                                         "'casino' needs."),
    (steps.Gather(("A", "B"), ""), "Put load A on top of load B: the pack is shuffled and ready to deal."),
]


@pytest.mark.parametrize("notice, said", NOTICES, ids=[type(n).__name__ for n, _ in NOTICES])
def test_a_notice_says_what_a_person_reads(notice: notices.Notice, said: list[str]) -> None:
    text = notices.words(notice)
    assert "\n" not in text
    for words in said:
        assert words in text, text


def test_the_wording_says_the_counts_it_is_given() -> None:
    assert steps.words(steps.Move(1, "A", "B", down=True, sizes=(81, 81))) == \
        "Move 1 card from the bottom of load A to the top of load B: A 81, B 81."
    assert steps.words(steps.Stack(("A.left", "B.left"), "A", 82)) == \
        "Put A's left pile on top of B's left pile: that is the new load A (82 cards)."
    assert "(" not in steps.words(steps.Lift("A"))  # no counts given, none said


def test_a_place_says_where_the_routine_stands() -> None:
    assert str(W(1, 2, "A", 1, 4)) == "round 1 of 2, load A (pass 1 of 4)"
    assert str(W(1, 2, "A", 1, 4, after=True)) == "round 1 of 2, after load A's pass (1 of 4 passes done)"


@pytest.mark.parametrize("step, said", STEPS, ids=[type(s).__name__ for s, _ in STEPS])
def test_a_step_says_what_a_person_does(step: steps.Step, said: str) -> None:
    assert steps.words(step) == said


# -- the summary's notes: records (host/guide/notices.py Note), worded once ------------------
AT = W(1, 2, "B", 2, 4)
IN = "round 1 of 2, load B (pass 2 of 4)"
NOTES = [
    (notices.PassPaused(AT, 30, 81, protocol.FAULT_JAM),
     f"a card stuck in the feed during {IN}; put right, the pass went on"),
    (notices.Restarted(AT, 40, 81), f"the shuffler restarted during {IN}"),
    (notices.Restarted(None, unplugged=True), "the shuffler restarted"),
    (notices.ConnectionLost(AT, 30, 81, 1.5), f"connection lost during {IN}"),
    (notices.LoadCellCorrected(84, 81, 1760, 1740),
     "the load cell counted 84 cards where the load held 81: its weight a card was corrected from 1760 to 1740"),
    (notices.PackHolds(160, 162), "the pack holds 160 cards, not 162: it was shuffled as the pack it is"),
    (notices.ExactNotConfirmed(), "the shuffler did not confirm the end of exact mode"),
    (notices.RoundCountOff(2, 160, 162),
     "Round 2 dealt 160 cards but the pack has 162: cards are missing; look around the machine before the next "
     "hand."),
    (notices.ExitBlocked(AT, 10, 81),
     f"The exit stayed blocked too long ({IN}, after 10 of 81 cards): two cards went through together or a card is "
     "caught in the exit. The pass stopped."),
    (notices.TwoAsOne(AT, 80, 81),
     f"Two cards went through the exit as one somewhere in the pass ({IN}): it counted 80 of the 81 cards the tray "
     "held. Nothing is caught in the exit; every card of the load is on a pile."),
    (notices.TrayEmptied(AT, 70, 81, 2),
     f"The tray ran out early ({IN}): 70 of 81 cards were dealt and 2 cards are not in the tray any more."),
    (notices.BatteryRanDown(AT, 20, 81),
     f"The battery is too low for the motor to deal ({IN}, after 20 of 81 cards)."),
    (notices.SensorLost(protocol.PART_EXIT, 12, 81), "The exit sensor does not answer after 12 of 81 cards; the pass "
                                                     "stopped."),
    (notices.DeviceFault(protocol.FAULT_INTERNAL, AT, 12, 81),
     f"An unexpected error stopped the pass; the motor is off ({IN}, after 12 of 81 cards)."),
    (notices.OtherPackKeptApart(1), "1 card of another pack was found and kept apart: not in the shuffled pack"),
    (notices.OtherPackKeptApart(2), "2 cards of another pack were found and kept apart: not in the shuffled pack"),
    (notices.NoOtherPackFound(), "no card of another pack was found: none was kept apart"),
    (notices.EarlierRoundsCounted(3), "the distance counts rounds 1 to 3 as done as guided before this run"),
    (notices.LoadDealtOff("B", 2, 81, 79), "load B of round 2 was dealt with 79 cards instead of 81"),
    (notices.StrayPass(40, AT), f"a pass of 40 cards nobody asked for, during {IN}"),
    (notices.UnknownFaultHeld(99, AT), f"the shuffler reported fault 99, which this tool does not know, during {IN}"),
    (notices.DeviceContradicted("count_back", (("now", 12), ("was", 30))),
     "a fault of the shuffler: the shuffler's count of the pass went back from 30 to 12 cards"),
    (notices.DeviceContradicted("more_out", (("load", 81), ("out", 120))),
     "a fault of the shuffler: the shuffler counted 120 cards out of a load of 81"),
    (notices.DeviceContradicted("tray_over", (("capacity", 104), ("out", 105))),
     "a fault of the shuffler: the shuffler began a pass of 105 cards on a tray that holds 104"),
]


@pytest.mark.parametrize("note, said", NOTES, ids=[type(n).__name__ for n, _ in NOTES])
def test_a_note_says_what_a_person_reads(note: notices.Note, said: str) -> None:
    assert notices.note_words(note) == said


def test_every_kind_of_note_is_worded_and_nothing_else_is_one() -> None:
    kinds = set(notices.NOTE_TYPES)
    assert {type(n) for n, _ in NOTES} == kinds == set(notices.NOTE_KINDS)
    with pytest.raises(TypeError):
        notices.note_words(notices.DeviceBack())  # a notice the summary does not keep


def test_every_note_reads_the_same_on_the_console_the_page_and_in_json() -> None:
    """The console prints the summary's notes; the page and `--json` show
    `Summary.to_dict()` (host/web/run.py): the same words, from the same
    records, which `note_records` keeps beside them."""
    summary = Summary(rounds=2, passes=4, seconds=60.0, distance=0.2, cards=162, notes=[n for n, _ in NOTES])
    out = io.StringIO()
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=2)
    _print_summary(RichVoice(Console(file=out, width=1000)), plan, summary, None)
    console = [line[len("  note: "):] for line in out.getvalue().splitlines() if line.startswith("  note: ")]
    page = json.loads(json.dumps(summary.to_dict()))
    assert console == page["notes"] == [said for _, said in NOTES]
    assert [r["kind"] for r in page["note_records"]] == [type(n).__name__ for n, _ in NOTES]
    assert page["note_records"][0]["where"]["load"] == "B" and page["note_records"][0]["code"] == protocol.FAULT_JAM


# -- why the guide stops (host/guide/stop_words.py) ------------------------------------------------

STOPS = [
    (why.OtherFirmware("/dev/ttyUSB0", (why.Changed(why.PROTOCOL, 6, 7), why.Changed(why.VERSION, "0.1.0", "0.2.0"))),
     "the shuffler started again with other firmware (protocol 6, now 7; version 0.1.0, now 0.2.0): this run claims "
     "nothing of the pack's order; flash the firmware that comes with this tool (`shuffler flash --port "
     "/dev/ttyUSB0`), then start the guide again"),
    (why.OtherFirmware("/dev/ttyUSB0", (why.Changed(why.TABLE, 1234, 4321),)),
     "the shuffler started again with other firmware (message table 1234, now 4321): this run claims nothing of the "
     "pack's order; flash the firmware that comes with this tool (`shuffler flash --port /dev/ttyUSB0`), then start "
     "the guide again"),
    (why.OtherFirmware("/dev/ttyUSB0"),
     "the shuffler started again with other firmware (another protocol): this run claims nothing of the pack's "
     "order; flash the firmware that comes with this tool (`shuffler flash --port /dev/ttyUSB0`), then start the "
     "guide again"),
    (why.OtherShuffler("/dev/ttyUSB0", "07e7", "5eed"),
     "another shuffler answers on /dev/ttyUSB0 (uid 07e7, not 5eed): the guide will not go on with a device it did "
     "not start with"),
    (why.OtherShuffler("/dev/ttyUSB0", None, "5eed"),
     "another shuffler answers on /dev/ttyUSB0 (uid none, not 5eed): the guide will not go on with a device it did "
     "not start with"),
    (why.NotBack(1.5, "no such port"), "the shuffler did not come back within 1.5 s (no such port)"),
    (why.Stalled("/dev/ttyUSB0", 17),
     "/dev/ttyUSB0 broke the protocol: it says it is dealing, yet no card has gone through for 17 s and it sends no "
     "events"),
    (why.Stalled("/dev/ttyUSB0", 17, garbage=3),
     "/dev/ttyUSB0 broke the protocol: it says it is dealing, yet no card has gone through for 17 s and it sends no "
     "events (3 lines that are not protocol)"),
    (why.HelloFlood("/dev/ttyUSB0", 4),
     "/dev/ttyUSB0 broke the protocol: it sent hello 4 times during one pass: it keeps restarting or does not keep "
     "to the protocol"),
    (why.RoutineUnfit(162, "9 rounds"), "the shuffler's exact routine does not fit this pack: 9 rounds"),
    (why.InputEnded(), "the input ended, so no step can be answered"),
    (why.Interrupted(), "interrupted"),
    (why.ReconnectsSpent(4), "the connection to the shuffler was lost 4 times during one pass"),
    (why.LeftForPrompt(), "the shuffler's firmware was interrupted and left for its prompt; unplug it and plug it in "
                          "again"),
    (why.NotCalibrated("/dev/ttyUSB0"),
     "the count sensor is not calibrated: run `shuffler setup --port /dev/ttyUSB0` first"),
    (why.HeldOnUnknownFault(99, "/dev/ttyUSB0", "shuffler guide --port /dev/ttyUSB0 --resume"),
     f"the shuffler reports fault 99, which this tool does not know; {fault_catalogue.advice(99)} (`shuffler check "
     "--port /dev/ttyUSB0`), then `shuffler guide --port /dev/ttyUSB0 --resume` goes on"),
    (why.HeldOnUnknownFault(99, "PORT", None),
     f"the shuffler reports fault 99, which this tool does not know; {fault_catalogue.advice(99)} (`shuffler check "
     "--port PORT`)"),
    (why.WaitedOut(why.ANSWER, 3.0), "nobody answered the step within 3 s"),
    (why.WaitedOut(why.CARDS, 2.5), "no cards came into the tray within 2.5 s"),
    (why.WaitedOut(why.PASS_START, 30.0), "no pass started within 30 s"),
    (why.WaitedOut(why.TAKEN_UP, 30.0), "the pass was not taken up again within 30 s"),
    (why.FruitlessParts(3),
     "the pass stopped 3 times in a row before its first card went through: the shuffler needs looking at (its "
     "last fault is above)"),
    (why.DeviceHeld(notices.DeviceContradicted("count_back", (("now", 12), ("was", 30))), exactness_lost=False),
     "a fault of the shuffler: the shuffler's count of the pass went back from 30 to 12 cards; the pass is held"),
    (why.DeviceHeld(notices.DeviceContradicted("done_early", (("of", 16), ("passes", 1))), exactness_lost=True),
     notices.note_words(notices.DeviceContradicted("done_early", (("of", 16), ("passes", 1))))
     + "; the pass is held; exactness is lost: nothing is claimed of the pack's order"),
    (why.OptionsRefused(why.ONE_DEVICE, ("--port", "--sim")),
     "choose one of --port PORT, --sim or --manual (got --port and --sim)"),
    (why.OptionsRefused(why.ONE_DEVICE), "choose one of --port PORT, --sim or --manual"),
    (why.OptionsRefused(why.UNATTENDED_NEEDS_VIRTUAL),
     "--unattended needs the virtual shuffler: --sim, or --port with --world"),
    (why.OptionsRefused(why.RECORD_NEEDS_UNATTENDED), "--record goes with --unattended"),
    (why.OptionsRefused(why.EXACT_NEEDS_SHUFFLER),
     "exact mode needs the shuffler (--port or --sim); --manual is random mode"),
    (why.OptionsRefused(why.ROUNDS_GO_WITH_RANDOM),
     "--rounds and --from-round go with --mode random (exact mode always runs its whole routine)"),
    (why.OptionsRefused(why.ROUTINE_GOES_WITH_EXACT),
     "--routine chooses exact mode's routine: it goes with --mode exact"),
    (why.OptionsRefused(why.RESUME_NEEDS_PORT),
     "--resume goes on with an exact routine on a shuffler: use it with --port (in random mode, --from-round goes "
     "on)"),
    (why.PackOutOfRange(1, 2, 1000), "the pack holds 1 card: this tool plans for packs of 2 to 1000 cards"),
    (why.TrayOverPack("/dev/ttyUSB0", 170, 162),
     "/dev/ttyUSB0 counts 170 cards in the tray, more than the whole pack (162): some are not of this pack, "
     "or its count sensor needs calibrating (`shuffler setup`)"),
    (why.Refused({"re": "exact_repair", "err": protocol.E_BUSY}),
     "the shuffler refused 'exact_repair': A pass is running; only hello, status and abort are answered."),
    (why.NotDone(why.LEAVE_ROUTINE, why.Refused({"re": "exact_cancel", "err": protocol.E_BUSY, "why": protocol.WHY_PAUSED})),
     "the shuffler could not leave its exact routine: the shuffler refused 'exact_cancel': A pass is running; only "
     "hello, status and abort are answered. (a pass is paused: resume or abort it)"),
    (why.NotDone(why.DEAL_LOAD_AGAIN, NoAnswer("/dev/ttyUSB0", "exact_repair", 2.0), "B"),
     "the shuffler could not deal load B again: /dev/ttyUSB0 did not answer 'exact_repair' within 2 s"),
    (why.NotDone(why.DEAL_STACK_AGAIN, NoAnswer("/dev/ttyUSB0", "exact_repair", 2.0), "C"),
     "the shuffler could not deal the stack load C was cut from again: /dev/ttyUSB0 did not answer 'exact_repair' "
     "within 2 s"),
    (why.NotDone(why.ANSWER_AFTER_PASS, NoAnswer("/dev/ttyUSB0", "status", 2.0)),
     "the shuffler did not answer after the pass (/dev/ttyUSB0 did not answer 'status' within 2 s)"),
    (why.CannotDoStep(steps.NotOnTable("B", ("pack", "A"))),
     "there is no load B on the table (the table has the pack, load A)"),
    (why.PageClosed(), "the guide's page was closed"),
    (ProtocolBroken("/dev/ttyUSB0", '{"ev": "done", "k": 1000}', "k 1000 is more than n 81"),
     "/dev/ttyUSB0 broke the protocol: it sent {\"ev\": \"done\", \"k\": 1000} (k 1000 is more than n 81)"),
    (MicroPythonOnly("/dev/ttyUSB0"),
     "/dev/ttyUSB0 answers with MicroPython's prompt and no shuffler firmware: run `shuffler flash --port "
     "/dev/ttyUSB0`"),
]


NOT_DONE = {why.LEAVE_ROUTINE, why.DEAL_LOAD_AGAIN, why.DEAL_STACK_AGAIN, why.ANSWER_AFTER_PASS}


@pytest.mark.parametrize("reason, said", STOPS, ids=[type(r).__name__ for r, _ in STOPS])
def test_a_stop_says_why_in_one_line(reason: object, said: str) -> None:
    assert stop_words.words(reason) == said


def test_every_kind_of_stop_is_worded_and_every_option_refusal_too() -> None:
    assert {type(r) for r, _ in STOPS} >= stop_words.KINDS == {getattr(why, k) for k in why.__all__
                                                                 if isinstance(getattr(why, k), type)} - {why.Changed}
    refusals = {getattr(why, k) for k in why.__all__ if isinstance(getattr(why, k), str) and k.isupper()} - {
        why.PROTOCOL, why.TABLE, why.VERSION, why.ANSWER, why.CARDS, why.PASS_START, why.TAKEN_UP} - NOT_DONE
    assert {r.what for r, _ in STOPS if isinstance(r, why.NotDone)} == NOT_DONE
    assert {r.waited_for for r, _ in STOPS if isinstance(r, why.WaitedOut)} == {
        why.ANSWER, why.CARDS, why.PASS_START, why.TAKEN_UP}
    assert {r.why for r, _ in STOPS if isinstance(r, why.OptionsRefused)} == refusals
    with pytest.raises(TypeError):
        stop_words.words(notices.DeviceBack())  # not a reason to stop
