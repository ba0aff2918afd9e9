"""The summary in the words of a card game: what the distance from random
means for the deal, what someone who counted the piles learned, and what
to run next. Pure functions of the figures the summary already holds."""
from __future__ import annotations

import math
import shlex
from typing import Any


def for_the_deal(cards: int, exact: bool, distance: float) -> str:
    """What the figure means for the hands dealt from the pack."""
    if exact:
        return (f"every order of the {cards} cards was equally likely, as if the order had been drawn by lot: "
                "every card is as likely to be in any place as any other card, every hand dealt from the pack is "
                "a fair random hand, and nothing of the order before the shuffle is left (not the melds gathered "
                "from the last hand, not the cards that lay together)")
    if distance >= 0.99:
        return ("far from random: someone who knew the order before the shuffle could still tell this pack from "
                "a well shuffled one almost every time (where the melds of the last hand went, which cards still "
                "lie together)")
    within = math.ceil(distance * 1000) / 10  # in 100, rounded up: never less than the figure
    return (f"the chance of anything about the order (where the aces are, whether a meld of the last hand "
            f"stayed together) is within {within:g} in 100 of its chance in a pack whose order was drawn by lot")


def _digits(bits: float) -> int:
    """How many digits the number 2 ** bits takes to write."""
    return int(bits * math.log10(2)) + 1


def _about(n: float) -> str:
    """A count below a thousand trillion said roughly: '13', '2,700', '1.3 billion'."""
    if n < 100:
        return f"{round(n):,}"
    if n < 1e6:
        return f"{round(n, 1 - int(math.log10(n))):,.0f}"
    size, word = next((s, w) for s, w in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")) if n >= s)
    return f"{n / size:.1f} {word}"


def _which_of(bits: float) -> str:
    if bits < 1:
        return f"less than the toss of a coin tells ({bits:.1f} bits)"
    if bits < 49:  # 2 ** 49: about 560 trillion
        return f"as much as being told which of about {_about(2 ** bits)} equally likely things happened ({bits:.1f} bits)"
    return (f"as much as being told which of so many equally likely things happened that writing their number "
            f"takes {_digits(bits)} digits ({bits:.1f} bits)")


def secrecy(seen: dict[str, Any]) -> str:
    """What someone who counted the routine's piles learned of the order
    (shuffling/exact_mode/onlooker.py's figures), in plain words."""
    if seen["fixed"]:
        return "every pile's count was fixed by the routine: counting them told nothing of the order"
    rounds = [r["round"] for r in seen["rounds"]]
    where = f"round {rounds[0]}" if len(rounds) == 1 else "rounds " + ", ".join(str(r) for r in rounds)
    order_bits = seen["order_bits"]
    return (f"someone who counted the cards in the piles of {where} learned {_which_of(seen['bits'])}, while the "
            f"pack's order was one of so many equally likely orders that writing their number takes "
            f"{_digits(order_bits)} digits ({order_bits:.1f} bits); every order that fits what they counted stayed "
            "equally likely (`shuffler plan` says what each routine's counts tell)")


def what_next(pack: str | None, cards: int) -> list[str]:
    """The commands to run after a first run on the virtual shuffler."""
    chosen = ["--pack", pack] if pack is not None else ["--cards", str(cards)]
    said = shlex.join(chosen)
    return [f"a real board: find its port with `shuffler devices`, then `shuffler flash --port PORT`, "
            f"`shuffler setup --port PORT` and `shuffler guide --port PORT {said}`",
            f"the page: `shuffler guide --sim {said} --web` shows this guide in a browser, with a picture of "
            "the table",
            f"the quality report: `shuffler quality {said}` shows how random each way of shuffling leaves the "
            "pack, round by round"]
