"""What the page's server refuses, as records on the wire: a reason (the
`X-Refusal` header of an HTTP answer, the "reason" of a WebSocket reply)
with its fields, and its one line of words, written here once.

A script or a test reads the reason; a person reads the line. A word
changed here changes it on every answer that gives the reason.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from shuffling import steps

if TYPE_CHECKING:
    from aiohttp import web

HEADER = "X-Refusal"


def _piles(f: dict[str, Any]) -> str:
    still = [f"the {side} pile ({steps.cards(f[side])})" for side in ("left", "right") if f.get(side)]
    if len(still) == 1:
        return f"step {f['step']} is not done: {still[0]} is still on the machine; lift it off, then press Done"
    return (f"step {f['step']} is not done: {still[0]} and {still[1]} are still on the machine; "
            "lift them off, then press Done")


# reason -> its line ({fields} filled from the refusal's own fields, or made by a function of them).
WORDS: dict[str, str | Callable[[dict[str, Any]], str]] = {
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
    # a "done" the page may not give now (host/web/page_state.py, host/web/table.py)
    "no_longer_shown": "step {step} is no longer shown (the page shows step {shown}): nothing was answered",
    "not_shown": "step {step} is not shown: nothing was answered",
    "not_asked": "step {step} does not wait for done on the page",
    "already_answered": "step {step} is already done",
    "too_soon": "step {step} has been on screen only {up:.1f} s: done counts once it has been up {read_s:g} s "
                "(read it, then press done)",
    "piles_on_machine": _piles,
    "tray_holds": lambda f: (f"step {f['step']} is not done: the tray still holds {steps.cards(f['tray'])}; "
                             "take them out, then press Done"),
    # a table control pressed at a step where it may not act (host/web/page_state.py)
    "control_step_gone": "that step is no longer shown (step {step}; the page shows step {shown}): nothing was done",
    "control_step_not_shown": "that step is not shown (step {step}): nothing was done",
    "control_used": "already done at this step (step {step}): nothing was done again",
}


def words(reason: str, **fields: Any) -> str:
    """The refusal's one line, without its newline."""
    said = WORDS[reason]
    return said.format(**fields) if isinstance(said, str) else said(fields)


def answer(status: int, reason: str, **fields: Any) -> web.Response:
    """An HTTP refusal: the reason in its header, the line in its body."""
    from aiohttp import web  # the server's alone: the guide's side reads the words without it

    return web.Response(status=status, text=words(reason, **fields) + "\n", headers={HEADER: reason})


def reply(reason: str, **fields: Any) -> dict[str, Any]:
    """A WebSocket reply that refuses: the reason and its fields, and the line the page shows."""
    return {"error": words(reason, **fields), "reason": reason, **fields}
