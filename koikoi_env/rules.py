"""Koikoi's rules as numba kernels over the State record array (``state.py``).

Every kernel takes the State ``s`` and the env index ``i`` and touches only that env.
Rules implemented (``rules/koikoi.md``):

- "Round setup": shuffle 88, deal 8 to each seat (seat 0 first: seat k gets
  ``deck[8k:8k+8]``), then 8 face up to the field; the rest is the stock.
- "A turn": play a hand card; field cards of its rank: one -> take it, two -> the player
  chooses one (phase CHOOSE_PLAYED), three -> take all three; then step 5. No match: the
  card stays on the field and the stock's top is flipped and matched the same way (two
  matches: phase CHOOSE_FLIPPED); no match again: it stays on the field and the player
  draws ``min(2, 8 - hand, stock)`` cards (compulsory). Step 5: if the capture raised
  the seat's yaku score, phase DECIDE (koi-koi or stop).
- "Round end": a stop scores yaku x multiplier from every other seat, each payment capped
  at the payer's chips, and the stopper deals next. At the end of every turn (after a
  draw, a capture without a rise, or a koi-koi) a round ends with no score when any
  hand is empty or the stock is empty; the dealer stays. A flip that finds the stock
  empty ends the turn at once (no steps 3-4), which then ends the round.
- "Game": ``cfg_rounds`` rounds, or the end of a round after which a seat has 0 chips.

Every kernel that can end a round writes the step's chip changes to ``delta``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel
from tabletop_core.rng import shuffle_prefix

from .spec import (
    DRAW_MAX,
    FIELD_DEAL,
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
    RANKS_PER_SUIT,
    START_CHIPS,
    STOP,
    SUIT_BASE,
    SUIT_MIN,
    SUIT_STEP,
    TAKE_OFFSET,
    TRIPLE_BASE,
    TRIPLE_MIN,
    TRIPLE_STEP,
    Phase,
    RoundEnd,
    Status,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND, LOC_PENDING, LOC_STOCK

_PLAY = int(Phase.PLAY)
_CHOOSE_PLAYED = int(Phase.CHOOSE_PLAYED)
_CHOOSE_FLIPPED = int(Phase.CHOOSE_FLIPPED)
_DECIDE = int(Phase.DECIDE)
_PLAYING = int(Status.PLAYING)
_ROUNDS_DONE = int(Status.ROUNDS_DONE)
_BANKRUPT = int(Status.BANKRUPT)
_END_STOP = int(RoundEnd.STOP)
_END_HAND = int(RoundEnd.HAND_EMPTY)
_END_DECK = int(RoundEnd.DECK_EMPTY)


# --- yaku ---------------------------------------------------------------------------------
@kernel
def suit_yaku(count, non_numbers, longest_run):
    """Yaku score of one suit (rules "Yaku"): Great X (>= 3 non-number cards: 5, +3 per
    card beyond 3) + Triple X (longest run of numbers >= 3: 5, +3 per card beyond 3) +
    X (>= 6 cards of the suit: 1, +1 per card beyond 6)."""
    total = 0
    if non_numbers >= GREAT_MIN:
        total += GREAT_BASE + GREAT_STEP * (non_numbers - GREAT_MIN)
    if longest_run >= TRIPLE_MIN:
        total += TRIPLE_BASE + TRIPLE_STEP * (longest_run - TRIPLE_MIN)
    if count >= SUIT_MIN:
        total += SUIT_BASE + SUIT_STEP * (count - SUIT_MIN)
    return total


@kernel
def yaku_score(s, i, seat):
    """Total yaku score of ``seat``'s captured cards in env ``i`` (sum over the 4 suits).

    Decision (rules "Yaku"): for Triple X only the longest run of the suit counts.
    """
    e = s[i]
    code = LOC_CAPTURED + seat
    total = 0
    for suit in range(NUM_SUITS):
        base = suit * RANKS_PER_SUIT
        count = 0
        nn = 0
        run = 0
        best = 0
        for r in range(RANKS_PER_SUIT):
            if e.loc[base + r] == code:
                count += 1
                if r >= NUM_NUMBER_RANKS:
                    nn += 1
                else:
                    run += 1
                    if run > best:
                        best = run
            else:
                run = 0
        total += suit_yaku(count, nn, best)
    return total


@kernel
def koikoi_multiplier(count):
    """Multiplier of a scorer who declared ``count`` koi-koi: 0-1 -> 1, 2, 3, 4+ -> 4."""
    if count <= 1:
        return 1
    if count >= MAX_MULTIPLIER:
        return MAX_MULTIPLIER
    return np.int64(count)


# --- queries ------------------------------------------------------------------------------
@kernel
def match_count(s, i, card):
    """Number of field cards with ``card``'s rank (0..3: each rank has four cards)."""
    e = s[i]
    r = card % RANKS_PER_SUIT
    n = 0
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        if c != card and e.loc[c] == LOC_FIELD:
            n += 1
    return n


