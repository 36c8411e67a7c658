"""Exhaust's State: a NumPy structured array of shape ``(B,)``, one record per env.

Same conventions as :mod:`thegame_env.state`: one record per env (numba dispatches a
record array ~9x faster than a tuple of arrays), options in ``cfg_*`` fields, the
generator word in ``rng``. Flags are ``uint8`` (numba has no bool arrays in records).
Card kinds and area slots are those of :mod:`exhaust_env.spec`.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.rng import seed_word

from .spec import (
    MAX_SEATS,
    MODE_NAMES,
    NUM_AREAS,
    NUM_CARDS,
    NUM_KINDS,
    REPLENISH_SIZE,
    TIME_MAGIC_CARDS,
    Options,
)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_seats", np.int8),  # seats at the table: num_players, or 2 in solo (player, NPC)
        ("cfg_agents", np.int8),  # agents (reward columns): num_players, or 1 in solo
        ("cfg_mode", np.int8),  # spec.Mode: 0 standard, 1 long, 2 solo
        ("cfg_singles", np.int8),  # Single areas in use: 4 (4-5p), 2 (3p), 1 (2p, solo)
        ("cfg_hand_size", np.int8),  # cards dealt to each seat (15, or 12 with 5 players)
        ("cfg_npc_deck", np.int8),  # solo: cards dealt to the NPC deck
        ("cfg_zero_sum", np.uint8),  # 1: loser -1, others +1/(N-1); 0: loser -1, others +1
        ("cfg_start", np.int8),  # seat of the first turn of the first round
        # cards (kinds: colour * 15 + number - 1, 60 = copy)
        ("deck", np.int8, (NUM_CARDS,)),  # this round's shuffled card ids 0..63 (hidden; tests)
        ("hand", np.uint8, (MAX_SEATS, NUM_KINDS)),  # counts per kind per seat (solo seat 1: NPC open hand)
        ("hand_n", np.int8, (MAX_SEATS,)),  # cards held per seat
        ("sel", np.uint8, (NUM_KINDS,)),  # the acting seat's selection, counts per kind (<= hand)
        ("sel_n", np.int8),  # cards in the selection
        ("repl", np.int8, (REPLENISH_SIZE,)),  # replenishment deck card ids, top = repl[repl_n - 1]
        ("repl_n", np.int8),  # cards left in the replenishment deck
        ("npc_deck", np.int8, (NUM_CARDS,)),  # solo: NPC deck card ids, top = npc_deck[npc_n - 1]
        ("npc_n", np.int8),  # solo: cards left in the NPC deck
        ("played", np.uint8, (NUM_KINDS,)),  # cards on the combo areas this round, counts per kind
        # combo areas (spec area slots)
        ("area_top", np.int8, (NUM_AREAS,)),  # highest number (Single..4 cards) / last play size; 0 empty
        ("area_n", np.uint8, (NUM_AREAS,)),  # cards in each area
        ("area_cards", np.int8, (NUM_AREAS, NUM_CARDS)),  # kinds in play order, [0, area_n)
        ("area_start", np.uint8, (NUM_AREAS, NUM_CARDS)),  # 1 where a play starts (rendering)
        # time magic and exhaust cards
        ("tm", np.int8, (MAX_SEATS,)),  # Time Magic cards held per seat
        ("tm_pile", np.int8),  # Time Magic cards in the pile
        ("exhaust", np.int8, (MAX_SEATS,)),  # long game: Exhaust cards held per seat (0..2)
        ("exhaust_up", np.uint8, (MAX_SEATS,)),  # long game: 1 if its Exhaust card is face up (flip unused)
        # turn
        ("current", np.int8),  # seat to act (solo: always 0 while playing)
        ("round", np.int16),  # round index (long game), 0 for the first
        ("turn", np.int32),  # completed turns this round (NPC turns included)
        ("loser", np.int8),  # seat that lost the episode (-1 while playing); solo: 1 = the NPC lost
        ("last_loser", np.int8),  # long game: loser of the previous round (-1 none)
        ("status", np.int8),  # spec.Status: 0 playing, 1 over
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.rng)
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
    s["cfg_seats"] = options.seats
    s["cfg_agents"] = options.players
    s["cfg_mode"] = int(MODE_NAMES[options.mode])
    s["cfg_singles"] = options.num_singles
    s["cfg_hand_size"] = options.hand_size
    s["cfg_npc_deck"] = options.npc_deck_size
    s["cfg_zero_sum"] = int(bool(options.zero_sum))
    s["cfg_start"] = options.start_player
    s["tm_pile"] = TIME_MAGIC_CARDS
    s["loser"] = -1
    s["last_loser"] = -1
    s["status"] = 1
    s["rng"] = seed_word(0)
    return s


def state_nbytes() -> int:
    """Bytes of state per env."""
    return STATE_DTYPE.itemsize
