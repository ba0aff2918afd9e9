"""What the page's server refuses, as records on the wire: a reason (the
`X-Refusal` header of an HTTP answer, the "reason" of a WebSocket reply)
with its fields, and its one line of words, written here once.

A script or a test reads the reason; a person reads the line. A word
changed here changes it on every answer that gives the reason.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

HEADER = "X-Refusal"

# reason -> its line ({fields} filled from the refusal's own fields).
WORDS = {
    # the request itself (host/web/guard.py, host/web/connections.py, host/web/server.py)
    "unreadable": "the guide's page could not read this request",
    "failed": "the guide's page failed on this request",
    "not_ours": "the guide's page answers only requests for its own paths (GET /path)",
    "foreign_host": "this page answers only to this machine's own names and addresses (the address the guide printed)",
    "foreign_site": "requests from other sites are refused",
    "no_secret": "the guide's page needs the address the guide printed (with its ?token=)",
    "wrong_token": "that is not this run's address: open the address the guide printed",
    "earlier_run": "this page is from an earlier run of the guide: open the address the guide printed",
    "no_expect": "the guide's page expects nothing of a request: this one was not read",
    "not_found": "the guide's page has no such path",
    "only_read": "the guide's page is only read (GET)",
    "handshake": "{what}",  # aiohttp's own reason for a handshake it could not read
    # the caps (host/web/connections.py, host/web/page_socket.py)
    "too_many_connections": "too many connections to the guide's page (at most {most}): close some tabs",
    "too_many_from_one": "too many connections to the guide's page from one address (at most {most}): close some tabs",
    "too_many_pages": "too many pages are open on the guide (at most {most}): close some",
    "too_many_messages": "too many messages (at most {most} a second): this one was not read",
    "not_text": "a message must be UTF-8 JSON text",
    # what a page asks of the guide (host/web/server.py)
    "still_running": "the guide is still running: it ends with its summary or Ctrl-C",
    "no_table": "there is no virtual table (start the guide with --sim)",
}


def words(reason: str, **fields: Any) -> str:
    """The refusal's one line, without its newline."""
    return WORDS[reason].format(**fields)


def answer(status: int, reason: str, **fields: Any) -> web.Response:
    """An HTTP refusal: the reason in its header, the line in its body."""
    return web.Response(status=status, text=words(reason, **fields) + "\n", headers={HEADER: reason})


def reply(reason: str, **fields: Any) -> dict[str, Any]:
    """A WebSocket reply that refuses: the reason and its fields, and the line the page shows."""
    return {"error": words(reason, **fields), "reason": reason, **fields}
