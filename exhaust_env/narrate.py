"""What terminal play tells a person about Exhaust (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself (a cast with its cards
and reward, Time Magic, the NPC's turn, the end of a round); :func:`illegal_reason` says
why an action is not legal now; :data:`UNDOABLE` marks the actions a person may take
back (adding a card to the selection changes nothing anyone else can see);
:data:`RULES_SUMMARY` is ``help rules`` (``docs/rules/exhaust.md`` in one screen).
"""

from __future__ import annotations

import numpy as np

from .spec import (
    ADD_OFFSET,
    CAST_OFFSET,
    COPY_KIND,
    FLIP_EXHAUST,
    NPC_SEAT,
    NUM_AREAS,
    NUM_KINDS,
    PLAY_TIME_MAGIC,
    Mode,
    Status,
    action_name,
    area_label,
    card_name,
    parse_card,
)

MOVE_HELP = """  R7            add the card R7 to your selection (C: a copy card); 'undo' takes it back
  cast pair     cast the selection on an area: red blue yellow green (the singles), pair,
                3cards, 4cards, straight, flush, any ('pair' alone works too)
  tm            play a Time Magic card (with an empty selection)
  flip          flip your face-up Exhaust card (long game)"""

UNDO_HELP = "take back the last card added to your selection (undo all: the whole selection)"

RULES_SUMMARY = """Exhaust, the rules in one screen (docs/rules/exhaust.md):
- Spell cards: numbers 1..15 in red, blue, yellow, green (R7, B12, ...) and copy cards
  (C: a copy of a number card played with it, never alone, never in a Straight).
- Your turn is exactly one action:
  A. cast one or more cards on ONE combo area, by its rule, and take its reward;
  B. play a Time Magic card: it is your whole turn (a pass), the card goes back to
     the Time Magic pile;
  C. (long game) flip your face-up Exhaust card face down: a pass once a round.
- Areas: Single (one card of its colour), Pair, 3 cards, 4 cards (same number): each
  play's number must be higher than every number already there. Straight, Flush, Any:
  3+ cards, and each later play must have more cards than the one before.
- Rewards: Pair 1 card from the replenishment deck; 3 cards, Straight, Flush, Any
  1 Time Magic; 4 cards 2 Time Magic (as far as the pile holds).
- You lose only if you CANNOT ACT: no legal cast, no Time Magic card (and no Exhaust
  card to flip). Running out of cards does not end the game; it only leaves you
  nothing to cast. Everyone else wins. Keep Time Magic to pass when nothing fits.
- Long game: the round's loser takes an Exhaust card; a second one loses the game.
- Solo: you against the NPC, which plays by fixed rules with its hand open.
- You build a cast card by card ('R7', then 'cast pair'); 'undo' takes cards back."""


def _area_key(area: int, num_singles: int) -> str:
    """The area as typed: ``red``, ``redyellow``, ``single``, ``pair``, ``3cards``..."""
    label = area_label(area, num_singles).lower()
    return label.removeprefix("single ").replace("+", "").replace(" ", "")


def move_text(state: np.ndarray, action: int) -> str:
    """The move as a person types it: ``R7`` (add), ``cast pair``, ``tm``, ``flip``."""
    if ADD_OFFSET <= action < CAST_OFFSET:
        return card_name(action - ADD_OFFSET)
    if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
        return f"cast {_area_key(action - CAST_OFFSET, int(state[0]['cfg_singles']))}"
    return "tm" if action == PLAY_TIME_MAGIC else "flip"


def parse_move(text: str, state: np.ndarray, legal: dict) -> list[int] | None:
    """The actions ``text`` may mean (``R7``, ``add r7``, ``cast pair``, ``pair``, ``tm``,
    ``flip``), or None when it is no move in these words."""
    words = [w for w in text.lower().split() if w not in ("add", "cast", "on", "play")]
    word = "".join(words)
    if word in ("tm", "timemagic", "time"):
        return [PLAY_TIME_MAGIC]
    if word in ("flip", "exhaust", "flipexhaust"):
        return [FLIP_EXHAUST]
    singles = int(state[0]["cfg_singles"])
    areas = [a for a in range(NUM_AREAS) if word and _area_key(a, singles) in (word, word + "cards")]
    if areas:
        return [CAST_OFFSET + a for a in areas]
    if len(words) == 1:
        try:
            return [ADD_OFFSET + parse_card(words[0].upper())]
        except ValueError:
            return None
    return None


