"""The words of `shuffler flash`, `shuffler devices`, the port's troubles
(host/port_words.py) and of the virtual card table and `shuffler
sim-device` (host/card_table_words.py): each record's sentence, asserted
here once. The behaviour is the other tests' (test_flash.py,
test_port_troubles.py, test_link.py, test_devices.py, test_table_cmd.py
assert on the records); the sentences are this file's."""
from __future__ import annotations

import pytest

from firmware import protocol
from host import card_table_records as table
from host import card_table_words, port_words
from host import port_records as port

P = "/dev/ttyACM0"

PORT_WORDS = [
    (port.NoSuchPort(P), "no such port: /dev/ttyACM0 (see `shuffler devices`)"),
    (port.NotASerialPort("/dev/null"), "/dev/null is not a serial port (see `shuffler devices`)"),
    (port.NotASerialPort("/tmp/x", port.FOLDER), "/tmp/x is a folder, not a serial port (see `shuffler devices`)"),
    (port.NotASerialPort("/tmp/x.txt", port.FILE), "/tmp/x.txt is a file, not a serial port (see `shuffler devices`)"),
    (port.PortBusy(P), "port /dev/ttyACM0 is busy: another program has it open (close it and retry)"),
    (port.NoPermission(P), "no permission to open /dev/ttyACM0 (on Linux, join the dialout group)"),
    (port.CannotOpen(P, "[Errno 5] Input/output error"), "cannot open /dev/ttyACM0: [Errno 5] Input/output error"),
    (port.NoAnswer(P, "status", 2.0), "/dev/ttyACM0 did not answer 'status' within 2 s"),
    (port.NoHello(P, 5.0),
     "/dev/ttyACM0 did not answer hello within 5 s: is the shuffler firmware on it? (see `shuffler flash`)"),
    (port.MicroPythonOnly(P), "/dev/ttyACM0 answers with MicroPython's prompt and no shuffler firmware: "
                              "run `shuffler flash --port /dev/ttyACM0`"),
    (port.EchoesBack(P), "/dev/ttyACM0 sends back what it is sent (a loopback, or a program that echoes): no board "
                         "answers there; check the port (`shuffler devices`)"),
    (port.OtherLines(P, "$GPGGA,123519"),
     "/dev/ttyACM0 sends lines that are not the shuffler's (\"$GPGGA,123519\"): another device, or a board running "
     "other software; check the port (`shuffler devices`), or put the firmware on a MicroPython board: "
     "`shuffler flash --port /dev/ttyACM0`"),
    (port.HeldByOthers(P, (port.Holder("minicom", 4242), port.Holder("python3", 17))),
     "/dev/ttyACM0 is open in another program too (minicom (pid 4242), python3 (pid 17)), which takes the board's "
     "answers: close it, then run this command again"),
    (port.LinkLost(P, "device reports readiness to read but returned no data"),
     "lost the connection to /dev/ttyACM0 (device reports readiness to read but returned no data)"),
    (port.ProtocolBroken(P, '{"ev": "loaded", "n": -5}', "n -5 is outside 0 to 1000"),
     '/dev/ttyACM0 broke the protocol: it sent {"ev": "loaded", "n": -5} (n -5 is outside 0 to 1000)'),
    (port.OtherProtocol(P, 2, 3), "/dev/ttyACM0 speaks protocol version 2, this tool speaks 3: flash the firmware "
                                  "that comes with it (`shuffler flash`)"),
    (port.OtherProtocol(P, None, 3), "/dev/ttyACM0 speaks another protocol version, this tool speaks 3"),
    (port.OtherDeclaration(P, 1234, 5678), "/dev/ttyACM0 declares its messages differently (table 1234, this tool's "
                                           "5678): flash the firmware that comes with this tool (`shuffler flash`)"),
    (port.NoPortGiven(), "no port given: use --port PORT (see `shuffler devices`)"),
    (port.NotMicroPython(P), "/dev/ttyACM0 does not answer like a MicroPython board (no raw REPL); check the port, "
                             "or install MicroPython on the board first"),
    (port.SendsWithoutStopping(P, 2.0),
     "/dev/ttyACM0 did not answer like a MicroPython board within 2 s: it sends without stopping (a board busy "
     "printing, or another device); nothing was written. Check the port, press the board's reset button and run "
     "the same command again (--connect-timeout gives it longer)"),
    (port.StoppedAnswering(P), "the board on /dev/ttyACM0 stopped answering before anything was written; press its "
                               "reset button (or plug it in again) and run the same command again"),
    (port.UnsupportedBoard(P, "samd"), "the board on /dev/ttyACM0 is a 'samd' MicroPython port, which the firmware "
                                       "does not support; nothing was written"),
    (port.WrongBoard(P, "sim", "esp32"),
     "wrong board: /dev/ttyACM0 is a 'sim' board, not 'esp32'; nothing was written (use --board sim)"),
    (port.CopyFailed("protocol.mpy", 3, 28, "[Errno 21] EISDIR"),
     "copy failed at protocol.mpy (3 of 28 files written: [Errno 21] EISDIR); the board has no main.py now, so it "
     "starts to the REPL and runs no firmware; run the same command again to finish"),
    (port.CopyFailed("app.mpy", 1, 28, "", interrupted=True), "(1 of 28 files written: stopped (Ctrl-C))"),
    (port.OtherFirmwareAnswers("0.0.1", "0.9.0"),
     "the board answers with firmware '0.0.1', expected '0.9.0'; the copy did not take, run the same command again"),
    (port.OtherProfile("esp32", "sim"), "the firmware runs with board profile 'esp32', expected 'sim'"),
    (port.NoHelloAfterFlash(10.0),
     "the firmware is written but did not answer hello within 10 s after the reset: press the board's reset button "
     "and run `shuffler check` on its port; if it still does not answer, run the same command again (or open the "
     "port in a terminal to see its start-up messages)"),
    (port.FlashGaveUp(P, 180.0),
     "gave up after 180 s: the board on /dev/ttyACM0 stopped answering; run the same command again"),
    (port.Flashing("0.9.0", 28, "rp2", P), "flashing firmware 0.9.0 (28 files) to the rp2 board on /dev/ttyACM0"),
    (port.Flashed("0.9.0", P, "rp2", 3), "ok: firmware 0.9.0 answers on /dev/ttyACM0 (board rp2, protocol 3)"),
    (port.SettingsKept(("cal.json", "config.json"), ()),
     "kept the board's calibration (cal.json) and configuration (config.json): the new firmware goes on with them"),
    (port.SettingsKept(("config.json",), ("cal.json",)),
     "kept the board's configuration (config.json): the new firmware goes on with it; it had no calibration "
     "(cal.json): `shuffler setup` calibrates it"),
    (port.SettingsKept(("cal.json",), ("config.json",)), "it had no configuration (config.json): the firmware's defaults"),
    (port.SettingsUnusable(protocol.BAD_CAL_DAMAGED), "warn: cal.json (the calibration) is damaged (not readable "
     "JSON): the board runs uncalibrated until `shuffler setup` stores a new one over it"),
    (port.SettingsUnusable(protocol.BAD_CONFIG_INVALID), "warn: config.json (the configuration) holds values no "
     "configuration has: the board runs on the firmware's default settings (docs/protocol.md) until `shuffler "
     "setup` stores a new one over it"),
    (port.NoShufflerFound(), "No shuffler found: plug one in, or start one with `shuffler sim-device`."),
    (port.VirtualListed("sim", 4242, "/tmp/board"), "virtual shuffler (pid 4242, flash /tmp/board)"),
    (port.VirtualListed("pico", 4242, ""), "emulated Raspberry Pi Pico (pid 4242)"),
]

