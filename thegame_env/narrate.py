"""What terminal play tells a person about The Game (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself (the cards drawn at the
end of a turn, the end of the game); :func:`illegal_reason` says why an action is not
legal now. Both read the State and call the rules' helpers; no rule is restated.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.records import at

from .rules import can_place, draw_pile_size_r, is_win_r, min_plays_now_r, score_r
from .spec import (
    END_TURN,
    MAX_CARD,
    MIN_CARD,
    NUM_CARDS,
    NUM_PILES,
    PILE_NAMES,
    WIN_THRESHOLD,
    Status,
    action_name,
    action_to_play,
    play_to_action,
)

MOVE_HELP = """  33 up1        play 33 on the pile up1 (piles: up1 up2 go 1→99, down1 down2 go 100→2)
  33 a1, 33 d2  the same with short pile names (a/u/asc = up, d/desc = down)
  33            play 33 on the one pile that takes it (else the choices are named)
  end           end the turn and draw back up (once the required plays are made)"""

_PILES = {}
for _p, _name in enumerate(PILE_NAMES):
    _k = _name[-1]
    for _w in ("up", "u", "a", "asc", "↑") if _p < 2 else ("down", "d", "desc", "↓"):
        _PILES[_w + _k] = _p

_WORDS = {1: "one", 2: "two", 3: "three"}


def move_text(state: np.ndarray, action: int) -> str:
    """The move as a person types it: ``"33 up1"`` or ``"end"``."""
    if action == END_TURN:
        return "end"
    pile, card = action_to_play(action)
    return f"{card} {PILE_NAMES[pile]}"


def parse_move(text: str, state: np.ndarray, legal: dict) -> list[int] | None:
    """The actions ``text`` may mean (``"33 up1"``, ``"33 a1"``, ``"play 33 on d2"``,
    ``"33"``: its four piles; ``"end"``), or None when it is not a move in these words."""
    words = [w for w in text.lower().replace(",", " ").split() if w not in ("play", "on")]
    if words in (["end"], ["end", "turn"], ["e"]):
        return [END_TURN]
    if not words or not words[0].isdigit() or len(words) > 2:
        return None
    card = int(words[0])
    if not MIN_CARD <= card <= MAX_CARD:
        return []
    if len(words) == 2:
        pile = _PILES.get(words[1])
        return None if pile is None else [play_to_action(pile, card)]
    return [play_to_action(p, card) for p in range(NUM_PILES)]


def describe_result(state: np.ndarray, options) -> list[str]:
    """The whole game's result in The Game's words: the cards placed and left, and
    whether the team won; every seat shares it (the return: a card placed is +1, or +1/-1
    for a win/loss with ``reward="win"``)."""
    e = state[0]
    sc = int(at(score_r, state, 0))
    won = bool(at(is_win_r, state, 0))
    placed = NUM_CARDS - sc
    n = int(e["cfg_players"])
    pay = f"{'+1' if won else '-1'} each (reward=win)" if options.reward == "win" else f"+{placed} each"
    return [
        f"the team placed {placed} of {NUM_CARDS} cards; {sc} left in hands and draw pile (score {sc})",
        f"the team {'won' if won else 'lost'} (a win needs {WIN_THRESHOLD} or fewer left"
        + (", no fire card burning" if options.on_fire else "")
        + ")",
        f"every seat ({', '.join(f'player_{k}' for k in range(n))}): {pay}",
    ]


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
