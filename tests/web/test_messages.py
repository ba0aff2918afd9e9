"""What a page may send is checked before anything acts on it: every
message is either one of the ops with fields of the right kind, or refused
with one line (never any other exception)."""
from __future__ import annotations

import errno
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from host.web import messages, refusals
from host.web.run import address_lines
from host.web.server import AddressBusy

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                         max_size=4), max_leaves=12)


def test_the_ops_a_page_uses_are_read() -> None:
    assert messages.parse('{"op": "done", "step": 12}') == messages.Message("done", {"step": 12})
    assert messages.parse(b'{"op": "lift", "step": 3, "pile": "left", "onto": "A.left"}') == messages.Message(
        "lift", {"step": 3, "pile": "left", "onto": "A.left"})
    assert messages.parse('{"op": "move", "step": 3, "n": 4, "from": "A", "to": "B", "from_bottom": true}').args == {
        "step": 3, "n": 4, "from": "A", "to": "B", "from_bottom": True}
    assert messages.parse('{"op": "cut", "step": 3, "stack": "pack", "n": null}').args == {"step": 3, "stack": "pack"}
    with pytest.raises(messages.Refused, match="put needs step"):
        messages.parse('{"op": "put", "stack": "A"}')


@pytest.mark.parametrize("raw, why", [
    ("", "one JSON object"), ("[1]", "one JSON object"), ('{"op": "done"}', "needs step"),
    ('{"op": "done", "step": true}', "whole number"), ('{"op": "done", "step": 0}', "between 1"),
    ('{"op": "done", "step": 1.5}', "whole number"), ('{"op": "done", "step": 1, "x": 2}', "takes no 'x'"),
    ('{"op": "fly"}', "unknown op 'fly'"), ('{"op": "lift", "step": 1, "pile": "up", "onto": "A"}', "one of left"),
    ('{"op": "put", "step": 1, "stack": "' + "x" * 41 + '"}', "at most 40"), ('{"op": "put", "step": 1, "stack": "_hand"}', "hands' own"),
    ('{"op": "put", "step": 1, "stack": "a\\u0000b"}', "printable"), ('{"op": "move", "step": 1, "n": 1001, "from": "A", "to": "B"}',
                                                           "between 1 and 1000"),
    ('{"op": "done", "step": NaN}', "one JSON object"), ("x" * 3000, "at most 2048"), (b"\xff\xfe", "UTF-8"),
    ("[" * 5000 + "]" * 5000, "at most 2048"),
])
def test_bad_messages_are_refused_with_one_line(raw: str | bytes, why: str) -> None:
    with pytest.raises(messages.Refused) as err:
        messages.parse(raw)
    assert why in str(err.value) and "\n" not in str(err.value)


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300), json_values.map(json.dumps),
                 st.dictionaries(st.sampled_from(["op", "step", "stack", "n", "pile", "onto", "what", "from", "to",
                                                  "spec", "under", "ms"]),
                                 st.one_of(st.sampled_from(list(messages.FIELDS)), json_values), max_size=5).map(json.dumps)))
def test_any_message_is_read_or_refused_never_anything_else(raw: str | bytes) -> None:
    try:
        msg = messages.parse(raw)
    except messages.Refused as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    # What is read is exactly what the op's table allows, with the kinds it names.
    assert msg.op in messages.FIELDS and set(msg.args) <= set(messages.FIELDS[msg.op])
    for name, (kind, required) in messages.FIELDS[msg.op].items():
        assert name in msg.args or not required
        if name in msg.args and kind in ("step", "cards", "ms"):
            assert type(msg.args[name]) is int and msg.args[name] >= 1


# -- the server's refusals and lines, worded once (the other tests judge by their reasons) --------

