"""The card table around the simulated shuffler (MicroPython and CPython).

Every card on the table is in exactly one place: a named stack a person made
(load A, the pack, ...) or one of the machine's places (the tray, the left and
right piles, the exit throat, and what an injected fault lifted out). Stacks
are kept top to bottom, like the tray. Cards brought by `new` are the integers
0 .. made-1, so `check` can say whether every one of them is there once.

The table's cards are kept in a file (SHUFFLER_SIM_TABLE) so they stay where
they lie across the board's resets, as real cards would.
"""

import json
import os

PLACES = ("tray", "left", "right", "throat", "removed")
NAME_MAX = 16
MAX_NEW = 1000  # cards one `new` may bring; more than any pack the guide knows
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. "
_NAME_RULE = "a stack name is 1 to %d letters, digits, spaces, dots, - or _ (as A, A.left, left stack)" % NAME_MAX


def check_name(name):
    if not isinstance(name, str) or not name or len(name) > NAME_MAX or name.strip() != name:
        raise ValueError(_NAME_RULE)
    for ch in name:
        if ch not in _NAME_CHARS:
            raise ValueError(_NAME_RULE)
    if name in PLACES:
        raise ValueError("%s is a place on the machine, not a stack" % name)
    return name


def _count(req, key, lo, hi, default=None):
    v = req.get(key, default)
    if v is None:
        raise ValueError("%s is missing" % key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise ValueError("%s must be a whole number from %d to %d" % (key, lo, hi))
    return v


def _end(req, key):
    v = req.get(key, "top")
    if v not in ("top", "bottom"):
        raise ValueError("%s is top or bottom" % key)
    return v


class Table:
    def __init__(self, world, path=None):
        self.world = world
        self.path = path
        self.stacks = {}  # name -> list of ids, top first
        self.made = 0
        self.saved = -1  # world.moves when last saved

    # ----- the machine's places, top to bottom -------------------------
    def place(self, name):
        w = self.world
        if name == "tray":
            return w.tray[0:w.tray_n]
        if name == "left":
            return [w.left[i] for i in range(w.left_n - 1, -1, -1)]
        if name == "right":
            return [w.right[i] for i in range(w.right_n - 1, -1, -1)]
        if name == "throat":  # the card fed first lies lowest
            return [w.throat[i] for i in range(w.throat_n - 1, -1, -1)]
        return w.removed[0:w.removed_n]

    def stack(self, name):
        cards = self.stacks.get(check_name(name))
        if not cards:
            raise ValueError("there is no stack %s on the table" % name)
        return cards

    def _put_on(self, name, cards, end="top"):
        if not cards:
            return
        old = self.stacks.get(name, [])
        self.stacks[name] = cards + old if end == "top" else old + cards

    def _tidy(self):
        for name in [n for n in self.stacks if not self.stacks[n]]:
            del self.stacks[name]
        self.world.moves += 1

    # ----- what a person does ---------------------------------------------
    def new(self, req):
        n = _count(req, "n", 1, MAX_NEW)
        name = check_name(req.get("name", "pack"))
        self._put_on(name, list(range(self.made, self.made + n)))
        self.made += n
        self._tidy()
        return {"stack": name, "count": len(self.stacks[name])}

    def put(self, req):
        """The top n cards of a stack (all by default) into the tray, on top
        of what is there, or under it (end: bottom)."""
        name = req.get("from")
        cards = self.stack(name)
        n = _count(req, "n", 1, len(cards), len(cards))
        w = self.world
        if _end(req, "end") == "top":
            w.load(cards[0:n])  # refuses a tray overfilled before anything moves
        else:
            if w.tray_n + n > len(w.tray):
                raise ValueError("the tray holds at most %d cards" % len(w.tray))
            w.load(w.take("tray") + cards[0:n])
        self.stacks[name] = cards[n:]
        self._tidy()
        return {"tray": self.world.tray_n}

    def lift(self, req):
        """Lift a place of the machine (a pile, the tray, the throat) onto a stack."""
        pile = req.get("pile")
        if pile not in PLACES:
            raise ValueError("lift one of: %s" % ", ".join(PLACES))
        name = check_name(req.get("onto"))
        w = self.world
        have = len(self.place(pile))
        n = _count(req, "n", 1, max(have, 1), have) if have else 0
        cards = w.take(pile)
        if pile == "throat":
            cards = cards[::-1]  # take() gives feed order: the first fed lies lowest
        if n < len(cards):  # only the top n: the rest stays where it lies
            rest = cards[n:]
            cards = cards[0:n]
            if pile == "tray":
                w.load(rest)
            elif pile in ("left", "right"):
                arr = w.left if pile == "left" else w.right
                for i in range(len(rest)):
                    arr[i] = rest[len(rest) - 1 - i]  # piles are kept bottom first
                if pile == "left":
                    w.left_n = len(rest)
                else:
                    w.right_n = len(rest)
            else:
                raise ValueError("only the tray and the piles can be lifted in part")
        self._put_on(name, cards, _end(req, "end"))
        self._tidy()
        return {"stack": name, "count": len(self.stacks.get(name, [])), "lifted": len(cards)}

    def put_stack(self, req):
        """A whole stack onto the top (or bottom) of another."""
        what = req.get("what")
        cards = self.stack(what)
        onto = check_name(req.get("onto"))
        if onto == what:
            raise ValueError("a stack cannot go onto itself")
        self.stacks[what] = []
        self._put_on(onto, cards, _end(req, "end"))
        self._tidy()
        return {"stack": onto, "count": len(self.stacks[onto])}

    def move(self, req):
        """n cards from the top or bottom of one stack to the top or bottom of another."""
        src = req.get("from")
        cards = self.stack(src)
        dst = check_name(req.get("to"))
        if dst == src:
            raise ValueError("cards cannot move from a stack to itself")
        n = _count(req, "n", 1, len(cards))
        if _end(req, "from_end") == "top":
            moving, self.stacks[src] = cards[0:n], cards[n:]
        else:
            moving, self.stacks[src] = cards[len(cards) - n:], cards[0:len(cards) - n]
        self._put_on(dst, moving, _end(req, "to_end"))
        self._tidy()
        return {"from": len(self.stacks.get(src, [])), "to": len(self.stacks[dst])}

    def cut(self, req):
        """The top n cards (half by default) go under the rest."""
        name = req.get("stack")
        cards = self.stack(name)
        if len(cards) < 2:
            raise ValueError("a stack of one card cannot be cut")
        n = _count(req, "n", 1, len(cards) - 1, len(cards) // 2)
        self.stacks[name] = cards[n:] + cards[0:n]
        self._tidy()
        return {"stack": name, "count": len(cards)}

    def clear(self, req):
        """Take every card off the table and out of the machine."""
        for p in PLACES:
            self.world.take(p)
        self.stacks = {}
        self.made = 0
        self._tidy()
        return {}

    def check(self):
        """Every card brought by `new` once, and nothing else."""
        seen = {}
        for name in self.stacks:
            for c in self.stacks[name]:
                seen[c] = seen.get(c, 0) + 1
        for p in PLACES:
            for c in self.place(p):
                seen[c] = seen.get(c, 0) + 1
        missing = [c for c in range(self.made) if c not in seen]
        twice = [c for c in seen if seen[c] > 1]
        stray = [c for c in seen if not (isinstance(c, int) and 0 <= c < self.made)]
        return {"made": self.made, "missing": missing, "twice": twice, "stray": stray,
                "ok": not (missing or twice or stray)}

    def show(self, req):
        places = {}
        for p in PLACES:
            places[p] = self.place(p)
        return {"stacks": self.stacks, "places": places, "check": self.check()}

    OPS = {"new": new, "put": put, "lift": lift, "put_stack": put_stack, "move": move,
           "cut": cut, "clear_table": clear, "show": show}

    def handle(self, op, req):
        """The reply for a table op, or None when op is not one."""
        f = self.OPS.get(op)
        if f is None:
            return None
        rep = f(self, req)
        rep["ok"] = True
        self.save()
        return rep

    # ----- kept across resets -------------------------------------------------
    def save(self):
        """Write the table if a card moved since the last save. Returns
        without writing while the heap is locked (mid-pass)."""
        if self.path is None or self.saved == self.world.moves:
            return
        try:
            places = {}
            for p in PLACES:
                places[p] = self.place(p)
            text = json.dumps({"made": self.made, "stacks": self.stacks, "places": places})
        except MemoryError:
            return
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, self.path)
        self.saved = self.world.moves

    def restore(self):
        """Put the cards back where the file says; a file that is not one this
        table wrote (edited, cut short) is ignored: the table starts bare."""
        if self.path is None:
            return
        try:
            with open(self.path) as f:
                self._restore(json.loads(f.read()))
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            self.stacks, self.made = {}, 0
            for p in PLACES:
                self.world.take(p)
        self.saved = self.world.moves

    def _restore(self, d):
        w = self.world
        made = d["made"]
        stacks = d["stacks"]
        places = d["places"]
        if not isinstance(made, int) or not isinstance(stacks, dict):
            raise ValueError("not a table")
        for name in stacks:
            check_name(name)
            if not isinstance(stacks[name], list):
                raise ValueError("not a table")
        self.made, self.stacks = made, stacks
        w.load(places["tray"])
        for side in ("left", "right"):
            cards = places[side]
            arr = w.left if side == "left" else w.right
            for i in range(len(cards)):
                arr[i] = cards[len(cards) - 1 - i]  # piles are kept bottom first
            if side == "left":
                w.left_n = len(cards)
            else:
                w.right_n = len(cards)
        throat = places["throat"][::-1]  # back to feed order
        for i in range(len(throat)):
            w.throat[i] = throat[i]
        w.throat_n = len(throat)
        removed = places["removed"]
        for i in range(len(removed)):
            w.removed[i] = removed[i]
        w.removed_n = len(removed)
