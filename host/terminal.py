"""The console a person reads: wrapped to the terminal's width, plain where
NO_COLOR asks for it.

On a terminal a long line is wrapped between words to the terminal's width
(never narrower than MIN_WIDTH: a step needs room to be read), its
continuation lines indented under its text, so a step numbered "12." or a
problem marked "!" still stands out. Piped to a file or another program, a
line stays one line, as a log or a test reads it.

NO_COLOR set (to anything but "") means no escape codes at all
(https://no-color.org asks for no colour; bold and dim are escape codes too):
no styles, and no live bar, which redraws its line with cursor codes and
without colour cannot tell what is done from what is left.
"""
from __future__ import annotations

import os
import re
import sys

from rich.console import Console
from rich.text import Text

MIN_WIDTH = 40
# Where a line's text begins: after its indentation and a step's number or a problem's "!".
_HANG = re.compile(r"\s*(?:\d+\.\s+|!\s+)?")


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def console(stderr: bool = False) -> Console:
    """The console the guide speaks on (stderr: when stdout carries JSON),
    bound to the stream it starts with: another program's output sent to
    the console while it runs (redirect_stdout) does not loop back."""
    return Console(file=sys.stderr if stderr else sys.stdout, highlight=False, soft_wrap=True,
                   color_system=None if no_color() else "auto")


def live(target: Console) -> bool:
    """Whether a live bar may redraw its line: a terminal, and styles allowed."""
    return target.is_terminal and target.color_system is not None


def lines(target: Console, markup: str) -> list[Text]:
    """The line (rich markup) as the console shows it: one Text per line on
    the screen; on a terminal wrapped to its width with a hanging indent."""
    out: list[Text] = []
    for line in Text.from_markup(markup).split("\n", allow_blank=True):
        if not target.is_terminal:
            out.append(line)
            continue
        width = max(target.width, MIN_WIDTH)
        hang = _HANG.match(line.plain)
        indent = hang.end() if hang is not None and hang.end() <= width // 3 else 0
        head, body = line[:indent], line[indent:]
        for i, part in enumerate(body.wrap(target, width - indent) or [Text("")]):
            part.rstrip()
            out.append(Text.assemble(head if i == 0 else " " * indent, part))
    return out
