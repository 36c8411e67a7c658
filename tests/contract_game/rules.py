"""Leduc hold'em's rules as numba kernels on one env's record ``e = s[i]``.

From Python, run a kernel on env ``i`` of a State with
``tabletop_core.kernel.records.at(kernel_r, s, i, ...)``. Kernels filling a buffer take the whole
``(B, n)`` buffer and a row index. The generator word is ``e.rng``.

Betting: a round closes with a call that is not the round's first action (check-check,
or a call of a raise). Round 0 closing deals the public card and opens round 1 with
``cfg_start`` to act; round 1 closing is the showdown. A fold ends the hand at once.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint_word

from .spec import ANTE, BETS, CALL, FOLD, NUM_CARDS, NUM_SEATS, RAISE, Status

_PLAYING = int(Status.PLAYING)
_FOLDED = int(Status.FOLDED)
_SHOWDOWN = int(Status.SHOWDOWN)
_BET0, _BET1 = BETS


@kernel
def deal_r(e):
    """Start a hand: antes in, one private card each (two draws of ``e.rng``), no public
    card yet, ``cfg_start`` to act."""
    w, c0 = randint_word(e.rng, NUM_CARDS)
    w, c1 = randint_word(w, NUM_CARDS - 1)
    e.rng = w
    e.private[0] = c0
    e.private[1] = c1 + (c1 >= c0)
    e.public = -1
    e.round = 0
    e.raises = 0
    e.acted = 0
    for k in range(NUM_SEATS):
        e.contrib[k] = ANTE
    e.winner = -1
    e.current = e.cfg_start
    e.status = _PLAYING


@kernel
def facing_bet_r(e):
    """Whether the seat to act has fewer chips in the pot than the other."""
    return e.contrib[e.current] < e.contrib[1 - e.current]


@kernel
def legal_mask_r(e, out, row):
    """The acting seat's mask into ``out[row]`` ((B, 3) int8); returns the number of legal
    actions (0 once the hand is over)."""
    playing = e.status == _PLAYING
    fold = playing and facing_bet_r(e)
    raise_ = playing and e.raises < e.cfg_max_raises
    out[row, FOLD] = fold
    out[row, CALL] = playing
    out[row, RAISE] = raise_
    return np.int64(fold) + np.int64(playing) + np.int64(raise_)


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the acting seat now."""
    if e.status != _PLAYING:
        return False
    if action == CALL:
        return True
    if action == FOLD:
        return facing_bet_r(e)
    if action == RAISE:
        return e.raises < e.cfg_max_raises
    return False


@kernel
def hand_rank_r(e, seat):
    """Showdown strength of ``seat``: 3 + rank with a pair, else its card's rank (0..2)."""
    r = np.int64(e.private[seat]) // 2
    if e.public >= 0 and r == np.int64(e.public) // 2:
        return r + 3
    return r


@kernel
def _deal_public_r(e):
    """Draw the public card from the four cards no seat holds (one draw of ``e.rng``)."""
    w, k = randint_word(e.rng, NUM_CARDS - NUM_SEATS)
    e.rng = w
    for c in range(NUM_CARDS):
        if c != e.private[0] and c != e.private[1]:
            if k == 0:
                e.public = c
                break
            k -= 1


@kernel
def apply_action_r(e, action):
    """Play the acting seat's LEGAL ``action``."""
    seat = np.int64(e.current)
    other = 1 - seat
    if action == FOLD:
        e.status = _FOLDED
        e.winner = other
        return
    e.acted += 1
    if action == RAISE:
        e.contrib[seat] = e.contrib[other] + (_BET0 if e.round == 0 else _BET1)
        e.raises += 1
        e.current = other
        return
    e.contrib[seat] = e.contrib[other]  # call / check
    if e.acted < 2:
        e.current = other
        return
    if e.round == 0:  # round 0 closed: the public card, then round 1
        _deal_public_r(e)
        e.round = 1
        e.raises = 0
        e.acted = 0
        e.current = e.cfg_start
        return
    e.status = _SHOWDOWN
    a = hand_rank_r(e, 0)
    b = hand_rank_r(e, 1)
    e.winner = 0 if a > b else (1 if b > a else -1)


@kernel
def payoff_r(e, seat):
    """``seat``'s result of a finished hand under ``cfg_reward``: net chips (0: chips) or
    +1 / -1 / 0 (1: win); 0 while the hand is played."""
    if e.status == _PLAYING or e.winner < 0:
        return 0.0
    sign = 1.0 if e.winner == seat else -1.0
    if e.cfg_reward == 1:
        return sign
    return sign * np.float64(e.contrib[1 - e.winner])  # the loser's chips change hands


@kernel
def step_r(e, action, acc, row):
    """Play ``action``; a hand's result is the reward of the step that ends it, added to
    ``acc[row]`` for both seats (zero-sum)."""
    apply_action_r(e, action)
    if e.status != _PLAYING:
        for k in range(NUM_SEATS):
            acc[row, k] += payoff_r(e, k)


# --- figures of finished hands (Python, for the arena and the AEC env's infos) ----------
def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """``showdown`` (the hand reached the showdown), ``split`` (it was split) and
    ``pot`` (chips in the pot at the end) of finished hands ``final`` (G,)."""
    st = final["status"]
    return {
        "showdown": st == _SHOWDOWN,
        "split": (st == _SHOWDOWN) & (final["winner"] < 0),
        "pot": final["contrib"].astype(np.int64).sum(axis=1),
    }


def match_stats(options) -> dict[str, str]:
    """The figures of :func:`episode_stats` with their definitions."""
    return {
        "showdown": "the hand reached the showdown (nobody folded)",
        "split": "the showdown was a tie (same rank, no pair): the pot is split",
        "pot": "chips in the pot at the end, antes included",
    }


def final_info(state: np.ndarray, seat: int) -> dict:
    """What ``seat`` is told when the hand ends (an AEC env's ``infos``)."""
    e = state[0]
    st = Status(int(e["status"]))
    w = int(e["winner"])
    return {
        "status": st.name.lower(),
        "winner": w,
        "won": w == seat,
        "chips": int(e["contrib"][1 - w]) * (1 if w == seat else -1) if w >= 0 else 0,
    }
