"""The one English wording of each record of host/card_table_records.py, a
function of its fields, in the guide's words for the stacks and the
machine's places (shuffling/step_names.py)."""
from __future__ import annotations

from typing import Any, Callable

from host.card_table_records import *  # noqa: F403 - every record (its __all__) is worded here
from shuffling import steps

PLACE_WORDS = {TRAY: "tray", LEFT: "left pile", RIGHT: "right pile", EXIT: "exit", OUT_OF_TRAY: "came out of the tray"}


def stack_words(name: str) -> str:
    """A stack as the guide says it ("A's left pile"), with the name to type
    where the two differ in more than the article; a stack the guide has no
    word for (one the person named) as it was named."""
    load, _, side = name.partition(".")
    guides = name in (steps.PACK, steps.ASIDE, steps.LEFT_STACK, steps.RIGHT_STACK) or (
        load.isalpha() and load.isupper() and side in ("", "left", "right"))
    if not guides:
        return name
    said = steps.place(name)
    bare = said.removeprefix("the ").removeprefix("load ")
    return said if bare == name else f"{said} ({name})"


def _verdict(r: TableSeen) -> str:
    if r.made == 0:
        return "no cards on this table (`shuffler table new N` brings a pack)"
    parts = [f"{n} {word}" for n, word in ((r.missing, "missing"), (r.twice, "there twice"),
                                          (r.stray, "not from this table")) if n]
    return f"{r.made} cards: " + ", ".join(parts) if parts else f"{r.made} cards, every one once"


def _seen(r: TableSeen) -> str:
    stacks = " · ".join(f"{stack_words(name)} {n}" for name, n in r.stacks) or "none"
    machine = " · ".join(f"{PLACE_WORDS[p]} {n}" for p, n in r.places)
    return f"stacks:  {stacks}\nmachine: {machine}\ncheck:   {_verdict(r)}"


def _lifted(r: Lifted) -> str:
    what = (f"the {steps.cards(r.cards)} that came out of the tray" if r.place == OUT_OF_TRAY
            else f"{steps.cards(r.cards)} from the {PLACE_WORDS[r.place]}")
    return f"lifted {what}: {stack_words(r.stack)} holds {r.holds}"


def _how_to_go_on(r: HowToGoOn) -> str:
    kept = r.kept or (f"the cards on its table are kept in {r.table_file}, so they stay across restarts"
                      if r.table_file else
                      "its flash and the cards on its table go when it stops (give --flash DIR to keep them)")
    first = (f"it is blank (only MicroPython): flash it, then bring it up: shuffler flash --port {r.port}, "
             f"then shuffler setup --port {r.port}" if r.blank
             else f"guide a shuffle on it: shuffler guide --port {r.port} --pack samba")
    return "\n".join([
        f"control endpoint {r.control} (uid {r.uid})" if r.uid else f"control endpoint {r.control}",
        first,
        kept,
        "act as the person from another terminal (shuffler table --help):",
        "  shuffler table new 52          # a pack on the table, stack 'pack'",
        "  shuffler table put pack        # all of it face down in the tray",
        "  shuffler table touch           # touch the pad: it deals",
        "  shuffler table lift left A     # the left pile onto stack A",
        "  shuffler table show            # every stack, the tray, the piles",
        "  (add --control ENDPOINT when more than one virtual shuffler runs)",
    ])


_WORDING: dict[type, Callable[[Any], str]] = {
    NoneRunning: lambda r: "no virtual shuffler is running: start one with `shuffler sim-device`",
    NoneOnPort: lambda r: f"no virtual shuffler runs on {r.port}; `shuffler devices` lists them",
    SeveralRunning: lambda r: (f"{len(r.ports)} virtual shufflers run ({', '.join(r.ports)}): pick one with --port "
                               "or --control"),
    BadControl: lambda r: (f"--control {r.control}: a control endpoint is tcp:PORT (a number from 1 to 65535) or "
                           "the path of a socket (`shuffler devices` lists them)"),
    NothingAnswers: lambda r: f"nothing answers on {r.address}: is the virtual shuffler running its firmware?",
    RestartedBeforeAnswer: lambda r: (f"the virtual shuffler on {r.address} restarted before it answered: look with "
                                      "`shuffler table show`"),
    LostShuffler: lambda r: f"lost the virtual shuffler on {r.address}: {r.detail}",
    StackHolds: lambda r: f"{r.stack}: {r.cards} cards",
    TrayHolds: lambda r: f"tray: {r.cards} cards",
    Touched: lambda r: "touched",
    Lifted: _lifted,
    StackCut: lambda r: f"{r.stack}: cut",
    Moved: lambda r: f"{r.src} {r.src_holds} · {r.dst} {r.dst_holds}",
    FaultInjected: lambda r: f"injected {r.spec}",
    FaultsCleared: lambda r: "faults cleared",
    PowerCycled: lambda r: "the power went and came back: the shuffler restarts",
    Swept: lambda r: "the table is empty",
    TableSeen: _seen,
    HowToGoOn: _how_to_go_on,
    SimStarted: lambda r: f"virtual shuffler on {r.port} (flash {r.flash})",
    SimStopped: lambda r: "the virtual shuffler stopped unexpectedly" if r.unexpectedly else "virtual shuffler stopped",
    NotAFolder: lambda r: f"--flash {r.flash}: {'it' if r.file is None else r.file} is a file, not a folder",
    Unwritable: lambda r: (f"cannot write {r.path or 'its folders'}: {r.why}; give --flash a folder you can write, "
                           "and SHUFFLER_RUNTIME_DIR one too (or leave it unset)"),
    NoTableFolder: lambda r: f"no folder {r.folder} for the table file",
    PicoHeapIsItsOwn: lambda r: ("the emulated Pico's heap is its RP2040's own (about 190 KiB free after MicroPython "
                                 "starts); --heap-kib is for --board sim"),
}


def words(r: Any) -> str:
    """The one English wording of a card table's record (a TableSeen or a
    HowToGoOn is several lines)."""
    fn = _WORDING.get(type(r))
    if fn is None:
        raise TypeError(f"not a card table record: {r!r}")
    return fn(r)


KINDS: frozenset[type] = frozenset(_WORDING)
