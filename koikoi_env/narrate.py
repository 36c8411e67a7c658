"""What terminal play tells a person about Koikoi (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself: the cards captured,
the card flipped from the deck, the cards drawn, a yaku score that rose, the end of a
round; :func:`illegal_reason` says why an action is not legal now. Both read the State
(each card's place ``loc``) and the rules' helpers; no rule is restated.
"""

from __future__ import annotations

import numpy as np

from .spec import KOIKOI, PLAY_OFFSET, STOP, TAKE_OFFSET, Phase, RoundEnd, Status, card_name
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND, LOC_PENDING, LOC_STOCK


def _cards(cards) -> str:
    return " ".join(card_name(int(c)) for c in sorted(int(c) for c in cards)) or "-"


def _who(k: int, viewer: int) -> str:
    return "you" if k == viewer else f"player_{k}"


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what the step did: captures, the flip from the deck,
    draws (the viewer's own cards by name, others' as a count), yaku, round ends."""
    b, a = before[0], after[0]
    out = []
    n = int(b["cfg_players"])
    who = _who(actor, viewer)
    if int(a["round"]) == int(b["round"]) and int(a["status"]) == Status.PLAYING:
        lb, la = b["loc"], a["loc"]
        from_stock = np.flatnonzero((lb == LOC_STOCK) & (la != LOC_STOCK))
        flipped = [c for c in from_stock if not LOC_HAND <= la[c] < LOC_HAND + n]
        for c in flipped:
            where = {LOC_FIELD: "to the field", LOC_PENDING: "(two field cards match it: a choice)"}.get(
                int(la[c]), ""
            )
            out.append(f"{who} flipped {card_name(int(c))} from the deck {where}".rstrip())
        for k in range(n):
            took = np.flatnonzero((la == LOC_CAPTURED + k) & (lb != LOC_CAPTURED + k))
            if len(took):
                out.append(f"{_who(k, viewer)} captured {_cards(took)}")
            drew = np.flatnonzero((la == LOC_HAND + k) & (lb == LOC_STOCK))
            if len(drew):
                what = _cards(drew) if k == viewer else f"{len(drew)} card{'s' if len(drew) > 1 else ''}"
                out.append(f"{_who(k, viewer)} drew {what}")
        for k in range(n):
            if int(a["yaku"][k]) > int(b["yaku"][k]):
                out.append(f"{_who(k, viewer)}: yaku score rose to {int(a['yaku'][k])}")
        if action == KOIKOI:
            out.append(f"{who} declared koi-koi ({int(a['koikoi'][actor])} so far this round)")
    if int(a["round"]) > int(b["round"]) or int(a["status"]) != Status.PLAYING:
        end = RoundEnd(int(a["last_end"]))
        if end == RoundEnd.STOP:
            text = f"{_who(int(a['last_winner']), viewer)} stopped and scored {int(a['last_points'])} points"
        elif end == RoundEnd.HAND_EMPTY:
            text = "a hand ran out: no score"
        else:
            text = "the deck ran out: no score"
        chips = ", ".join(f"player_{k} {int(a['chips'][k])}" for k in range(n))
        out.append(f"round {int(b['round']) + 1} over: {text}. Chips: {chips}")
        if int(a["status"]) == Status.PLAYING:
            out.append(f"round {int(a['round']) + 1}: new deal, dealer player_{int(a['dealer'])}")
        else:
            best = max(int(c) for c in a["chips"][:n])
            winners = ", ".join(f"player_{k}" for k in range(n) if int(a["chips"][k]) == best)
            why = (
                "all rounds played"
                if int(a["status"]) == Status.ROUNDS_DONE
                else "a player has no chips left"
            )
            out.append(f"game over ({why}): {winners} won with {best} chips")
    return out


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now (one sentence, no trailing period)."""
    e = state[0]
    phase = Phase(int(e["phase"]))
    if phase == Phase.DECIDE:
        return "your yaku score rose: first declare koi-koi or stop"
    if phase in (Phase.CHOOSE_PLAYED, Phase.CHOOSE_FLIPPED):
        pending = card_name(int(e["pending"]))
        if TAKE_OFFSET <= action < KOIKOI:
            return (
                f"{card_name(action - TAKE_OFFSET)} does not match {pending}: take a field card of its rank"
            )
        return f"first take one of the field cards matching {pending}"
    if action in (KOIKOI, STOP):
        return "koi-koi and stop come only after your yaku score rises"
    if TAKE_OFFSET <= action < KOIKOI:
        return "take comes only when two field cards match: play a card from your hand"
    card = action - PLAY_OFFSET
    if int(e["loc"][card]) != LOC_HAND + seat:
        return f"{card_name(card)} is not in your hand"
    return "the rules do not allow it now"
