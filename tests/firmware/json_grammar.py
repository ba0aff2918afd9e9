"""The strict JSON grammar (RFC 8259) as transitions, written out: the
byte-class and transition tables in firmware/request_check.py (_CLS, _TAB) are
this module's output, kept there as bytes so that the device holds only the
tables. `python tests/firmware/json_grammar.py` prints them;
test_fw_strict_input.py checks that they agree."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from firmware.request_check import (  # noqa: E402
    _S_ARRAY,
    _A_ARR,
    _A_COMMA,
    _A_END_ARR,
    _A_END_OBJ,
    _A_KEY,
    _A_OBJ,
    _A_STR,
    _A_STR_END,
    _S_COLON,
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
    _S_EXP,
    _S_EXP_SIGN,
    _S_EXP_DIGITS,
    _ERR,
    _S_ESCAPE,
    _S_F,
    _S_FA,
    _S_FAL,
    _S_FALS,
    _S_POINT,
    _S_FRACTION,
    _S_START,
    _S_INT,
    _S_KEY,
    _S_MINUS,
    _S_N,
    _S_NU,
    _S_NUL,
    _NCLS,
    _N_STATES,
    _S_OBJECT,
    _S_DONE,
    _S_STRING,
    _S_T,
    _S_TR,
    _S_TRU,
    _S_HEX1,
    _S_HEX2,
    _S_HEX3,
    _S_HEX4,
    _S_VALUE,
    _S_ZERO,
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
    t = bytearray(_ERR for _ in range(_N_STATES * _NCLS))

    def put(states, classes, to):
        for st in states:
            for c in classes:
                t[st * _NCLS + c] = to

    value = (_S_START, _S_VALUE, _S_ARRAY)
    for st in (_S_START, _S_DONE, _S_OBJECT, _S_KEY, _S_COLON, _S_VALUE, _S_ARRAY):
        t[st * _NCLS + _C_WS] = st  # whitespace between tokens
        t[st * _NCLS + _C_WSCTRL] = st
    put(value, (_C_LCURB,), _A_OBJ)
    put(value, (_C_LSQRB,), _A_ARR)
    put(value, (_C_QUOTE,), _A_STR)
    put(value, (_C_MINUS,), _S_MINUS)
    put(value, (_C_ZERO,), _S_ZERO)
    put(value, (_C_DIGIT,), _S_INT)
    put(value, (_C_T,), _S_T)
    put(value, (_C_F,), _S_F)
    put(value, (_C_N,), _S_N)
    put((_S_ARRAY,), (_C_RSQRB,), _A_END_ARR)
    put((_S_OBJECT, _S_KEY), (_C_QUOTE,), _A_KEY)
    put((_S_OBJECT,), (_C_RCURB,), _A_END_OBJ)
    put((_S_COLON,), (_C_COLON,), _S_VALUE)
    # After a value (a number ends at the first byte that cannot continue it).
    ends = (_S_DONE, _S_ZERO, _S_INT, _S_FRACTION, _S_EXP_DIGITS)
    put(ends, (_C_WS, _C_WSCTRL), _S_DONE)
    put(ends, (_C_COMMA,), _A_COMMA)
    put(ends, (_C_RCURB,), _A_END_OBJ)
    put(ends, (_C_RSQRB,), _A_END_ARR)
    # Strings: no raw control bytes; only the eight escapes and \uXXXX.
    put((_S_STRING,), [c for c in range(_NCLS) if c not in (_C_QUOTE, _C_BACKS, _C_CTRL, _C_WSCTRL)], _S_STRING)
    put((_S_STRING,), (_C_QUOTE,), _A_STR_END)
    put((_S_STRING,), (_C_BACKS,), _S_ESCAPE)
    put((_S_ESCAPE,), (_C_QUOTE, _C_BACKS, _C_SLASH, _C_B, _C_F, _C_N, _C_R, _C_T), _S_STRING)
    put((_S_ESCAPE,), (_C_U,), _S_HEX1)
    hexd = (_C_ZERO, _C_DIGIT, _C_A, _C_B, _C_CD, _C_E, _C_F, _C_HEXUC, _C_EUC)
    put((_S_HEX1,), hexd, _S_HEX2)
    put((_S_HEX2,), hexd, _S_HEX3)
    put((_S_HEX3,), hexd, _S_HEX4)
    put((_S_HEX4,), hexd, _S_STRING)
    # Numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    digits = (_C_ZERO, _C_DIGIT)
    put((_S_MINUS,), (_C_ZERO,), _S_ZERO)
    put((_S_MINUS,), (_C_DIGIT,), _S_INT)
    put((_S_INT,), digits, _S_INT)
    put((_S_ZERO, _S_INT), (_C_POINT,), _S_POINT)
    put((_S_POINT, _S_FRACTION), digits, _S_FRACTION)
    put((_S_ZERO, _S_INT, _S_FRACTION), (_C_E, _C_EUC), _S_EXP)
    put((_S_EXP,), (_C_PLUS, _C_MINUS), _S_EXP_SIGN)
    put((_S_EXP, _S_EXP_SIGN, _S_EXP_DIGITS), digits, _S_EXP_DIGITS)
    # Literals.
    for word in ((_S_T, _C_R, _S_TR), (_S_TR, _C_U, _S_TRU), (_S_TRU, _C_E, _S_DONE),
                 (_S_F, _C_A, _S_FA), (_S_FA, _C_L, _S_FAL), (_S_FAL, _C_S, _S_FALS), (_S_FALS, _C_E, _S_DONE),
                 (_S_N, _C_U, _S_NU), (_S_NU, _C_L, _S_NUL), (_S_NUL, _C_L, _S_DONE)):
        t[word[0] * _NCLS + word[1]] = word[2]
    return bytes(t)



def literal(data: bytes, indent: str = "    ") -> str:
    """A bytes literal in lines of 16 bytes."""
    rows = [data[i:i + 16] for i in range(0, len(data), 16)]
    return "\n".join(indent + "b'" + "".join("\\x%02x" % b for b in row) + "'" for row in rows)


if __name__ == "__main__":
    print("_CLS = (\n" + literal(classes()) + "\n)")
    print("_TAB = (\n" + literal(table()) + "\n)")