def seen_action(state: np.ndarray, action: int, actor: int, viewer: int) -> str:
    """The action as ``viewer`` may know it: another seat's card added to its face-down
    selection is not named (its cast names the cards, once they are on the table)."""
    if actor != viewer and ADD_OFFSET <= action < CAST_OFFSET:
        return "adds a card to the selection (face down)"
    return action_name(action, int(state[0]["cfg_singles"]))


def npc_line(state: np.ndarray) -> str | None:
    """Solo: the NPC plays too, by the rules (no bot chooses for it)."""
    if int(state[0]["cfg_mode"]) == Mode.SOLO:
        return "the NPC plays by the rules' fixed choices (its hand is open)"
    return None


def describe_result(state: np.ndarray, options) -> list[str]:
    """Who lost (could not act), and each seat's return: the loser -1, the others +1
    (``zero_sum``: +1/(N-1)); solo: +1 if the NPC was exhausted, -1 if you were."""
    e = state[0]
    loser = int(e["loser"])
    if int(e["cfg_mode"]) == Mode.SOLO:
        if loser == NPC_SEAT:
            return ["the NPC could not act: player_0 beat the NPC (+1)"]
        return ["player_0 could not act and lost to the NPC (-1)"]
    n = options.players
    win = 1.0 / (n - 1) if options.zero_sum else 1.0
    rounds = int(e["round"]) + 1
    out = [f"player_{loser} could not act and lost" + (f" after {rounds} rounds" if rounds > 1 else "")]
    out += [f"player_{k}: {'lost (-1)' if k == loser else f'won (+{win:g})'}" for k in range(n)]
    return out


def _cards(counts) -> str:
    return " ".join(card_name(k) for k in range(NUM_KINDS) for _ in range(int(counts[k]))) or "-"


def _name(e, k: int, viewer: int) -> str:
    if int(e["cfg_mode"]) == Mode.SOLO and k == NPC_SEAT:
        return "the NPC"
    return "you" if k == viewer else f"player_{k}"


def UNDOABLE(action: int) -> bool:  # noqa: N802 (a constant-like predicate)
    """Adding a card to the selection can be taken back (``undo``)."""
    return ADD_OFFSET <= action < CAST_OFFSET


def QUIET(action: int) -> bool:  # noqa: N802
    """Another seat's selection steps are not shown one by one: its cast names the cards."""
    return ADD_OFFSET <= action < CAST_OFFSET


def selection_line(state: np.ndarray, seat: int) -> str | None:
    """How to take the selection back, while ``seat`` has one (the table shows it)."""
    e = state[0]
    if int(e["status"]) != Status.PLAYING or int(e["current"]) != seat or not int(e["sel_n"]):
        return None
    return "('undo' takes the last card back into the hand, 'undo all' the whole selection)"


def action_text(state: np.ndarray, action: int) -> str:
    """The action as the table sees it: a cast names its cards (``"cast R7 R8 on Pair"``)."""
    e = state[0]
    if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
        return f"cast {_cards(e['sel'])} on {area_label(action - CAST_OFFSET, int(e['cfg_singles']))}"
    return action_name(action, int(e["cfg_singles"]))


def _reward_lines(b, a, actor: int, who: str, viewer: int) -> list[str]:
    """A cast's rewards: Time Magic taken, a card from the replenishment deck."""
    out = []
    tm = int(a["tm"][actor]) - int(b["tm"][actor])
    got = int(a["hand_n"][actor]) - (int(b["hand_n"][actor]) - int(b["sel_n"]))
    if tm > 0:
        out.append(
            f"{who} took {tm} Time Magic card{'s' if tm > 1 else ''} (play one to pass a turn "
            "when nothing fits: only a player who cannot act loses)"
        )
    if got > 0:
        new = a["hand"][actor].astype(int) - (b["hand"][actor].astype(int) - b["sel"].astype(int))
        what = _cards(np.maximum(new, 0)) if actor == viewer else "a card"
        out.append(f"{who} took {what} from the replenishment deck")
    return out


_CANNOT_ACT = "no cast fits, no Time Magic card to pass with: the player who cannot act loses"


