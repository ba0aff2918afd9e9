"""Every line the device sends, built from the protocol's declaration
(protocol.EVENT_FIELDS, REPLY_FIELDS, OBJECTS): callers give the values in
the declared order, None leaving a field out, and never name a field.
Numbers only: an error, a fault or a lost exactness is its code; the host
words it.

The per-card progress line is a preallocated template (template()), which
the dealer fills in place: nothing is allocated in the card loop.
"""

import protocol

_out = None  # the link: send(obj) and write_raw(buf)


def use(link):
    global _out
    _out = link


def _fill(obj, spec, values):
    """Set the fields `spec` declares from `values`, in order."""
    start = 0
    end = len(spec)
    for v in values:
        if start >= end:
            raise ValueError("more values than declared fields")
        colon = spec.find(":", start)
        stop = spec.find(" ", colon)
        if stop < 0:
            stop = end
        if v is not None:
            obj[spec[start:colon]] = v
        start = stop + 1
    return obj


def _spec(table, name):
    spec = protocol.fields_of(table, name)
    if spec is None:
        raise ValueError("undeclared: " + name)
    return spec


def obj(name, *values):
    """An object field (protocol.OBJECTS) of these values."""
    return _fill({}, _spec(protocol.OBJECTS, name), values)


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
    assert out is not None, "report.use(link) first"
    out.send(o)


def event(kind, *values):
    """An event of its declared fields."""
    _send(_fill({protocol.F_EV: kind}, _spec(protocol.EVENT_FIELDS, kind), values))


def reply(cmd, rid, *values):
    """The reply to `cmd` (its id `rid`), of its declared fields."""
    o = {protocol.F_RE: cmd, protocol.F_OK: True}
    if rid is not None:
        o[protocol.F_ID] = rid
    _send(_fill(o, _spec(protocol.REPLY_FIELDS, cmd), values))


def error(cmd, rid, code, fault=None, why=None, field=None, lo=None, hi=None, part=None, n=None, by=None,
          mv=None, meter_mv=None, proto=None, detail=None):
    """A refusal: the error's code and, when it helps, the fault that
    refused a pass, why (protocol.WHY_*) with the values it names, or an
    internal error's own text."""
    o = {protocol.F_RE: cmd, protocol.F_OK: False}
    if rid is not None:
        o[protocol.F_ID] = rid
    _send(_fill(o, protocol.ERROR_FIELDS, (code, fault, why, field, lo, hi, part, n, by, mv, meter_mv, proto,
                                            detail or None)))


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
