"""The Game's rules as numba kernels over the State record array (``state.py``).

The kernels take one env's record ``e = s[i]`` (``*_r``; from Python, on env ``i`` of a
State in place: ``tabletop_core.kernel.records.at(kernel_r, s, i, ...)``): a record is a plain
pointer, whereas an array argument passed down a chain of calls costs numba atomic
reference-count updates, which cost more than the rules themselves. Kernels
that fill a buffer take the whole ``(B, n)`` buffer and a row index
(``legal_mask_r(e, masks, i)``) rather than a row view, for the same reason. The
generator word is a field of the record (``e.rng``), so the deal (:func:`deal_r`) needs
no array either. Rules implemented (``docs/rules/thegame.md``):

- placing: an ascending pile takes a higher card or exactly 10 lower (backwards trick),
  a descending pile a lower card or exactly 10 higher;
- a turn owes ``cfg_min_plays`` plays (2, or 3 at levels 1-2) while the draw pile has
  cards and 1 once it is empty; after the minimum the player may end the turn;
- ending the turn draws back up to the hand size; seats with empty hands are skipped;
- the game ends when every card is played, when the active player still owes a play and
  has none, or (On Fire) when a fire card stays uncovered past the end of the turn after
  the one it was placed in.

Decision (On Fire, not settled by the rules file): a fire card placed on a pile whose
top is already an uncovered fire card keeps the older deadline, since the older fire card
is still not covered by a non-fire card.

Card sets (:func:`hand_bits_r`, :func:`pile_accepts`) are 128-bit sets as two uint64
words ``(lo, hi)``: bit ``c`` (card value ``c``, 2..99) of ``lo`` for ``c < 64``, bit
``c - 64`` of ``hi`` otherwise; bits 0, 1 and 100..127 stand for no card.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import shuffle_word

from .spec import (
    ASCENDING_START,
    BACKWARDS_STEP,
    DESCENDING_START,
    END_TURN,
    MAX_HAND,
    MAX_PLAYERS,
    MIN_CARD,
    MIN_PLAYS_EMPTY_DECK,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PILES,
    WIN_THRESHOLD,
    RewardMode,
    Status,
)

_PLAYING = int(Status.PLAYING)
_ALL_PLAYED = int(Status.ALL_PLAYED)
_STUCK = int(Status.STUCK)
_FIRE_LOSS = int(Status.FIRE_LOSS)
_REWARD_WIN = int(RewardMode.WIN)


@kernel
def is_fire_card(card):
    """True for the On Fire numbers 22, 33, ..., 77 (only meaningful with ``cfg_on_fire``)."""
    return card >= 22 and card <= 77 and card % 11 == 0


@kernel
def can_place(top, pile, card):
    """Whether ``card`` may go on ``pile`` (0-1 ascending, 2-3 descending) whose top is ``top``."""
    if pile < 2:
        return card > top or card == top - BACKWARDS_STEP
    return card < top or card == top + BACKWARDS_STEP


@kernel(inline="always")
def play_jump(top, pile, card):
    """How far ``card`` moves ``pile`` (top ``top``) in the pile's direction: ``card - top``
    on an ascending pile, ``top - card`` on a descending one; negative for the backwards
    trick (it gains ground). Meaningful where :func:`can_place` allows the play."""
    return card - top if pile < 2 else top - card


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


# --- 128-bit card sets ------------------------------------------------------------------
# The set kernels are arithmetic only (a select on the word would compile to a branch
# on the pile top, which mispredicts): ``lt`` below is all ones when ``x < 64``.
@kernel(inline="always")
def card_bit(c):
    """The set ``{c}`` for ``c`` in 0..127, as ``(lo, hi)``."""
    c = np.int64(c)
    b = _ONE << np.uint64(c & 63)
    lt = _ZERO - np.uint64(c < 64)
    return b & lt, b & ~lt


@kernel(inline="always")
def cards_above(t):
    """The set of values ``> t`` (``t`` in 0..126), as ``(lo, hi)``."""
    t1 = np.int64(t) + 1
    sh = _ALL << np.uint64(t1 & 63)
    lt = _ZERO - np.uint64(t1 < 64)
    return sh & lt, sh | lt


@kernel(inline="always")
def cards_below(t):
    """The set of values ``< t`` (``t`` in 1..127), as ``(lo, hi)``."""
    t = np.int64(t)
    m = (_ONE << np.uint64(t & 63)) - _ONE
    lt = _ZERO - np.uint64(t < 64)
    return m | ~lt, m & ~lt


@kernel(inline="always")
def pile_accepts(top, pile):
    """The cards :func:`can_place` lets go on ``pile`` with top ``top``, as ``(lo, hi)``
    (for an ascending top below 12 the backwards-trick value is 0, 1 or, wrapped,
    119..127: no card)."""
    top = np.int64(top)
    if pile < 2:
        lo, hi = cards_above(top)
        tlo, thi = card_bit((top - BACKWARDS_STEP) & 127)
    else:
        lo, hi = cards_below(top)
        tlo, thi = card_bit(top + BACKWARDS_STEP)
    return lo | tlo, hi | thi


@kernel(inline="always")
def hand_bits_r(e, seat):
    """The cards ``seat`` holds, as ``(lo, hi)`` (a branch-free pass over all 8 slots)."""
    h = np.int64(e.hand_size[seat])
    lo = _ZERO
    hi = _ZERO
    for k in range(MAX_HAND):
        c = np.int64(e.hand[seat, k])
        b = _ONE << np.uint64(c & 63) if k < h else _ZERO
        lo |= b if c < 64 else _ZERO
        hi |= _ZERO if c < 64 else b
    return lo, hi


# --- queries ----------------------------------------------------------------------------
@kernel(inline="always")
def min_plays_now_r(e):
    """Plays owed this turn in the record ``e``: ``cfg_min_plays`` while the draw pile has
    cards, else 1."""
    return MIN_PLAYS_EMPTY_DECK if e.deck_pos >= NUM_CARDS else np.int64(e.cfg_min_plays)


@kernel
def draw_pile_size_r(e):
    """Cards left in the draw pile of the record ``e``."""
    return NUM_CARDS - np.int64(e.deck_pos)


@kernel
def score_r(e):
    """Cards not played in the record ``e``: every hand plus the draw pile (0 = perfect
    game)."""
    total = NUM_CARDS - np.int64(e.deck_pos)
    for seat in range(e.cfg_players):
        total += e.hand_size[seat]
    return total


@kernel
def is_win_r(e):
    """Whether the (finished) game of the record ``e`` counts as a win: score <= 9 and no
    fire loss."""
    return e.status != _FIRE_LOSS and score_r(e) <= WIN_THRESHOLD


@kernel
def has_play_r(e):
    """Whether the active player of the record ``e`` can place at least one card
    (branch-free over the hand)."""
    seat = e.current
    t0 = np.int64(e.piles[0])
    t1 = np.int64(e.piles[1])
    t2 = np.int64(e.piles[2])
    t3 = np.int64(e.piles[3])
    up = min(t0, t1)
    down = max(t2, t3)
    h = np.int64(e.hand_size[seat])
    ok = False
    for k in range(MAX_HAND):  # all 8 slots, the empty ones masked: no data-dependent exit
        c = np.int64(e.hand[seat, k])
        ok |= (k < h) & (
            (c > up)
            | (c < down)
            | (c == t0 - BACKWARDS_STEP)
            | (c == t1 - BACKWARDS_STEP)
            | (c == t2 + BACKWARDS_STEP)
            | (c == t3 + BACKWARDS_STEP)
        )
    return ok


@kernel
def legal_mask_r(e, out, row):
    """Write the action mask of the record ``e`` into row ``row`` of ``out`` ((B, 393)
    int8; indexing rows here rather than passing ``out[row]`` keeps numba from reference
    counting a view); return the count of legal actions.

    All zeros once the game is over. Otherwise at least one entry is set (the kernels end
    the game as soon as the active player owes a play and has none). Every entry of
    ``out[row]`` is written. The row is cleared, then the four entries of each hand card are
    written without branches (32-bit compares, unsigned column indices: no negative-index
    wraparound code)."""
    for a in range(NUM_ACTIONS):
        out[row, a] = 0
    if e.status != _PLAYING:
        return 0
    seat = e.current
    t0 = np.int32(e.piles[0])
    t1 = np.int32(e.piles[1])
    t2 = np.int32(e.piles[2])
    t3 = np.int32(e.piles[3])
    back0 = t0 - np.int32(BACKWARDS_STEP)
    back1 = t1 - np.int32(BACKWARDS_STEP)
    back2 = t2 + np.int32(BACKWARDS_STEP)
    back3 = t3 + np.int32(BACKWARDS_STEP)
    n = np.int32(0)
    for k in range(e.hand_size[seat]):
        c = np.int32(e.hand[seat, k])
        a0 = (c > t0) | (c == back0)
        a1 = (c > t1) | (c == back1)
        a2 = (c < t2) | (c == back2)
        a3 = (c < t3) | (c == back3)
        j = np.uint32(c - np.int32(MIN_CARD))
        out[row, j] = a0
        out[row, j + np.uint32(NUM_CARDS)] = a1
        out[row, j + np.uint32(2 * NUM_CARDS)] = a2
        out[row, j + np.uint32(3 * NUM_CARDS)] = a3
        n += np.int32(a0) + np.int32(a1) + np.int32(a2) + np.int32(a3)
    end = e.plays_this_turn >= min_plays_now_r(e)
    out[row, END_TURN] = end
    return np.int64(n) + np.int64(end)


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the active player of the record ``e``."""
    if e.status != _PLAYING or action < 0 or action > END_TURN:
        return False
    if action == END_TURN:
        return e.plays_this_turn >= min_plays_now_r(e)
    pile = action // NUM_CARDS
    card = action % NUM_CARDS + MIN_CARD
    seat = e.current
    for k in range(e.hand_size[seat]):
        if e.hand[seat, k] == card:
            return can_place(e.piles[pile], pile, card)
    return False


