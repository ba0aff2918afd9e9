"""The page's own files: the few in host/web/static/, named when the server
starts, and nothing else. A path is looked up in that table, never on the
disk, so no name a stranger sends (too long, `..`, a symlink, a device)
reaches the file system: anything not in the table is a 404 line."""
from __future__ import annotations

from pathlib import Path

from aiohttp import web

from host.web.refusals import answer

TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
ICON = "favicon.svg"  # also answered at /favicon.ico, where a browser asks by itself


class StaticFiles:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.names = {p.name: TYPES[p.suffix] for p in folder.iterdir()
                      if p.is_file() and not p.is_symlink() and p.suffix in TYPES}

    def answer(self, name: str) -> web.Response:
        """The file called `name` (read now, so an edited page is served as it is), or a 404 line."""
        kind = self.names.get(name)
        if kind is None:
            return answer(404, "not_found")
        try:
            body = (self.folder / name).read_bytes()
        except OSError:
            return answer(404, "not_found")
        return web.Response(body=body, content_type=kind, charset="utf-8" if kind.startswith("text/") else None)
