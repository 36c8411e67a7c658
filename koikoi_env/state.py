"""Koikoi's State: a NumPy structured array of shape ``(B,)``, one record per env.

The AEC env holds a batch of one, the vector env a batch of ``num_envs``; the same
kernels (``rules.py``) run on both (a record array dispatches much faster in numba
than a tuple of arrays). Every card's place is one entry of ``loc``; the stock's order is
``deck[deck_pos:]``. Options live in ``cfg_*`` fields, so one record fully describes its
game. Picklable, ``state.copy()``-able and sliceable (``state[i:i+1]``).

``hand_bits`` and ``capt_bits`` repeat what ``loc`` says about hands and captured cards
as one word per (seat, suit), bit ``r`` = rank ``r`` (``koikoi_env.bits``): the kernels
keep them in step with ``loc``; after writing ``loc`` by hand (tests), call
``rules.sync_bits_r``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, row_counts, states_of
from tabletop_core.kernel.records import blank_state

from .rules import BIT_OF, RANK_OF, SUIT_OF, legal_mask_r, suit_bits_yaku
from .spec import (
    HAND_SIZE,
    LOC_CAPTURED,
    LOC_FIELD,
    LOC_HAND,
    LOC_OUT,
    LOC_PENDING,
    LOC_STOCK,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PHASES,
    NUM_SUITS,
    START_CHIPS,
    Options,
    Phase,
    RoundEnd,
    Status,
)

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
        ("loc", np.int8, (NUM_CARDS,)),  # place of card c: a spec.LOC_* code (+ seat for hand/captured)
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
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng), the game's only chance source
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """Koikoi's ``(batch,)`` State for ``options``, not yet dealt: the options, 25 chips
    per seat in play, the first dealer to act.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    s = blank_state(batch, STATE_DTYPE)
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
    return s


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array) field by field
    and against the invariants the rules rely on; the one validation ``set_state`` runs
    before writing anything (vectorized over the batch; nothing runs per step).

    Checked, per env: options in range (2..4 seats, 1..32 rounds, a first dealer seat);
    ``deck`` a permutation of 0..87 and ``deck_pos`` 0..88; every ``loc`` a code above
    (seat codes only for seats in play); cards conserved: the stock (``loc`` stock) is
    exactly ``deck[deck_pos:]``; ``hand_size`` the number of cards each seat holds (0..8);
    ``hand_bits`` / ``capt_bits`` exactly what ``loc`` says; ``pending`` the one card
    waiting (``loc`` pending) in the CHOOSE phases with two field cards of its rank, -1
    otherwise; ``phase`` 0..3 (DECIDE with a yaku); ``yaku`` / ``koikoi`` non-negative;
    ``dealer`` and ``current`` seats in play, ``current`` the dealer's ``turn``-th
    successor; chips non-negative, 25 per seat in all; ``delta`` summing to 0;
    ``round`` 0..cfg_rounds; ``last_*`` and ``status`` codes; a playing position has every
    chip count above 0, fewer rounds than ``cfg_rounds`` and a legal action.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """

    s = states_of(saved, STATE_DTYPE, "koikoi")
    ck = StateChecker(s, "koikoi")
    ck.range("cfg_players", MIN_PLAYERS, MAX_PLAYERS)
    p = s["cfg_players"].astype(np.int64)
    ck.range("cfg_rounds", 1, MAX_ROUNDS)
    ck.range("cfg_first_dealer", 0, p - 1, allowed="a seat 0..cfg_players-1")
    loc = _check_deck_and_stock(ck, s, p)
    _check_hands(ck, s, loc)
    playing = s["status"] == Status.PLAYING
    _check_phase_and_pending(ck, s, loc, playing)
    _check_round(ck, s, p, playing)
    _check_chips(ck, s, p, playing)
    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, playing, "koikoi")


def _check_deck_and_stock(ck, s, p):
    """``deck`` a permutation, ``deck_pos``, ``loc`` codes, the stock = deck[deck_pos:];
    returns ``loc`` (int64)."""

    n = s.shape[0]
    ck.range("deck", 0, NUM_CARDS - 1)
    deck = s["deck"].astype(np.int64)
    seen = np.zeros((n, NUM_CARDS), np.int64)
    rows = np.broadcast_to(np.arange(n)[:, None], deck.shape)
    seen += row_counts(rows, deck, seen.shape)
    ck.fail("deck", seen != 1, "a permutation of the cards 0..87", None)
    ck.range("deck_pos", 0, NUM_CARDS)
    loc = s["loc"].astype(np.int64)
    seat_code = ((loc >= LOC_HAND) & (loc < LOC_HAND + p[:, None])) | (
        (loc >= LOC_CAPTURED) & (loc < LOC_CAPTURED + p[:, None])
    )
    ck.fail(
        "loc",
        ~((loc >= LOC_STOCK) & (loc <= LOC_OUT) | seat_code),
        "0 stock, 1 field, 2 pending, 3 out, 10 + seat (hand), 20 + seat (captured), seats < cfg_players",
    )
    in_stock = np.zeros((n, NUM_CARDS), bool)
    pos = np.arange(NUM_CARDS)[None, :] >= s["deck_pos"].astype(np.int64)[:, None]
    in_stock[rows[pos], deck[pos]] = True
    ck.fail(
        "loc",
        in_stock != (loc == LOC_STOCK),
        "stock (0) exactly for the cards deck[deck_pos:] (cards conserved)",
    )
    return loc


def _check_hands(ck, s, loc):
    """``hand_size`` and the hand / captured bit words are what ``loc`` says."""

    n = s.shape[0]
    seats = np.arange(MAX_PLAYERS)
    held = (loc[:, None, :] == LOC_HAND + seats[None, :, None]).sum(axis=2)
    ck.range("hand_size", 0, HAND_SIZE)
    ck.equal("hand_size", held, "the number of cards with loc 10 + seat")
    suit_of = np.asarray(SUIT_OF)
    bit_of = np.asarray(BIT_OF).astype(np.int64)
    for field, base in (("hand_bits", LOC_HAND), ("capt_bits", LOC_CAPTURED)):
        want = np.zeros((n, MAX_PLAYERS, NUM_SUITS), np.int64)
        for seat in range(MAX_PLAYERS):
            on = loc == base + seat
            for suit in range(NUM_SUITS):
                cols = suit_of == suit
                want[:, seat, suit] = (on[:, cols] * bit_of[None, cols]).sum(axis=1)
        ck.equal(field, want, f"the cards loc says ({field[:4]}: loc {base} + seat), bit r = rank r")


def _check_phase_and_pending(ck, s, loc, playing):
    """``phase`` and the one ``pending`` card of the CHOOSE phases."""

    ck.range("phase", 0, NUM_PHASES - 1)
    ph = s["phase"].astype(np.int64)
    choosing = (ph == Phase.CHOOSE_PLAYED) | (ph == Phase.CHOOSE_FLIPPED)
    pend = s["pending"].astype(np.int64)
    ck.range("pending", -1, -1, where=~(choosing & playing), allowed="-1 outside the CHOOSE phases")
    ck.range(
        "pending", 0, NUM_CARDS - 1, where=choosing & playing, allowed="a card 0..87 in the CHOOSE phases"
    )
    n_pending = (loc == LOC_PENDING).sum(axis=1)
    pc = np.clip(pend, 0, NUM_CARDS - 1)
    pend_loc = np.take_along_axis(loc, pc[:, None], axis=1)[:, 0]
    ck.fail(
        "loc",
        np.where(choosing & playing, (n_pending != 1) | (pend_loc != LOC_PENDING), n_pending != 0),
        "exactly the pending card at 2 (pending) in the CHOOSE phases, none otherwise",
        None,
    )
    rank_of = np.asarray(RANK_OF).astype(np.int64)
    same_rank_field = ((loc == LOC_FIELD) & (rank_of[None, :] == rank_of[pc][:, None])).sum(axis=1)
    ck.fail("pending", choosing & playing & (same_rank_field != 2), "a card with two field cards of its rank")


def _check_round(ck, s, p, playing):
    """Yaku, koi-koi counts, dealer, current seat and turn; DECIDE only with a yaku."""

    ph = s["phase"].astype(np.int64)
    max_yaku = NUM_SUITS * int(suit_bits_yaku(np.int32((1 << 22) - 1)))
    ck.range("yaku", 0, max_yaku, allowed=f"0..{max_yaku} (every card of every suit captured)")
    ck.range("koikoi", 0, np.iinfo(np.int8).max)
    ck.range("dealer", 0, p - 1, allowed="a seat 0..cfg_players-1")
    ck.range("current", 0, p - 1, allowed="a seat 0..cfg_players-1")
    ck.range("turn", 0, NUM_CARDS)
    cur = s["current"].astype(np.int64)
    ck.fail(
        "current",
        playing & (cur != (s["dealer"].astype(np.int64) + s["turn"]) % p),
        "(dealer + turn) % cfg_players while playing (turns go clockwise from the dealer)",
    )
    cur_yaku = np.take_along_axis(s["yaku"].astype(np.int64), np.clip(cur, 0, MAX_PLAYERS - 1)[:, None], 1)[
        :, 0
    ]
    ck.fail(
        "phase",
        playing & (ph == Phase.DECIDE) & (cur_yaku <= 0),
        "DECIDE (3) only with a yaku (yaku[current] > 0)",
    )


def _check_chips(ck, s, p, playing):
    """Chips conserved and above 0 while playing, ``delta``, round and last-round codes."""
    seats = np.arange(MAX_PLAYERS)
    in_game = seats[None, :] < p[:, None]
    chips = s["chips"].astype(np.int64)
    ck.range(
        "chips",
        0,
        np.where(in_game, START_CHIPS * MAX_PLAYERS, 0),
        allowed="0..25*cfg_players, 0 for unused seats",
    )
    ck.fail(
        "chips", chips.sum(axis=1) != START_CHIPS * p, "25 chips per seat in all (chips change hands)", chips
    )
    ck.fail("chips", playing[:, None] & in_game & (chips <= 0), "above 0 for every seat while playing")
    ck.range("delta", -START_CHIPS * MAX_PLAYERS, START_CHIPS * MAX_PLAYERS)
    ck.fail("delta", s["delta"].astype(np.int64).sum(axis=1) != 0, "changes summing to 0", s["delta"])
    ck.range("round", 0, s["cfg_rounds"].astype(np.int64), allowed="0..cfg_rounds")
    ck.fail("round", playing & (s["round"] >= s["cfg_rounds"]), "below cfg_rounds while playing")
    ck.range("last_end", 0, len(RoundEnd) - 1)
    ck.range("last_winner", -1, p - 1, allowed="-1 or a seat 0..cfg_players-1")
    ck.range("last_points", 0, np.iinfo(np.int16).max)
    ck.range("status", 0, len(Status) - 1)