# --- dealing ----------------------------------------------------------------------------
@kernel
def _draw_up_r(e, seat):
    """``seat`` draws from the draw pile back up to ``cfg_hand_size`` cards."""
    k = np.int64(e.hand_size[seat])
    pos = np.int64(e.deck_pos)
    stop = min(np.int64(e.cfg_hand_size), k + NUM_CARDS - pos)
    while k < stop:
        e.hand[seat, k] = e.deck[pos]
        k += 1
        pos += 1
    e.hand_size[seat] = k
    e.deck_pos = pos


@kernel
def shuffle_deck_r(e):
    """Set ``e.deck`` to the cards 2..99 shuffled exactly as
    ``tabletop_core.kernel.rng.shuffle_prefix(s.rng, i, deck, 98)`` would (97 draws from the env's
    generator, Fisher-Yates from the end, Lemire reduction of the high 32 bits), with the
    generator word ``e.rng`` kept in a register instead of an array."""
    deck = e.deck
    for k in range(NUM_CARDS):
        deck[k] = k + MIN_CARD
    e.rng = shuffle_word(e.rng, deck, NUM_CARDS)


@kernel
def deal_r(e):
    """Start a new game in the record ``e`` with its own generator (``e.rng``) and options.

    Shuffles the 98 cards, deals ``cfg_hand_size`` to each seat (seat ``k`` gets the
    ``k``-th run of the deck), and gives the first turn to ``cfg_start``. Consumes 97
    draws of the env's stream.
    """
    shuffle_deck_r(e)
    n = np.int64(e.cfg_players)
    h = np.int64(e.cfg_hand_size)
    pos = 0
    for seat in range(MAX_PLAYERS):
        k = 0
        if seat < n:
            while k < h and pos < NUM_CARDS:
                e.hand[seat, k] = e.deck[pos]
                k += 1
                pos += 1
        e.hand_size[seat] = k
        for j in range(k, MAX_HAND):
            e.hand[seat, j] = 0
    e.deck_pos = pos
    e.piles[0] = ASCENDING_START
    e.piles[1] = ASCENDING_START
    e.piles[2] = DESCENDING_START
    e.piles[3] = DESCENDING_START
    for p in range(NUM_PILES):
        e.fire_turn[p] = -1
    for c in range(NUM_CARDS):
        e.played[c] = 0
    e.current = e.cfg_start
    e.plays_this_turn = 0
    e.turn = 0
    e.status = _PLAYING


