"""The Game's State: a NumPy structured array of shape ``(B,)``, one record per env.

The AEC env holds a batch of one, the vector env a batch of ``num_envs``; the same
kernels (``rules.py``) run on both. One structured array (rather than a tuple of arrays)
is passed to every kernel because numba dispatches it much faster than a tuple, which
matters for the AEC env's per-step cost. It is picklable,
copied with ``state.copy()`` and sliced like any array (``state[i:i+1]``). Options live
in the state (``cfg_*`` fields), so one env's record fully describes its game.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, row_counts, states_of
from tabletop_core.kernel.records import blank_state

from .rules import legal_mask_r
from .spec import (
    ASCENDING_START,
    DESCENDING_START,
    HAND_SIZE,
    MAX_CARD,
    MAX_HAND,
    MAX_PLAYERS,
    MIN_CARD,
    MIN_PLAYERS,
    MIN_PLAYS,
    MIN_PLAYS_LEVEL1,
    NUM_ACTIONS,
    NUM_CARDS,
    REWARD_NAMES,
    Options,
    RewardMode,
    Status,
)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_players", np.int8),  # number of seats, 1..5
        ("cfg_hand_size", np.int8),  # hand size to draw back up to
        ("cfg_min_plays", np.int8),  # plays owed a turn while the draw pile has cards (2 or 3)
        ("cfg_on_fire", np.uint8),  # 1: On Fire expansion in play
        ("cfg_reward", np.int8),  # spec.RewardMode: 0 cards, 1 win/loss
        ("cfg_start", np.int8),  # seat of the first turn
        # cards
        ("hand", np.int8, (MAX_PLAYERS, MAX_HAND)),  # card values in slots [0, hand_size); order meaningless
        ("hand_size", np.int8, (MAX_PLAYERS,)),  # cards held per seat
        ("deck", np.int8, (NUM_CARDS,)),  # the shuffled deck; [deck_pos, 98) is the draw pile, next first
        ("deck_pos", np.int8),  # index of the next card to draw (98: draw pile empty)
        ("piles", np.int8, (4,)),  # top value of piles 0-1 (ascending) and 2-3 (descending)
        ("fire_turn", np.int16, (4,)),  # turn the uncovered fire card on top was placed; -1 none
        ("played", np.uint8, (NUM_CARDS,)),  # 1: card c is on a pile (index c - 2)
        # turn
        ("current", np.int8),  # seat of the active player
        ("plays_this_turn", np.int8),  # cards placed this turn
        ("turn", np.int16),  # turn index, 0 for the first turn
        ("status", np.int8),  # spec.Status: 0 playing, 1 all played, 2 stuck, 3 fire loss
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng)
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """The Game's ``(batch,)`` State for ``options``, not yet dealt: the options, the
    four piles at their start values, no fire card.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    s = blank_state(batch, STATE_DTYPE)
    s["cfg_players"] = options.num_players
    s["cfg_hand_size"] = options.hand_size
    s["cfg_min_plays"] = options.min_plays
    s["cfg_on_fire"] = int(bool(options.on_fire))
    s["cfg_reward"] = int(REWARD_NAMES[options.reward])
    s["cfg_start"] = options.start_player
    s["deck_pos"] = NUM_CARDS
    s["piles"] = (ASCENDING_START, ASCENDING_START, DESCENDING_START, DESCENDING_START)
    s["fire_turn"] = -1
    return s


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array) field by field
    and against the invariants the rules rely on; the one validation ``set_state`` runs
    before writing anything (vectorized over the batch; nothing runs per step).

    Checked, per env: options in range (1..5 seats, hand size of that count, 2-3 plays,
    flags 0/1, start seat); ``deck`` a permutation of 2..99 and ``0 <= deck_pos <= 98``;
    each seat's ``hand_size`` within 0..cfg_hand_size (0 for unused seats), its cards
    2..99 in slots ``[0, hand_size)`` and 0 after; cards conserved: the dealt cards
    ``deck[:deck_pos]`` are exactly the hands plus the cards flagged ``played``, each
    once, and the draw pile holds none of them; pile tops are the start values or played
    cards, ascending tops at most 99 and descending at least 2, no card on two piles;
    ``fire_turn`` -1 or a turn up to ``turn`` on a fire card (On Fire only);
    ``current`` a seat, ``turn + plays_this_turn`` at most the cards played, ``status``
    0..3 (1 only once every card is played); and a playing position offers a legal action.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """

    s = states_of(saved, STATE_DTYPE, "thegame")
    ck = StateChecker(s, "thegame")
    players = _check_options(ck, s)
    deck = _check_deck(ck, s)
    hand, held = _check_hands(ck, s, players)
    _check_cards_conserved(ck, s, deck, hand, held)
    piles, is_card = _check_piles(ck, s)
    st = _check_turn_and_status(ck, s, players, piles, is_card)
    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, st == Status.PLAYING, "thegame")


def _check_options(ck, s) -> np.ndarray:
    """Check the ``cfg_*`` fields; return each env's seat count (int64)."""
    ck.range("cfg_players", MIN_PLAYERS, MAX_PLAYERS)
    players = s["cfg_players"].astype(np.int64)
    full = np.array([0] + [HAND_SIZE[p] for p in range(1, MAX_PLAYERS + 1)])[players]
    ck.range(
        "cfg_hand_size", full - 1, full, allowed="the hand size of cfg_players seats (one less at level 2)"
    )
    ck.range("cfg_min_plays", MIN_PLAYS, MIN_PLAYS_LEVEL1)
    ck.range("cfg_on_fire", 0, 1)
    ck.range("cfg_reward", 0, len(RewardMode) - 1)
    ck.range("cfg_start", 0, players - 1, allowed="a seat 0..cfg_players-1")
    return players


