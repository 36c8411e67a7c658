"""What terminal play tells a person about Koikoi (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself: the cards captured,
the card flipped from the deck, the cards drawn, a yaku score that rose, the end of a
round; :func:`illegal_reason` says why an action is not legal now. Both read the State
(each card's place ``loc``) and the rules' helpers; no rule is restated.
"""

from __future__ import annotations

import numpy as np

from .spec import (
    KOIKOI,
    NUM_CARDS,
    PLAY_OFFSET,
    RANK_NAMES,
    START_CHIPS,
    STOP,
    SUIT_SYMBOLS,
    TAKE_OFFSET,
    Phase,
    RoundEnd,
    Status,
    card_name,
    card_rank,
    card_suit,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND, LOC_PENDING, LOC_STOCK

_SUIT_KEYS = "shdc"  # ♠ ♥ ♦ ♣ as typed
_GREEK = {"α": ("a", "alpha"), "β": ("b", "beta"), "γ": ("g", "gamma"), "δ": ("d", "delta")}
_GREEK |= {"ε": ("e", "epsilon"), "ζ": ("z", "zeta")}

MOVE_HELP = """  ♠4 or s4      play (or take) that card: suit ♠ ♥ ♦ ♣ typed s h d c, then its rank
  sa, s-alpha   the ranks α β γ δ ε ζ typed a b g d e z (or alpha, beta, ...)
  4             the one card of rank 4 you can play or take (else the choices are named)
  koi, stop     after your yaku score rose: declare koi-koi and go on, or stop and score"""


def _rank_of(word: str) -> int | None:
    if word in RANK_NAMES:
        return RANK_NAMES.index(word)
    for sym, keys in _GREEK.items():
        if word in keys:
            return RANK_NAMES.index(sym)
    return None


def _typed_cards(word: str) -> list[int] | None:
    """The cards a typed word names (``s4``, ``♠4``, ``4``, ``ha``); None if no card."""
    word = word.replace("-", "")
    suit = None
    if word[:1] in SUIT_SYMBOLS:
        suit, word = SUIT_SYMBOLS.index(word[0]), word[1:]
    elif len(word) > 1 and word[0] in _SUIT_KEYS and _rank_of(word[1:]) is not None:
        suit, word = _SUIT_KEYS.index(word[0]), word[1:]
    rank = _rank_of(word)
    if rank is None:
        return None
    return [c for c in range(NUM_CARDS) if card_rank(c) == rank and suit in (None, card_suit(c))]


def _ascii(card: int) -> str:
    rank = RANK_NAMES[card_rank(card)]
    return _SUIT_KEYS[card_suit(card)] + _GREEK.get(rank, (rank,))[0]


def move_text(state: np.ndarray, action: int) -> str:
    """The move as a person types it: the card as the hand and field show it (``♠4``;
    the keyboard form ``s4`` is typed too, see :func:`action_group`); ``koi`` / ``stop``."""
    if action == KOIKOI:
        return "koi"
    if action == STOP:
        return "stop"
    return card_name(action - (TAKE_OFFSET if action >= TAKE_OFFSET else PLAY_OFFSET))


def action_group(state: np.ndarray, action: int) -> str:
    """The heading a legal move is listed under, with how to type a card on a keyboard."""
    typing = "type ♠ ♥ ♦ ♣ as s h d c, α..ζ as a b g d e z: ♠4 is s4"
    if action < TAKE_OFFSET:
        return f"play a card from your hand ({typing})"
    if action < KOIKOI:
        return f"take one of the field cards matching it ({typing})"
    return "your yaku score rose: koi (declare koi-koi, play on) or stop (score now)"


def parse_move(text: str, state: np.ndarray, legal: dict) -> list[int] | None:
    """The actions ``text`` may mean: a card (``s4``, ``♠4``, ``4``, ``play s4``, ``take
    h7``), ``koi``/``koi-koi``, ``stop``; None when it is no move in these words."""
    words = text.lower().split()
    if words in (["koi"], ["koi-koi"], ["koikoi"], ["k"]):
        return [KOIKOI]
    if words in (["stop"], ["s"]):
        return [STOP]
    verb = words[0] if words and words[0] in ("play", "take") else None
    words = words[1:] if verb else words
    if len(words) != 1:
        return None
    cards = _typed_cards(words[0])
    if cards is None:
        return None
    offsets = {"play": [PLAY_OFFSET], "take": [TAKE_OFFSET], None: [PLAY_OFFSET, TAKE_OFFSET]}[verb]
    found = [o + c for o in offsets for c in cards]
    legal_found = [a for a in found if a in legal]
    return legal_found or found


def selection_line(state: np.ndarray, seat: int) -> str | None:
    """Which hand cards match the field (same rank), while ``seat`` plays a card."""
    e = state[0]
    if int(e["status"]) != Status.PLAYING or int(e["current"]) != seat or int(e["phase"]) != Phase.PLAY:
        return None
    loc = e["loc"]
    field = [c for c in range(NUM_CARDS) if loc[c] == LOC_FIELD]
    pairs = []
    for c in range(NUM_CARDS):
        if loc[c] == LOC_HAND + seat:
            hits = [f for f in field if card_rank(f) == card_rank(c)]
            if hits:
                pairs.append(f"{card_name(c)} takes {_cards(hits)}")
    if not pairs:
        return "no hand card matches the field (cards match by rank): the card you play stays there"
    return "matches on the field (same rank): " + "; ".join(pairs)


def describe_result(state: np.ndarray, options) -> list[str]:
    """Each seat's chips at the end and the change from the 25 it started with (its
    return: the chip changes of every round summed)."""
    e = state[0]
    n = int(e["cfg_players"])
    chips = [int(c) for c in e["chips"][:n]]
    best = max(chips)
    rounds = int(e["round"])
    out = [f"{rounds} round{'s' if rounds != 1 else ''} played; each seat started with {START_CHIPS} chips"]
    for k in range(n):
        top = " (most chips)" if chips[k] == best else ""
        out.append(f"player_{k}: {chips[k]} chips, {chips[k] - START_CHIPS:+d} from {START_CHIPS}{top}")
    return out


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
            text = f"{_who(int(a['last_winner']), viewer)} stopped and scored {int(a['last_points'])} point{'s' if int(a['last_points']) != 1 else ''}"
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
