"""Leduc hold'em's State: a NumPy structured array of shape ``(B,)``, one record per env.

Options live in the ``cfg_*`` fields, so a record describes its hand fully. The public
card is drawn when round 0 closes (a chance event in the middle of the hand), so no
record holds a card nobody may know yet.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.rng import seed_word

from .spec import (
    ANTE,
    MAX_CONTRIB,
    MAX_RAISES,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SEATS,
    REWARD_NAMES,
    Options,
    Status,
)

STATE_DTYPE = np.dtype(
    [
        ("cfg_max_raises", np.int8),  # raises allowed per round, 1..4
        ("cfg_start", np.int8),  # seat acting first in each round
        ("cfg_reward", np.int8),  # index in spec.REWARD_NAMES
        ("private", np.int8, (NUM_SEATS,)),  # each seat's card id 0..5
        ("public", np.int8),  # the public card id, -1 until round 1
        ("round", np.int8),  # betting round 0 or 1
        ("raises", np.int8),  # raises made this round
        ("acted", np.int8),  # actions taken this round
        ("contrib", np.int16, (NUM_SEATS,)),  # chips each seat has put in the pot
        ("winner", np.int8),  # seat that won the pot, -1 while playing or on a split
        ("current", np.int8),  # seat to act
        ("status", np.int8),  # spec.Status
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng)
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """A ``(batch,)`` State configured by ``options``, not yet dealt.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    b = int(batch)
    if b < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    s = np.zeros(b, STATE_DTYPE)
    s["cfg_max_raises"] = options.max_raises
    s["cfg_start"] = options.start_player
    s["cfg_reward"] = REWARD_NAMES.index(options.reward)
    s["private"] = (0, 1)
    s["public"] = -1
    s["contrib"] = ANTE
    s["winner"] = -1
    s["current"] = options.start_player
    s["rng"] = seed_word(0)
    return s


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array) field by field
    and against the invariants the rules rely on: distinct cards, the public card only
    in round 1, raises within the option, contributions that betting can reach (each at
    least the ante, equal unless the seat to act faces a bet), a winner only when the
    hand is over, and a legal action while it is played.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """
    from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, states_of

    from .rules import legal_mask_r

    s = states_of(saved, STATE_DTYPE, "leduc")
    ck = StateChecker(s, "leduc")
    ck.range("cfg_max_raises", 1, MAX_RAISES)
    ck.range("cfg_start", 0, NUM_SEATS - 1)
    ck.range("cfg_reward", 0, len(REWARD_NAMES) - 1)
    ck.range("private", 0, NUM_CARDS - 1)
    priv = s["private"].astype(np.int64)
    ck.fail("private", priv[:, 0] == priv[:, 1], "two different cards")
    ck.range("round", 0, NUM_ROUNDS - 1)
    rnd = s["round"].astype(np.int64)
    pub = s["public"].astype(np.int64)
    ck.range("public", -1, -1, where=rnd == 0, allowed="-1 in round 0 (not dealt yet)")
    ck.range("public", 0, NUM_CARDS - 1, where=rnd == 1, allowed="a card 0..5 in round 1")
    ck.fail("public", (rnd == 1) & ((pub == priv[:, 0]) | (pub == priv[:, 1])), "a card no seat holds")
    ck.range("raises", 0, s["cfg_max_raises"].astype(np.int64), allowed="0..cfg_max_raises")
    ck.range("acted", 0, MAX_RAISES + 2)
    ck.range("contrib", ANTE, MAX_CONTRIB)
    ck.range("current", 0, NUM_SEATS - 1)
    ck.range("status", 0, len(Status) - 1)
    st = s["status"].astype(np.int64)
    c = s["contrib"].astype(np.int64)
    cur = s["current"].astype(np.int64)
    mine = np.take_along_axis(c, cur[:, None], 1)[:, 0]
    theirs = np.take_along_axis(c, 1 - cur[:, None], 1)[:, 0]
    ck.fail(
        "contrib",
        (st == Status.PLAYING) & (mine > theirs),
        "the seat to act has at most the other's chips in the pot",
    )
    ck.fail(
        "contrib",
        (st == Status.PLAYING) & (s["raises"] == 0) & (mine != theirs),
        "equal chips while no raise was made this round",
    )
    ck.range("winner", -1, -1, where=st == Status.PLAYING, allowed="-1 while the hand is played")
    ck.range("winner", 0, NUM_SEATS - 1, where=st == Status.FOLDED, allowed="a seat after a fold")
    ck.range("winner", -1, NUM_SEATS - 1)
    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, st == Status.PLAYING, "leduc")