# --- playing ----------------------------------------------------------------------------
@kernel
def _end_turn_r(e):
    seat = e.current
    # On Fire: at the end of turn T, a fire card placed at turn <= T - 1 still on top loses.
    if e.cfg_on_fire != 0:
        for pile in range(NUM_PILES):
            if e.fire_turn[pile] >= 0 and e.fire_turn[pile] <= e.turn - 1:
                e.status = _FIRE_LOSS
                return
    _draw_up_r(e, seat)
    n = np.int64(e.cfg_players)
    nxt = np.int64(seat)
    cand = np.int64(seat)
    for _ in range(n):  # the next seat holding cards, else the same seat
        cand = cand + 1 if cand + 1 < n else 0
        if e.hand_size[cand] > 0:
            nxt = cand
            break
    e.current = nxt
    e.plays_this_turn = 0
    e.turn += 1
    if not has_play_r(e):
        e.status = _STUCK


@kernel
def apply_action_r(e, action):
    """Apply a LEGAL ``action`` for the active player of the record ``e``; return cards
    placed (0/1).

    Callers validate with :func:`is_legal_r` or the mask first: an illegal action here is
    undefined behaviour. Updates ``status`` when the game ends.
    """
    if action == END_TURN:
        _end_turn_r(e)
        return 0
    seat = e.current
    pile = action // NUM_CARDS
    card = action % NUM_CARDS + MIN_CARD
    h = np.int64(e.hand_size[seat])
    pos = 0
    for k in range(MAX_HAND):  # the card's slot, without a data-dependent exit
        pos = k if (k < h) & (e.hand[seat, k] == card) else pos
    e.hand[seat, pos] = e.hand[seat, h - 1]
    e.hand[seat, h - 1] = 0
    e.hand_size[seat] = h - 1
    if e.cfg_on_fire != 0:
        if is_fire_card(card):
            if e.fire_turn[pile] < 0:
                e.fire_turn[pile] = e.turn
        else:
            e.fire_turn[pile] = -1
    e.piles[pile] = card
    e.played[card - MIN_CARD] = 1
    e.plays_this_turn += 1
    if e.deck_pos >= NUM_CARDS and score_r(e) == 0:
        e.status = _ALL_PLAYED
    elif e.plays_this_turn < min_plays_now_r(e) and not has_play_r(e):
        e.status = _STUCK
    return 1


@kernel
def step_reward_r(e, placed):
    """Reward every seat gets for a step that placed ``placed`` cards (0 or 1).

    ``cfg_reward`` 0 (cards): ``placed``. 1 (win): 0 until the game ends, then +1 on a
    win, -1 on a loss.
    """
    if e.cfg_reward == _REWARD_WIN:
        if e.status == _PLAYING:
            return 0.0
        return 1.0 if is_win_r(e) else -1.0
    return np.float64(placed)
