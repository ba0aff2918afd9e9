"""`shuffler table` against a real `shuffler sim-device`: each subcommand does
to the cards what a person would, every card stays accounted for, and bad
input is one clear line and a non-zero exit."""
from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest
import serial

from firmware import protocol
from host import wire
from host import card_table_records as did
from host.card_table_words import words
from host.cli import main
from pty_screen import SimDevice

pytestmark = pytest.mark.micropython


def table(dev: SimDevice | None, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`shuffler table ...` in this process: exit code, stdout, stderr."""
    capsys.readouterr()
    head = ["table", "--control", dev.control] if dev else ["table"]
    code = main([*head, *args])
    out, err = capsys.readouterr()
    return code, out, err


def said(record: object) -> str:
    """What the command prints for `record`."""
    return words(record) + "\n"


def refusal(record: object) -> str:
    """The one line the command line prints for a refusal, from its record."""
    return f"shuffler: {words(record)}\n"


MACHINE_EMPTY = ((did.TRAY, 0), (did.LEFT, 0), (did.RIGHT, 0))


def shown(dev: SimDevice, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, _ = table(dev, "show", "--json", capsys=capsys)
    got = json.loads(out)
    # Exit 0 only for a table holding every card of its pack once: a bare table passes no check.
    assert code == (0 if got["check"]["ok"] and got["check"]["made"] else 1), out
    return got


def wait_until_dealt(dev: SimDevice, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    with dev.world() as w:
        while True:
            q = w.query()
            if q["counts"]["tray"] == 0 and q["motor"]["dir"] == 0 and not q["throat"]:
                return q
            assert time.monotonic() < deadline, q["counts"]
            time.sleep(0.02)


def test_sim_device_prints_its_control_endpoint_and_how_to_act_as_the_person(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    assert os.path.exists(dev.port)
    assert protocol.is_uid(dev.uid) and len(dev.uid) == 16
    for command in ("new", "put", "touch", "lift", "show"):
        assert any(line.strip().startswith(f"shuffler table {command}") for line in dev.banner), command
    # Every command line the banner suggests runs as shown, in order, without --control:
    # the only virtual shuffler running is found through the registry.
    for line in dev.banner:
        if line.strip().startswith("shuffler table "):
            argv = line.split("#")[0].split()[1:]
            code, out, err = table(None, *argv[1:], capsys=capsys)
            assert code == 0, (line, out, err)
    wait_until_dealt(dev)
    assert shown(dev, capsys)["check"]["ok"]


def test_a_pass_done_by_hand_keeps_every_card(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    assert table(dev, "new", "52", capsys=capsys)[1] == said(did.StackHolds("pack", 52))
    assert table(dev, "put", "pack", "40", capsys=capsys)[1] == said(did.TrayHolds(40))
    t = shown(dev, capsys)
    assert t["places"]["tray"] == list(range(40)) and t["stacks"] == {"pack": list(range(40, 52))}
    assert table(dev, "touch", capsys=capsys)[0] == 0
    wait_until_dealt(dev)
    t = shown(dev, capsys)
    left, right = t["places"]["left"], t["places"]["right"]
    assert len(left) + len(right) == 40 and left and right
    # The tray feeds from the bottom: the last card in the tray lands first, at the bottom of its pile.
    assert sorted(left + right) == list(range(40))
    assert 39 in (left[-1], right[-1])
    code, out, _ = table(dev, "lift", "left", "A", capsys=capsys)
    assert (code, out) == (0, said(did.Lifted(len(left), did.LEFT, "A", len(left))))
    table(dev, "lift", "right", "A", "--under", capsys=capsys)
    t = shown(dev, capsys)
    assert t["stacks"]["A"] == left + right
    assert t["places"]["left"] == t["places"]["right"] == []
    assert t["check"] == {"made": 52, "missing": [], "twice": [], "stray": [], "ok": True}
    code, out, _ = table(dev, "show", capsys=capsys)
    assert out == said(did.TableSeen((("pack", 12), ("A", 40)), MACHINE_EMPTY, 52))


def test_stack_cut_and_move_rearrange_the_cards_as_said(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "10", "--name", "A", capsys=capsys)
    table(dev, "new", "6", "--name", "B", capsys=capsys)  # ids 10..15
    assert table(dev, "cut", "A", "3", capsys=capsys)[0] == 0
    assert shown(dev, capsys)["stacks"]["A"] == [3, 4, 5, 6, 7, 8, 9, 0, 1, 2]
    table(dev, "cut", "B", capsys=capsys)  # half by default
    assert shown(dev, capsys)["stacks"]["B"] == [13, 14, 15, 10, 11, 12]
    assert table(dev, "move", "2", "A", "B", "--from-bottom", "--to-bottom", capsys=capsys)[1] == said(
        did.Moved("A", 8, "B", 8))
    assert shown(dev, capsys)["stacks"] == {"A": [3, 4, 5, 6, 7, 8, 9, 0], "B": [13, 14, 15, 10, 11, 12, 1, 2]}
    table(dev, "move", "3", "B", "C", capsys=capsys)
    assert shown(dev, capsys)["stacks"]["C"] == [13, 14, 15]
    assert table(dev, "stack", "C", "A", capsys=capsys)[1] == said(did.StackHolds("A", 11))
    table(dev, "stack", "B", "A", "--under", capsys=capsys)
    t = shown(dev, capsys)
    assert t["stacks"] == {"A": [13, 14, 15, 3, 4, 5, 6, 7, 8, 9, 0, 10, 11, 12, 1, 2]}
    assert t["check"]["ok"] and t["check"]["made"] == 16
    table(dev, "sweep", capsys=capsys)
    t = shown(dev, capsys)
    assert t["stacks"] == {} and t["check"]["made"] == 0


def test_cards_go_under_the_tray_and_the_top_of_the_tray_lifts_off(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "10", capsys=capsys)
    table(dev, "put", "pack", "4", capsys=capsys)
    assert table(dev, "put", "pack", "2", "--under", capsys=capsys)[1] == said(did.TrayHolds(6))
    assert shown(dev, capsys)["places"]["tray"] == [0, 1, 2, 3, 4, 5]
    code, out, _ = table(dev, "lift", "tray", "aside", "--top", "3", capsys=capsys)
    assert (code, out) == (0, said(did.Lifted(3, did.TRAY, "aside", 3)))
    t = shown(dev, capsys)
    assert t["places"]["tray"] == [3, 4, 5] and t["stacks"]["aside"] == [0, 1, 2] and t["check"]["ok"]


@pytest.mark.jam
def test_a_jam_stops_the_deal_at_its_card_until_cleared(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "20", capsys=capsys)
    table(dev, "put", "pack", capsys=capsys)
    assert table(dev, "fault", "jam:5", capsys=capsys)[1] == said(did.FaultInjected("jam:5"))
    table(dev, "touch", capsys=capsys)
    with dev.world() as w:
        deadline = time.monotonic() + 20
        while w.query()["motor"]["dir"] != 0 or w.query()["counts"]["fed"] < 5:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert w.query()["counts"]["fed"] == 5 and w.query()["faults"]["jam_at"] == 5
    assert table(dev, "clear", capsys=capsys)[1] == said(did.FaultsCleared())
    with dev.world() as w:
        assert w.query()["faults"]["jam_at"] == -1
    table(dev, "touch", capsys=capsys)  # the paused pass goes on
    wait_until_dealt(dev)
    t = shown(dev, capsys)
    assert len(t["places"]["left"]) + len(t["places"]["right"]) == 20 and t["check"]["ok"]


@pytest.mark.parametrize(("spec", "injected", "cleared"), [
    ("double_feed:3", lambda q: q["faults"]["double_at"] == 3, lambda q: q["faults"]["double_at"] == -1),
    ("empty_at:4", lambda q: q["faults"]["empty_at"] == 4, lambda q: q["faults"]["empty_at"] == -1),
    ("battery_low", lambda q: q["mv"] < 7000, lambda q: q["mv"] == 9000),
    ("sensor_missing:touch", lambda q: q["faults"]["missing"] == ["touch"], lambda q: q["faults"]["missing"] == []),
])
def test_each_fault_is_injected_and_cleared(sim_devices, capsys, spec, injected, cleared):
    dev = sim_devices("--time-scale", "0")
    with dev.world() as w:
        assert not injected(w.query())
        assert table(dev, "fault", spec, capsys=capsys)[0] == 0
        assert injected(w.query())
        assert table(dev, "clear", capsys=capsys)[0] == 0
        assert cleared(w.query())


def serial_call(ser: serial.Serial, cmd: str, rid: int, **fields: Any) -> dict[str, Any]:
    ser.write(protocol.encode(wire.request(cmd, rid, **fields)).encode())
    deadline = time.monotonic() + 10
    buf = b""
    while time.monotonic() < deadline:
        buf += ser.read(256)
        *lines, buf = buf.split(b"\n")
        for line in lines:
            try:
                msg = wire.parse_message(line)
            except ValueError:
                continue
            if msg.get("re") == cmd and msg.get("id") == rid:
                return msg
    raise AssertionError(f"no {cmd} reply")


def test_save_fail_breaks_saving_until_cleared(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    with serial.Serial(dev.port, timeout=0.1) as ser:
        assert serial_call(ser, "config", 1, set={"brake_ms": 9})["ok"] is True
        table(dev, "fault", "save_fail", capsys=capsys)
        rep = serial_call(ser, "config", 2, set={"brake_ms": 11})
        assert rep["ok"] is False and rep["err"] == protocol.E_STORAGE
        table(dev, "clear", capsys=capsys)
        assert serial_call(ser, "config", 3, set={"brake_ms": 12})["ok"] is True


@pytest.mark.watchdog
@pytest.mark.restart
def test_a_hang_resets_the_board_and_the_cards_stay_where_they_lie(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "30", capsys=capsys)
    table(dev, "put", "pack", "30", capsys=capsys)
    table(dev, "fault", "hang", capsys=capsys)
    with serial.Serial(dev.port, timeout=0.1) as ser:
        serial_call(ser, "hello", 1)
        table(dev, "touch", capsys=capsys)
        buf = b""
        deadline = time.monotonic() + 20
        while b'"ev": "hello"' not in buf:  # the watchdog restarted the board
            assert time.monotonic() < deadline, buf[-300:]
            buf += ser.read(256)
    t = shown(dev, capsys)
    assert t["check"]["ok"] and len(t["places"]["tray"]) == 30  # it hung before the first card


@pytest.mark.restart
def test_unplugged_mid_pass_the_dealt_cards_stay_in_their_piles(sim_devices, capsys):
    dev = sim_devices("--time-scale", "1")
    table(dev, "new", "100", capsys=capsys)
    table(dev, "put", "pack", capsys=capsys)
    table(dev, "touch", capsys=capsys)
    with dev.world() as w:
        deadline = time.monotonic() + 60
        while (q := w.query())["counts"]["left"] + q["counts"]["right"] < 10:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    with serial.Serial(dev.port, timeout=0.1) as ser:
        code, out, _ = table(dev, "unplug", capsys=capsys)
        assert (code, out) == (0, said(did.PowerCycled()))
        buf = b""
        deadline = time.monotonic() + 20
        while b'"ev": "hello"' not in buf:
            assert time.monotonic() < deadline, buf[-300:]
            buf += ser.read(256)
    t = shown(dev, capsys)
    dealt = len(t["places"]["left"]) + len(t["places"]["right"])
    assert dealt >= 10 and dealt + len(t["places"]["tray"]) + len(t["places"]["throat"]) == 100
    assert t["check"]["ok"]
    with dev.world() as w:
        assert w.query()["motor"]["dir"] == 0  # the board came back idle: nothing deals on its own


def test_bad_input_is_one_clear_line_and_a_nonzero_exit(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "10", capsys=capsys)
    cases = [
        (("put", "nope"), "no stack nope"),
        (("put", "pack", "11"), "from 1 to 10"),
        (("lift", "middle", "A"), "middle"),
        (("lift", "left", "tray"), "place on the machine"),
        (("new", "5", "--name", "a/b"), "stack name"),
        (("new", "5", "--name", " A"), "stack name"),
        (("new", "0"), "0"),
        (("move", "3", "pack", "pack"), "itself"),
        (("cut", "A"), "no stack A"),
        (("stack", "pack", "pack"), "itself"),
        (("fault", "melt"), "melt"),
        (("fault", "jam:x"), "card number"),
        (("frobnicate",), "frobnicate"),
    ]
    for args, words in cases:
        code, out, err = table(dev, *args, capsys=capsys)
        assert code != 0, args
        assert out == "" and len(err.strip().splitlines()) == 1 and words in err, (args, err)
    t = shown(dev, capsys)
    assert t["stacks"] == {"pack": list(range(10))} and t["check"]["ok"]  # nothing moved


def test_without_a_device_the_table_says_so_in_one_line(capsys, tmp_path):
    code, _, err = table(None, "show", capsys=capsys)
    assert code != 0 and err == refusal(did.NoneRunning())
    capsys.readouterr()
    code = main(["table", "--control", str(tmp_path / "none.sock"), "show"])
    err = capsys.readouterr().err
    assert code != 0 and err == refusal(did.NothingAnswers(str(tmp_path / "none.sock")))


def test_two_running_devices_need_a_choice(sim_devices, capsys):
    first, second = sim_devices("--time-scale", "0"), sim_devices("--time-scale", "0")
    code, _, err = table(None, "show", capsys=capsys)
    ports = (first.port, second.port)
    assert code != 0 and err in {refusal(did.SeveralRunning(ports)), refusal(did.SeveralRunning(ports[::-1]))}, err
    capsys.readouterr()
    assert main(["table", "--port", second.port, "new", "5"]) == 0
    assert shown(second, capsys)["check"]["made"] == 5 and shown(first, capsys)["check"]["made"] == 0


def test_a_table_file_keeps_the_cards_across_runs_of_sim_device(sim_devices, tmp_path, capsys):
    keep = tmp_path / "table.json"
    first = sim_devices("--time-scale", "0", "--table", str(keep))
    table(first, "new", "12", capsys=capsys)
    table(first, "put", "pack", "5", capsys=capsys)
    table(first, "cut", "pack", "2", capsys=capsys)
    before = shown(first, capsys)
    first.proc.terminate()
    assert first.proc.wait(timeout=10) == 0
    again = sim_devices("--time-scale", "0", "--table", str(keep))
    after = shown(again, capsys)
    assert after == before and after["stacks"] == {"pack": [7, 8, 9, 10, 11, 5, 6]}


@pytest.mark.parametrize("junk", ['{"made": 3, "stacks": {"a/b": [1]}, "places": {}}', '{"made": "x"}', "[1, 2",
                                  '{"made": 2, "stacks": {}, "places": {"tray": 5}}'])
def test_a_table_file_that_is_not_a_table_leaves_a_bare_table(sim_devices, tmp_path, capsys, junk):
    keep = tmp_path / "table.json"
    keep.write_text(junk)
    dev = sim_devices("--time-scale", "0", "--table", str(keep))
    t = shown(dev, capsys)
    assert t["stacks"] == {} and all(not v for v in t["places"].values()) and t["check"]["made"] == 0
    table(dev, "new", "4", capsys=capsys)  # and it works
    assert shown(dev, capsys)["stacks"] == {"pack": [0, 1, 2, 3]}


def test_a_sim_device_on_a_flash_keeps_its_table_beside_it_and_says_what_comes_next(sim_devices, tmp_path, capsys):
    """Restarted on the same flash, the virtual shuffler finds its cards where
    they lay, with no --table given; its banner names the guide's command
    and where the cards are kept."""
    flash = tmp_path / "board"
    first = sim_devices("--time-scale", "0", flash=flash)
    kept = tmp_path / "board-table.json"
    told = did.HowToGoOn(first.control, first.uid, first.port, table_file=str(kept))
    assert first.banner[1:] == words(told).splitlines()
    table(first, "new", "20", capsys=capsys)
    table(first, "put", "pack", "8", capsys=capsys)
    before = shown(first, capsys)
    first.proc.terminate()
    assert first.proc.wait(timeout=10) == 0
    assert not (flash / "board-table.json").exists()  # not on the board's own filesystem
    again = sim_devices("--time-scale", "0", flash=flash)
    assert shown(again, capsys) == before and before["check"]["made"] == 20


def test_a_bare_table_passes_no_check(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    code, out, _ = table(dev, "show", capsys=capsys)
    assert code == 1 and out == said(did.TableSeen((), MACHINE_EMPTY, 0))


def test_the_places_on_the_machine_go_by_the_guide_s_words(sim_devices, capsys):
    dev = sim_devices("--time-scale", "0")
    table(dev, "new", "10", capsys=capsys)
    table(dev, "put", "pack", capsys=capsys)
    with dev.world() as w:
        w.inject("double_feed", 2)
    table(dev, "touch", capsys=capsys)
    deadline = time.monotonic() + 20
    while not shown(dev, capsys)["places"]["throat"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    t = shown(dev, capsys)
    code, out, _ = table(dev, "show", capsys=capsys)
    counts = tuple((p, len(t["places"][p])) for p in (did.TRAY, did.LEFT, did.RIGHT))
    assert out == said(did.TableSeen(tuple((name, len(ids)) for name, ids in t["stacks"].items()),
                                     counts + ((did.EXIT, 2),), 10))  # the cards caught in the exit
    code, out, _ = table(dev, "lift", "exit", "caught", capsys=capsys)
    assert (code, out) == (0, said(did.Lifted(2, did.EXIT, "caught", 2)))
