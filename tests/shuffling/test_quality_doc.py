"""docs/quality-report.md names tests and modules that exist."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "quality-report.md").read_text()


def test_tests_named_in_the_quality_doc_exist():
    refs = re.findall(r"(tests/[\w/]+\.py)(?:::(\w+))?", DOC)
    assert len(refs) > 10
    for fname, name in refs:
        path = ROOT / fname
        assert path.exists(), fname
        if name:
            assert f"def {name}(" in path.read_text(), f"{fname}::{name}"


def test_modules_named_in_the_quality_doc_exist():
    refs = set(re.findall(r"`((?:simulator|host|benchmarks)/[\w/]+\.py)`", DOC))
    assert refs
    assert [r for r in sorted(refs) if not (ROOT / r).exists()] == []