@kernel
def stock_size(s, i):
    """Cards left in the stock."""
    return NUM_CARDS - np.int64(s[i].deck_pos)


@kernel
def legal_mask(s, i, out):
    """Write env ``i``'s action mask into ``out`` ((178,) int8); return the legal count.

    PLAY: the acting seat's hand cards; CHOOSE_*: the field cards of the pending card's
    rank (always two); DECIDE: KOIKOI and STOP. All zeros once the game is over. While the
    game runs at least one action is legal (a turn starts only when every hand holds a
    card).
    """
    e = s[i]
    out[:] = 0
    if e.status != _PLAYING:
        return 0
    n = 0
    if e.phase == _PLAY:
        code = LOC_HAND + e.current
        for c in range(NUM_CARDS):
            if e.loc[c] == code:
                out[PLAY_OFFSET + c] = 1
                n += 1
    elif e.phase == _DECIDE:
        out[KOIKOI] = 1
        out[STOP] = 1
        n = 2
    else:
        r = e.pending % RANKS_PER_SUIT
        for suit in range(NUM_SUITS):
            c = suit * RANKS_PER_SUIT + r
            if e.loc[c] == LOC_FIELD:
                out[TAKE_OFFSET + c] = 1
                n += 1
    return n


@kernel
def is_legal(s, i, action):
    """Whether ``action`` (any int) is legal for the acting seat of env ``i``."""
    e = s[i]
    if e.status != _PLAYING:
        return False
    if e.phase == _PLAY:
        if PLAY_OFFSET <= action < PLAY_OFFSET + NUM_CARDS:
            return e.loc[action - PLAY_OFFSET] == LOC_HAND + e.current
        return False
    if e.phase == _DECIDE:
        return KOIKOI <= action <= STOP
    if TAKE_OFFSET <= action < TAKE_OFFSET + NUM_CARDS:
        c = action - TAKE_OFFSET
        return e.loc[c] == LOC_FIELD and c % RANKS_PER_SUIT == e.pending % RANKS_PER_SUIT
    return False


# --- dealing ------------------------------------------------------------------------------
@kernel
def deal_round(s, i):
    """Start a round in env ``i``: shuffle the 88 cards with the env's generator (87
    draws), deal 8 to each seat, 8 to the field; the dealer acts first.

    Resets the round's yaku scores, koi-koi counts, phase and turn; keeps chips, dealer
    and round counter.
    """
    e = s[i]
    for k in range(NUM_CARDS):
        e.deck[k] = k
    shuffle_prefix(s.rng, i, e.deck, NUM_CARDS)
    e.loc[:] = LOC_STOCK
    pos = 0
    n = e.cfg_players
    for seat in range(n):
        for _ in range(HAND_SIZE):
            e.loc[e.deck[pos]] = LOC_HAND + seat
            pos += 1
        e.hand_size[seat] = HAND_SIZE
    for seat in range(n, e.hand_size.shape[0]):
        e.hand_size[seat] = 0
    for _ in range(FIELD_DEAL):
        e.loc[e.deck[pos]] = LOC_FIELD
        pos += 1
    e.deck_pos = pos
    e.pending = -1
    e.phase = _PLAY
    e.yaku[:] = 0
    e.koikoi[:] = 0
    e.current = e.dealer
    e.turn = 0


@kernel
def new_game(s, i):
    """Start a new game in env ``i``: every seat at 25 chips, first dealer
    ``cfg_first_dealer``, round 0, then :func:`deal_round`."""
    e = s[i]
    n = e.cfg_players
    for seat in range(e.chips.shape[0]):
        e.chips[seat] = START_CHIPS if seat < n else 0
    e.delta[:] = 0
    e.dealer = e.cfg_first_dealer
    e.round = 0
    e.last_end = 0
    e.last_winner = -1
    e.last_points = 0
    e.status = _PLAYING
    deal_round(s, i)


# --- the turn -----------------------------------------------------------------------------
@kernel
def _capture_rank(s, i, card, seat):
    """Capture ``card`` and every field card of its rank for ``seat``."""
    e = s[i]
    code = LOC_CAPTURED + seat
    r = card % RANKS_PER_SUIT
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        if e.loc[c] == LOC_FIELD:
            e.loc[c] = code
    e.loc[card] = code


