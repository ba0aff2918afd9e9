"""The words of `shuffler setup`, each sentence asserted once: every step it
asks (host/setup_steps.py), everything it tells (host/setup_records.py,
worded in host/setup_words.py) and every finding its own steps make
(host/setup_findings.py), rendered from the record; and the console and
the steps file render the same record. The bring-up's behaviour is judged
by the records in the other tests (tests/host/test_setup_*.py)."""
from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from host import setup_findings as finds
from host import setup_records as told
from host import setup_steps as steps
from host import setup_words
from host.commands.setup import Terminal
from host.parts import FAIL, OK, SKIP

PORT = "/dev/ttyUSB7"

STEPS: list[tuple[steps.Step, str]] = [
    (steps.FlashOffer("0.1.0", "0.2.0", True),
     "The board runs firmware 0.1.0 (it speaks another protocol: nothing else works until it is flashed); this tool "
     "brings firmware 0.2.0. Flash it now? Its calibration and configuration stay on the board. Type y or n, then "
     "Enter."),
    (steps.FlashOffer("", "0.2.0", False),
     "The board runs no shuffler firmware; this tool brings firmware 0.2.0. Flash it now? Its calibration and "
     "configuration stay on the board. Type y or n, then Enter."),
    (steps.EmptyTray(), "Take every card out of the tray and off the machine, keep your hands off it, then press "
                        "Enter."),
    (steps.LoadCards(52), "Put exactly 52 cards face down in the tray (one full deck), then press Enter."),
    (steps.LoadCards(52, again=True),
     "Take the cards out, count out exactly 52 cards one by one and put them face down in the tray, then press "
     "Enter."),
    (steps.TrayEmpty(52, 84010, 84000),
     "The tray reads as it did empty (84010, the tare 84000): the 52 cards are not in it (or not resting on it). Put "
     "them in the tray, then press Enter."),
    (steps.SecondCount(80, 104),
     "Take them out, count out another number of cards from 80 to 104 (a full tray counts best) and put them in the "
     "tray; type how many, then press Enter."),
    (steps.HandsOff(), "Take the cards out of the tray, keep your hands away from the touch pad, then press Enter."),
    (steps.HandAway(1), "The pad reads as touched (1): a hand is on it or near it. Take your hand away from the pad, "
                        "then press Enter."),
    (steps.TouchPad(30), "Touch the pad on the lid once (within 30 s)."),
    (steps.FeedCards(10, 2), "Put 10 or more cards face down in the tray, then press Enter: the shuffler feeds 2 "
                             "cards to your left."),
    (steps.TooFewCards(0, 10), "The tray reads 0 cards: the shuffler feeds only from 10 or more. Put them in, then "
                               "press Enter."),
    (steps.WhereLanded(2), "Which pile did the 2 cards land on, as you face the shuffler? Where they landed: type l "
                           "(left) or r (right), then Enter."),
    (steps.WhereLanded(1), "Which pile did the 1 card land on, as you face the shuffler? Where it landed: type l "
                           "(left) or r (right), then Enter."),
    (steps.Meter(), "Measure the battery with a meter and type its voltage (for example 9.12), or press Enter to "
                    "skip."),
    (steps.Again(True), "Press Enter for the next step (or type r and Enter to do this one again)."),
    (steps.Again(False), "Type r and Enter to try this step again, or press Enter to go on without it."),
]

