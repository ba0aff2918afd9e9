"""The person's instructions are worded once, in shuffling/steps.py.

Every wording branch of steps.words() is rendered with unusual values; what
stays of a sentence once its values are cut out (runs of four words or more)
are its fixed words. No other module of the project (host, simulator,
firmware, the web page's scripts) may hold those fixed words in a string:
it would be writing a step's sentence itself instead of building the step
and asking for its words. Docstrings and comments may quote them."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from shuffling import steps

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("host", "simulator", "firmware")
SKIP = {"node_modules", "__pycache__", ".venv"}

# Words that may stand elsewhere, by file: they are not a step's sentence.
ALLOWED = {
    # The connection message asks the person to wait; it is no step of the routine.
    "host/guide/notice_words.py": {"leave the cards as they are"},
    # The virtual shuffler's how-to lines say what `shuffler table put` does.
    "host/card_table_words.py": {"face down in the tray"},
    # The bring-up's own steps, worded once there, ask for cards in the tray too.
    "host/setup_steps.py": {"face down in the tray"},
    # Short captions drawn inside a Fix step's picture, under the step's own words.
    "host/web/static/picture.js": {"back in the tray", "leave the cards as they are"},
}

Q, R, T = "Q", "R", "T"  # load names no sentence uses as a fixed word
SAMPLES: list[steps.Step] = [
    steps.Cut(steps.PACK, (Q,), (37,)), steps.Cut(steps.PACK, (Q, R), (37, 41), first=True),
    steps.Cut(steps.PACK, (Q, R), (37, 41), by_eye=True), steps.Cut(steps.PACK, (Q, R), (37, 41), by_eye=True, counted=True),
    steps.PutInTray(Q, 37), steps.PutInTray(Q, 37, about=True), steps.PutInTray(Q, 37, again=True), steps.PutInTray(Q, None),
    steps.PutInTray(Q, None, rest=True), steps.PutInTray(steps.ASIDE, 37), steps.Reload(Q, 37),
    steps.Reload(Q, 37, after_stop=True),
    *[steps.Touch(why, Q, 37) for why in steps.TOUCH_WHYS],
    steps.Lift(Q), steps.Lift(Q, 37, 41), steps.Lift(Q, rows=True), steps.Lift(Q, stacked=True),
    steps.Stack((steps.left_of(Q), steps.right_of(Q)), Q, 37), steps.Stack((steps.LEFT_STACK, steps.RIGHT_STACK), steps.PACK),
    steps.Stack((steps.left_of(Q), steps.left_of(R)), steps.LEFT_STACK, 43), steps.Stack((steps.left_of(Q),), steps.group(Q, T), 43),
    steps.Stack((steps.right_of(Q), steps.right_of(R)), T, 4, (steps.right_of(Q), steps.right_of(R))),
    steps.Stack((steps.right_of(Q), steps.right_of(R)), T, 4, (steps.right_of(R),)),
    steps.Cut(steps.group(Q, T), (Q, R), (37, 41), by_eye=True, counted=True),
    steps.Move(37, Q, R, down=True, sizes=(41, 43)), steps.Move(37, Q, R, down=False),
    steps.EvenOut(Q, R, (37, 41)),
    steps.Draw(((Q, ((steps.LEFT_STACK, 37, True),)), (R, ((steps.RIGHT_STACK, 41, True),))), 7),
    steps.Draw(((Q, ((steps.LEFT_STACK, 37, True), (steps.RIGHT_STACK, 41, False))),), 7),
    steps.Gather((Q,)), steps.Gather((steps.LEFT_STACK, steps.RIGHT_STACK)),
    steps.Gather((steps.LEFT_STACK, steps.RIGHT_STACK), "casino"), steps.Gather((Q,), "casino"),
    steps.Swap(Q, R), steps.Unload(Q), steps.SetAside(Q, 37),
    *[steps.Fix(what, 37, Q) for what in steps.FIX_WHATS], steps.Collect(37), steps.Collect(37, 2, Q),
    *[steps.RoundSummary(routine, sizes, trade=37, rounds=7) for routine in ("stack-trade", "pile-trade", "exact")
      for sizes in ((91,), (91, 90), (91, 90, 90))],
    *[steps.RoundSummary("exact-split", sizes, rounds=37) for sizes in ((91, 19), (91, 19, 83))],
]


def _fixed_words(sentence: str) -> list[str]:
    """Runs of four or more words of a sentence between its values and its punctuation, lower case."""
    runs = re.split(r"[^A-Za-z' -]+|\b[QRT]\b|\b[QRT]'s\b|'", sentence)
    out = []
    for run in runs:
        run = " ".join(run.split()).lower().strip(" -")
        if len(run.split()) >= 4:
            out.append(run)
    return out


def fixed_phrases() -> set[str]:
    return {phrase for step in SAMPLES for phrase in _fixed_words(steps.words(step))}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every string in code, docstrings left out; an f-string's
    values are cut out so that no phrase runs across them."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "\0".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "\0"
                             for v in node.values)
            found.append((node.lineno, text))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and id(node) not in inside_fstring):
            found.append((node.lineno, node.value))
    return found


def offences(path: Path, source: str, phrases: set[str]) -> list[str]:
    """Where `source` holds one of the fixed phrases, as 'path:line: phrase'."""
    if path.suffix == ".py":
        strings = _strings(ast.parse(source))
    else:  # a script of the web page: every line
        strings = list(enumerate(source.splitlines(), start=1))
    out = []
    for line, text in strings:
        flat = " ".join(text.lower().split())
        out += [f"{path}:{line}: {p!r}" for p in sorted(phrases) if p in flat]
    return out


def project_sources() -> list[Path]:
    files = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if SKIP & set(path.parts) or path.suffix not in (".py", ".js", ".html"):
                continue
            files.append(path)
    return files


def test_the_samples_reach_every_step_kind_and_give_many_fixed_phrases() -> None:
    assert {type(x) for x in SAMPLES} == set(steps.STEP_TYPES)
    phrases = fixed_phrases()
    assert len(phrases) >= 40
    # The fixed words of a few sentences, as a person reads them.
    for expected in ("face down in the tray", "touch the sensor to start the pass",
                     "piles without turning them over", "is shuffled and ready to deal",
                     "then stack all the left piles in load order on top of all the right piles in load order"):
        assert any(expected in p for p in phrases), expected


def test_the_check_finds_a_sentence_written_outside_steps() -> None:
    phrases = fixed_phrases()
    for step in (steps.PutInTray("B", 81), steps.Lift("C", rows=True), steps.Fix("jam"),
                 steps.RoundSummary("pile-trade", (81, 81))):
        copied = f'def say(n):\n    return "{steps.words(step)}"\n'
        assert offences(Path("copy.py"), copied, phrases), step
    fstring = 'def say(load, n):\n    return f"Put load {load} ({n} cards) face down in the tray."\n'
    assert offences(Path("copy.py"), fstring, phrases)
    split = 'X = ("Take out B\'s piles without turning them over: its left pile "\n     "to the left row.")\n'
    assert offences(Path("copy.py"), split, phrases)
    assert offences(Path("app.js"), 'el.text = "Touch the sensor to start the pass.";\n', phrases)
    # Quoting a sentence in a docstring is not writing it.
    assert not offences(Path("copy.py"), f'def f():\n    """Says: {steps.words(steps.Fix("jam"))}"""\n', phrases)


def test_no_module_but_steps_writes_a_step_sentence() -> None:
    phrases = fixed_phrases()
    sources = project_sources()
    assert any(p.name == "machine.py" and p.parent.name == "guide" for p in sources)
    assert any(p.suffix == ".js" for p in sources)
    found = []
    for path in sources:
        if path in (ROOT / "shuffling" / "steps.py", ROOT / "shuffling" / "step_words.py"):
            continue
        rel = path.relative_to(ROOT)
        found += offences(rel, path.read_text(), phrases - ALLOWED.get(rel.as_posix(), set()))
    assert found == []


def test_what_a_step_on_the_table_runs_into_is_worded_from_its_record() -> None:
    assert steps.trouble_words(steps.NotOnTable("C", ("A", steps.LEFT_STACK))) == (
        "there is no load C on the table (the table has load A, the left stack)")
    assert steps.trouble_words(steps.NotOnTable("C", ())) == "there is no load C on the table (the table has nothing)"
    assert steps.trouble_words(steps.CutDoesNotAddUp(steps.PACK, 6, 10)) == "the cut sizes add up to 6, the pack holds 10"
    assert steps.trouble_words(steps.HoldsTooFew("B", 3, 5)) == "load B holds 3 cards, not 5"
    # The refusal says its record's words.
    assert str(steps.TableError(steps.HoldsTooFew("B", 3, 5))) == steps.trouble_words(steps.HoldsTooFew("B", 3, 5))


def test_a_stack_whose_piles_may_have_no_card_says_to_leave_out_any_that_has_none() -> None:
    a_right, b_right = steps.right_of("A"), steps.right_of("B")
    assert steps.words(steps.Stack((a_right, b_right), "Q", 4, (a_right, b_right))) == (
        "Put A's right pile on top of B's right pile: that is the new load Q (4 cards). "
        "A's right pile or B's right pile may have no card: leave out any that has none.")
    assert "may have no card" not in steps.words(steps.Stack((a_right, b_right), "Q", 4))
