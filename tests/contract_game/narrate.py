"""What terminal play tells a person about a hand (pure: states in, lines out)."""

from __future__ import annotations

import numpy as np

from .render import _result
from .spec import CALL, FOLD, RAISE, Status, card_name


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what seat ``actor``'s ``action`` did beyond its name: the
    public card dealt, the end of the hand."""
    b, a = before[0], after[0]
    out = []
    if int(b["round"]) == 0 and int(a["round"]) == 1:
        out.append(f"the public card is {card_name(int(a['public']))}")
    if int(a["status"]) != Status.PLAYING:
        if int(a["status"]) == Status.SHOWDOWN:
            cards = ", ".join(f"player_{k} {card_name(int(a['private'][k]))}" for k in range(2))
            out.append(f"showdown: {cards}")
        out.append(_result(a))
    return out


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now."""
    e = state[0]
    if int(e["status"]) != Status.PLAYING:
        return "the hand is over"
    if action == FOLD:
        return "nothing to fold to: check instead"
    if action == RAISE:
        return f"no raise left this round ({int(e['cfg_max_raises'])} made)"
    if action == CALL:
        return "the rules do not allow it now"
    return f"no action {action}"
