"""The simulated board's control endpoint: the requests a test or the
virtual shuffler's tools send to the world (load, take, touch, inject, fix,
battery, query, unplug), else the card table's (sim_table.py). Each request
is a dict with its "op"; each answer a dict, or ValueError for a request
that cannot be done.

`handle(board, req)` takes the sim board (board_sim.Board) or the emulated
Pico's face of it (simulator/pico/control.py): it touches only their world,
table, led_on and _reset.
"""

import os
import sys

import board_sim


def handle(board, req):
    op = req.get("op")
    handler = _WORLD_OPS.get(op) if isinstance(op, str) else None
    if handler is not None:
        return handler(board, req)
    rep = board.table.handle(op, req)
    if rep is not None:
        return rep
    raise ValueError("unknown op")


def _load(board, req):
    ids = req["ids"]
    if not isinstance(ids, list):
        raise ValueError("ids must be a list")
    board.world.load(ids)
    return {"ok": True, "tray": board.world.tray_n}


def _take(board, req):
    return {"ok": True, "ids": board.world.take(req.get("pile"))}


def _touch(board, req):
    ms = req.get("ms", 100)
    if not isinstance(ms, int) or ms < 0:
        raise ValueError("ms must be a non-negative integer")
    board.world.touch_until = board.world.now + ms
    return {"ok": True}


def _inject(board, req):
    fault = req.get("fault")
    mode = req.get("sensor", req.get("mode", ""))
    k = req.get("k", 0)
    if not isinstance(k, int):
        raise ValueError("k must be an integer")
    if fault == "save_fail":
        import store
        store._rename = _power_cut
        return {"ok": True}
    board.world.inject(fault, k, mode)
    return {"ok": True}


def _fix(board, req):
    board.world.fix()
    if "store" in sys.modules:  # a save_fail injected before
        sys.modules["store"]._rename = os.rename
    return {"ok": True}


def _battery(board, req):
    mv = req.get("mv")
    if not isinstance(mv, int):
        raise ValueError("mv must be an integer")
    board.world.mv = mv
    return {"ok": True}


def _query(board, req):
    w = board.world
    snap = w.snapshot()
    snap["ok"] = True
    snap["led"] = board.led_on
    uart = getattr(board, "uart", None)  # the emulated Pico's face has none
    snap["uart_dropped"] = uart.dropped if uart is not None else 0
    snap["left_dir"] = w.left_dir
    return snap


def _unplug(board, req):
    # The power goes and comes back: the board restarts, the cards stay
    # where they lie (no reply: the endpoint goes with the board).
    board._reset("", board_sim.POWER_CYCLE_EXIT_CODE)  # a board without power says nothing


# The control endpoint's requests on the world, by op.
_WORLD_OPS = {"load": _load, "take": _take, "touch": _touch, "inject": _inject, "fix": _fix,
              "battery": _battery, "query": _query, "unplug": _unplug}


def _power_cut(src, dst):
    # The temp file is written; the power fails before the rename.
    raise OSError(5)
