"""Exact mode on the MicroPython unix port, over the serial protocol and the
simulated board: the final physical pack is the order the code sorting
predicts, for the split and for whole-pack radix; nothing the device sends
depends on its random draw; the ways exactness is lost are reported and the
device deals at random after them."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Callable

import pytest

from firmware import exact_routes
from firmware import protocol
from host import device_words
from fwtest_support import FwProcess
from shuffling.exact_mode import codes as exact_codes
from shuffling.exact_mode.physical import run_exact

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]


def random_file(tmp_path: Path, seed: int) -> Path:
    path = tmp_path / f"random-{seed}.bin"
    path.write_bytes(random.Random(seed).randbytes(8192))
    return path


def stream(path: Path) -> Callable[[int], bytes]:
    data = path.read_bytes()
    at = [0]

    def take(k: int) -> bytes:
        at[0] += k
        return data[at[0] - k:at[0]]
    return take


def start(start_fw_process: Callable[..., FwProcess], tmp_path: Path, seed: int | None, capacity: int | None = None,
          speed: float = 0.0) -> FwProcess:
    env = {}
    if seed is not None:
        env["SHUFFLER_SIM_RANDOM_FILE"] = str(random_file(tmp_path, seed))
    if capacity is not None:
        env["SHUFFLER_SIM_CAPACITY"] = str(capacity)
    dev = start_fw_process(env=env, data_dir=tmp_path, speed=speed)
    dev.event("hello")
    return dev


def exact_routine(dev: FwProcess, n: int, between: Callable[[int, str], None] | None = None,
                  after_start: Callable[[], dict] | None = None, start_pack: list[int] | None = None,
                  begun: str | None = None, routine: str | None = None, capacity: int = 104) -> list[int]:
    """The person's side of an exact routine: load what the device expects,
    start, take the piles, and after each round lay all left piles on all
    right piles where its stack lay (the routine's layout is public:
    firmware/exact_routes.py). Returns the final pack (top first).
    between(round, load): called before each load; after_start: what happens
    after each start (a fault put right); begun: the routine (its kind) runs
    already and its next round's pack is start_pack."""
    assert dev.world is not None
    kind = begun
    if begun is None:
        rep = dev.call("exact", n=n, **({"routine": routine} if routine else {}))
        assert rep["ok"] is True and rep["routine"]["n"] == n
        kind = rep["routine"]["kind"]
    route = exact_routes.route(n, capacity, kind)
    nxt = dev.event("exact_next")
    pack = start_pack if start_pack is not None else list(range(n))
    lefts: list[int] = []
    rights: list[int] = []
    start_at = route.lo[nxt["round"] - 1]
    while True:
        if between is not None:
            between(nxt["round"], nxt["load"])
        count = nxt["count"]
        dev.world.load(pack[start_at:start_at + count])
        start_at += count
        assert dev.call("start")["n"] == count
        done = after_start() if after_start is not None else dev.event("done", timeout=60)
        assert "left" not in done and "right" not in done
        lefts += dev.world.take("left")
        rights += dev.world.take("right")
        m = dev.wait(lambda m: m.get("ev") in ("exact_next", "exact_round"))
        if m["ev"] == "exact_next":
            nxt = m
            continue
        assert m["round"] == nxt["round"]
        lo = route.lo[m["round"] - 1]
        pack[lo:start_at] = lefts + rights
        lefts, rights = [], []
        m = dev.wait(lambda m: m.get("ev") in ("exact_next", "exact_done"))
        if m["ev"] == "exact_done":
            assert m["rounds"] == route.rounds
            return pack
        nxt = m
        start_at = route.lo[nxt["round"] - 1]


def split_order(tmp_path: Path, seed: int, n: int) -> list[int]:
    """The split's final pack from the board's random bytes: the cards in the order of their codes 0..n-1."""
    arrangement = exact_codes.uniform_assignment(n, stream(random_file(tmp_path, seed)))
    return sorted(range(n), key=lambda i: arrangement[i])


