"""The wiring tables in hardware/wiring-<board>.md, as the bring-up and the
checks quote them: a part that does not answer is named with the rows a
builder checks with a meter (signal, GPIO, what it connects to)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

# The simulated board models the ESP32 reference board (its capacitive pad,
# its receive ring), so it is wired as the ESP32's table says.
TABLE_OF = {"esp32": "esp32", "rp2": "rp2", "sim": "esp32"}
ROW = re.compile(r"^\| (\w+) \| (\d+|\"\w+\") \| (.+?) \|$", re.M)


@dataclass(frozen=True)
class Row:
    file: str  # hardware/wiring-rp2.md
    signal: str
    gpio: str
    connects: str

    def words(self) -> str:
        return f"{self.signal} (GPIO {self.gpio}: {self.connects})"


@lru_cache(maxsize=None)
def table(board: str) -> dict[str, Row]:
    """The pin map of the board's wiring file, by signal; empty for a board
    without one."""
    name = TABLE_OF.get(board)
    if name is None:
        return {}
    path = f"wiring-{name}.md"
    text = resources.files("hardware").joinpath(path).read_text()
    return {m.group(1): Row(f"hardware/{path}", m.group(1), m.group(2).strip('"'), m.group(3).strip())
            for m in ROW.finditer(text)}


def rows(board: str, signals: tuple[str, ...]) -> str:
    """'check hardware/wiring-rp2.md, rows exit (GPIO 14: ...) and sensor_power (...)',
    or a plain 'check its wiring' where the board has no table."""
    t = table(board)
    found = [t[s] for s in signals if s in t]
    if not found:
        return "check its wiring"
    said = [r.words() for r in found]
    joined = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"check {found[0].file}, row{'s' if len(said) > 1 else ''} {joined}"
