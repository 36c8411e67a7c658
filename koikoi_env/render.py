"""Text rendering of a Koikoi table (pure: state in, string out).

Cards read the way a player reads them: suit symbol then rank (``♠7``, ``♥α``); suits
♠ swords 魔剣, ♥ cups 聖杯, ♦ coins 金貨, ♣ trees 聖樹.
"""

from __future__ import annotations

import numpy as np

from .spec import NUM_CARDS, Phase, RoundEnd, Status, card_name, multiplier
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND

_PHASE_TEXT = {
    Phase.PLAY: "plays a card from the hand",
    Phase.CHOOSE_PLAYED: "takes one of two field cards matching the played card",
    Phase.CHOOSE_FLIPPED: "takes one of two field cards matching the flipped card",
    Phase.DECIDE: "has a higher yaku score: declares koi-koi (play on) or stops (score now)",
}
_END_TEXT = {
    RoundEnd.STOP: "stopped by player_{w} for {p} points",
    RoundEnd.HAND_EMPTY: "a hand ran out: no score",
    RoundEnd.DECK_EMPTY: "the deck ran out: no score",
}


def _cards(cards) -> str:
    """Cards sorted by suit then rank, as ``♠3 ♠4 ♥α``; ``-`` if none."""
    return " ".join(card_name(int(c)) for c in sorted(int(c) for c in cards)) or "-"


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text.

    Args:
        state: the State record array.
        options: unused (the options live in the state).
        seat: show only this seat's hand (a player's view); ``None`` shows every hand.
        i: env index in the batch.
    """
    e = state[i]
    n = int(e["cfg_players"])
    loc = e["loc"]
    status = Status(int(e["status"]))
    stock = NUM_CARDS - int(e["deck_pos"])
    rnd = min(int(e["round"]) + 1, int(e["cfg_rounds"]))
    lines = [
        f"Shikokushi Koikoi — round {rnd}/{int(e['cfg_rounds'])}, deck {stock} card{'' if stock == 1 else 's'}"
    ]
    lines.append(f"  field: {_cards(np.flatnonzero(loc == LOC_FIELD))}")
    if status == Status.PLAYING and int(e["pending"]) >= 0:
        lines.append(f"  pending: {card_name(int(e['pending']))}")
    for k in range(n):
        acting = status == Status.PLAYING and k == int(e["current"])
        mark = "▶" if acting else " "
        dealer = " (dealer)" if k == int(e["dealer"]) else ""
        koi = int(e["koikoi"][k])
        lines.append(
            f"{mark} player_{k}{dealer}: chips {int(e['chips'][k])}, yaku {int(e['yaku'][k])}, "
            f"koi-koi {koi} (x{multiplier(koi)})"
        )
        hand = np.flatnonzero(loc == LOC_HAND + k)
        if seat is None or seat == k:
            lines.append(f"    hand ({len(hand)}): {_cards(hand)}")
        else:
            lines.append(f"    hand: {len(hand)} card{'' if len(hand) == 1 else 's'}")
        lines.append(f"    captured: {_cards(np.flatnonzero(loc == LOC_CAPTURED + k))}")
    last = RoundEnd(int(e["last_end"]))
    if last != RoundEnd.NONE:
        lines.append(
            "last round: " + _END_TEXT[last].format(w=int(e["last_winner"]), p=int(e["last_points"]))
        )
    if status == Status.PLAYING:
        lines.append(f"now: player_{int(e['current'])} {_PHASE_TEXT[Phase(int(e['phase']))]}")
    else:
        chips = [int(c) for c in e["chips"][:n]]
        best = max(chips)
        winners = ", ".join(f"player_{k}" for k in range(n) if chips[k] == best)
        why = "all rounds played" if status == Status.ROUNDS_DONE else "a player has no chips left"
        lines.append(f"game over ({why}) — winner(s): {winners} with {best} chips")
    return "\n".join(lines)
