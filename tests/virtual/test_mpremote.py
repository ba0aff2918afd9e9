"""The real mpremote command line against the virtual board's pty."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.micropython

MPREMOTE = [sys.executable, "-m", "mpremote"]
TICKER = 'with open("boots.txt", "a") as f:\n    f.write("main\\n")\nimport time\nwhile True:\n    time.sleep_ms(10)\n'


def mpremote(port: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MPREMOTE, "connect", port, *args], capture_output=True, text=True, timeout=30
    )


@pytest.fixture
def ticking_virtual_shuffler(flash, start_virtual_shuffler, wait_for):
    # A board whose main.py runs forever: mpremote must interrupt it.
    (flash / "main.py").write_text(TICKER)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: (flash / "boots.txt").exists())
    return dev


def test_fs_cp_puts_the_file_in_the_flash_dir(ticking_virtual_shuffler, tmp_path: Path):
    src = tmp_path / "payload.py"
    data = "".join(f"line_{i} = {i * i}\n" for i in range(300))  # several chunks
    src.write_text(data)
    out = mpremote(ticking_virtual_shuffler.port, "fs", "cp", str(src), ":payload.py")
    assert out.returncode == 0, out.stderr
    assert (ticking_virtual_shuffler.flash_dir / "payload.py").read_text() == data


def test_fs_ls_lists_names_and_sizes(ticking_virtual_shuffler):
    (ticking_virtual_shuffler.flash_dir / "seven.txt").write_bytes(b"1234567")
    out = mpremote(ticking_virtual_shuffler.port, "fs", "ls")
    assert out.returncode == 0, out.stderr
    rows = {line.split()[-1]: line.split()[0] for line in out.stdout.splitlines()[1:]}
    assert rows["seven.txt"] == "7"
    assert rows["main.py"] == str(len(TICKER))


def test_fs_cp_from_the_board_and_cat(ticking_virtual_shuffler, tmp_path: Path):
    (ticking_virtual_shuffler.flash_dir / "data.bin").write_bytes(bytes(range(256)) * 3)
    dest = tmp_path / "back.bin"
    out = mpremote(ticking_virtual_shuffler.port, "fs", "cp", ":data.bin", str(dest))
    assert out.returncode == 0, out.stderr
    assert dest.read_bytes() == bytes(range(256)) * 3
    cat = mpremote(ticking_virtual_shuffler.port, "fs", "cat", "main.py")
    assert cat.stdout == TICKER


def test_exec_and_eval(ticking_virtual_shuffler):
    out = mpremote(ticking_virtual_shuffler.port, "exec", "print(sum(range(10)))", "eval", "2**10")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["45", "1024"]


def test_run_a_local_script(ticking_virtual_shuffler, tmp_path: Path):
    script = tmp_path / "job.py"
    script.write_text("import os\nprint('main.py' in os.listdir())\n")
    out = mpremote(ticking_virtual_shuffler.port, "run", str(script))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"  # it ran on the board, in the folder that holds main.py


def test_rename_based_atomic_write_lands_in_the_flash_dir(ticking_virtual_shuffler):
    code = "f = open('cfg.tmp', 'w'); f.write('{\"a\": 1}'); f.close(); import os; os.rename('cfg.tmp', 'cfg.json')"
    out = mpremote(ticking_virtual_shuffler.port, "exec", code)
    assert out.returncode == 0, out.stderr
    assert (ticking_virtual_shuffler.flash_dir / "cfg.json").read_text() == '{"a": 1}'
    assert not (ticking_virtual_shuffler.flash_dir / "cfg.tmp").exists()


@pytest.mark.restart
def test_soft_reset_restarts_the_interpreter_without_main(ticking_virtual_shuffler):
    before = ticking_virtual_shuffler.boots
    pid = ticking_virtual_shuffler.interpreter_pid
    out = mpremote(ticking_virtual_shuffler.port, "soft-reset")
    assert out.returncode == 0, out.stderr
    assert ticking_virtual_shuffler.boots > before
    assert ticking_virtual_shuffler.interpreter_pid != pid
    # raw-REPL soft resets do not run main.py (as on a board)
    assert (ticking_virtual_shuffler.flash_dir / "boots.txt").read_text().split() == ["main"]


@pytest.mark.restart
def test_reset_is_a_hard_reset_that_runs_main_again(ticking_virtual_shuffler, wait_for):
    out = mpremote(ticking_virtual_shuffler.port, "reset")
    assert out.returncode == 0, out.stderr
    wait_for(lambda: (ticking_virtual_shuffler.flash_dir / "boots.txt").read_text().split() == ["main", "main"])


def test_a_second_mpremote_session_after_the_first(ticking_virtual_shuffler):
    first = mpremote(ticking_virtual_shuffler.port, "exec", "print('one')")
    second = mpremote(ticking_virtual_shuffler.port, "exec", "print('two')")
    assert (first.stdout.strip(), second.stdout.strip()) == ("one", "two")


def test_mount_a_local_folder(ticking_virtual_shuffler, tmp_path: Path):
    (tmp_path / "note.txt").write_text("note-7d1c")  # the test's own data, no sentence
    out = mpremote(ticking_virtual_shuffler.port, "mount", str(tmp_path), "exec", "print(open('/remote/note.txt').read())")
    assert out.returncode == 0, out.stderr
    assert "note-7d1c" in out.stdout.splitlines()  # after mpremote's own line saying what it mounted
