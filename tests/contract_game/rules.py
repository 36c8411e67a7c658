"""Leduc hold'em's compiled part: the State record, the rules, the observation and the bots
as numba kernels on one env's record ``e = s[i]``, and the hooks that hand them to the
batch loops.

Six cards, J Q K in two suits (card id ``c`` 0..5: rank ``c // 2``, suit ``c % 2``). Each
seat antes 1 and gets one private card. Two betting rounds; the public card is dealt
between them. A round closes with a call that is not its first action (check-check, or a
call of a raise); bets are 2 in round 0 and 4 in round 1, at most ``cfg_max_raises``
raises a round. Showdown: a pair with the public card wins, else the higher card; equal
ranks split the pot. A fold ends the hand at once.

Actions: ``FOLD`` 0 (legal only when facing a bet), ``CALL`` 1 (a check when nothing is
owed), ``RAISE`` 2 (while raises are left this round).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.records import blank_state
from tabletop_core.kernel.rng import randint, randint_word

NUM_SEATS, NUM_CARDS, NUM_RANKS, NUM_ROUNDS = 2, 6, 3, 2
ANTE = 1
BETS = (2, 4)  # the raise size of round 0 and round 1
MAX_RAISES = 4  # the largest max_raises option
MAX_CONTRIB = ANTE + MAX_RAISES * (BETS[0] + BETS[1])  # one seat's chips in the pot, at most
FOLD, CALL, RAISE = 0, 1, 2
NUM_ACTIONS = 3
MAX_EPISODE_STEPS = NUM_ROUNDS * (MAX_RAISES + 2)  # a round: a check, the raises, a call
REWARD_NAMES = ("chips", "win")  # net chips at the end (zero-sum), or +1 / -1 / 0
BOT_NAMES = ("random", "strong")


class Status(IntEnum):
    """``State.status``: 0 while the hand is played."""

    PLAYING = 0
    FOLDED = 1  # a seat folded; the other takes the pot
    SHOWDOWN = 2  # both rounds closed; the cards decided


STATE_DTYPE = np.dtype(
    [
        ("cfg_max_raises", np.int8),  # raises allowed per round, 1..4
        ("cfg_start", np.int8),  # seat acting first in each round
        ("cfg_reward", np.int8),  # index in REWARD_NAMES
        ("private", np.int8, (NUM_SEATS,)),  # each seat's card id 0..5
        ("public", np.int8),  # the public card id, -1 until round 1
        ("round", np.int8),  # betting round 0 or 1
        ("raises", np.int8),  # raises made this round
        ("acted", np.int8),  # actions taken this round
        ("contrib", np.int16, (NUM_SEATS,)),  # chips each seat has put in the pot
        ("winner", np.int8),  # seat that won the pot, -1 while playing or on a split
        ("current", np.int8),  # seat to act
        ("status", np.int8),  # Status
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng)
    ]
)

_PLAYING, _FOLDED, _SHOWDOWN = int(Status.PLAYING), int(Status.FOLDED), int(Status.SHOWDOWN)
_BET0, _BET1 = BETS


def new_state(batch: int, options) -> np.ndarray:
    """A ``(batch,)`` State for ``options`` (``max_raises``, ``start_player``, ``reward``),
    not yet dealt.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    s = blank_state(batch, STATE_DTYPE)
    s["cfg_max_raises"] = options.max_raises
    s["cfg_start"] = options.start_player
    s["cfg_reward"] = REWARD_NAMES.index(options.reward)
    s["private"] = (0, 1)
    s["public"] = -1
    s["contrib"] = ANTE
    s["winner"] = -1
    s["current"] = options.start_player
    return s


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array): distinct cards,
    the public card only in round 1, raises within the option, contributions that betting
    can reach, a winner only when the hand is over, and a legal action while it is played.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """
    from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, states_of

    s = states_of(saved, STATE_DTYPE, "leduc")
    ck = StateChecker(s, "leduc")
    ck.range("cfg_max_raises", 1, MAX_RAISES)
    ck.range("cfg_start", 0, NUM_SEATS - 1)
    ck.range("cfg_reward", 0, len(REWARD_NAMES) - 1)
    ck.range("private", 0, NUM_CARDS - 1)
    priv = s["private"].astype(np.int64)
    ck.fail("private", priv[:, 0] == priv[:, 1], "two different cards")
    ck.range("round", 0, NUM_ROUNDS - 1)
    rnd, pub = s["round"].astype(np.int64), s["public"].astype(np.int64)
    ck.range("public", -1, -1, where=rnd == 0, allowed="-1 in round 0 (not dealt yet)")
    ck.range("public", 0, NUM_CARDS - 1, where=rnd == 1, allowed="a card 0..5 in round 1")
    ck.fail("public", (rnd == 1) & ((pub == priv[:, 0]) | (pub == priv[:, 1])), "a card no seat holds")
    ck.range("raises", 0, s["cfg_max_raises"].astype(np.int64), allowed="0..cfg_max_raises")
    ck.range("acted", 0, MAX_RAISES + 2)
    ck.range("contrib", ANTE, MAX_CONTRIB)
    ck.range("current", 0, NUM_SEATS - 1)
    ck.range("status", 0, len(Status) - 1)
    playing = s["status"].astype(np.int64) == Status.PLAYING
    c, cur = s["contrib"].astype(np.int64), s["current"].astype(np.int64)
    mine = np.take_along_axis(c, cur[:, None], 1)[:, 0]
    theirs = np.take_along_axis(c, 1 - cur[:, None], 1)[:, 0]
    ck.fail("contrib", playing & (mine > theirs), "the seat to act has at most the other's chips in the pot")
    ck.fail(
        "contrib",
        playing & (s["raises"] == 0) & (mine != theirs),
        "equal chips while no raise was made this round",
    )
    ck.range("winner", -1, -1, where=playing, allowed="-1 while the hand is played")
    ck.range("winner", 0, NUM_SEATS - 1, where=s["status"] == Status.FOLDED, allowed="a seat after a fold")
    ck.range("winner", -1, NUM_SEATS - 1)
    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, playing, "leduc")


# --- the rules ------------------------------------------------------------------------------
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
    a, b = hand_rank_r(e, 0), hand_rank_r(e, 1)
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


# --- the observation: never the opponent's card ----------------------------------------------
LAYOUT = ObservationLayout(
    [
        ("own_card", (NUM_RANKS,), 1, "one_hot"),  # the rank of the observer's card
        ("public_card", (NUM_RANKS,), 1, "one_hot"),  # the public card's rank (zeros in round 0)
        ("round", (), 1, "flag"),
        ("contrib", (NUM_SEATS,), MAX_CONTRIB, "count"),  # chips in the pot: self, opponent
        ("raises", (), MAX_RAISES, "count"),  # raises made this round
        ("max_raises", (), MAX_RAISES, "count"),  # raises allowed per round (the option)
        ("facing_bet", (), 1, "flag"),  # the observer owes chips to continue
        ("is_my_turn", (), 1, "flag"),
    ]
)
_O = LAYOUT.offset
_S_CONTRIB, _S_RAISES = LAYOUT.scale["contrib"], LAYOUT.scale["raises"]
_O_OWN, _O_PUBLIC, _O_ROUND, _O_CONTRIB = _O["own_card"], _O["public_card"], _O["round"], _O["contrib"]
_O_RAISES, _O_MAX, _O_FACING, _O_TURN = _O["raises"], _O["max_raises"], _O["facing_bet"], _O["is_my_turn"]
_ONE, _ZERO = np.float32(1.0), np.float32(0.0)


@kernel
def observe_r(e, seat, out, row):
    """``seat``'s observation of the record ``e`` into ``out[row]`` ((B, D) float32),
    every entry written; reads the seat's own card and the public table only."""
    seat = np.int64(seat)
    other = 1 - seat
    own = np.int64(e.private[seat]) // 2
    pub = np.int64(e.public) // 2 if e.public >= 0 else -1
    for r in range(NUM_RANKS):
        out[row, _O_OWN + r] = _ONE if r == own else _ZERO
        out[row, _O_PUBLIC + r] = _ONE if r == pub else _ZERO
    out[row, _O_ROUND] = np.float32(e.round)
    out[row, _O_CONTRIB] = np.float32(e.contrib[seat]) * _S_CONTRIB
    out[row, _O_CONTRIB + 1] = np.float32(e.contrib[other]) * _S_CONTRIB
    out[row, _O_RAISES] = np.float32(e.raises) * _S_RAISES
    out[row, _O_MAX] = np.float32(e.cfg_max_raises) * _S_RAISES
    playing = e.status == 0
    out[row, _O_FACING] = _ONE if playing and e.contrib[seat] < e.contrib[other] else _ZERO
    out[row, _O_TURN] = _ONE if playing and e.current == seat else _ZERO


