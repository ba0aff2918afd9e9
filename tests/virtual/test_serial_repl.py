"""The virtual board at the serial level: boot files, Ctrl-C, friendly and raw
REPL, raw-paste, soft and hard resets, a host that comes and goes."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.micropython

# Each boot appends its name to boots.txt (relative path: proves cwd = flash).
BOOT = 'with open("boots.txt", "a") as f:\n    f.write("boot\\n")\nprint("boot.py ran")\n'
MAIN_LOG = 'with open("boots.txt", "a") as f:\n    f.write("main\\n")\nprint("main.py ran")\n'
MAIN_LOOP = MAIN_LOG + "import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep_ms(5)\n"
MAIN_READ = MAIN_LOG + 'import sys\nwhile True:\n    line = sys.stdin.readline()\n    print("got", line.strip())\n'


def boots_log(flash: Path) -> list[str]:
    path = flash / "boots.txt"
    return path.read_text().split() if path.exists() else []


def write_files(flash: Path, **files: str) -> None:
    for name, text in files.items():
        (flash / f"{name}.py").write_text(text)


def test_boot_then_main_run_at_power_on_in_the_flash_dir(flash, start_virtual_shuffler, wait_for):
    write_files(flash, boot=BOOT, main=MAIN_LOG)
    start_virtual_shuffler(flash)
    wait_for(lambda: len(boots_log(flash)) >= 2)
    assert boots_log(flash) == ["boot", "main"]


def test_ctrl_c_stops_a_running_program_and_leaves_a_friendly_repl(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, main="marker = 'set by main'\n" + MAIN_LOOP)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main"])
    con = open_console(dev.port)
    pid = dev.interpreter_pid
    con.write(b"\x03")
    out = con.expect(b">>> ")
    assert b'File "main.py", line' in out and b"KeyboardInterrupt" in out
    assert b"mp_startup" not in out  # the traceback a board would print
    con.write(b"print(marker)\r")  # the program's globals stay, as after main.py on a board
    con.expect(b"\nset by main")
    assert dev.interpreter_pid == pid  # interrupted, not restarted


def test_ctrl_c_sent_while_the_board_boots_still_stops_the_program(flash, start_virtual_shuffler, open_console):
    write_files(flash, main=MAIN_LOOP)
    dev = start_virtual_shuffler(flash)
    con = open_console(dev.port)
    con.write(b"\x03")  # most likely before main.py has started
    con.expect(b">>> ")
    con.write(b"print('at the' + ' prompt')\r")
    con.expect(b"at the prompt")


def test_ctrl_c_interrupts_a_program_blocked_on_serial_input(flash, start_virtual_shuffler, open_console):
    write_files(flash, main=MAIN_READ)
    dev = start_virtual_shuffler(flash)
    con = open_console(dev.port)
    con.write(b"hello\n")
    con.expect(b"got hello")
    con.write(b"\x03")
    assert b"KeyboardInterrupt" in con.expect(b">>> ")


def test_ctrl_c_at_the_prompt_keeps_the_session(flash, start_virtual_shuffler, open_console):
    dev = start_virtual_shuffler(flash)
    con = open_console(dev.port)
    con.write(b"\r")
    con.expect(b">>> ")
    con.write(b"x = 41\r")
    # The prompt after this line's echo: an earlier prompt (the banner's and the one after the first
    # Enter may both be waiting) would let the Ctrl-Cs arrive while the line still runs.
    con.expect(b"x = 41\r\n>>> ")
    pid = dev.interpreter_pid
    con.write(b"\x03\x03")
    con.expect(b">>> ")
    con.write(b"x + 1\r")
    con.expect(b"x + 1\r\n42")
    assert dev.interpreter_pid == pid


@pytest.mark.restart
def test_ctrl_d_at_the_friendly_repl_is_a_soft_reboot(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, boot=BOOT, main=MAIN_LOG)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: len(boots_log(flash)) == 2)
    con = open_console(dev.port)
    con.write(b"x = 1; print('o' + 'k')\r")
    con.expect(b"\nok")
    con.write(b"\x04")
    out = con.expect(b"main.py ran")
    assert out.index(b"MPY: soft reboot") < out.index(b"boot.py ran")
    assert b"MicroPython" in con.expect(b">>> ")  # the banner
    assert boots_log(flash) == ["boot", "main", "boot", "main"]
    con.write(b"x\r")
    con.expect(b"NameError")  # a fresh interpreter


def test_raw_repl_executes_and_ctrl_b_leaves_it(flash, start_virtual_shuffler, open_console):
    dev = start_virtual_shuffler(flash)
    con = open_console(dev.port)
    con.write(b"\r\x01")
    con.expect(b"raw REPL; CTRL-B to exit\r\n>")
    con.write(b"print(6 * 7)\x04")
    assert con.expect(b"\x04>") == b"OK42\n\x04\x04>"
    con.write(b"1/0\x04")
    out = con.expect(b"\x04>")
    assert out.startswith(b"OK\x04") and b"ZeroDivisionError" in out
    con.write(b"\x02")
    assert b"MicroPython" in con.expect(b">>> ")


def test_raw_paste_mode_is_offered_and_works(flash, start_virtual_shuffler, open_console):
    dev = start_virtual_shuffler(flash)
    con = open_console(dev.port)
    con.write(b"\r\x01")
    con.expect(b"raw REPL; CTRL-B to exit\r\n>")
    con.write(b"\x05A\x01")
    # "R\x01" (supported), the window size (2 bytes), then the first window grant
    assert con.read_exact(2) == b"R\x01"
    assert int.from_bytes(con.read_exact(2), "little") > 0
    assert con.read_exact(1) == b"\x01"
    con.write(b"print('pasted')\x04")
    con.expect(b"\x04")  # end of data acknowledged
    assert b"pasted" in con.expect(b"\x04>")


@pytest.mark.restart
def test_soft_reset_in_raw_repl_runs_boot_only_and_stays_raw(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, boot=BOOT, main=MAIN_LOOP)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: len(boots_log(flash)) == 2)
    con = open_console(dev.port)
    con.write(b"\r\x03\r\x01")
    con.expect(b"raw REPL; CTRL-B to exit\r\n>")
    con.write(b"\x04")
    out = con.expect(b"raw REPL; CTRL-B to exit\r\n>")
    assert out.index(b"OK\r\nMPY: soft reboot\r\n") < out.index(b"boot.py ran")
    assert b"Type \"help()\"" not in out  # no friendly banner on the way
    assert boots_log(flash) == ["boot", "main", "boot"]
    con.write(b"print('still raw')\x04")
    assert b"still raw" in con.expect(b"\x04>")


@pytest.mark.restart
def test_machine_reset_is_a_hard_reset(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, main=MAIN_LOG)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main"])
    pid, boots = dev.interpreter_pid, dev.boots
    con = open_console(dev.port)
    con.write(b"\r")
    con.expect(b">>> ")
    con.write(b"import machine; machine.reset()\r")
    out = con.expect(b"main.py ran")
    assert b"soft reboot" not in out
    wait_for(lambda: dev.boots == boots + 1)
    assert dev.interpreter_pid != pid


@pytest.mark.restart
def test_the_reset_button_runs_main_again(flash, start_virtual_shuffler, wait_for):
    write_files(flash, main=MAIN_LOG)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main"])
    dev.hard_reset()
    wait_for(lambda: boots_log(flash) == ["main", "main"])


@pytest.mark.restart
def test_soft_reset_from_the_api_runs_main_again(flash, start_virtual_shuffler, wait_for):
    write_files(flash, main=MAIN_LOG)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main"])
    dev.soft_reset()
    wait_for(lambda: boots_log(flash) == ["main", "main"])
    assert dev.output().count(b"MPY: soft reboot") == 1


def test_a_program_keeps_running_while_the_host_closes_and_reopens(flash, start_virtual_shuffler, open_console):
    ticker = "import time\nn = 0\nwhile True:\n    n += 1\n    print('tick', n)\n    time.sleep_ms(20)\n"
    write_files(flash, main=ticker)
    dev = start_virtual_shuffler(flash)
    first = open_console(dev.port)
    first.expect(b"tick ")
    before = int(first.expect(b"\n"))
    first.close()
    time.sleep(0.5)
    second = open_console(dev.port)
    second.expect(b"tick ")
    after = int(second.expect(b"\n"))
    assert after >= before + 3  # it went on counting while nobody listened
    second.write(b"\x03")
    second.expect(b">>> ")


def test_output_while_nobody_listens_is_dropped(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, main='print("before anyone listened")\n')
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: b"before anyone listened" in dev.output())
    con = open_console(dev.port)
    con.write(b"\r")
    assert b"before anyone listened" not in con.expect(b">>> ")


def test_stop_ends_the_interpreter_and_the_port(flash, start_virtual_shuffler):
    dev = start_virtual_shuffler(flash)
    pid = dev.interpreter_pid
    port = dev.port
    assert pid is not None
    dev.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not os.path.exists(port) or not dev.running


def test_heap_size_can_be_set_like_a_small_board(flash, start_virtual_shuffler, open_console):
    dev = start_virtual_shuffler(flash, heap_kib=96)
    con = open_console(dev.port)
    con.write(b"\r")
    con.expect(b">>> ")
    con.write(b"import gc; gc.collect(); print('he' + 'ap', gc.mem_free() + gc.mem_alloc())\r")
    con.expect(b"heap ")
    total = int(con.expect(b"\n").strip())
    assert 64 * 1024 < total <= 96 * 1024


def test_two_quick_ctrl_c_leave_the_repl_without_a_restart(flash, start_virtual_shuffler, open_console, wait_for):
    write_files(flash, main=MAIN_LOOP)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main"])
    pid, boots = dev.interpreter_pid, dev.boots
    con = open_console(dev.port)
    con.write(b"\x03\x03\x03")
    con.expect(b"KeyboardInterrupt")
    con.write(b"print('alive')\r")
    con.expect(b"alive\n")
    assert (dev.interpreter_pid, dev.boots) == (pid, boots)


@pytest.mark.restart
def test_sys_exit_in_main_is_a_soft_reboot(flash, start_virtual_shuffler, wait_for):
    once = MAIN_LOG + 'import os, sys\nif "exited" not in os.listdir():\n    open("exited", "w").close()\n    sys.exit()\n'
    write_files(flash, main=once)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main", "main"])
    out = dev.output()
    assert out.count(b"MPY: soft reboot") == 1


@pytest.mark.watchdog
@pytest.mark.restart
def test_watchdog_exit_and_a_crash_are_hard_resets(flash, start_virtual_shuffler, wait_for):
    # The sim board ends the process with exit code 3 when its watchdog fires.
    once = MAIN_LOG + 'import os, sys\nif "fired" not in os.listdir():\n    open("fired", "w").close()\n    sys.exit(3)\n'
    write_files(flash, main=once)
    dev = start_virtual_shuffler(flash)
    wait_for(lambda: boots_log(flash) == ["main", "main"])
    pid = dev.interpreter_pid
    assert pid is not None
    os.kill(pid, 9)  # the interpreter crashes
    wait_for(lambda: boots_log(flash) == ["main", "main", "main"])
    assert b"soft reboot" not in dev.output()