TABLE_WORDS = [
    (table.NoneRunning(), "no virtual shuffler is running: start one with `shuffler sim-device`"),
    (table.NoneOnPort("/dev/pts/7"), "no virtual shuffler runs on /dev/pts/7; `shuffler devices` lists them"),
    (table.SeveralRunning(("/dev/pts/7", "/dev/pts/9")),
     "2 virtual shufflers run (/dev/pts/7, /dev/pts/9): pick one with --port or --control"),
    (table.BadControl("tcp:x"), "--control tcp:x: a control endpoint is tcp:PORT (a number from 1 to 65535) or the "
                                "path of a socket (`shuffler devices` lists them)"),
    (table.NothingAnswers("/tmp/w.sock"), "nothing answers on /tmp/w.sock: is the virtual shuffler running its firmware?"),
    (table.RestartedBeforeAnswer("tcp:4000"),
     "the virtual shuffler on tcp:4000 restarted before it answered: look with `shuffler table show`"),
    (table.LostShuffler("tcp:4000", "Connection reset by peer"),
     "lost the virtual shuffler on tcp:4000: Connection reset by peer"),
    (table.StackHolds("pack", 52), "pack: 52 cards"),
    (table.TrayHolds(40), "tray: 40 cards"),
    (table.Touched(), "touched"),
    (table.Lifted(17, table.LEFT, "A", 17), "lifted 17 cards from the left pile: load A holds 17"),
    (table.Lifted(3, table.TRAY, "aside", 3), "lifted 3 cards from the tray: the cards kept aside (aside) holds 3"),
    (table.Lifted(2, table.EXIT, "caught", 2), "lifted 2 cards from the exit: caught holds 2"),
    (table.Lifted(1, table.OUT_OF_TRAY, "A.left", 5),
     "lifted the 1 card that came out of the tray: A's left pile (A.left) holds 5"),
    (table.Lifted(1, table.TRAY, "B", 1), "lifted 1 card from the tray: load B holds 1"),
    (table.Lifted(4, table.RIGHT, "pack", 9), "from the right pile: the pack holds 9"),
    (table.StackCut("A"), "A: cut"),
    (table.Moved("A", 8, "B", 8), "A 8 · B 8"),
    (table.FaultInjected("jam:5"), "injected jam:5"),
    (table.FaultsCleared(), "faults cleared"),
    (table.PowerCycled(), "the power went and came back: the shuffler restarts"),
    (table.Swept(), "the table is empty"),
    (table.TableSeen((("pack", 12), ("A", 40)), ((table.TRAY, 0), (table.LEFT, 0), (table.RIGHT, 0)), 52),
     "stacks:  the pack 12 · load A 40\nmachine: tray 0 · left pile 0 · right pile 0\ncheck:   52 cards, every one once"),
    (table.TableSeen((), ((table.TRAY, 0), (table.LEFT, 0), (table.RIGHT, 0), (table.EXIT, 2)), 10, missing=2),
     "stacks:  none\nmachine: tray 0 · left pile 0 · right pile 0 · exit 2\ncheck:   10 cards: 2 missing"),
    (table.TableSeen((("x", 3),), (), 5, twice=1, stray=1), "check:   5 cards: 1 there twice, 1 not from this table"),
    (table.TableSeen((), (), 0), "check:   no cards on this table (`shuffler table new N` brings a pack)"),
    (table.HowToGoOn("tcp:4000", "0123456789abcdef", "/dev/pts/7", table_file="/tmp/board-table.json"),
     "control endpoint tcp:4000 (uid 0123456789abcdef)\nguide a shuffle on it: shuffler guide --port /dev/pts/7 "
     "--pack samba\nthe cards on its table are kept in /tmp/board-table.json, so they stay across restarts\n"
     "act as the person from another terminal (shuffler table --help):\n"
     "  shuffler table new 52          # a pack on the table, stack 'pack'\n"
     "  shuffler table put pack        # all of it face down in the tray\n"
     "  shuffler table touch           # touch the pad: it deals\n"
     "  shuffler table lift left A     # the left pile onto stack A\n"
     "  shuffler table show            # every stack, the tray, the piles\n"
     "  (add --control ENDPOINT when more than one virtual shuffler runs)"),
    (table.HowToGoOn("/tmp/w.sock", "", "/dev/pts/7", blank=True),
     "control endpoint /tmp/w.sock\nit is blank (only MicroPython): flash it, then bring it up: shuffler flash --port "
     "/dev/pts/7, then shuffler setup --port /dev/pts/7\nits flash and the cards on its table go when it stops (give "
     "--flash DIR to keep them)"),
    (table.HowToGoOn("/tmp/w.sock", "", "/dev/pts/7", kept="its flash is kept in /tmp/fs when it stops"),
     "\nits flash is kept in /tmp/fs when it stops\n"),
    (table.SimStarted("/dev/pts/7", "/tmp/board"), "virtual shuffler on /dev/pts/7 (flash /tmp/board)"),
    (table.SimStopped(), "virtual shuffler stopped"),
    (table.SimStopped(unexpectedly=True), "the virtual shuffler stopped unexpectedly"),
    (table.NotAFolder("/tmp/notes"), "--flash /tmp/notes: it is a file, not a folder"),
    (table.NotAFolder("/tmp/notes/board", "/tmp/notes"), "--flash /tmp/notes/board: /tmp/notes is a file, not a folder"),
    (table.Unwritable("/tmp/ro/run", "Permission denied"),
     "cannot write /tmp/ro/run: Permission denied; give --flash a folder you can write, and SHUFFLER_RUNTIME_DIR one "
     "too (or leave it unset)"),
    (table.Unwritable(None, "No space left on device"), "cannot write its folders: No space left on device;"),
    (table.NoTableFolder("/tmp/none"), "no folder /tmp/none for the table file"),
    (table.PicoHeapIsItsOwn(), "the emulated Pico's heap is its RP2040's own (about 190 KiB free after MicroPython "
                               "starts); --heap-kib is for --board sim"),
]


