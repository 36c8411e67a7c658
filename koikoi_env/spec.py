"""Shikokushi Koikoi: cards, action-id layout, phases and options (``docs/rules/koikoi.md``).

Cards (``NUM_CARDS = 88``): card id ``c = suit * 22 + rank``; suits 0..3 are swords ♠,
cups ♥, coins ♦, trees ♣; ranks 0..15 are the numbers, ranks 16..21 the six non-number
cards (neutral names in :data:`RANK_NAMES`, the only place to change them). Cards match
by rank, so each rank has exactly four cards.

Action ids (``NUM_ACTIONS = 178``)::

    PLAY_OFFSET + card  =   0 +  0..87   play ``card`` from the hand      (phase PLAY)
    TAKE_OFFSET + card  =  88 +  0..87   take ``card`` from the field     (phases CHOOSE_*)
    KOIKOI              = 176            declare koi-koi, continue        (phase DECIDE)
    STOP                = 177            stop: end the round and score    (phase DECIDE)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabletop_core.contract.options import check_options, option

# --- Cards (rules "Components") ---------------------------------------------------------
NUM_SUITS = 4
RANKS_PER_SUIT = 22
NUM_NUMBER_RANKS = 16  # ranks 0..15 are numbers; they form runs ("Triple X")
NUM_CARDS = NUM_SUITS * RANKS_PER_SUIT  # 88
SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
SUIT_NAMES = ("swords", "cups", "coins", "trees")
# Names of the 22 ranks. The seed does not name the six non-number ranks (16..21); these
# neutral names are the single table to edit when the real names are known.
RANK_NAMES = tuple(str(r) for r in range(NUM_NUMBER_RANKS)) + ("α", "β", "γ", "δ", "ε", "ζ")

# --- Card locations: codes of the State's ``loc`` (a card is in exactly one place) ---
# (here rather than in state.py so that rules.py reads them without importing the State)
LOC_STOCK = 0  # in the deck (face down); its position is in ``deck``
LOC_FIELD = 1  # face up on the field
LOC_PENDING = 2  # the played / flipped card waiting for the choice of a field card
LOC_OUT = 3  # out of play: only in hand-built test tables (a dealt game never uses it)
LOC_HAND = 10  # + seat: in that seat's hand
LOC_CAPTURED = 20  # + seat: captured by that seat (face up before the player)

# --- Players, deal, chips ---------------------------------------------------------------
MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 8  # dealt to each player; also the hand limit of the draw (step 4)
FIELD_DEAL = 8  # cards dealt face up to the field
DRAW_MAX = 2  # step 4 draws at most this many cards
START_CHIPS = 25
DEFAULT_ROUNDS = 8
MAX_ROUNDS = 32

# --- Yaku (per suit, rules "Yaku") --------------------------------------------------------
GREAT_MIN = 3  # non-number cards for "Great X"
GREAT_BASE = 5
GREAT_STEP = 3
TRIPLE_MIN = 3  # run length for "Triple X"
TRIPLE_BASE = 5
TRIPLE_STEP = 3
SUIT_MIN = 6  # cards of the suit for "X"
SUIT_BASE = 1
SUIT_STEP = 1
MAX_MULTIPLIER = 4  # koi-koi multiplier: 0 or 1 declared -> 1, 2 -> 2, 3 -> 3, 4+ -> 4

# --- Actions ----------------------------------------------------------------------------
PLAY_OFFSET = 0
TAKE_OFFSET = PLAY_OFFSET + NUM_CARDS  # 88
KOIKOI = TAKE_OFFSET + NUM_CARDS  # 176
STOP = KOIKOI + 1  # 177
NUM_ACTIONS = STOP + 1  # 178

# --- Longest episode --------------------------------------------------------------------
# Each turn removes one card from hands + stock (the play) so a round has at most
# 88 - 8 = 80 turns, each of at most 3 agent steps (play, choose, koi-koi/stop).
MAX_TURNS_PER_ROUND = NUM_CARDS - FIELD_DEAL
MAX_STEPS_PER_ROUND = 3 * MAX_TURNS_PER_ROUND
MAX_EPISODE_STEPS = MAX_ROUNDS * MAX_STEPS_PER_ROUND


class Phase(IntEnum):
    """What the acting seat decides now (``State.phase``)."""

    PLAY = 0  # play a hand card (step 1)
    CHOOSE_PLAYED = 1  # two field cards match the played card: take one (step 2)
    CHOOSE_FLIPPED = 2  # two field cards match the flipped card: take one (step 3)
    DECIDE = 3  # the yaku score rose: koi-koi or stop (step 5)


NUM_PHASES = len(Phase)


class Status(IntEnum):
    """Episode status stored in ``State.status``."""

    PLAYING = 0
    ROUNDS_DONE = 1  # the last round was played
    BANKRUPT = 2  # a player's chips reached 0


class RoundEnd(IntEnum):
    """How the last round ended (``State.last_end``)."""

    NONE = 0  # no round finished yet
    STOP = 1  # a player stopped and scored
    HAND_EMPTY = 2  # a hand was empty at the end of a turn: no score
    DECK_EMPTY = 3  # the deck was empty at the end of a turn: no score


def card_suit(card: int) -> int:
    """Suit 0..3 of a card id."""
    return card // RANKS_PER_SUIT


def card_rank(card: int) -> int:
    """Rank 0..21 of a card id (16..21 the non-number cards)."""
    return card % RANKS_PER_SUIT


def make_card(suit: int, rank: int) -> int:
    """Card id of ``(suit, rank)``; raises ValueError outside 0..3 / 0..21."""
    if not 0 <= suit < NUM_SUITS:
        raise ValueError(f"suit must be 0..3, got {suit}")
    if not 0 <= rank < RANKS_PER_SUIT:
        raise ValueError(f"rank must be 0..21, got {rank}")
    return suit * RANKS_PER_SUIT + rank


def card_name(card: int) -> str:
    """How a player reads a card: suit symbol then rank, e.g. ``"♠7"``, ``"♥α"``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card must be 0..{NUM_CARDS - 1}, got {card}")
    return SUIT_SYMBOLS[card_suit(card)] + RANK_NAMES[card_rank(card)]