def test_each_refusal_is_one_line_of_its_own_words() -> None:
    fields = {"most": 7, "what": "bad request", "step": 4, "shown": 5, "up": 0.5, "read_s": 1.0, "left": 2, "right": 3,
              "tray": 9}
    said = {reason: refusals.words(reason, **fields) for reason in refusals.WORDS}
    assert all(line and "\n" not in line for line in said.values())
    assert len(set(said.values())) == len(said)  # no two reasons worded alike
    assert said["earlier_run"] == "this page is from an earlier run of the guide: open the address the guide printed"
    assert said["foreign_site"] == "requests from other sites are refused"
    assert said["unreadable"] == "the guide's page could not read this request"
    assert said["not_found"] == "the guide's page has no such path"
    assert said["too_many_connections"] == "too many connections to the guide's page (at most 7): close some tabs"
    assert said["too_many_pages"] == "too many pages are open on the guide (at most 7): close some"
    assert said["too_many_messages"] == "too many messages (at most 7 a second): this one was not read"
    assert said["still_running"] == "the guide is still running: it ends with its summary or Ctrl-C"


def test_each_refusal_of_a_done_or_a_control_in_its_words() -> None:
    def said(reason: str, **fields: object) -> str:
        return refusals.words(reason, **fields)

    assert said("no_longer_shown", step=1, shown=2) == (
        "step 1 is no longer shown (the page shows step 2): nothing was answered")
    assert said("not_shown", step=7) == "step 7 is not shown: nothing was answered"
    assert said("not_asked", step=6) == "step 6 does not wait for done on the page"
    assert said("already_answered", step=3) == "step 3 is already done"
    assert said("too_soon", step=1, up=0.5, read_s=1.0) == (
        "step 1 has been on screen only 0.5 s: done counts once it has been up 1 s (read it, then press done)")
    assert said("piles_on_machine", step=5, left=43, right=38) == (
        "step 5 is not done: the left pile (43 cards) and the right pile (38 cards) are still on the machine; "
        "lift them off, then press Done")
    assert said("piles_on_machine", step=5, left=0, right=38) == (
        "step 5 is not done: the right pile (38 cards) is still on the machine; lift it off, then press Done")
    assert said("tray_holds", step=6, tray=111) == (
        "step 6 is not done: the tray still holds 111 cards; take them out, then press Done")
    assert said("control_step_gone", step=4, shown=5) == (
        "that step is no longer shown (step 4; the page shows step 5): nothing was done")
    assert said("control_step_not_shown", step=6) == "that step is not shown (step 6): nothing was done"
    assert said("control_used", step=5) == "already done at this step (step 5): nothing was done again"


def test_a_refusal_on_the_wire_carries_its_reason_and_its_line() -> None:
    http = refusals.answer(503, "too_many_pages", most=4)
    assert (http.status, http.headers[refusals.HEADER], http.text) == (
        503, "too_many_pages", refusals.words("too_many_pages", most=4) + "\n")
    assert refusals.reply("too_many_messages", most=20) == {
        "error": refusals.words("too_many_messages", most=20), "reason": "too_many_messages", "most": 20}


def test_the_pages_address_and_a_busy_address_in_words() -> None:
    assert address_lines("http://127.0.0.1:1/?token=s", None, lan_bind=False) == [
        "The guide's page: http://127.0.0.1:1/?token=s"]
    assert address_lines("http://127.0.0.1:1/?token=s", "http://10.0.0.2:1/?token=s", lan_bind=True) == [
        "The guide's page: http://127.0.0.1:1/?token=s",
        "The guide's page from another device: http://10.0.0.2:1/?token=s",
        "   The page is reachable from the network: anyone with this address can drive the guide."]
    assert address_lines("http://127.0.0.1:1/?token=s", None, lan_bind=True)[1] == (
        "   (no network address of this machine was found: another device uses one of its addresses "
        "with the same ?token=)")
    assert str(AddressBusy("127.0.0.1:8", errno.EADDRINUSE)) == (
        "cannot serve the page on 127.0.0.1:8: the address is in use (another `shuffler guide --web`?); "
        "choose another with --bind HOST:PORT")
    assert str(AddressBusy("127.0.0.1:8", strerror="Permission denied")) == (
        "cannot serve the page on 127.0.0.1:8: Permission denied")