def test_samba_splits_and_ends_in_the_order_of_its_codes(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=11)
    final = exact_routine(dev, 162)
    assert final == split_order(tmp_path, 11, 162)
    assert final != list(range(162))
    # One split round of two loads, then part P (98 cards) seven passes and part Q (64) six: 15 passes.
    nexts = [(m["round"], m["load"], m["count"]) for m in dev.seen if m.get("ev") == "exact_next"]
    assert nexts == [(1, "A", 81), (1, "B", 81)] + [(r, "P", 98) for r in range(2, 9)] + \
        [(r, "Q", 64) for r in range(9, 15)]
    assert dev.call("status")["mode"] == "random"


def test_canasta_takes_the_pipelined_routine_and_ends_in_the_order_drawn(start_fw_process, tmp_path: Path) -> None:
    """108 cards on a 104-card tray: load A (104) once, then P (A's right
    pile on load B, 104) seven times and Q (the 4 held out) twice, every
    count fixed in advance; P and Q each end sorted by the places the
    board drew, so gathering P's left pile, Q, P's right pile gives the
    cards in the order of their places."""
    dev = start(start_fw_process, tmp_path, seed=5)
    model = exact_routine(dev, 108)  # Q (the model's positions 0 to 3) above P
    places = exact_codes.uniform_assignment(108, stream(random_file(tmp_path, 5)))
    k = exact_routes.held_codes(list(places), 108, 104)
    held = sorted((c for c in range(108) if k <= places[c] < k + 4), key=lambda c: places[c])
    rest = sorted((c for c in range(108) if not k <= places[c] < k + 4), key=lambda c: places[c])
    assert model == held + rest and 40 <= k <= 64
    assert not set(held) & set(range(104, 108))  # none of load B's cards is held out
    nexts = [(m["round"], m["load"], m["count"]) for m in dev.seen if m.get("ev") == "exact_next"]
    assert nexts == [(1, "A", 104)] + [(r, "P", 104) for r in range(2, 9)] + [(9, "Q", 4), (10, "Q", 4)]
    assert dev.call("status")["mode"] == "random"


def test_samba_ends_in_the_order_the_code_sorting_predicts(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=11)
    final = exact_routine(dev, 162, routine="radix")
    codes = exact_codes.code_set(162, 104, uneven=True)
    arrangement = exact_codes.uniform_assignment(162, stream(random_file(tmp_path, 11)), codes)
    predicted = run_exact(list(range(162)), arrangement, 104)[-1]
    assert final == predicted
    assert final != list(range(162))
    # Eight rounds of two loads: 81/81, then 79/83 (the uneven code set) every round.
    nexts = [(m["round"], m["load"], m["count"]) for m in dev.seen if m.get("ev") == "exact_next"]
    assert nexts == [(1, "A", 81), (1, "B", 81)] + [(r, x, c) for r in range(2, 9) for x, c in (("A", 79), ("B", 83))]
    assert dev.call("status")["mode"] == "random"


def _transcript(dev: FwProcess) -> list[bytes]:
    # The clock is the one thing that differs between two runs: the idle loop
    # runs as often as the computer lets it.
    return [re.sub(rb'"uptime_ms": \d+', b'"uptime_ms": T', line) for line in dev.raw]


def every_command(dev: FwProcess) -> Callable[[int, str], None]:
    said = []

    def probe(round_number: int, load: str) -> None:
        if round_number != 2 or said:
            return
        said.append(load)
        for cmd, fields in (("hello", {}), ("status", {}), ("config", {}), ("exact", {}),
                            ("exact", {"n": 1}), ("calibrate", {"what": "codes"}), ("resume", {}),
                            ("abort", {}), ("clear", {}), ("start", {})):
            dev.call(cmd, **fields)
        dev.event("fault")  # the start above finds an empty tray
    return probe


