"""The packages import downwards only:

    firmware, hardware  <-  shuffling  <-  simulator  <-  host

The firmware runs on the board and knows nothing of the laptop; the
shuffle mathematics (shuffling/) is the host's library and knows no
simulator; the virtual and emulated boards (simulator/) never import the
`shuffler` command. Inside the host, the part that talks to a device (the
link, the wire's messages, the guide's state machine, the plan) works the
same on a real board and imports no simulator: only the commands and the
page's virtual table do.

Every import is read from the source (ast), also those inside functions;
the firmware's and the simulated board's own modules, imported by their
bare names on the board, count as their folder's.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("firmware", "hardware", "shuffling", "simulator", "host")
ALLOWED = {
    "firmware": {"firmware"},
    "hardware": {"hardware"},
    "shuffling": {"shuffling", "firmware", "hardware"},
    "simulator": {"simulator", "shuffling", "firmware", "hardware"},
    "host": set(PACKAGES),
}
# The host's device side: it must work the same with a real board.
DEVICE_SIDE = ("host/device_link.py", "host/device_messages.py", "host/plan.py", "host/guide/")


def bare_modules() -> dict[str, str]:
    """Modules a board imports by bare name -> the package they belong to."""
    out = {p.stem: "firmware" for p in (REPO / "firmware").glob("*.py")}
    out.update({p.stem: "simulator" for p in (REPO / "simulator" / "virtual" / "board").glob("*.py")})
    return out


def imported_packages(text: str, bare: dict[str, str]) -> set[tuple[str, int]]:
    """(package, line) of every project import in a source file."""
    tree = ast.parse(text)
    out = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            package = top if top in PACKAGES else bare.get(top)
            if package is not None:
                out.add((package, node.lineno))
    return out


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py")
                  if "node_modules" not in p.parts)


def crossings(files: dict[str, str]) -> list[str]:
    """The imports that go upwards, in files (path in the repository -> source)."""
    bare = bare_modules()
    wrong = []
    for rel, text in files.items():
        layer = rel.split("/")[0]
        allowed = ALLOWED[layer] - ({"simulator"} if rel.startswith(DEVICE_SIDE) else set())
        for package, line in sorted(imported_packages(text, bare)):
            if package not in allowed:
                wrong.append(f"{rel}:{line} imports {package}")
    return wrong


def test_every_package_imports_only_the_layers_below_it() -> None:
    files = {p.relative_to(REPO).as_posix(): p.read_text() for p in sources()}
    assert len(files) > 100  # the tree was found
    assert crossings(files) == []


@pytest.mark.parametrize("path, source, found", [
    ("simulator/pico/flash_fs.py", "from host import flashing\n", "imports host"),
    ("host/device_link.py", "def f():\n    from simulator.virtual import registry\n", "imports simulator"),
    ("host/commands/check.py", "from simulator.virtual import registry\n", None),
    ("firmware/controller.py", "import board_sim\n", "imports simulator"),
    ("shuffling/steps.py", "import controller\n", None),
])
def test_a_crossing_is_seen(path: str, source: str, found: str | None) -> None:
    """The check reads imports anywhere in a file, by package or by a board's bare module name."""
    wrong = crossings({path: source})
    assert (wrong == []) if found is None else (len(wrong) == 1 and found in wrong[0]), wrong


def guide_imports() -> dict[str, set[str]]:
    """host/guide's modules -> the modules of host/guide each imports, read
    from the source (type-only imports and imports inside functions count:
    a loop among them is a loop to read, whatever runs). A package of the
    guide (notice_records/) is one module: its files' imports are its own."""
    folder = REPO / "host" / "guide"
    files = {p.stem: [p] for p in folder.glob("*.py") if p.stem != "__init__"}
    files.update({p.parent.name: sorted(p.parent.glob("*.py")) for p in folder.glob("*/__init__.py")})
    names = set(files)
    graph: dict[str, set[str]] = {}
    for name in names:
        found: set[str] = set()
        for node in (node for path in files[name] for node in ast.walk(ast.parse(path.read_text()))):
            if isinstance(node, ast.ImportFrom) and node.module == "host.guide":
                found |= {alias.name for alias in node.names if alias.name in names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("host.guide."):
                found.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("host.guide.")}
        graph[name] = found - {name}
    return graph


def test_no_module_of_the_guide_imports_one_that_imports_it_back() -> None:
    graph = guide_imports()
    assert {"machine", "core", "handlers", "waiting", "dealing", "exact_events", "notice_records"} <= set(graph)

    def loop_from(start: str) -> list[str] | None:
        path, seen = [start], set()

        def walk(node: str) -> list[str] | None:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return path + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    path.append(nxt)
                    found = walk(nxt)
                    if found:
                        return found
                    path.pop()
            return None
        return walk(start)

    loops = [loop for loop in (loop_from(name) for name in sorted(graph)) if loop]
    assert not loops, "import loops among host/guide's modules: " + "; ".join(" -> ".join(x) for x in loops)