NOTHING = "nothing from this set-up was stored: the board's calibration (cal.json) is as it was"
AGAIN = f"run `shuffler setup --port {PORT}` again"
TOLD: list[tuple[Any, str]] = [
    (told.AnswerAgain(steps.YES_NO), "Type y or n, then Enter."),
    (told.AnswerAgain(steps.NUMBER, 80, 104), "Type a whole number from 80 to 104, then Enter."),
    (told.AnswerAgain(steps.SIDE), "Type l or r, then Enter."),
    (told.AnswerAgain(steps.VOLTS), "Type the voltage in volts (for example 9.12), or just Enter."),
    (told.Tared(84000), "Empty tray: 84000 (the tare)."),
    (told.CountImpossible(52, 1500.4, 600, 900),
     "As 52 cards that is 1500 a card, and a card of any stock weighs 600 to 900 on this load cell: the tray does "
     "not hold 52 cards (or something presses on it). Count them again."),
    (told.FirstCount(52, 760.2), "52 cards: 760 a card (stored once a second count agrees)."),
    (told.SecondEmpty(90), "The tray reads as empty, and you typed 90: the cards you counted are not in it. Put them "
                           "in the tray and type how many again."),
    (told.CountsDisagree(90, 92.04, 52),
     "90 cards read as 92.0 by the weight of the 52: the two counts disagree by 2.0 cards (2.3 %). The board cannot "
     "see which count is off: count both again; nothing is stored yet."),
    (told.CountsDisagree(90, 89.04, 52), "90 cards read as 89.0 by the weight of the 52: the two counts disagree by "
                                         "1.0 card (1.1 %)."),
    (told.RestWasAHand(250, 800),
     "The pad read 250 when no hand was to be near and reads 800 now: a hand was on it then, not a fault of the pad. "
     "Its rest reading is taken again."),
    (told.SidesContradict(2),
     "Your answer and where the cards landed disagree: these 2 cards went the other way from the 2 before (the exit "
     "beam counted both), so they cannot have landed on the same pile. One of the two answers was a slip: 2 more "
     "cards go the way your last answer puts on your left; look where they land."),
    (told.SidesAgree(), "Your answers and where the cards landed agree now."),
    (told.MotorOtherWay(2), "Then the motor is wired the other way round: the next 2 cards go the other way and "
                            "should land on your left."),
    (told.MeterApart(9000, 6300),
     "The board reads 9.00 V and you typed 6.30 V: 30 % apart, more than a meter and a working divider differ (10 %). "
     "Measure again across the battery's two terminals, on the meter's DC volts range, and type what it shows."),
    (told.Found(finds.touched(800), "esp32"),
     "ok   touch pad: reads 800 at rest (a working one: a touch seen): a touch seen and confirmed"),
    (told.BoardNow(), "The board now:"),
    (told.Verdict(True), "Ready to shuffle: put a load in the tray and touch the pad (or `shuffler guide`)."),
    (told.Verdict(False), "Not ready to shuffle: put right the lines marked FAIL, then `shuffler setup` again (or "
                          "`shuffler check` to look)."),
    (told.Stored(False), "Stored on the board in one write: the calibration (cal.json)."),
    (told.Stored(True), "Stored on the board in one write: the calibration (cal.json); its configuration "
                        "(config.json), which was unusable, now holds the defaults."),
    (told.Unstored(("touch pad", "battery")),
     "Nothing from this set-up was stored: the board's calibration (cal.json) is as it was (not passed: touch pad, "
     "battery); it is stored only when every step passes."),
    (told.Stopped(told.INTERRUPTED, PORT), f"stopped (Ctrl-C); {NOTHING}; {AGAIN}"),
    (told.Stopped(told.RESTARTED, PORT),
     f"the board on {PORT} restarted (reset, or its power went) during the set-up; what a step measured was held "
     f"only until then; {NOTHING}; {AGAIN}"),
    (told.Stopped(told.LOST, PORT, "the port closed"),
     f"the port closed: the board was unplugged, reset or stopped answering; {NOTHING}; {AGAIN}"),
    (told.Stopped(told.LINK, PORT, "no answer"), f"no answer; {NOTHING}; {AGAIN}"),
    (told.PortHeld(PORT, "another program holds it"), "another program holds it"),
    (told.NoFirmware(PORT), f"no shuffler firmware this tool speaks on {PORT}: run `shuffler flash --port {PORT}`, "
                            "then `shuffler setup` again"),
    (told.StillOtherFirmware(PORT, "0.2.0"), f"the board on {PORT} still does not answer with firmware 0.2.0 after "
                                             "flashing"),
    (told.FlashFailed("the image could not be built"), "the image could not be built"),
]

