"""One version for the project: the package's (pyproject.toml) is the
firmware's it flashes (`shuffler --version`'s line, which says it with the
protocol: tests/host/test_cli_errors.py)."""
import ast
import tomllib
from pathlib import Path

from firmware import protocol

REPO = Path(__file__).resolve().parents[2]


def _declared(module_file: Path, name: str) -> object:
    """The literal a module assigns to `name`, read as setuptools reads an
    `attr` version: from the source, without importing it."""
    for node in ast.parse(module_file.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{module_file} does not assign {name}")


def test_the_package_reads_its_version_from_the_firmware():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in config["project"]  # no second copy to fall behind
    assert "version" in config["project"]["dynamic"]
    attr = config["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, name = attr.rsplit(".", 1)
    source = REPO / (module.replace(".", "/") + ".py")
    assert _declared(source, name) == protocol.FIRMWARE_VERSION
    assert source == REPO / "firmware" / "protocol.py"  # the file flashed to the board, whose hello says it
