"""Text rendering of The Game's table (pure: state in, string out)."""

from __future__ import annotations

import numpy as np

from .rules import min_plays_now
from .spec import FIRE_CARDS, NUM_CARDS, Status

_STATUS_TEXT = {
    Status.PLAYING: "playing",
    Status.ALL_PLAYED: "every card played: perfect game!",
    Status.STUCK: "the active player owed a play and had none",
    Status.FIRE_LOSS: "a fire card was left burning: lost",
}


def _card(v: int, on_fire: bool) -> str:
    return f"{v}🔥" if on_fire and v in FIRE_CARDS else str(v)


def render_ansi(state: np.ndarray, options=None, seat: int | None = None, i: int = 0) -> str:
    """The table of env ``i`` as text.

    Args:
        state: the State record array.
        seat: show only this seat's hand (a player's view); ``None`` shows every hand.
    """
    e = state[i]
    on_fire = bool(e["cfg_on_fire"])
    n = int(e["cfg_players"])
    left = NUM_CARDS - int(e["deck_pos"]) + int(e["hand_size"][:n].sum())
    lines = [
        f"The Game — turn {int(e['turn']) + 1}, draw pile {NUM_CARDS - int(e['deck_pos'])}, cards left {left}"
    ]
    tops = []
    for p in range(4):
        arrow = "↑" if p < 2 else "↓"
        ft = int(e["fire_turn"][p])
        fire = f" 🔥cover by end of {'this' if ft < e['turn'] else 'next'} turn" if ft >= 0 else ""
        tops.append(f"  {arrow}{p % 2 + 1} {'(1→99)' if p < 2 else '(100→2)'}: {int(e['piles'][p]):>3}{fire}")
    lines += tops
    for k in range(n):
        mark = "▶" if k == e["current"] and e["status"] == Status.PLAYING else " "
        size = int(e["hand_size"][k])
        if seat is None or seat == k:
            cards = " ".join(_card(int(c), on_fire) for c in sorted(e["hand"][k][:size]))
            lines.append(f"{mark} player_{k} ({size}): {cards}")
        else:
            lines.append(f"{mark} player_{k} ({size} card{'' if size == 1 else 's'})")
    if e["status"] == Status.PLAYING:
        lines.append(
            f"plays this turn: {int(e['plays_this_turn'])} (at least {int(min_plays_now(state, i))} owed)"
        )
    else:
        lines.append(f"game over — {_STATUS_TEXT[Status(int(e['status']))]}; score {left}")
    return "\n".join(lines)
