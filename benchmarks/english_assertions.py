"""How many test assertions look for English text outside the tests whose
job is the words (the rendering tests): how far the tests judge the guide
by its records, not its sentences (README.md, Testing).

Counted, in every tests/**/*.py but the rendering tests listed below: each
comparison (`in`, `not in`, `==`, `!=`) inside an `assert` statement with a
string literal of two or more words on either side (a plain string, or the
literal parts of an f-string, joined). A word is a whitespace-separated
token of letters, with punctuation at either end at most; so "press Enter"
and "load A" count, "ok", "--json", "profile_esp32.mpy" or "def f(" do not. One
assert with two such comparisons counts two. A helper's check outside an
`assert` (a wait for a screen's text) is counted apart, in its own figure.
Not seen: English held in a name first (a parametrized sentence), or
counted (`text.count("...") == 1`); the figure is a floor.

    python benchmarks/english_assertions.py [--list] [--all]

--list prints each counted assertion's file and line; --all counts the
rendering tests with the rest.
"""
from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# The tests whose point is the words: each front-end's rendering of the
# records, and the docs checked against what the code prints.
RENDERING = {
    "tests/shuffling/test_step_words_once.py": "the steps' one wording (shuffling/step_words.py)",
    "tests/shuffling/test_words.py": "the steps' words",
    "tests/shuffling/test_estimate_words.py": "an Estimate's printed form: its figure, error and kind",
    "tests/host/test_fault_catalogue.py": "the catalogue's words for every fault",
    "tests/host/test_guide_console.py": "the console's rendering",
    "tests/host/test_ledger_words.py": "the ledger's one wording (host/guide/ledger_words.py)",
    "tests/host/test_notice_words.py": "the console's words for the notices and steps the guide's tests judge by",
    "tests/host/test_guide_doc_transcript.py": "docs transcripts checked against the guide",
    "tests/host/test_bring_up_doc.py": "docs checked against setup",
    "tests/host/test_setup_words.py": "`shuffler setup`'s words for its steps, what it tells and its own findings",
    "tests/host/test_plan_cli.py": "`shuffler plan`'s printed table and words",
    "tests/host/test_quality_cmd.py": "`shuffler quality`'s printed report",
    "tests/host/test_cli_errors.py": "the command line's one-line refusals",
    "tests/host/test_finding_words.py": "`shuffler check`'s words for each finding's records, and its refusals",
    "tests/shuffling/test_mathematics_doc.py": "docs checked against the mathematics",
    "tests/shuffling/test_quality_doc.py": "docs checked against the quality report",
    "tests/shuffling/test_exact_mode_doc_figures.py": "docs checked against exact mode's figures",
    "tests/shuffling/test_plot.py": "the plots' labels",
    "tests/firmware/test_fw_docs.py": "docs checked against the firmware",
    "tests/firmware/test_fw_budget_doc.py": "docs checked against the firmware's budget",
    "tests/test_readme_install.py": "the README's install steps",
    "tests/web/test_page_screens.py": "the page's rendering of each screen",
    "tests/web/test_adapter.py": "the page's rendering of records (host/web/adapter.py)",
    "tests/web/test_messages.py": "the page's messages",
    "tests/host/test_device_words.py": "the device's reasons and the protocol's breaches in words (host/device_words.py)",
    "tests/host/test_command_words.py": "the words of flash, devices, the port's troubles and the virtual card table",
}

WORD = re.compile(r"^[^\w]*[A-Za-z][A-Za-z'’-]*[^\w]*$")
COMPARE = (ast.In, ast.NotIn, ast.Eq, ast.NotEq)


def literal_text(node: ast.AST) -> str | None:
    """The text a string literal (or an f-string's literal parts) holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def english(node: ast.AST) -> bool:
    text = literal_text(node)
    return text is not None and sum(1 for token in text.split() if WORD.match(token)) >= 2


def english_compares(tree: ast.AST) -> tuple[list[int], list[int]]:
    """The lines of English comparisons inside asserts, and outside them."""
    inside: set[int] = set()
    in_assert: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Compare) and _is_english(sub):
                    in_assert.append(sub.lineno)
                    inside.add(id(sub))
    elsewhere = [n.lineno for n in ast.walk(tree)
                 if isinstance(n, ast.Compare) and id(n) not in inside and _is_english(n)]
    return in_assert, elsewhere


def _is_english(cmp: ast.Compare) -> bool:
    if not any(isinstance(op, COMPARE) for op in cmp.ops):
        return False
    return any(english(side) for side in (cmp.left, *cmp.comparators))


def test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts)


def main(argv: list[str]) -> None:
    listing, count_all = "--list" in argv, "--all" in argv
    outside, rendering, helpers = Counter(), Counter(), Counter()
    for path in test_files():
        rel = path.relative_to(ROOT).as_posix()
        asserts, elsewhere = english_compares(ast.parse(path.read_text(), rel))
        if rel in RENDERING and not count_all:
            rendering[rel] += len(asserts)
            continue
        outside[rel] += len(asserts)
        helpers[rel] += len(elsewhere)
        if listing:
            for line in asserts:
                print(f"{rel}:{line}")
    where = "in every test file" if count_all else "outside the rendering tests"
    print(f"assertions on English text {where}: {sum(outside.values())} "
          f"in {sum(1 for v in outside.values() if v)} files")
    print(f"  (in the {len(RENDERING)} rendering test files: {sum(rendering.values())}; "
          f"English checks outside asserts, e.g. waits for a screen: {sum(helpers.values())})")
    for rel, n in outside.most_common(15):
        if n:
            print(f"  {n:4d}  {rel}")


if __name__ == "__main__":
    main(sys.argv[1:])
