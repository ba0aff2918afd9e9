"""The command line never shows a traceback for bad input."""
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_program():
    out = run("--help")
    assert out.returncode == 0
    assert "shuffler" in out.stdout.lower()


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
