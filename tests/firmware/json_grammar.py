"""The strict JSON grammar (RFC 8259) as transitions, written out: the
byte-class and transition tables in firmware/protocol.py (_CLS, _TAB) are
this module's output, kept there as bytes so that the device holds only the
tables. `python tests/firmware/json_grammar.py` prints them;
test_fw_strict_input.py checks that they agree."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from firmware.protocol import (  # noqa: E402
    _AR,
    _A_ARR,
    _A_COMMA,
    _A_END_ARR,
    _A_END_OBJ,
    _A_KEY,
    _A_OBJ,
    _A_STR,
    _A_STR_END,
    _CO,
    _C_A,
    _C_B,
    _C_BACKS,
    _C_CD,
    _C_COLON,
    _C_COMMA,
    _C_CTRL,
    _C_DIGIT,
    _C_E,
    _C_ETC,
    _C_EUC,
    _C_F,
    _C_HEXUC,
    _C_L,
    _C_LCURB,
    _C_LSQRB,
    _C_MINUS,
    _C_N,
    _C_PLUS,
    _C_POINT,
    _C_QUOTE,
    _C_R,
    _C_RCURB,
    _C_RSQRB,
    _C_S,
    _C_SLASH,
    _C_T,
    _C_U,
    _C_WS,
    _C_WSCTRL,
    _C_ZERO,
    _E1,
    _E2,
    _E3,
    _ERR,
    _ES,
    _F1,
    _F2,
    _F3,
    _F4,
    _FR,
    _FS,
    _GO,
    _IN,
    _KE,
    _MI,
    _N1,
    _N2,
    _N3,
    _NCLS,
    _NST,
    _OB,
    _OK,
    _ST,
    _T1,
    _T2,
    _T3,
    _U1,
    _U2,
    _U3,
    _U4,
    _VA,
    _ZE,
)


def classes() -> bytes:
    cls = bytearray(_C_ETC for _ in range(128))
    for c in range(32):
        cls[c] = _C_CTRL
    for ch, k in ((" ", _C_WS), ("\t", _C_WSCTRL), ("\n", _C_WSCTRL), ("\r", _C_WSCTRL), ("{", _C_LCURB),
                  ("}", _C_RCURB), ("[", _C_LSQRB), ("]", _C_RSQRB), (":", _C_COLON),
                  (",", _C_COMMA), ('"', _C_QUOTE), ("\\", _C_BACKS), ("/", _C_SLASH),
                  ("+", _C_PLUS), ("-", _C_MINUS), (".", _C_POINT), ("0", _C_ZERO),
                  ("a", _C_A), ("b", _C_B), ("c", _C_CD), ("d", _C_CD), ("e", _C_E),
                  ("f", _C_F), ("l", _C_L), ("n", _C_N), ("r", _C_R), ("s", _C_S),
                  ("t", _C_T), ("u", _C_U), ("E", _C_EUC)):
        cls[ord(ch)] = k
    for ch in "123456789":
        cls[ord(ch)] = _C_DIGIT
    for ch in "ABCDF":
        cls[ord(ch)] = _C_HEXUC
    return bytes(cls)


def table() -> bytes:
    t = bytearray(_ERR for _ in range(_NST * _NCLS))

    def put(states, classes, to):
        for st in states:
            for c in classes:
                t[st * _NCLS + c] = to

    value = (_GO, _VA, _AR)
    for st in (_GO, _OK, _OB, _KE, _CO, _VA, _AR):
        t[st * _NCLS + _C_WS] = st  # whitespace between tokens
        t[st * _NCLS + _C_WSCTRL] = st
    put(value, (_C_LCURB,), _A_OBJ)
    put(value, (_C_LSQRB,), _A_ARR)
    put(value, (_C_QUOTE,), _A_STR)
    put(value, (_C_MINUS,), _MI)
    put(value, (_C_ZERO,), _ZE)
    put(value, (_C_DIGIT,), _IN)
    put(value, (_C_T,), _T1)
    put(value, (_C_F,), _F1)
    put(value, (_C_N,), _N1)
    put((_AR,), (_C_RSQRB,), _A_END_ARR)
    put((_OB, _KE), (_C_QUOTE,), _A_KEY)
    put((_OB,), (_C_RCURB,), _A_END_OBJ)
    put((_CO,), (_C_COLON,), _VA)
    # After a value (a number ends at the first byte that cannot continue it).
    ends = (_OK, _ZE, _IN, _FS, _E3)
    put(ends, (_C_WS, _C_WSCTRL), _OK)
    put(ends, (_C_COMMA,), _A_COMMA)
    put(ends, (_C_RCURB,), _A_END_OBJ)
    put(ends, (_C_RSQRB,), _A_END_ARR)
    # Strings: no raw control bytes; only the eight escapes and \uXXXX.
    put((_ST,), [c for c in range(_NCLS) if c not in (_C_QUOTE, _C_BACKS, _C_CTRL, _C_WSCTRL)], _ST)
    put((_ST,), (_C_QUOTE,), _A_STR_END)
    put((_ST,), (_C_BACKS,), _ES)
    put((_ES,), (_C_QUOTE, _C_BACKS, _C_SLASH, _C_B, _C_F, _C_N, _C_R, _C_T), _ST)
    put((_ES,), (_C_U,), _U1)
    hexd = (_C_ZERO, _C_DIGIT, _C_A, _C_B, _C_CD, _C_E, _C_F, _C_HEXUC, _C_EUC)
    put((_U1,), hexd, _U2)
    put((_U2,), hexd, _U3)
    put((_U3,), hexd, _U4)
    put((_U4,), hexd, _ST)
    # Numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    digits = (_C_ZERO, _C_DIGIT)
    put((_MI,), (_C_ZERO,), _ZE)
    put((_MI,), (_C_DIGIT,), _IN)
    put((_IN,), digits, _IN)
    put((_ZE, _IN), (_C_POINT,), _FR)
    put((_FR, _FS), digits, _FS)
    put((_ZE, _IN, _FS), (_C_E, _C_EUC), _E1)
    put((_E1,), (_C_PLUS, _C_MINUS), _E2)
    put((_E1, _E2, _E3), digits, _E3)
    # Literals.
    for word in ((_T1, _C_R, _T2), (_T2, _C_U, _T3), (_T3, _C_E, _OK),
                 (_F1, _C_A, _F2), (_F2, _C_L, _F3), (_F3, _C_S, _F4), (_F4, _C_E, _OK),
                 (_N1, _C_U, _N2), (_N2, _C_L, _N3), (_N3, _C_L, _OK)):
        t[word[0] * _NCLS + word[1]] = word[2]
    return bytes(t)



def literal(data: bytes, indent: str = "    ") -> str:
    """A bytes literal in lines of 16 bytes."""
    rows = [data[i:i + 16] for i in range(0, len(data), 16)]
    return "\n".join(indent + "b'" + "".join("\\x%02x" % b for b in row) + "'" for row in rows)


if __name__ == "__main__":
    print("_CLS = (\n" + literal(classes()) + "\n)")
    print("_TAB = (\n" + literal(table()) + "\n)")
