"""Koikoi's State: a NumPy structured array of shape ``(B,)``, one record per env.

The AEC env holds a batch of one, the vector env a batch of ``num_envs``; the same
kernels (``rules.py``) run on both (a record array dispatches ~9x faster in numba than
a tuple of arrays). Every card's place is one entry of ``loc``; the stock's order is
``deck[deck_pos:]``. Options live in ``cfg_*`` fields, so one record fully describes its
game. Picklable, ``state.copy()``-able and sliceable (``state[i:i+1]``).

``hand_bits`` and ``capt_bits`` repeat what ``loc`` says about hands and captured cards
as one word per (seat, suit), bit ``r`` = rank ``r`` (``koikoi_env.bits``): the kernels
keep them in step with ``loc``; after writing ``loc`` by hand (tests), call
``rules.sync_bits``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.rng import seed_word

from .spec import MAX_PLAYERS, NUM_CARDS, NUM_SUITS, START_CHIPS, Options

# Location codes of ``loc`` (a card is in exactly one place).
LOC_STOCK = 0  # in the deck (face down); its position is in ``deck``
LOC_FIELD = 1  # face up on the field
LOC_PENDING = 2  # the played / flipped card waiting for the choice of a field card
LOC_OUT = 3  # out of play: only in hand-built test tables (a dealt game never uses it)
LOC_HAND = 10  # + seat: in that seat's hand
LOC_CAPTURED = 20  # + seat: captured by that seat (face up before the player)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_players", np.int8),  # number of seats, 2..4
        ("cfg_rounds", np.int16),  # rounds in a game, 1..32
        ("cfg_first_dealer", np.int8),  # seat of the first dealer
        # cards
        (
            "deck",
            np.int8,
            (NUM_CARDS,),
        ),  # this round's shuffled card ids; [deck_pos, 88) is the stock, top first
        ("deck_pos", np.int8),  # index in ``deck`` of the stock's top card (88: stock empty)
        ("loc", np.int8, (NUM_CARDS,)),  # place of card c: LOC_* code above (seat added for hand/captured)
        ("hand_size", np.int8, (MAX_PLAYERS,)),  # cards in each seat's hand
        ("pending", np.int8),  # card id waiting for a choice (phases CHOOSE_*), -1 none
        ("hand_bits", np.int32, (MAX_PLAYERS, NUM_SUITS)),  # [seat, suit] bit r: rank r in hand
        ("capt_bits", np.int32, (MAX_PLAYERS, NUM_SUITS)),  # [seat, suit] bit r: rank r captured
        # round
        ("phase", np.int8),  # spec.Phase of the acting seat: 0 play, 1/2 choose (played/flipped), 3 decide
        ("yaku", np.int16, (MAX_PLAYERS,)),  # each seat's current yaku score this round (0 = no yaku)
        ("koikoi", np.int8, (MAX_PLAYERS,)),  # koi-koi declared by each seat this round
        ("dealer", np.int8),  # seat of this round's dealer (turns go clockwise from it)
        ("current", np.int8),  # seat to act
        ("turn", np.int16),  # turn index within the round, 0 for the dealer's first turn
        # game
        ("chips", np.int16, (MAX_PLAYERS,)),  # chips held (start 25, never below 0)
        ("delta", np.int16, (MAX_PLAYERS,)),  # chip change of each seat in the last step (the reward)
        ("round", np.int16),  # rounds finished so far (index of the round being played)
        ("last_end", np.int8),  # spec.RoundEnd of the last finished round (0 none yet)
        ("last_winner", np.int8),  # seat that stopped the last finished round, -1 if no score
        ("last_points", np.int16),  # yaku score x multiplier claimed in that stop (before capping)
        ("status", np.int8),  # spec.Status: 0 playing, 1 all rounds played, 2 a player at 0 chips
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.rng), the game's only chance source
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """Allocate a ``(batch,)`` State configured by ``options``, not yet dealt.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    b = int(batch)
    if b < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    s = np.zeros(b, STATE_DTYPE)
    s["cfg_players"] = options.num_players
    s["cfg_rounds"] = options.rounds
    s["cfg_first_dealer"] = options.first_dealer
    s["deck"] = np.arange(NUM_CARDS, dtype=np.int8)
    s["deck_pos"] = NUM_CARDS
    s["pending"] = -1
    s["chips"][:, : options.num_players] = START_CHIPS
    s["dealer"] = options.first_dealer
    s["current"] = options.first_dealer
    s["last_winner"] = -1
    s["rng"] = seed_word(0)
    return s


def state_nbytes() -> int:
    """Bytes of state per env."""
    return STATE_DTYPE.itemsize
