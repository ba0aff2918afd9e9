"""Every line the device sends, built from the protocol's declaration
(protocol.EVENT_FIELDS, REPLY_FIELDS, ERROR_FIELDS, OBJECTS): callers name
each field they give, a field given None is left out, and a name the
message does not declare raises (so a misspelt or swapped field never
leaves the board). Numbers only: an error, a fault or a lost exactness is
its code, why it happened a code and the values it names; the host words
them.

The per-card progress line is a preallocated template (template()), which
the dealer fills in place: nothing is allocated in the card loop.
"""

import protocol

_out = None  # the link: send(obj) and write_raw(buf)


def use(link):
    global _out
    _out = link


def _declared(spec, name):
    """Whether the field string `spec` declares field `name`."""
    at = spec.find(name + ":")
    while at >= 0:
        if at == 0 or spec[at - 1] == " ":
            return True
        at = spec.find(name + ":", at + 1)
    return False


def _fill(obj, spec, fields):
    """Set the fields given (by name) that are not None; each must be one
    `spec` declares."""
    for name in fields:
        if not _declared(spec, name):
            raise ValueError("undeclared field " + name)
        v = fields[name]
        if v is not None:
            obj[name] = v
    return obj


def _spec(table, name):
    spec = protocol.fields_of(table, name)
    if spec is None:
        raise ValueError("undeclared: " + name)
    return spec


def obj(name, **fields):
    """An object field (protocol.OBJECTS) of these fields."""
    return _fill({}, _spec(protocol.OBJECTS, name), fields)


def _send(o):
    detail = o.get(protocol.F_DETAIL)
    if detail:
        # As much of the detail as keeps the line within MAX_LINE.
        over = len(protocol.json.dumps(o)) + 1 - protocol.MAX_LINE
        if over > 0:
            if over < len(detail):
                o[protocol.F_DETAIL] = detail[:len(detail) - over]
            else:
                o.pop(protocol.F_DETAIL)
    out = _out
    if out is None:  # a check, not an assert: the image is compiled with asserts left out (build.py)
        raise RuntimeError("report.use(link) first")
    out.send(o)


def event(kind, **fields):
    """An event of its declared fields."""
    _send(_fill({protocol.F_EV: kind}, _spec(protocol.EVENT_FIELDS, kind), fields))


def reply(cmd, rid, **fields):
    """The reply to `cmd` (its id `rid`), of its declared fields."""
    o = {protocol.F_RE: cmd, protocol.F_OK: True}
    if rid is not None:
        o[protocol.F_ID] = rid
    _send(_fill(o, _spec(protocol.REPLY_FIELDS, cmd), fields))


def error(cmd, rid, code, **fields):
    """A refusal: the error's code and, when it helps, the fault that
    refused a pass, why (protocol.WHY_*) with the values it names, or an
    internal error's own text (detail)."""
    o = {protocol.F_RE: cmd, protocol.F_OK: False, protocol.F_ERR: code}
    if rid is not None:
        o[protocol.F_ID] = rid
    if not fields.get(protocol.F_DETAIL):
        fields.pop(protocol.F_DETAIL, None)
    name = fields.get(protocol.F_FIELD)
    if isinstance(name, str):
        fields[protocol.F_FIELD] = protocol.echo_name(name)
    _send(_fill(o, protocol.ERROR_FIELDS, fields))


def refused(cmd, rid, bad):
    """The refusal of a request's field, as request_check.check_request gives it:
    (err, why, field, lo, hi)."""
    code, why, field, lo, hi = bad
    error(cmd, rid, code, why=why, field=field, lo=lo, hi=hi)


def template(kind, count, width):
    """A line of `kind` with its first `count` declared fields, each an
    integer right-aligned in `width` spaces (JSON allows the padding):
    (the line as a bytearray, the end of each field's digits)."""
    spec = _spec(protocol.EVENT_FIELDS, kind)
    line = b'{"' + protocol.F_EV.encode() + b'":"' + kind.encode() + b'"'
    ends = []
    start = 0
    for _ in range(count):
        colon = spec.find(":", start)
        line += b',"' + spec[start:colon].encode() + b'":' + b" " * width
        ends.append(len(line))
        stop = spec.find(" ", colon)
        start = stop + 1
    return bytearray(line + b"}\n"), tuple(ends)
