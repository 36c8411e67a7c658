"""What terminal play tells a person about Koikoi (pure: states in, lines out).

:func:`describe` names what a step did beyond the action itself: the cards captured,
the card flipped from the deck, the cards drawn, each yaku made or grown (by name, with
its points), koi-koi and its multiplier, the end of a round; :func:`illegal_reason` says
why an action is not legal now; :data:`RULES_SUMMARY` and :data:`HELP_TOPICS` are
``help rules`` and ``help yaku`` (``docs/rules/koikoi.md``). All read the State (each
card's place ``loc``, the captured cards' suit words ``capt_bits``) and the rules'
helpers (``suit_yaku``, ``longest_number_run``, ``koikoi_multiplier``); no rule is restated.
"""

from __future__ import annotations

import numpy as np

from .bits import NUMBER_BITS
from .rules import koikoi_multiplier, longest_number_run, suit_yaku
from .spec import (
    GREAT_BASE,
    GREAT_MIN,
    GREAT_STEP,
    HAND_SIZE,
    KOIKOI,
    MAX_MULTIPLIER,
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    NUM_SUITS,
    PLAY_OFFSET,
    RANK_NAMES,
    START_CHIPS,
    STOP,
    SUIT_BASE,
    SUIT_MIN,
    SUIT_NAMES,
    SUIT_STEP,
    SUIT_SYMBOLS,
    TAKE_OFFSET,
    TRIPLE_BASE,
    TRIPLE_MIN,
    TRIPLE_STEP,
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
  koi, stop     after your yaku score rose: declare koi-koi and go on, or stop and score
  'help yaku' lists the yaku and their points; 'help rules' sums up the rules"""

YAKU_HELP = f"""the yaku (each suit X: ♠ swords, ♥ cups, ♦ coins, ♣ trees; the scores add up):
  Great X    {GREAT_MIN} or more non-number cards (α..ζ) of X: {GREAT_BASE}, +{GREAT_STEP} per card beyond {GREAT_MIN}
  Triple X   a run of {TRIPLE_MIN} or more consecutive numbers (0..{NUM_NUMBER_RANKS - 1}) of X: {TRIPLE_BASE}, +{TRIPLE_STEP} per card
             beyond {TRIPLE_MIN} (only the suit's longest run counts)
  X          {SUIT_MIN} or more cards of X: {SUIT_BASE}, +{SUIT_STEP} per card beyond {SUIT_MIN}
  A stop scores your yaku score times the koi-koi multiplier: you declared 0 or 1
  koi-koi x1, 2 x2, 3 x3, {MAX_MULTIPLIER} or more x{MAX_MULTIPLIER}."""

RULES_SUMMARY = f"""Shikokushi Koikoi, the rules in one screen (docs/rules/koikoi.md):
- 88 cards: four suits (♠ ♥ ♦ ♣), each with the numbers 0..15 and six non-number ranks
  α..ζ. Cards match by rank (every rank has four cards, one per suit).
- A round: {HAND_SIZE} cards to each hand and {HAND_SIZE} face up on the field; the rest is the deck.
- Your turn: play a hand card. If field cards have its rank you capture: one match takes
  it, two make you choose one, three take all three. No match: the card stays on the
  field, the top of the deck is flipped and matched the same way; if that flip captures
  nothing, you draw up to 2 cards (never above {HAND_SIZE} in hand).
- Captured cards make yaku ('help yaku'). When your yaku score rises you choose: stop
  (the round ends; every other player pays you yaku score x multiplier) or koi-koi (play
  on for more; each koi-koi raises the multiplier, but another player may stop first).
- An empty hand or an empty deck ends the round with no score; the dealer deals again.
  The player who stops deals next.
- Everyone starts with {START_CHIPS} chips; payments are capped at what the payer has.
  The game ends after the rounds (option rounds, 8 by default) or when a player has no
  chips; the most chips wins. Reward: each seat's chip change when a round is scored."""

HELP_TOPICS = {"yaku": YAKU_HELP}


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


def yaku_made(state: np.ndarray, seat: int) -> list[tuple[str, int]]:
    """The yaku of ``seat``'s captured cards: ``(name, points)`` per yaku made, by suit
    (``"Great ♠"``, ``"Triple ♥ (run of 4)"``, ``"♦ (7 cards)"``), each scored by the
    rules' ``suit_yaku`` on its own part of the suit; the points sum to the yaku score."""
    out = []
    for suit in range(NUM_SUITS):
        bits = int(state[0]["capt_bits"][seat, suit])
        count = bits.bit_count()
        great = (bits >> NUM_NUMBER_RANKS).bit_count()
        run = int(longest_number_run(np.int64(bits & NUMBER_BITS)))
        x = SUIT_SYMBOLS[suit]
        for name, points in (
            (f"Great {x}", int(suit_yaku(0, great, 0))),
            (f"Triple {x} (run of {run})", int(suit_yaku(0, 0, run))),
            (f"{x} {SUIT_NAMES[suit]} ({count} cards)", int(suit_yaku(count, 0, 0))),
        ):
            if points:
                out.append((name, points))
    return out


def _yaku_lines(before: np.ndarray, after: np.ndarray, n: int, viewer: int) -> list[str]:
    """Each yaku made or grown this step, by seat, with its points and the new score."""
    out = []
    for k in range(n):
        if int(after[0]["yaku"][k]) <= int(before[0]["yaku"][k]):
            continue
        old = dict(yaku_made(before, k))
        new = [
            f"{name}: {points} point{'s' if points != 1 else ''}"
            for name, points in yaku_made(after, k)
            if old.get(name) != points
        ]
        out.append(f"{_who(k, viewer)} made {'; '.join(new)}. Yaku score {int(after[0]['yaku'][k])}")
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
        out += _yaku_lines(before, after, n, viewer)
        if action == KOIKOI:
            count = int(a["koikoi"][actor])
            out.append(
                f"{who} declared koi-koi ({count} so far this round): play goes on, a stop would now "
                f"score x{int(koikoi_multiplier(count))}"
            )
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
            out.append(f"game over {end_text(after)}")
    return out


def end_text(state: np.ndarray, i: int = 0) -> str:
    """How the finished game of env ``i`` ended: why, and who won with how many chips."""
    e = state[i]
    n = int(e["cfg_players"])
    best = max(int(c) for c in e["chips"][:n])
    winners = ", ".join(f"player_{k}" for k in range(n) if int(e["chips"][k]) == best)
    why = "all rounds played" if int(e["status"]) == Status.ROUNDS_DONE else "a player has no chips left"
    return f"({why}): {winners} won with {best} chips"


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