def parse_card(text: str) -> int:
    """Inverse of :func:`card_name` (``"♦12"`` -> 56); raises ValueError on bad text."""
    t = text.strip()
    if len(t) < 2 or t[0] not in SUIT_SYMBOLS or t[1:] not in RANK_NAMES:
        raise ValueError(f"not a card name: {text!r} (suit symbol ♠♥♦♣ then 0..15 or α..ζ)")
    return make_card(SUIT_SYMBOLS.index(t[0]), RANK_NAMES.index(t[1:]))


def action_name(action: int) -> str:
    """Readable action: ``"play ♠7"``, ``"take ♥7"``, ``"koi-koi"``, ``"stop"``.

    Raises:
        ValueError: outside ``0..NUM_ACTIONS-1``.
    """
    if PLAY_OFFSET <= action < TAKE_OFFSET:
        return f"play {card_name(action - PLAY_OFFSET)}"
    if TAKE_OFFSET <= action < KOIKOI:
        return f"take {card_name(action - TAKE_OFFSET)}"
    if action == KOIKOI:
        return "koi-koi"
    if action == STOP:
        return "stop"
    raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action}")


def multiplier(koikoi_count: int) -> int:
    """Koi-koi multiplier of a scoring player who declared ``koikoi_count`` times."""
    return max(1, min(MAX_MULTIPLIER, koikoi_count))


@dataclass(frozen=True)
class Options:
    """Validated options of one Koikoi game.

    Args:
        num_players: 2..4 (default 4).
        rounds: rounds in a game, 1..32 (default 8); ``rounds=1`` gives single-round
            episodes. The game also ends after a round in which a player's chips hit 0.
        first_dealer: seat of the first dealer (default 0).

    Raises:
        ValueError: for any value outside the ranges above, naming the option.
    """

    num_players: int = option(4, "number of players", low=MIN_PLAYERS, high=MAX_PLAYERS, flag="--players")
    rounds: int = option(
        DEFAULT_ROUNDS, "rounds in a game (1: single-round episodes)", low=1, high=MAX_ROUNDS
    )
    first_dealer: int = option(0, "seat of the first dealer", low=0, high=MAX_PLAYERS - 1)

    def __post_init__(self):
        check_options(self)  # each option against its declaration above
        if self.first_dealer >= self.num_players:
            raise ValueError(
                f"first_dealer must be a seat in 0..{self.num_players - 1}, got {self.first_dealer!r}"
            )