def describe(before: np.ndarray, after: np.ndarray, action: int, actor: int, viewer: int) -> list[str]:
    """Lines telling ``viewer`` what the step did: the cards cast and the reward taken,
    a Time Magic card played, the NPC's turn (solo), a lost round or game."""
    b, a = before[0], after[0]
    out = []
    who = _name(b, actor, viewer)
    if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
        copies = int(b["sel"][COPY_KIND])
        if copies:
            out.append(
                f"the copy card{'s' if copies > 1 else ''} counted as {'copies' if copies > 1 else 'a copy'} "
                "of a number card cast with it (its number; in a Flush its colour)"
            )
        if int(a["round"]) == int(b["round"]):
            out += _reward_lines(b, a, actor, who, viewer)
    elif action == PLAY_TIME_MAGIC:
        out.append(
            f"Time Magic: {who} passed the turn with it (no cast); the card goes back to the "
            f"Time Magic pile ({int(a['tm_pile'])} there), which pays the rewards of later casts"
        )
    elif action == FLIP_EXHAUST:
        out.append(f"{who} flipped the Exhaust card face down: a pass, once a round")
    if (
        int(b["cfg_mode"]) == Mode.SOLO
        and int(a["turn"]) > int(b["turn"]) + 1
        and int(a["round"]) == int(b["round"])
    ):
        npc = a["played"].astype(int) - b["played"].astype(int)
        if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
            npc -= b["sel"].astype(int)
        drew = int(b["npc_n"]) - int(a["npc_n"])
        line = "the NPC's turn:"
        if drew:
            line += f" drew {drew} card{'s' if drew > 1 else ''},"
        if npc.sum() > 0:
            line += f" cast {_cards(np.maximum(npc, 0))}"
        elif int(a["tm"][NPC_SEAT]) < int(b["tm"][NPC_SEAT]):
            line += " played a Time Magic card"
        out.append(line.rstrip(","))
    if int(a["round"]) > int(b["round"]):
        loser = int(a["last_loser"])
        out.append(
            f"round {int(b['round']) + 1} over: {_name(a, loser, viewer)} could not act ({_CANNOT_ACT}) "
            "and took an Exhaust card; "
            f"new deal, {_name(a, int(a['current']), viewer)} to start"
        )
    if int(b["status"]) == Status.PLAYING and int(a["status"]) != Status.PLAYING:
        out.append(f"game over: {end_text(after, viewer=viewer)}")
    return out


def end_text(state: np.ndarray, i: int = 0, viewer: int | None = None) -> str:
    """How the finished game of env ``i`` ended: who could not act, and that this is the
    one way to lose (``viewer``: that seat is named "you")."""
    e = state[i]
    return f"{_name(e, int(e['loser']), -1 if viewer is None else viewer)} could not act and lost ({_CANNOT_ACT})"


def illegal_reason(state: np.ndarray, action: int, seat: int) -> str:
    """Why ``action`` is not legal for ``seat`` now (one sentence, no trailing period)."""
    e = state[0]
    sel_n = int(e["sel_n"])
    if ADD_OFFSET <= action < CAST_OFFSET:
        kind = action - ADD_OFFSET
        free = int(e["hand"][seat, kind]) - int(e["sel"][kind])
        if free <= 0:
            return f"you hold no {'more ' if int(e['hand'][seat, kind]) else ''}{card_name(kind)} to add"
        return f"with {card_name(kind)} the selection {_cards(e['sel'])} could go on no combo area"
    if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
        label = area_label(action - CAST_OFFSET, int(e["cfg_singles"]))
        if not sel_n:
            return f"the selection is empty: add cards first, then cast them on {label}"
        return f"the selection {_cards(e['sel'])} does not fit {label} now"
    if action == PLAY_TIME_MAGIC:
        if not int(e["tm"][seat]):
            return "you hold no Time Magic card"
        return "Time Magic needs an empty selection ('undo all' clears it)"
    if action == FLIP_EXHAUST:
        if int(e["cfg_mode"]) != Mode.LONG:
            return "flipping an Exhaust card belongs to the long game"
        if not e["exhaust_up"][seat]:
            return "you hold no face-up Exhaust card"
        return "flipping needs an empty selection ('undo all' clears it)"
    return "the rules do not allow it now"
