"""Leduc hold'em: constants, action ids, statuses and options.

Six cards, J Q K in two suits (card id ``c`` 0..5: rank ``c // 2``, suit ``c % 2``). Each
player antes 1 and gets one private card. Two betting rounds; the public card is dealt
between them. Bets are 2 in round 1 and 4 in round 2, at most ``max_raises`` raises a
round (2 in the standard game). Showdown: a pair with the public card wins, else the
higher card; equal ranks split the pot.

Action ids (``NUM_ACTIONS = 3``)::

    FOLD  = 0   give up the pot (legal only when facing a bet: folding for free is never
                better than checking; OpenSpiel allows it, this game does not)
    CALL  = 1   match the opponent's chips (a check when nothing is owed)
    RAISE = 2   call and add the round's bet (while raises are left this round)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabletop_core.contract.options import check_options, option

NUM_SEATS = 2
NUM_CARDS = 6
NUM_RANKS = 3
RANK_NAMES = ("J", "Q", "K")
SUIT_NAMES = ("♠", "♥")
ANTE = 1
BETS = (2, 4)  # the raise size of round 0 and round 1
NUM_ROUNDS = 2
MAX_RAISES = 4  # the largest max_raises option
MAX_CONTRIB = ANTE + MAX_RAISES * (BETS[0] + BETS[1])  # one seat's chips in the pot, at most

FOLD, CALL, RAISE = 0, 1, 2
NUM_ACTIONS = 3
ACTION_NAMES = ("fold", "call", "raise")

# a round takes at most: a check, max_raises raises and the closing call
MAX_EPISODE_STEPS = NUM_ROUNDS * (MAX_RAISES + 2)


class Status(IntEnum):
    """``State.status``: 0 while the hand is played."""

    PLAYING = 0
    FOLDED = 1  # a seat folded; the other takes the pot
    SHOWDOWN = 2  # both rounds closed; the cards decided


REWARD_NAMES = ("chips", "win")
"""``reward="chips"``: each seat's net chips at the end (zero-sum); ``"win"``: +1 / -1 /
0 (split) at the end."""


def agents(options=None) -> list[str]:
    """Agent names in seat order."""
    return [f"player_{k}" for k in range(NUM_SEATS)]


def rank_of(card: int) -> int:
    return int(card) // 2


def card_name(card: int) -> str:
    """``"K♥"``; ``"?"`` for no card (-1)."""
    if card < 0:
        return "?"
    return RANK_NAMES[rank_of(card)] + SUIT_NAMES[int(card) % 2]


def action_name(action: int, state=None) -> str:
    """``"fold"`` / ``"call"`` / ``"raise"`` (``state`` unused: the names never change)."""
    if not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action!r}")
    return ACTION_NAMES[int(action)]


@dataclass(frozen=True)
class Options:
    """Validated options of one hand of Leduc hold'em.

    Args:
        max_raises: raises allowed per betting round (1..4; standard 2).
        start_player: the seat that acts first in each round.
        reward: ``"chips"`` or ``"win"`` (see :data:`REWARD_NAMES`).

    Raises:
        ValueError: for a value outside these.
    """

    max_raises: int = option(2, "raises allowed per betting round", low=1, high=MAX_RAISES)
    start_player: int = option(0, "seat that acts first in each round", low=0, high=NUM_SEATS - 1)
    reward: str = option("chips", "'chips': net chips won; 'win': +1/-1/0 at the end", choices=REWARD_NAMES)

    def __post_init__(self):
        check_options(self)
