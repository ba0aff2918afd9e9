"""The command line never shows a traceback for bad input."""
import os
import subprocess
import sys

import pytest

from firmware import protocol
from shuffling.limits import out_of_range


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_program():
    out = run("--help")
    assert out.returncode == 0
    assert "shuffler" in out.stdout.lower()


def test_version_says_the_firmware_and_the_protocol():
    out = subprocess.run([sys.executable, "-m", "host.cli", "--version"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and not out.stderr
    assert out.stdout.strip() == f"shuffler {protocol.FIRMWARE_VERSION} (protocol {protocol.PROTOCOL_VERSION})"


def test_unknown_command_is_one_line_and_nonzero():
    out = run("no-such-command")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "no-such-command" in out.stderr


def test_every_listed_command_loads_under_its_own_name():
    import importlib

    from host.cli import _COMMANDS, cli

    for name, (spec, short_help) in _COMMANDS.items():
        module, attr = spec.split(":")
        command = getattr(importlib.import_module(module), attr)
        assert command.name == name
        assert short_help == command.get_short_help_str(limit=1000)  # the help lists it as it is
        assert cli.get_command(None, name) is command  # type: ignore[arg-type]


def test_loading_the_entry_point_imports_no_subcommand():
    # The console script imports host.cli before main() can catch anything.
    code = "import sys; import host.cli; print(any(m.startswith('host.commands.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_bare_command_prints_help_and_succeeds():
    out = run()
    assert out.returncode == 0
    assert "Commands:" in out.stdout and "guide" in out.stdout
    assert not out.stderr.strip()


# -- what a person gives that cannot be: one line naming what is allowed, never an internal error --

def one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode in (1, 2), (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_a_folder_or_a_file_given_as_the_port_is_named_as_such(tmp_path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("not a port\n")
    for cmd in ("setup", "check"):
        line = one_line(run(cmd, "--port", str(tmp_path)))
        assert line == f"shuffler: {tmp_path} is a folder, not a serial port (see `shuffler devices`)"
        line = one_line(run(cmd, "--port", str(plain)))
        assert line == f"shuffler: {plain} is a file, not a serial port (see `shuffler devices`)"
        assert "Errno" not in line


def test_a_control_endpoint_that_is_no_port_number_is_refused() -> None:
    line = one_line(run("table", "--control", "tcp:abc", "show"))
    assert "--control tcp:abc" in line and "tcp:PORT (a number from 1 to 65535)" in line


def test_a_flash_folder_or_runtime_folder_under_a_file_is_refused(tmp_path) -> None:
    plain = tmp_path / "a-file"
    plain.write_text("")
    line = one_line(run("sim-device", "--flash", str(plain / "board")))
    assert line == f"shuffler: --flash {plain / 'board'}: {plain} is a file, not a folder"
    out = subprocess.run([sys.executable, "-m", "host.cli", "sim-device", "--flash", str(tmp_path / "board")],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SHUFFLER_RUNTIME_DIR": str(plain / "run")})
    line = one_line(out)
    assert f"cannot write {plain / 'run'}" in line and "SHUFFLER_RUNTIME_DIR" in line


def test_numbers_and_names_outside_what_is_allowed_are_refused() -> None:
    line = one_line(run("plan", "--capacity", "99999999999"))
    assert "--capacity must be a whole number from 2 to 100000" in line
    line = one_line(run("quality", "--pack", "", "--no-plot"))
    assert "unknown pack ''" in line and "valid packs: " in line and "samba" in line


@pytest.mark.parametrize("value, shown", [(0, "0"), (101, "101"), (True, "True"), (2.0, "2.0")])
def test_a_setting_out_of_range_is_one_line_saying_what_is_allowed(value, shown):
    assert out_of_range("--rounds", value, 1, 100) == f"--rounds must be between 1 and 100, not {shown}"


def test_a_setting_out_of_range_names_the_unit_and_groups_digits():
    assert out_of_range("--capacity", 100_001, 2, 100_000, "cards") == (
        "--capacity must be between 2 and 100,000 cards, not 100,001")
