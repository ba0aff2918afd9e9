"""The shuffle mathematics' packages: one package apart from the devices; exact mode builds on the
quality tools, never the other way."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported, at the top of the file?) for every import in `path`."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: resolve against the file's package
                package = path.parent.relative_to(ROOT).parts[: len(path.parent.relative_to(ROOT).parts)
                                                             - (node.level - 1)]
                module = ".".join((*package, module)) if module else ".".join(package)
            found.append((module, id(node) in top))
    return found


def test_quality_never_imports_exact_mode():
    offenders = [f"{p.relative_to(ROOT)}: {m}" for p in sorted((ROOT / "shuffling" / "quality").glob("*.py"))
                 for m, _ in _imports(p) if m.startswith("shuffling.exact_mode")]
    assert offenders == []


def test_exact_mode_imports_the_quality_tools_at_the_top():
    # No import hidden inside a function to dodge a cycle.
    hidden = [f"{p.relative_to(ROOT)}: {m}" for p in sorted((ROOT / "shuffling" / "exact_mode").glob("*.py"))
              for m, top in _imports(p) if m.startswith("shuffling.") and not top]
    assert hidden == []


def test_the_report_names_no_routine():
    # Every routine is a ReportRoutine; the report's code never asks which one it has.
    tree = ast.parse((ROOT / "shuffling" / "quality" / "report.py").read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not {"stack-trade", "pile-trade"} & strings
    assert not [n for n in names if "exact_mode" in n.lower()]
    compared = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)
                and any(isinstance(x, ast.Attribute) and x.attr == "name" for x in (n.left, *n.comparators))]
    assert compared == []


def test_the_mathematics_imports_no_device_and_no_host():
    # The host and the page use shuffling; it must stay importable without the virtual
    # shuffler, the emulated Pico or the host's own modules. The one firmware module it may use is the
    # portable code set the device runs as it is (one source for both sides).
    package = ROOT / "shuffling"
    offenders = [f"{p.relative_to(ROOT)}: {m}" for p in sorted(package.rglob("*.py"))
                 for m, _ in _imports(p)
                 if m.split(".")[0] == "host"
                 or (m.split(".")[0] == "firmware" and m != "firmware" and m != "firmware.exact_codes")
                 or m.split(".")[0] == "simulator"]
    assert offenders == []


def test_the_simulator_top_level_holds_only_its_two_packages():
    # The virtual shuffler and the emulated Pico; no loose modules beside them.
    top = sorted(p.name for p in (ROOT / "simulator").iterdir()
                 if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
    assert top == ["__init__.py", "pico", "virtual"]
