"""The emulated Pico's control endpoint: the simulated board's JSON-lines
requests (load, take, touch, inject, fix, battery, query, unplug and the
card table's), answered by the same handler (board_sim.Board.handle) over
the world this side holds, on TCP at 127.0.0.1. WorldClient and
`shuffler table --control tcp:PORT` talk to it as to the sim board's."""
from __future__ import annotations

import json
import socket
import threading
from typing import Any

from simulator.pico.emulator import EmulatedPico

MAX_REQUEST = 65536


class _PowerCut(Exception):
    """The board's power went and came back (unplug): as on the sim board,
    the connection that asked goes with it, unanswered."""


class _BoardFace:
    """What board_sim.Board.handle touches, over the emulated Pico."""

    def __init__(self, pico: EmulatedPico) -> None:
        import sim_table  # found through the board folder, as load_world_module puts it on the path

        self.pico = pico
        self.world = pico.world
        self.table = sim_table.Table(pico.world)

    @property
    def led_on(self) -> bool:
        return self.pico.led

    def _reset(self, why: str, code: int) -> None:
        # unplug: the power goes and comes back; the cards stay where they lie.
        self.pico._request({"op": "reset"})
        raise _PowerCut()


class ControlServer:
    def __init__(self, pico: EmulatedPico) -> None:
        import board_sim

        self.pico = pico
        self.face = _BoardFace(pico)
        self.handle = board_sim.Board.handle
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp:{self.sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "ControlServer":
        self._thread = threading.Thread(target=self._accept, name="pico-control", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buf = b""
        with conn:
            while not self._stop.is_set():
                try:
                    chunk = conn.recv(4096)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    try:
                        rep = self.answer(line)
                    except _PowerCut:
                        return  # the connection closes unanswered, as the sim board's endpoint does
                    conn.sendall(json.dumps(rep).encode() + b"\n")
                if len(buf) > MAX_REQUEST:
                    return

    def answer(self, line: bytes) -> dict[str, Any]:
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("request is not an object")
            if req.get("op") == "inject" and req.get("fault") in ("hang", "driver_error", "save_fail"):
                raise ValueError(f"{req['fault']} is a fault of the simulated board's driver, not of the mechanism")
            rep = self.pico.call(lambda: self.handle(self.face, req))
        except _PowerCut:
            raise
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            rep = {"ok": False, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the endpoint answers, whatever happened
            rep = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        return dict(rep) if rep is not None else {"ok": True}
