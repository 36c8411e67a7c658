"""The Game's rules as numba kernels over the State record array (``state.py``).

Every kernel takes the State and the env index ``i`` (batch axis) and touches only that
env. Rules implemented (``rules/thegame.md``):

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
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel
from tabletop_core.rng import shuffle_prefix

from .spec import (
    ASCENDING_START,
    BACKWARDS_STEP,
    DESCENDING_START,
    END_TURN,
    MIN_CARD,
    MIN_PLAYS_EMPTY_DECK,
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


@kernel
def min_plays_now(s, i):
    """Plays owed this turn: ``cfg_min_plays`` while the draw pile has cards, else 1."""
    e = s[i]
    if e.deck_pos >= NUM_CARDS:
        return MIN_PLAYS_EMPTY_DECK
    return np.int64(e.cfg_min_plays)


@kernel
def draw_pile_size(s, i):
    """Cards left in the draw pile."""
    e = s[i]
    return NUM_CARDS - np.int64(e.deck_pos)


@kernel
def score(s, i):
    """Cards not played: every hand plus the draw pile (0 = perfect game)."""
    e = s[i]
    total = draw_pile_size(s, i)
    for seat in range(e.cfg_players):
        total += e.hand_size[seat]
    return total


@kernel
def is_win(s, i):
    """Whether the (finished) game counts as a win: score <= 9 and no fire loss."""
    e = s[i]
    return e.status != _FIRE_LOSS and score(s, i) <= WIN_THRESHOLD


@kernel
def has_play(s, i):
    """Whether the active player can place at least one card."""
    e = s[i]
    seat = e.current
    for k in range(e.hand_size[seat]):
        card = e.hand[seat, k]
        for pile in range(NUM_PILES):
            if can_place(e.piles[pile], pile, card):
                return True
    return False


@kernel
def legal_mask(s, i, out):
    """Write the action mask of env ``i`` into ``out`` ((393,) int8); return the count.

    All zeros once the game is over. Otherwise at least one entry is set (the kernels end
    the game as soon as the active player owes a play and has none).
    """
    e = s[i]
    out[:] = 0
    if e.status != _PLAYING:
        return 0
    seat = e.current
    n = 0
    for k in range(e.hand_size[seat]):
        card = np.int64(e.hand[seat, k])
        for pile in range(NUM_PILES):
            if can_place(e.piles[pile], pile, card):
                out[pile * NUM_CARDS + card - MIN_CARD] = 1
                n += 1
    if e.plays_this_turn >= min_plays_now(s, i):
        out[END_TURN] = 1
        n += 1
    return n


@kernel
def is_legal(s, i, action):
    """Whether ``action`` (any int) is legal for the active player of env ``i``."""
    e = s[i]
    if e.status != _PLAYING or action < 0 or action > END_TURN:
        return False
    if action == END_TURN:
        return e.plays_this_turn >= min_plays_now(s, i)
    pile = action // NUM_CARDS
    card = action % NUM_CARDS + MIN_CARD
    seat = e.current
    for k in range(e.hand_size[seat]):
        if e.hand[seat, k] == card:
            return can_place(e.piles[pile], pile, card)
    return False


@kernel
def _draw_up(s, i, seat):
    e = s[i]
    while e.hand_size[seat] < e.cfg_hand_size and e.deck_pos < NUM_CARDS:
        e.hand[seat, e.hand_size[seat]] = e.deck[e.deck_pos]
        e.hand_size[seat] += 1
        e.deck_pos += 1


@kernel
def deal(s, i):
    """Start a new game in env ``i`` with its own generator (``e.rng``) and options.

    Shuffles the 98 cards, deals ``cfg_hand_size`` to each seat, and gives the first turn
    to ``cfg_start``. Consumes 97 draws of the env's stream.
    """
    e = s[i]
    for k in range(NUM_CARDS):
        e.deck[k] = k + MIN_CARD
    shuffle_prefix(s.rng, i, e.deck, NUM_CARDS)
    e.hand[:, :] = 0
    e.hand_size[:] = 0
    e.deck_pos = 0
    for seat in range(e.cfg_players):
        _draw_up(s, i, seat)
    e.piles[0] = ASCENDING_START
    e.piles[1] = ASCENDING_START
    e.piles[2] = DESCENDING_START
    e.piles[3] = DESCENDING_START
    e.fire_turn[:] = -1
    e.played[:] = 0
    e.current = e.cfg_start
    e.plays_this_turn = 0
    e.turn = 0
    e.status = _PLAYING


@kernel
def _end_turn(s, i):
    e = s[i]
    seat = e.current
    # On Fire: at the end of turn T, a fire card placed at turn <= T - 1 still on top loses.
    if e.cfg_on_fire != 0:
        for pile in range(NUM_PILES):
            if e.fire_turn[pile] >= 0 and e.fire_turn[pile] <= e.turn - 1:
                e.status = _FIRE_LOSS
                return
    _draw_up(s, i, seat)
    n = e.cfg_players
    nxt = seat
    for k in range(1, n + 1):
        cand = (seat + k) % n
        if e.hand_size[cand] > 0:
            nxt = cand
            break
    e.current = nxt
    e.plays_this_turn = 0
    e.turn += 1
    if not has_play(s, i):
        e.status = _STUCK


@kernel
def apply_action(s, i, action):
    """Apply a LEGAL ``action`` for the active player of env ``i``; return cards placed (0/1).

    Callers validate with :func:`is_legal` or the mask first: an illegal action here is
    undefined behaviour. Updates ``status`` when the game ends.
    """
    e = s[i]
    if action == END_TURN:
        _end_turn(s, i)
        return 0
    seat = e.current
    pile = action // NUM_CARDS
    card = action % NUM_CARDS + MIN_CARD
    h = e.hand_size[seat]
    for k in range(h):
        if e.hand[seat, k] == card:
            e.hand[seat, k] = e.hand[seat, h - 1]
            e.hand[seat, h - 1] = 0
            break
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
    if score(s, i) == 0:
        e.status = _ALL_PLAYED
    elif e.plays_this_turn < min_plays_now(s, i) and not has_play(s, i):
        e.status = _STUCK
    return 1


@kernel
def step_reward(s, i, placed):
    """Reward every seat gets for a step that placed ``placed`` cards (0 or 1).

    ``cfg_reward`` 0 (cards): ``placed``. 1 (win): 0 until the game ends, then +1 on a
    win, -1 on a loss.
    """
    e = s[i]
    if e.cfg_reward == _REWARD_WIN:
        if e.status == _PLAYING:
            return 0.0
        return 1.0 if is_win(s, i) else -1.0
    return np.float64(placed)
