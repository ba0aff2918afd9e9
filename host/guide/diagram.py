"""The guide's handlers (`HANDLERS`) drawn: a Mermaid state diagram of the phases
and the facts that move the machine between them, and a table of the
defaults that apply in every phase. docs/guide.md shows what `markdown()`
returns (tests/host/test_guide_machine.py keeps it so).

    python -m host.guide.diagram
"""
from __future__ import annotations

# The handlers register themselves when the machine's modules are imported.
from host.guide import machine as _machine  # noqa: F401
from host.guide.handlers import ANY, HANDLERS, ONWARD, PHASES

_NAME = {phase: phase.key for phase in PHASES}


def mermaid() -> str:
    """Each phase's own handlers as arrows, labelled with the facts that take
    them. A handler that goes on to whatever the routine's next step waits
    for (any of ONWARD) points at `next_step`; arrows to `stopped` (any
    handler may stop the guide) and back to the same phase are left out."""
    arrows: dict[tuple[str, str], set[str]] = {}
    for (phase, kind), t in HANDLERS.items():
        if phase is ANY:
            continue
        targets = ["next_step"] if set(t.goes) == set(ONWARD) else [_NAME[g] for g in t.goes]
        for dst in targets:
            if dst not in (_NAME[phase], "stopped"):
                arrows.setdefault((_NAME[phase], dst), set()).add(kind)
    lines = ["stateDiagram-v2", "    [*] --> handling",
             "    next_step: the next step's phase (handling, loading, touch, paused, after_pass) or finished"]
    for (src, dst), kinds in sorted(arrows.items()):
        lines.append(f"    {src} --> {dst}: {', '.join(sorted(kinds))}")
    lines += ["    finished --> [*]", "    stopped --> [*]"]
    return "\n".join(lines)


def defaults() -> list[tuple[str, str, str]]:
    """(fact, handler, phases it may lead to) for the facts handled alike in every phase."""
    out = []
    for (phase, kind), t in sorted(HANDLERS.items(), key=lambda kv: kv[0][1]):
        if phase is ANY:
            goes = "the next step's phase" if set(t.goes) == set(ONWARD) else ", ".join(_NAME[g] for g in t.goes)
            out.append((kind, t.name, goes or "stays"))
    return out


def markdown() -> str:
    rows = ["| fact | handler, in any phase without its own | may lead to |", "| --- | --- | --- |"]
    rows += [f"| `{kind}` | `{handler}` | {goes} |" for kind, handler, goes in defaults()]
    phases = ", ".join(f"`{p.key}` ({p.means})" for p in PHASES)
    note = ("Any fact may also stop the guide (a device that breaks the protocol or does not come back, a person "
            "who cannot go on): every phase leads to `stopped`. A fact a phase has no handler for is ignored.")
    return "\n".join(["```mermaid", mermaid(), "```", "", f"Phases: {phases}.", "", note, "", *rows])


if __name__ == "__main__":
    print(markdown())
