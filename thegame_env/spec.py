"""The Game: constants, action-id layout, phases and options (``docs/rules/thegame.md``).

Action ids (``NUM_ACTIONS = 393``)::

    PLAY_OFFSET + pile * NUM_CARDS + (card - MIN_CARD)   place ``card`` on ``pile``  0..391
    END_TURN = 392                                        end the turn (draw back up)

Piles 0 and 1 ascend (start at 1), piles 2 and 3 descend (start at 100).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabletop_core.contract.options import check_options, option

# --- Cards and piles (rulebook "Components") -------------------------------------------
MIN_CARD = 2
MAX_CARD = 99
NUM_CARDS = MAX_CARD - MIN_CARD + 1  # 98 number cards
NUM_PILES = 4
ASCENDING_PILES = (0, 1)
ASCENDING_START = 1
DESCENDING_START = 100
BACKWARDS_STEP = 10  # the backwards trick: exactly 10 the "wrong" way
FIRE_CARDS = (22, 33, 44, 55, 66, 77)  # On Fire expansion

# --- Players and hands ------------------------------------------------------------------
MIN_PLAYERS = 1
MAX_PLAYERS = 5
MAX_HAND = 8
HAND_SIZE = {1: 8, 2: 7, 3: 6, 4: 6, 5: 6}  # level 2: one card less

# --- Turn minimum -----------------------------------------------------------------------
MIN_PLAYS = 2  # while the draw pile has cards
MIN_PLAYS_LEVEL1 = 3  # advanced levels 1 and 2
MIN_PLAYS_EMPTY_DECK = 1  # once the draw pile is empty

# --- Score ------------------------------------------------------------------------------
WIN_THRESHOLD = 9  # score (cards not played) <= 9 wins; 0 is a perfect game

# --- Actions ----------------------------------------------------------------------------
PLAY_OFFSET = 0
END_TURN = PLAY_OFFSET + NUM_PILES * NUM_CARDS  # 392
NUM_ACTIONS = END_TURN + 1  # 393

# --- Longest game: every card is one step, every turn plays >= 1 card then ends ----------
MAX_EPISODE_STEPS = 2 * NUM_CARDS


class Status(IntEnum):
    """Episode status stored in ``State.status``."""

    PLAYING = 0
    ALL_PLAYED = 1  # every card played: perfect game
    STUCK = 2  # the active player owed a play and had none
    FIRE_LOSS = 3  # a fire card stayed uncovered past its deadline


class RewardMode(IntEnum):
    """``reward="cards"``: +1 to every seat per card placed (return = 98 - score).
    ``reward="win"``: 0 per step, then +1 to every seat on a win, -1 on a loss."""

    CARDS = 0
    WIN = 1


REWARD_NAMES = {"cards": RewardMode.CARDS, "win": RewardMode.WIN}


def action_to_play(action: int) -> tuple[int, int]:
    """``(pile, card)`` of a play action id; raises ValueError for END_TURN/out of range."""
    if not 0 <= action < END_TURN:
        raise ValueError(f"action {action} is not a play action (0..{END_TURN - 1})")
    return action // NUM_CARDS, action % NUM_CARDS + MIN_CARD


def play_to_action(pile: int, card: int) -> int:
    """Action id placing ``card`` (2..99) on ``pile`` (0..3)."""
    if not 0 <= pile < NUM_PILES:
        raise ValueError(f"pile must be 0..{NUM_PILES - 1}, got {pile}")
    if not MIN_CARD <= card <= MAX_CARD:
        raise ValueError(f"card must be {MIN_CARD}..{MAX_CARD}, got {card}")
    return PLAY_OFFSET + pile * NUM_CARDS + (card - MIN_CARD)


PILE_NAMES = ("up1", "up2", "down1", "down2")


def action_name(action: int) -> str:
    """Readable name: ``"play 37 on up1"`` / ``"end turn"`` (piles ``up1 up2 down1 down2``,
    names a keyboard types: the ascending piles 1→99, the descending 100→2)."""
    if action == END_TURN:
        return "end turn"
    pile, card = action_to_play(action)
    return f"play {card} on {PILE_NAMES[pile]}"


@dataclass(frozen=True)
class Options:
    """Validated options of one game of The Game.

    Args:
        num_players: 1..5.
        on_fire: play with the six On Fire cards (22, 33, 44, 55, 66, 77).
        level: 0 (base game), 1 (minimum 3 plays a turn) or 2 (level 1 and one card
            fewer in hand).
        reward: ``"cards"`` or ``"win"`` (see :class:`RewardMode`).
        start_player: seat that takes the first turn.

    Raises:
        ValueError: for any value outside the ranges above.
    """

    num_players: int = option(2, "number of players", low=MIN_PLAYERS, high=MAX_PLAYERS, flag="--players")
    on_fire: bool = option(False, "play with the six On Fire cards 22..77")
    level: int = option(
        0, "advanced level: 1 = three plays a turn, 2 = also one card fewer", choices=(0, 1, 2)
    )
    reward: str = option(
        "cards", "'cards': +1 per card placed; 'win': +1/-1 at the end", choices=tuple(REWARD_NAMES)
    )
    start_player: int = option(0, "seat of the first turn", low=0, high=MAX_PLAYERS - 1)

    def __post_init__(self):
        check_options(self)  # each option against its declaration above
        if self.start_player >= self.num_players:
            raise ValueError(
                f"start_player must be a seat in 0..{self.num_players - 1}, got {self.start_player!r}"
            )

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.num_players] - (1 if self.level == 2 else 0)

    @property
    def min_plays(self) -> int:
        return MIN_PLAYS_LEVEL1 if self.level >= 1 else MIN_PLAYS