@kernel
def _end_round(s, i, how, winner, points):
    """Record how the round ended, advance the round counter, end the game or deal."""
    e = s[i]
    e.last_end = how
    e.last_winner = winner
    e.last_points = points
    e.round += 1
    e.phase = _PLAY
    e.pending = -1
    bankrupt = False
    for seat in range(e.cfg_players):
        if e.chips[seat] <= 0:
            bankrupt = True
    if bankrupt:
        e.status = _BANKRUPT
    elif e.round >= e.cfg_rounds:
        e.status = _ROUNDS_DONE
    else:
        deal_round(s, i)


@kernel
def _end_turn(s, i):
    """End of a turn: the round ends with no score if a hand or the stock is empty
    (the dealer stays); otherwise the next seat clockwise plays."""
    e = s[i]
    e.phase = _PLAY
    e.pending = -1
    n = e.cfg_players
    for seat in range(n):
        if e.hand_size[seat] == 0:
            _end_round(s, i, _END_HAND, -1, 0)
            return
    if e.deck_pos >= NUM_CARDS:
        _end_round(s, i, _END_DECK, -1, 0)
        return
    e.current = (e.current + 1) % n
    e.turn += 1


@kernel
def _after_capture(s, i):
    """Step 5: DECIDE if the acting seat's yaku score rose, else end the turn."""
    e = s[i]
    seat = e.current
    y = yaku_score(s, i, seat)
    if y > e.yaku[seat]:
        e.yaku[seat] = y
        e.phase = _DECIDE
        e.pending = -1
    else:
        _end_turn(s, i)


@kernel
def _draw(s, i, seat):
    """Step 4: draw ``min(2, 8 - hand, stock)`` cards from the stock's top."""
    e = s[i]
    k = 0
    while k < DRAW_MAX and e.hand_size[seat] < HAND_SIZE and e.deck_pos < NUM_CARDS:
        e.loc[e.deck[e.deck_pos]] = LOC_HAND + seat
        e.deck_pos += 1
        e.hand_size[seat] += 1
        k += 1


@kernel
def _flip(s, i):
    """Step 3: flip the stock's top and match it; no match -> step 4 and end the turn."""
    e = s[i]
    if e.deck_pos >= NUM_CARDS:
        _end_turn(s, i)  # nothing to flip: the turn ends (and with it the round)
        return
    card = e.deck[e.deck_pos]
    e.deck_pos += 1
    m = match_count(s, i, card)
    if m == 0:
        e.loc[card] = LOC_FIELD
        _draw(s, i, e.current)
        _end_turn(s, i)
    elif m == 2:
        e.loc[card] = LOC_PENDING
        e.pending = card
        e.phase = _CHOOSE_FLIPPED
    else:
        _capture_rank(s, i, card, e.current)
        _after_capture(s, i)


@kernel
def _score_stop(s, i):
    """The acting seat stops: collect yaku x multiplier from every other seat, each
    payment capped at the payer's chips; the stopper deals the next round."""
    e = s[i]
    seat = e.current
    points = np.int64(e.yaku[seat]) * koikoi_multiplier(e.koikoi[seat])
    gained = 0
    for p in range(e.cfg_players):
        if p == seat:
            continue
        pay = points if points < e.chips[p] else np.int64(e.chips[p])
        e.chips[p] -= pay
        e.delta[p] = -pay
        gained += pay
    e.chips[seat] += gained
    e.delta[seat] = gained
    e.dealer = seat
    _end_round(s, i, _END_STOP, seat, points)


@kernel
def apply_action(s, i, action):
    """Apply a LEGAL ``action`` for the acting seat of env ``i``.

    Callers validate with :func:`is_legal` or the mask first: an illegal action here is
    undefined behaviour. Writes the step's chip changes (the rewards) to ``delta``;
    updates ``status`` when the game ends and deals the next round when one ends.
    """
    e = s[i]
    e.delta[:] = 0
    seat = e.current
    ph = e.phase
    if ph == _PLAY:
        card = action - PLAY_OFFSET
        e.hand_size[seat] -= 1
        m = match_count(s, i, card)
        if m == 0:
            e.loc[card] = LOC_FIELD
            _flip(s, i)
        elif m == 2:
            e.loc[card] = LOC_PENDING
            e.pending = card
            e.phase = _CHOOSE_PLAYED
        else:
            _capture_rank(s, i, card, seat)
            _after_capture(s, i)
    elif ph == _DECIDE:
        if action == KOIKOI:
            if e.koikoi[seat] < 127:
                e.koikoi[seat] += 1
            _end_turn(s, i)
        else:
            _score_stop(s, i)
    else:
        c = action - TAKE_OFFSET
        code = LOC_CAPTURED + seat
        e.loc[c] = code
        e.loc[e.pending] = code
        e.pending = -1
        _after_capture(s, i)