@pytest.mark.parametrize("record, said", PORT_WORDS, ids=[type(r).__name__ for r, _ in PORT_WORDS])
def test_a_port_record_says_what_a_person_reads_in_one_line(record: object, said: str) -> None:
    text = port_words.words(record)
    assert "\n" not in text and said in text


@pytest.mark.parametrize("record, said", TABLE_WORDS, ids=[type(r).__name__ for r, _ in TABLE_WORDS])
def test_a_card_table_record_says_what_a_person_reads(record: object, said: str) -> None:
    assert said in card_table_words.words(record)


def test_every_settings_file_flashing_keeps_has_its_words() -> None:
    from host import flashing

    assert set(flashing.SETTINGS) == set(port_words.SETTINGS_NAMES) == set(port_words.MISSING)


@pytest.mark.parametrize(("records", "words", "cases"), [(port, port_words, PORT_WORDS),
                                                         (table, card_table_words, TABLE_WORDS)])
def test_every_kind_is_worded_here_and_nothing_else_is_one(records, words, cases) -> None:  # type: ignore[no-untyped-def]
    kinds = {v for v in vars(records).values() if isinstance(v, type) and v.__module__ == records.__name__}
    assert {type(r) for r, _ in cases} == set(words.KINDS) == kinds - {port.Holder}
    with pytest.raises(TypeError):
        words.words("a sentence is no record")