# Each finding of the bring-up's own steps: its value, what a working part
# reads, and its diagnosis (Finding.line says them; the wiring table's rows
# are host/wiring.py's).
FINDINGS: list[tuple[Any, tuple[Any, ...], str, str]] = [
    (finds.unsettled, (None,), FAIL, "moving (a working one: a steady reading): the reading does not settle with cards "
                                  "on it; check hardware/wiring-"),
    (finds.unsettled, (object(),), FAIL, "no answer (a working one: a steady reading): the reading does not settle "
                                         "with cards on it; check hardware/wiring-"),
    (finds.tare_unsettled, (), FAIL, "moving (a working one: a steady reading): the reading does not settle: nothing "
                                   "may touch the tray; a loose load cell wire; check hardware/wiring-"),
    (finds.cell_falls, (80000, 84000, 52), FAIL,
     "raw 80000, tare 84000 (a working one: growing with every card): the reading falls by 4000 for 52 cards: its "
     "signal wires A+ and A- are swapped; check hardware/wiring-"),
    (finds.cell_unloaded, (84100, 84000, 52), FAIL,
     "raw 84100, tare 84000 (a working one: growing with every card): the reading grows by only 100 for 52 cards: "
     "nothing presses on the load cell, or a wire is open; check hardware/wiring-"),
    (finds.counted, (setup_words.count_read(90, 90.06, 52), 84000, 760), OK,
     "90 cards read as 90.1 by the weight of the 52 (a working one: within half a card): calibrated: tare 84000, "
     "760 a card"),
    (finds.counts_disagreed, ("no count", 600, 900, 3), FAIL,
     "no count (a working one: two counts that agree within half a card (600 to 900 a card)): the counts disagreed "
     "3 times, so nothing is stored: count each card one by one, and do this step again (r)"),
    (finds.pad_held_high, (1,), FAIL, "reads 1 (touched) with your hand away (a working one: 0 at rest, 1 touched): it "
                                   "reads touched with no hand near: its output is held high (a short); check "
                                   "hardware/wiring-"),
    (finds.pad_silent, (0,), FAIL, "reads 0 at rest (a working one: a steady reading at rest): no pad answers (a broken "
                                "lead, or a short); check hardware/wiring-"),
    (finds.no_touch, (800, 3), FAIL, "reads 800, no touch seen in 3 s (a working one: a touch seen): the pad does not "
                                   "answer a touch; check hardware/wiring-"),
    (finds.touched, (800,), OK, "reads 800 at rest (a working one: a touch seen): a touch seen and confirmed"),
    (finds.feed_unended, (), FAIL, "no end to the feed (a working one: the fed cards counted): the board did not finish "
                                 "the feed; check hardware/wiring-"),
    (finds.beam_counted, (2, 29), OK, "saw the 2 cards fed (a working one: every card counted): 29 ms a card in the "
                                    "beam"),
    (finds.sides_never_agree, (4, 2), FAIL,
     "4 answers, 2 cards each (a working one: left for left): your answers and where the cards landed disagree each "
     "time: the motor turned both ways (the exit beam counted every card), so cards cannot land on one pile both "
     "ways; nothing is stored: watch the piles as the cards land and do this step again (r)"),
    (finds.motor_uncounted, (), SKIP, "not judged: the tray cannot be counted until the load cell's step has passed: do "
                                    "it first"),
    (finds.motor_after_beam, (), SKIP, "not judged: which way it deals is judged once the beam counts the cards"),
    (finds.too_few_to_feed, ("1 card", 10), FAIL, "the tray reads 1 card (a working one: 10 or more): put 10 or more "
                                                "cards in the tray, then do this step again (r)"),
    (finds.feed_ended, ("a jam",), FAIL, "the feed ended: a jam (a working one: every card counted): take the cards out "
                                      "of the exit and the piles, then do this step again"),
    (finds.divider_off, (9000, 6300), FAIL,
     "the board reads 9.00 V, the meter 6.30 V (a working one: within 10 % of the meter): more than 10 % apart on "
     "the same meter reading again: its divider; check hardware/wiring-"),
    (finds.meter_unsure, (9000, 6300), FAIL,
     "the board reads 9.00 V, the meter 6.30 V (a working one: within 10 % of the meter): more than 10 % apart each "
     "time, the meter reading different voltages: nothing is trimmed; measure across the battery's terminals and do "
     "this step again (r)"),
]


def test_every_kind_is_rendered_here() -> None:
    assert {type(s) for s, _ in STEPS} == set(steps.STEP_TYPES)
    assert {type(t) for t, _ in TOLD} == set(told.TOLD_TYPES)
    makers = {fn for name, fn in inspect.getmembers(finds, inspect.isfunction)
              if fn.__module__ == finds.__name__ and not name.startswith("_")}
    assert {fn for fn, _, _, _ in FINDINGS} == makers


@pytest.mark.parametrize("step, sentence", STEPS)
def test_each_step_s_words(step: steps.Step, sentence: str) -> None:
    assert steps.words(step) == sentence


@pytest.mark.parametrize("record, sentence", TOLD)
def test_each_thing_told_in_its_words(record: Any, sentence: str) -> None:
    assert sentence in setup_words.words(record)


@pytest.mark.parametrize("make, args, verdict, words", FINDINGS)
def test_each_finding_of_the_bring_up_s_own_steps(make: Any, args: tuple[Any, ...], verdict: str, words: str) -> None:
    finding = make(*args)
    assert finding.verdict == verdict
    assert words in finding.line("esp32")
    assert finding.wiring == ("check hardware/wiring-" in words)


def test_the_console_and_the_steps_file_render_the_same_record(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "steps.jsonl"
    term = Terminal(path)
    term.tell(told.CountsDisagree(90, 92.04, 52))
    term.tell(told.Found(finds.no_touch(800, 3), "esp32"))
    term.close()
    shown = capsys.readouterr().out.splitlines()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["words"] for x in lines] == shown
    assert lines[0] == {"kind": "countsdisagree", "typed": 90, "read": 92.04, "known": 52, "words": shown[0]}
    assert {k: lines[1][k] for k in ("kind", "part", "verdict", "wiring", "board")} == \
        {"kind": "found", "part": "touch", "verdict": FAIL, "wiring": True, "board": "esp32"}
    assert all("reply" not in x for x in lines)  # nothing is answered to what is told