def _check_deck(ck, s) -> np.ndarray:
    """Check the deck is a permutation of the 98 cards and ``deck_pos`` in range; return it (int64)."""

    n = s.shape[0]
    ck.range("deck", MIN_CARD, MAX_CARD)
    deck = s["deck"].astype(np.int64)
    seen = np.zeros((n, NUM_CARDS + MIN_CARD), np.int64)
    seen += row_counts(np.arange(n)[:, None], deck, seen.shape)
    ck.fail("deck", (seen[:, MIN_CARD:] != 1), "a permutation of the cards 2..99", None)
    ck.range("deck_pos", 0, NUM_CARDS)
    return deck


def _check_hands(ck, s, players) -> tuple[np.ndarray, np.ndarray]:
    """Check hand sizes and hand slots and the ``played`` flags; return the hands and
    the mask of held slots."""
    seat = np.arange(MAX_PLAYERS)[None, :]
    in_game = seat < players[:, None]
    ck.range(
        "hand_size",
        0,
        np.where(in_game, s["cfg_hand_size"][:, None], 0).astype(np.int64),
        allowed="0..cfg_hand_size for a seat in play, 0 for an unused seat",
    )
    hs = s["hand_size"].astype(np.int64)
    slot = np.arange(MAX_HAND)[None, None, :]
    held = slot < hs[:, :, None]
    hand = s["hand"].astype(np.int64)
    ck.fail("hand", held & ((hand < MIN_CARD) | (hand > MAX_CARD)), "cards 2..99 in slots [0, hand_size)")
    ck.fail("hand", ~held & (hand != 0), "0 in the empty slots [hand_size, 8)")
    ck.range("played", 0, 1)
    return hand, held


def _check_cards_conserved(ck, s, deck, hand, held) -> None:
    """Check the dealt cards are exactly the hands plus the played cards, each once."""

    n = s.shape[0]
    count = np.zeros((n, NUM_CARDS + MIN_CARD), np.int64)
    rows = np.broadcast_to(np.arange(n)[:, None, None], hand.shape)
    count += row_counts(rows[held], hand[held], count.shape)
    count[:, MIN_CARD:] += s["played"].astype(np.int64)
    dealt = np.zeros((n, NUM_CARDS + MIN_CARD), np.int64)
    pos = np.arange(NUM_CARDS)[None, :] < s["deck_pos"].astype(np.int64)[:, None]
    dealt += row_counts(np.broadcast_to(np.arange(n)[:, None], deck.shape)[pos], deck[pos], dealt.shape)
    ck.fail(
        "hand",
        (count != dealt)[:, MIN_CARD:],
        "the dealt cards deck[:deck_pos] are exactly the hands and the played cards, each once "
        "(cards conserved)",
        None,
    )


def _check_piles(ck, s) -> tuple[np.ndarray, np.ndarray]:
    """Check each pile top is a start value or a played card on no other pile; return
    the piles and the mask of piles topped by a card."""
    piles = s["piles"].astype(np.int64)
    start = np.array([ASCENDING_START, ASCENDING_START, DESCENDING_START, DESCENDING_START])
    ck.range(
        "piles",
        [[ASCENDING_START, ASCENDING_START, MIN_CARD, MIN_CARD]],
        [[MAX_CARD, MAX_CARD, DESCENDING_START, DESCENDING_START]],
        allowed="ascending piles 1..99, descending piles 2..100",
    )
    is_card = piles != start[None, :]
    idx = np.clip(piles - MIN_CARD, 0, NUM_CARDS - 1)
    on_top_played = np.take_along_axis(s["played"], idx, axis=1) == 1
    ck.fail("piles", is_card & ~on_top_played, "a start value (1 / 100) or a played card")
    same = (piles[:, :, None] == piles[:, None, :]) & is_card[:, :, None] & ~np.eye(4, dtype=bool)[None]
    ck.fail("piles", same.any(axis=2), "no card on top of two piles")
    return piles, is_card


def _check_turn_and_status(ck, s, players, piles, is_card) -> np.ndarray:
    """Check the current seat, turn counters, ``fire_turn`` and ``status``; return the status."""
    ck.range("current", 0, players - 1, allowed="a seat 0..cfg_players-1")
    ck.range("turn", 0, NUM_CARDS)
    ck.range("plays_this_turn", 0, NUM_CARDS)
    n_played = s["played"].astype(np.int64).sum(axis=1)
    ck.fail(
        "turn",
        s["turn"].astype(np.int64) + s["plays_this_turn"] > n_played,
        "turn + plays_this_turn <= cards played (every turn places a card)",
    )
    fire = s["fire_turn"].astype(np.int64)
    fire_top = (piles >= 22) & (piles <= 77) & (piles % 11 == 0) & is_card
    ck.range("fire_turn", -1, -1, where=s["cfg_on_fire"] == 0, allowed="-1 without On Fire")
    ck.fail("fire_turn", (fire >= 0) & ~fire_top, "-1 unless the pile's top is a fire card")
    ck.fail("fire_turn", fire > s["turn"].astype(np.int64)[:, None], "-1 or a turn 0..turn")
    ck.range("fire_turn", -1, NUM_CARDS)
    ck.range("status", 0, len(Status) - 1)
    st = s["status"]
    ck.fail(
        "status",
        (st == Status.ALL_PLAYED) & (n_played != NUM_CARDS),
        "1 (all played) only when every card is played",
    )
    ck.fail("status", (st == Status.FIRE_LOSS) & (s["cfg_on_fire"] == 0), "3 (fire loss) only with On Fire")
    return st