def test_the_wire_says_the_same_whatever_the_codes(start_fw_process, tmp_path: Path) -> None:
    """Two routines with different random draws, every command sent mid-way:
    everything the device sends is the same, byte for byte, except the clock."""
    finals = []
    transcripts = []
    for seed in (1, 2):
        dev = start(start_fw_process, tmp_path, seed=seed, capacity=8)
        finals.append(exact_routine(dev, 12, every_command(dev), capacity=8))
        transcripts.append(_transcript(dev))
    assert finals[0] != finals[1]  # the draws differ (equal by chance: 1 in 12!)
    assert transcripts[0] == transcripts[1]
    assert len(transcripts[0]) > 12 * 4  # a progress line per card per round, and more
    # Both ran a whole routine (the split: 12 cards into parts of 8 and 4) and answered every command.
    text = b"".join(transcripts[0])
    assert text.count(b'"ev": "exact_round"') == exact_routes.route(12, 8).rounds == 6 and b'"re": "status"' in text
    assert b'"kind": "split"' in text


def exact_routine_with_a_stop(dev: FwProcess, n: int, at: tuple[int, str], k: int,
                              fix: Callable[[list[int]], list[int]]) -> tuple[list[int], list[dict]]:
    """exact_routine, with a double feed at card k of the pass `at` (round,
    load): the person clears the fault and hands the cards caught in the
    exit to `fix`, which says which of them go back under the tray (first fed
    lowest); the touch then deals on. Returns the final pack and the device's
    exact_lost events."""
    assert dev.world is not None
    world = dev.world
    armed = [True]

    def inject(round_number: int, load: str) -> None:
        if armed[0] and (round_number, load) == at:
            armed[0] = False
            world.inject("double_feed", k=k)

    def after_start() -> dict:
        m = dev.wait(lambda m: m.get("ev") in ("done", "fault"), timeout=60)
        if m["ev"] == "done":
            return m
        assert m["code"] == protocol.FAULT_DOUBLE_FEED and m["k"] == k
        dev.call("clear")
        world.fix()
        caught = world.take("throat")
        back = fix(caught)
        tray = world.take("tray")
        world.load(tray + back[::-1])  # under the tray's cards, the first fed lowest
        dev.call("start")
        return dev.event("done", timeout=60)

    final = exact_routine(dev, n, inject, after_start)
    return final, [m for m in dev.seen if m.get("ev") == "exact_lost"]


@pytest.mark.double_feed
def test_a_double_feed_caught_and_put_back_goes_on_exactly(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=11)
    final, lost = exact_routine_with_a_stop(dev, 162, (3, "P"), 20, lambda caught: caught)
    assert lost == []
    assert final == split_order(tmp_path, 11, 162)  # as if nothing had happened
    assert dev.call("status")["mode"] == "random"


@pytest.mark.double_feed
def test_two_caught_cards_put_back_the_other_way_round_leave_the_routine_s_order(start_fw_process,
                                                                                  tmp_path: Path) -> None:
    """Why the guide says which way the caught cards go back (as they lay in
    the exit, the first fed lowest: their order in the tray): the device
    deals by place in the load and cannot see two cards swapped, so put back
    the other way round they take each other's codes and the pack is no
    longer in its codes' order; no count shows it."""
    dev = start(start_fw_process, tmp_path, seed=11)
    final, lost = exact_routine_with_a_stop(dev, 162, (3, "P"), 20, lambda caught: caught[::-1])
    assert lost == []
    assert sorted(final) == list(range(162)) and final != split_order(tmp_path, 11, 162)


