"""What terminal play tells a person about The Game (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself (the backwards trick, a
fire card laid, the cards drawn at the end of a turn, the draw pile running out, the end
of the game); :func:`illegal_reason` says why an action is not legal now;
:data:`RULES_SUMMARY` is ``help rules`` (``docs/rules/thegame.md`` in one screen). All
read the State and call the rules' helpers (``can_place``, ``play_jump``); no rule is
restated.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.records import at

from .rules import can_place, draw_pile_size_r, is_fire_card, is_win_r, min_plays_now_r, play_jump, score_r
from .spec import (
    BACKWARDS_STEP,
    END_TURN,
    FIRE_CARDS,
    HAND_SIZE,
    MAX_CARD,
    MIN_CARD,
    MIN_PLAYS,
    MIN_PLAYS_EMPTY_DECK,
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
  end           end the turn and draw back up (once the required plays are made)
  'undo' takes back a card played this turn, until you end the turn"""

RULES_SUMMARY = f"""The Game, the rules in one screen (docs/rules/thegame.md):
- The team plays together against the deck: cards {MIN_CARD}..{MAX_CARD}, four piles. up1 and
  up2 start at 1 and go up; down1 and down2 start at 100 and go down.
- A card goes on an up pile if it is higher than the top, on a down pile if it is lower.
- The backwards trick: a card exactly {BACKWARDS_STEP} the wrong way also goes (53 on an up
  pile whose top is 63; 47 on a down pile whose top is 37): it wins ground back.
- Your turn: play at least {MIN_PLAYS} cards ({MIN_PLAYS_EMPTY_DECK} once the draw pile is empty; level 1
  and 2: 3), one at a time, then play on or end the turn ('end'); you draw back up to
  your hand size ({HAND_SIZE[1]} alone, {HAND_SIZE[2]} for two, {HAND_SIZE[3]} for three to five; level 2: one less).
- Once the draw pile is empty, a player whose hand is empty is skipped.
- The game ends when every card is played (a perfect game), or when the player to act
  still owes a play and has none.
- Score: the cards left in hands and draw pile. The team wins with {WIN_THRESHOLD} or fewer.
- On Fire (option): a fire card ({", ".join(map(str, FIRE_CARDS))}) laid on a pile must be covered by a
  non-fire card by the end of the next player's turn, or the team loses at once.
- Reward: +1 to every seat for each card placed (option reward=win: +1/-1 at the end).
- Table talk: none; the players share nothing but the table."""

UNDO_HELP = "take back a card you played this turn (undo all: every one), until you end the turn"

_PILES = {}
for _p, _name in enumerate(PILE_NAMES):
    _k = _name[-1]
    for _w in ("up", "u", "a", "asc", "↑") if _p < 2 else ("down", "d", "desc", "↓"):
        _PILES[_w + _k] = _p

_WORDS = {1: "one", 2: "two", 3: "three"}


def UNDOABLE(action: int) -> bool:  # noqa: N802 (a constant-like predicate)
    """A card played this turn can be taken back (``undo``) until the turn ends: nothing
    is drawn and no other seat acts before ``end``."""
    return action != END_TURN


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


def end_reason(state: np.ndarray, i: int = 0) -> str:
    """Why the finished game of env ``i`` ended, in a few words (no final period)."""
    e = state[i]
    return {
        Status.ALL_PLAYED: "every card was played, a perfect game",
        Status.STUCK: f"player_{int(e['current'])} owed a play and had none",
        Status.FIRE_LOSS: "a fire card stayed uncovered past its deadline",
    }[Status(int(e["status"]))]


def end_text(state: np.ndarray, i: int = 0) -> str:
    """The end of the finished game of env ``i`` in one sentence: why it ended, the score
    (cards left in hands and draw pile) and whether the team won (``WIN_THRESHOLD``, no
    fire loss)."""
    sc = int(at(score_r, state, i))
    won = bool(at(is_win_r, state, i))
    return (
        f"{end_reason(state, i)}. Score {sc} (cards left in hands and draw pile); "
        f"the team {'wins' if won else 'loses'} (a win needs a score of {WIN_THRESHOLD} or less)"
    )


def _play_lines(b, a, action: int, actor: int, viewer: int) -> list[str]:
    """The special rules a card play used: the backwards trick, a fire card laid."""
    pile, card = action_to_play(action)
    top = int(b["piles"][pile])
    out = []
    if play_jump(top, pile, card) < 0:
        out.append(f"backwards trick: {card} on {top}, exactly {BACKWARDS_STEP} back")
    if bool(a["cfg_on_fire"]) and is_fire_card(card):
        out.append(
            f"fire card {card} on {PILE_NAMES[pile]}: cover it with a non-fire card by the end of the next player's turn, or the team loses"
        )
    return out


def _draw_lines(b, a, after: np.ndarray, actor: int, viewer: int) -> list[str]:
    """The cards drawn at the end of a turn, the draw pile running out, a skipped seat."""
    out = []
    old, new = _hand(b, actor), _hand(a, actor)
    drawn = len(new) - len(old)
    who = "you" if actor == viewer else f"player_{actor}"
    pile = int(at(draw_pile_size_r, after, 0))
    if drawn > 0:
        cards = sorted(set(new) - set(old))
        what = ", ".join(map(str, cards)) if actor == viewer else f"{drawn} card{'s' if drawn > 1 else ''}"
        out.append(f"{who} drew {what}; draw pile {pile}")
        if pile == 0 and int(a["status"]) == Status.PLAYING:
            out.append(
                f"the draw pile is empty: from now on {_WORDS[MIN_PLAYS_EMPTY_DECK]} play a turn is enough"
            )
    elif int(a["status"]) == Status.PLAYING:
        out.append(f"{who} drew nothing: the draw pile is empty")
    if int(a["status"]) == Status.PLAYING and int(a["current"]) != (actor + 1) % int(a["cfg_players"]):
        out.append(f"player_{int(a['current'])} is next (players with an empty hand are skipped)")
    return out


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what the step ``action`` of seat ``actor`` did besides
    placing a card: the backwards trick and a fire card when played, the cards drawn (the
    viewer's own by value, others' as a count), the empty draw pile, and the end of the
    game (:func:`end_text`). ``before``/``after`` are the (1,) States around the step."""
    b, a = before[0], after[0]
    if action == END_TURN:
        out = _draw_lines(b, a, after, actor, viewer)
    else:
        out = _play_lines(b, a, action, actor, viewer)
    if int(b["status"]) == Status.PLAYING and int(a["status"]) != Status.PLAYING:
        out.append(f"game over: {end_text(after)}")
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
