"""What a person does at the card table, as data, and its one wording.

Every instruction the guide gives (and every instruction of the plan and of
exact mode, and the quality report's one-sentence round of a routine) is one
of the step types below. The console prints `words(step)`;
the scripted person carries out the data; a page may draw it from
`to_dict(step)`. No one parses the English back.

Places on the table are named by strings: "pack" (the whole pack), a load
("A", "B", ...), a load's piles after its pass ("A.left", "A.right"), the
stacks of a trade ("left stack", "right stack"), the cards kept aside
("aside") and the machine's tray ("tray"). Piles and stacks are always read
top first and never turned over.

The records are in shuffling/step_records.py, their one wording in
shuffling/step_words.py, the places' names in shuffling/step_names.py and
the table work in shuffling/table_work.py; this module is where the rest of
the project reads them. Nothing here imports the rest of the project, so the
simulator and the host both build on it.
"""
from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from shuffling.step_names import *  # noqa: F401,F403 - read from here
from shuffling.step_records import *  # noqa: F401,F403
from shuffling.step_records import STEP_TYPES, Step
from shuffling.step_words import *  # noqa: F401,F403
from shuffling.step_words import words
from shuffling.table_work import *  # noqa: F401,F403


# -- as plain data ---------------------------------------------------------------------

def to_dict(step: Step) -> dict[str, Any]:
    """The step as JSON-ready data: its kind, its fields and its words."""
    out: dict[str, Any] = {"kind": type(step).__name__.lower()}
    out.update(asdict(step))
    out["words"] = words(step)
    return out


def kind_names() -> list[str]:
    return [t.__name__.lower() for t in STEP_TYPES]


def field_names(step_type: type) -> list[str]:
    return [f.name for f in fields(step_type)]