def test_the_card_being_fed_gone_on_to_its_pile_goes_on_and_two_gone_out_end_exactness(start_fw_process,
                                                                                     tmp_path: Path) -> None:
    """The tray's count after the stop is the evidence: one card past the
    beam's count went to its own side, so the rest deals on from there; two
    or more may lie on the wrong pile, whatever their codes."""
    kept: list[int] = []

    def keep(caught: list[int], how_many: int) -> list[int]:
        kept.extend(caught[:how_many])  # the person does not put these back
        return caught[how_many:]

    for gone, seed in ((1, 12), (2, 13)):
        kept.clear()
        dev = start(start_fw_process, tmp_path, seed=seed, capacity=8)
        assert dev.world is not None
        dev.call("exact", n=12)
        nxt = dev.event("exact_next")
        dev.world.load(list(range(nxt["count"])))
        dev.world.inject("double_feed", k=2)
        dev.call("start")
        assert dev.event("fault")["code"] == protocol.FAULT_DOUBLE_FEED
        assert [m for m in dev.seen if m.get("ev") == "exact_lost"] == []  # not yet: the count will tell
        dev.call("clear")
        dev.world.fix()
        back = keep(dev.world.take("throat"), gone)
        dev.world.load(dev.world.take("tray") + back[::-1])
        dev.call("start")
        if gone == 1:
            loaded = dev.event("loaded")
            assert loaded["n"] == nxt["count"] - 3
            done = dev.event("done")
            assert "left" not in done  # still an exact pass
            assert dev.wait(lambda m: m.get("ev") in ("exact_next", "exact_lost"))["ev"] == "exact_next"
        else:
            done = dev.event("done")
            lost = [m for m in dev.seen if m.get("ev") == "exact_lost"]  # said before the start's reply
            assert [(m["code"], m["n"], m["expected"]) for m in lost] == [(protocol.LOST_DOUBLE_FEED, nxt["count"] - 4,
                                                                           nxt["count"] - 2)]
            assert done["left"] + done["right"] == done["k"]  # random again: pile counts are reported


@pytest.mark.restart
def test_a_restart_keeps_the_exact_routine_and_it_ends_in_the_predicted_order(start_fw_process, tmp_path: Path) -> None:
    """Between two passes the board restarts (a new battery): the routine
    comes back from its flash and the pack ends as if nothing had happened."""
    data = tmp_path / "flash"
    data.mkdir()
    env = {"SHUFFLER_SIM_RANDOM_FILE": str(random_file(tmp_path, 21))}
    dev = start_fw_process(env=env, data_dir=data, speed=0.0)
    dev.event("hello")
    assert dev.world is not None
    dev.call("exact", n=162)
    nxt = dev.event("exact_next")
    dev.world.load(list(range(81)))
    dev.call("start")
    dev.event("done")
    left, right = dev.world.take("left"), dev.world.take("right")
    assert dev.event("exact_next")["load"] == "B"
    dev.close()
    again = start_fw_process(env=env, data_dir=data, speed=0.0)
    again.event("hello")
    st = again.call("status")
    assert st["mode"] == "exact" and st["next"] == {"round": 1, "rounds": 14, "load": "B", "count": 81}
    held = again.call("exact", held=True)
    r = held["routine"]
    assert (held["mode"], r["n"], r["kind"], r["next"]["load"], r["next"]["count"]) == ("exact", 162, "split", "B", 81)
    assert "dealt" not in held
    assert again.world is not None
    pack = list(range(162))
    again.world.load(pack[81:])
    again.call("start")
    again.event("done")
    lefts, rights = left + again.world.take("left"), right + again.world.take("right")
    assert again.event("exact_round")["round"] == 1
    final = exact_routine(again, 162, start_pack=lefts + rights, begun="split")
    assert final == split_order(tmp_path, 21, 162)
    assert not (data / "exact.json").exists()  # the codes are gone once the routine ends
    assert nxt["count"] == 81


