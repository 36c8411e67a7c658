"""What terminal play tells a person about The Game (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself (the cards drawn at the
end of a turn, the end of the game); :func:`illegal_reason` says why an action is not
legal now. Both read the State and call the rules' helpers; no rule is restated.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.records import at

from .rules import can_place, draw_pile_size_r, min_plays_now_r, score_r
from .spec import END_TURN, WIN_THRESHOLD, Status, action_name, action_to_play

_WORDS = {1: "one", 2: "two", 3: "three"}


def _hand(e, seat: int) -> list[int]:
    return sorted(int(c) for c in e["hand"][seat, : int(e["hand_size"][seat])])


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what the step ``action`` of seat ``actor`` did besides
    placing a card: the cards drawn (the viewer's own by value, others' as a count) and
    the end of the game. ``before``/``after`` are the (1,) States around the step."""
    b, a = before[0], after[0]
    out = []
    if action == END_TURN:
        old, new = _hand(b, actor), _hand(a, actor)
        drawn = len(new) - len(old)
        who = "you" if actor == viewer else f"player_{actor}"
        if drawn > 0:
            cards = sorted(set(new) - set(old))
            what = (
                ", ".join(map(str, cards)) if actor == viewer else f"{drawn} card{'s' if drawn > 1 else ''}"
            )
            out.append(f"{who} drew {what}; draw pile {int(at(draw_pile_size_r, after, 0))}")
        elif int(a["status"]) == Status.PLAYING:
            out.append(f"{who} drew nothing: the draw pile is empty")
        if int(a["status"]) == Status.PLAYING and int(a["current"]) != (actor + 1) % int(a["cfg_players"]):
            out.append(f"player_{int(a['current'])} is next (players with an empty hand are skipped)")
    if int(b["status"]) == Status.PLAYING and int(a["status"]) != Status.PLAYING:
        sc = int(at(score_r, after, 0))
        why = {
            Status.ALL_PLAYED: "every card was played: a perfect game",
            Status.STUCK: f"player_{int(a['current'])} owed a play and had none",
            Status.FIRE_LOSS: "a fire card stayed uncovered past its deadline",
        }[Status(int(a["status"]))]
        won = sc <= WIN_THRESHOLD and int(a["status"]) != Status.FIRE_LOSS
        out.append(
            f"game over: {why}. Score {sc} (cards left in hands and draw pile); "
            f"the team {'wins' if won else 'loses'} (a win needs a score of {WIN_THRESHOLD} or less)"
        )
    return out


def action_group(state: np.ndarray, action: int) -> str:
    """The heading a legal action is listed under: its pile with the top card."""
    if action == END_TURN:
        return "end the turn (draw back up)"
    pile, _ = action_to_play(action)
    where = action_name(action).split(" on ")[1]
    return f"on {where} (top {int(state[0]['piles'][pile])})"


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now (one sentence, no trailing period)."""
    e = state[0]
    if action == END_TURN:
        owed = int(at(min_plays_now_r, state, 0)) - int(e["plays_this_turn"])
        n = _WORDS.get(owed, str(owed))
        return f"{n} play{'s' if owed > 1 else ''} owed before ending the turn"
    pile, card = action_to_play(action)
    if card not in _hand(e, seat):
        return f"you do not hold {card}"
    top = int(e["piles"][pile])
    if not can_place(top, pile, card):
        where = action_name(action).split(" on ")[1]
        return f"{card} does not go on {where}, whose top card is {top}"
    return "the rules do not allow it now"
