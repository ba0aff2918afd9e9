"""The guide's handler table drawn: a Mermaid state diagram of the phases
and the facts that move the machine between them, and a table of the
defaults that apply in every phase. docs/guide.md shows what `markdown()`
returns (tests/host/test_guide_machine.py keeps it so).

    python -m host.guide.diagram
"""
from __future__ import annotations

# The handlers register themselves when the machine's modules are imported.
from host.guide import machine as _machine  # noqa: F401
from host.guide.table import ANY, TABLE, Phase

_NAME = {phase: phase.name.lower() for phase in Phase}


def mermaid() -> str:
    """Each phase's own handlers as arrows, labelled with the facts that take them."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for (phase, kind), t in sorted(TABLE.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if phase is ANY:
            continue
        for goes in t.goes or (phase,):
            arrows.setdefault((_NAME[phase], _NAME[goes]), []).append(kind)
    lines = ["stateDiagram-v2", "    [*] --> handling"]
    for (src, dst), kinds in sorted(arrows.items()):
        lines.append(f"    {src} --> {dst}: {', '.join(sorted(set(kinds)))}")
    lines += ["    finished --> [*]", "    stopped --> [*]"]
    return "\n".join(lines)


def defaults() -> list[tuple[str, str, str]]:
    """(fact, handler, phases it may lead to) for the facts handled alike in every phase."""
    out = []
    for (phase, kind), t in sorted(TABLE.items(), key=lambda kv: kv[0][1]):
        if phase is ANY:
            out.append((kind, t.handler, ", ".join(_NAME[g] for g in t.goes) or "stays"))
    return out


def markdown() -> str:
    rows = ["| fact | handler, in any phase without its own | may lead to |", "| --- | --- | --- |"]
    rows += [f"| `{kind}` | `{handler}` | {goes} |" for kind, handler, goes in defaults()]
    phases = ", ".join(f"`{_NAME[p]}` ({p.value})" for p in Phase)
    return "\n".join(["```mermaid", mermaid(), "```", "", f"Phases: {phases}.", "", *rows])


if __name__ == "__main__":
    print(markdown())