def test_a_load_out_of_turn_is_caught_by_its_count(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=5, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12)
    for _ in range(2):
        nxt = dev.event("exact_next")
        dev.world.load(list(range(nxt["count"])))
        dev.call("start")
        dev.event("done")
    left, right = dev.world.take("left"), dev.world.take("right")
    nxt = dev.event("exact_next")
    assert (nxt["round"], nxt["load"], nxt["count"]) == (2, "P", 8)  # the split: parts of 8 and 4
    dev.world.load(list(range(4)))  # part Q put in first
    dev.send("start")
    lost = dev.event("exact_lost")
    assert (lost["code"], lost["n"], lost["expected"]) == (protocol.LOST_COUNT, 4, 8)
    done = dev.event("done")
    assert done["left"] + done["right"] == 4  # dealt at random, and said so
    assert left or right


def test_radix_stacks_swapped_are_caught_by_their_count(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=5, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12, routine="radix")
    for _ in range(2):
        nxt = dev.event("exact_next")
        dev.world.load(list(range(nxt["count"])))
        dev.call("start")
        dev.event("done")
    nxt = dev.event("exact_next")
    assert (nxt["round"], nxt["load"], nxt["count"]) == (2, "A", 5)  # 5 : 7, the uneven set
    dev.world.take("left"), dev.world.take("right")
    dev.world.load(list(range(7)))  # the right stack put in first
    dev.send("start")
    lost = dev.event("exact_lost")
    assert (lost["code"], lost["n"], lost["expected"]) == (protocol.LOST_COUNT, 7, 5)


@pytest.mark.jam
def test_a_jam_keeps_exactness_and_an_abort_loses_it(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=None, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12)
    nxt = dev.event("exact_next")
    dev.world.load(list(range(nxt["count"])))
    dev.world.inject("jam", k=3)
    dev.call("start")
    assert dev.event("fault")["code"] == protocol.FAULT_JAM
    st = dev.call("status")
    assert st["state"] == "paused" and st["mode"] == "exact" and "left" not in st
    assert dev.call("exact", cancel=True)["err"] == protocol.E_STATE  # not while a pass is paused
    assert dev.call("abort")["ok"] is True
    assert dev.event("aborted")["k"] == 3
    lost = dev.event("exact_lost")
    assert lost["code"] == protocol.LOST_ABORTED and device_words.lost_name(lost["code"]) == "aborted"
    assert dev.call("status")["mode"] == "random"


def test_begin_is_checked_and_cancel_ends_the_routine(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=None)
    for fields, err in (({}, protocol.E_BAD_FIELD), ({"n": 1}, protocol.E_BAD_VALUE), ({"n": 513}, protocol.E_BAD_VALUE),
                        ({"n": "162"}, protocol.E_BAD_FIELD), ({"n": 162, "routine": "pipelined"}, protocol.E_BAD_VALUE),
                        ({"n": 162, "routine": 2}, protocol.E_BAD_FIELD), ({"n": 52, "routine": "split"}, protocol.E_BAD_VALUE)):
        assert dev.call("exact", **fields)["err"] == err
    rep = dev.call("exact", n=162, routine="radix")
    r = rep["routine"]
    assert (rep["mode"], r["kind"], r["loads"], r["rounds"], r["uneven"], r["next"]) == \
        ("exact", "radix", 2, 8, True, {"round": 1, "load": "A", "count": 81})
    assert dev.call("status")["next"] == {"round": 1, "rounds": 8, "load": "A", "count": 81}
    rep = dev.call("exact", n=162)  # a fresh routine at any time: the device's choice, the split
    r = rep["routine"]
    assert (r["kind"], r["loads"], r["rounds"], r["uneven"], r["next"]) == \
        ("split", 2, 14, False, {"round": 1, "load": "A", "count": 81})
    assert dev.call("exact", n=52)["routine"]["kind"] == "radix"  # a pack that fits the tray
    dev.event("exact_next")
    assert dev.call("exact", cancel=True)["mode"] == "random"
    assert dev.event("exact_lost")["code"] == protocol.LOST_CANCELLED
    assert dev.call("status")["mode"] == "random"