# --- the bots (bot id = index in BOT_NAMES); each reads only what its seat observes ---------
@kernel
def random_bot_r(e, rng, r):
    """The ``k``-th legal action in id order, ``k = randint(rng, r, count)``; -1 once the
    hand is over."""
    n = 0
    for a in range(NUM_ACTIONS):
        n += is_legal_r(e, a)
    if n == 0:
        return -1
    k = randint(rng, r, n)
    for a in range(NUM_ACTIONS):
        if is_legal_r(e, a):
            if k == 0:
                return a
            k -= 1
    return -1


@kernel
def strong_bot_r(e):
    """Raise with a pair or a king (call once no raise is left), call with a queen, and
    with a jack check or fold to a bet."""
    if e.status != 0:
        return -1
    rank = np.int64(e.private[np.int64(e.current)]) // 2
    paired = e.public >= 0 and rank == np.int64(e.public) // 2
    if paired or rank == 2:
        return RAISE if e.raises < e.cfg_max_raises else CALL
    if rank == 1 or not facing_bet_r(e):
        return CALL
    return FOLD


@kernel
def bot_action_r(e, bot, masks, row, rng, r):
    """Bot ``bot``'s action for the acting seat (``masks[row]`` is not read: both bots
    read the state)."""
    if bot == 1:
        return strong_bot_r(e)
    return random_bot_r(e, rng, r)


HOOKS = Hooks.from_names(NUM_ACTIONS, globals(), random_move=random_bot_r)
