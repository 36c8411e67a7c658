"""Scripted bots for The Game, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action_r(e, bot_id, masks, row, rng, r) -> action``
where ``e`` is one env's record, ``masks[row]`` the (393,) int8
action mask of the acting seat, ``rng`` a uint64 array of bot generator words and ``r``
the index of the word to use. A bot reads only what the acting seat observes: its own
hand and the public table (tested by the hidden-information tests).

Bots::

    random  uniform over legal actions; reads them from the state, not from ``mask`` (the
            same choice as ``tabletop_core.kernel.rng.sample_legal`` on the mask with the same
            generator word), so loops that only run random bots may skip the mask.
    strong  see strong_decide_r.
    greedy  smallest numeric jump, stop at the minimum (the first simple baseline).

Every bot kernel has a record form taking ``e = s[i]`` (``random_bot_r``,
``bot_action_r``, ...; ``rules`` explains why); those that read the mask take the whole
``(B, 393)`` mask buffer and a row index instead of a row view. ``random_bot_w`` takes
and returns the generator word by value, for the hot loops.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctz, popcount
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.layout import regions
from tabletop_core.kernel.rng import randint_word

from .rules import can_place, hand_bits_r, min_plays_now_r, pile_accepts, play_jump
from .spec import BACKWARDS_STEP, DESCENDING_START, END_TURN, MAX_HAND, MIN_CARD, NUM_CARDS, NUM_PILES

BOT_NAMES = ("random", "strong", "greedy")
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}
RANDOM_BOT = BOT_IDS["random"]
STRONG_BOT = BOT_IDS["strong"]
GREEDY_BOT = BOT_IDS["greedy"]

# Parameter vector of the strong bot (index -> meaning).
P_DEPTH = 0  # plays looked ahead (1..8)
P_EXTRA = 1  # bonus of a play beyond the minimum while the draw pile has cards
P_EXTRA_EMPTY = 2  # same once the draw pile is empty
P_W_OWN = 3  # weight of a skipped card from the own hand
P_W_TRICK = 4  # weight of a card won back by the backwards trick
P_TRICK = 5  # flat bonus of a backwards trick
P_STUCK = 6  # cost of owing a play without any
P_DEAD = 7  # weight multiplier of a skipped card left with no pile
P_ONE = 8  # weight multiplier of a skipped card left with one pile
P_DEPTH_EMPTY = 9  # plays looked ahead once the draw pile is empty
P_TWO = 10  # weight multiplier of a skipped card left with two piles


@kernel(inline="always")
def _nth_bit8(x, k):
    """Index of the ``k``-th (0-based, from the lowest) set bit of the uint64 ``x``, for
    ``k`` <= 7 (``x`` has more than ``k`` set bits): clear the ``k`` lowest set bits in
    7 masked steps, without a data-dependent loop."""
    for j in range(MAX_HAND - 1):
        x = x & (x - np.uint64(1)) if j < k else x
    return np.int64(ctz(x))


@kernel
def random_bot_w(e, w):
    """:func:`random_bot_r` of the record ``e`` with the bot's generator word ``w`` passed by
    value: returns ``(action, advanced word)`` (no array argument, so no reference
    counting in the hot loops). ``(-1, w)`` once the game is over.

    The legal plays on each pile are the hand's card set ANDed with the pile's accepted
    set (``rules.pile_accepts``); the ``k``-th legal action in id order (pile, then card;
    ``k`` drawn as ``randint`` draws it, ``k`` = number of plays: END_TURN) is picked by
    prefix popcounts and selects, without data-dependent branches."""
    if e.status != 0:
        return -1, w
    hlo, hhi = hand_bits_r(e, e.current)
    a0, b0 = pile_accepts(e.piles[0], 0)
    a1, b1 = pile_accepts(e.piles[1], 1)
    a2, b2 = pile_accepts(e.piles[2], 2)
    a3, b3 = pile_accepts(e.piles[3], 3)
    a0 &= hlo
    b0 &= hhi
    a1 &= hlo
    b1 &= hhi
    a2 &= hlo
    b2 &= hhi
    a3 &= hlo
    b3 &= hhi
    c0 = np.int64(popcount(a0)) + np.int64(popcount(b0))  # plays on piles 0..p, cumulated
    c1 = c0 + np.int64(popcount(a1)) + np.int64(popcount(b1))
    c2 = c1 + np.int64(popcount(a2)) + np.int64(popcount(b2))
    n = c2 + np.int64(popcount(a3)) + np.int64(popcount(b3))
    total = n + np.int64(e.plays_this_turn >= min_plays_now_r(e))
    if total == 0:
        return -1, w
    w, k = randint_word(w, total)
    end = k >= n
    ge0 = k >= c0
    ge1 = k >= c1
    ge2 = k >= c2
    pile = np.int64(ge0) + np.int64(ge1) + np.int64(ge2)
    k -= c2 if ge2 else (c1 if ge1 else (c0 if ge0 else 0))
    lo = a3 if ge2 else (a2 if ge1 else (a1 if ge0 else a0))
    hi = b3 if ge2 else (b2 if ge1 else (b1 if ge0 else b0))
    nlo = np.int64(popcount(lo))
    up = k >= nlo  # in the high word
    card = _nth_bit8(hi if up else lo, k - nlo if up else k) + (64 if up else 0)
    return (END_TURN if end else pile * NUM_CARDS + card - MIN_CARD), w


@kernel
def random_bot_r(e, rng, r):
    """Uniform over the legal actions of the record ``e``, read from the state (no mask):
    the ``k``-th legal action in id order for ``k = randint(rng, r, count)``, i.e. the
    same choice as ``tabletop_core.kernel.rng.sample_legal(rng, r, mask)`` with the same
    generator word (advances ``rng[r]``). -1 once the game is over."""
    a, w = random_bot_w(e, rng[r])
    rng[r] = w
    return a


@kernel
def greedy_bot_r(e, masks, row):
    """Greedy by gap: play the card/pile with the smallest jump, then stop at the minimum
    unless a backwards trick or a gap of at most 2 is available.
    ``masks[row]`` is the acting seat's mask of the record ``e``."""
    seat = e.current
    best = -1
    best_cost = 1 << 30
    for k in range(e.hand_size[seat]):
        card = np.int64(e.hand[seat, k])
        for pile in range(NUM_PILES):
            top = np.int64(e.piles[pile])
            if not can_place(top, pile, card):
                continue
            cost = play_jump(top, pile, card)
            if cost < best_cost:
                best_cost = cost
                best = pile * NUM_CARDS + card - MIN_CARD
    owed = e.plays_this_turn < min_plays_now_r(e)
    if best >= 0 and (owed or best_cost <= 2):
        return best
    if masks[row, END_TURN] != 0:
        return END_TURN
    return best


@kernel
def first_legal_r(masks, row):
    """First legal action of ``masks[row]`` (fallback), -1 if none."""
    for a in range(masks.shape[1]):
        if masks[row, a] != 0:
            return a
    return -1


_SCALE = 16  # costs are integers in 1/16 of a skipped card
_INF = 1 << 40

_MAX_CAND = 32  # root candidate plays
_MAX_DEPTH = 8  # search levels below the root
# candidate fields (one entry per root candidate play)
_CF = regions(
    ("k", 1),  # hand slot
    ("pile", 1),
    ("card", 1),
    ("cost", 1),  # cost from the root position
    ("lo", 1),  # open range of cards skipped / won back
    ("hi", 1),
)
_C_K, _C_PILE, _C_CARD, _C_COST, _C_LO, _C_HI = _CF.offsets()
_NC = _CF.size
# search stack fields (one entry per level)
_SF = regions(
    ("t0", NUM_PILES),  # four pile tops
    ("used", 1),  # bit mask of hand slots spent by the plan
    ("acc", 1),  # cost so far
    ("owed", 1),  # plays still owed
    ("it", 1),  # next option to try: hand slot (chain on the last pile) then root candidate
    ("lastp", 1),  # pile of the last play (canonical order: later plays on piles >= it)
    ("root", 1),  # root action of this branch
    ("card", 1),  # card placed to reach this level
    ("child", 1),  # 1 once a legal play was seen from this level
)
_F_T0, _F_USED, _F_ACC, _F_OWED, _F_IT, _F_LASTP, _F_ROOT, _F_CARD, _F_CHILD = _SF.offsets()
_NF = _SF.size
# Scratch layout (one int64 array per decision); the prefixes are read at x = 0 .. the
# highest pile top (DESCENDING_START)
_PREFIX = DESCENDING_START + 1
_W = regions(
    ("cp", _PREFIX),  # [_CP + x]: prefix (cards < x) of the skip weight of the cards still in game
    ("lp", _PREFIX),  # [_LP + x]: prefix (cards < x) of the number of cards still in game
    ("hand", MAX_HAND),  # own hand cards
    ("cand", _NC * _MAX_CAND),  # candidate plays from the root position, sorted by pile
    ("pstart", NUM_PILES + 1),  # first candidate index of each pile (and the end)
    ("opt", _MAX_CAND),  # indices of the candidates worth searching as optional plays
    ("ostart", NUM_PILES + 1),  # first _OPT index of each pile (and the end)
    ("st", _NF * (_MAX_DEPTH + 1)),  # search stack, _NF fields per level
)
_CP, _LP, _HAND, _CAND, _PSTART, _OPT, _OSTART, _ST = _W.offsets()
_SCRATCH = _W.size


@kernel(inline="always")
def _held(hm0, hm1, x):
    if x < 64:
        return (hm0 >> x) & 1
    return (hm1 >> (x - 64)) & 1


@kernel(inline="always")
def _hand_bits_r(e, seat, nh, w):
    """Copy the seat's hand into the scratch; its cards as two 64-bit sets (hm0, hm1)."""
    ehand = e.hand
    hm0 = np.int64(0)
    hm1 = np.int64(0)
    one = np.int64(1)
    for k in range(nh):
        c = np.int64(ehand[seat, k])
        w[_HAND + k] = c
        if c < 64:
            hm0 |= one << c
        else:
            hm1 |= one << (c - 64)
    return hm0, hm1


@kernel(inline="always")
def _skip_prefixes_r(e, w, prm, hm0, hm1, t0, t1, t2, t3):
    """Prefix sums over the cards still in game: skip weight (``_CP``, by open piles left
    after the skip (0, 1, 2+) and owner (other, own)) and count (``_LP``)."""
    wd = np.int64(prm[P_DEAD] * _SCALE + 0.5)
    w1 = np.int64(prm[P_ONE] * _SCALE + 0.5)
    wo = prm[P_W_OWN]
    wdo = np.int64(prm[P_DEAD] * wo * _SCALE + 0.5)
    w1o = np.int64(prm[P_ONE] * wo * _SCALE + 0.5)
    w2 = np.int64(prm[P_TWO] * _SCALE + 0.5)
    w2o = np.int64(prm[P_TWO] * wo * _SCALE + 0.5)
    w3o = np.int64(wo * _SCALE + 0.5)
    acc = np.int64(0)
    live = np.int64(0)
    played = e.played
    w[_CP] = 0
    w[_CP + 1] = 0
    w[_LP] = 0
    w[_LP + 1] = 0
    for x in range(MIN_CARD, NUM_CARDS + MIN_CARD):
        w[_CP + x] = acc
        w[_LP + x] = live
        if played[x - MIN_CARD] == 0:
            live += 1
            n_open = np.int64(x > t0) + np.int64(x > t1) + np.int64(x < t2) + np.int64(x < t3)
            if _held(hm0, hm1, x) == 0:
                acc += wd if n_open <= 1 else (w1 if n_open == 2 else (w2 if n_open == 3 else _SCALE))
            else:
                acc += wdo if n_open <= 1 else (w1o if n_open == 2 else (w2o if n_open == 3 else w3o))
    for x in range(NUM_CARDS + MIN_CARD, _PREFIX):
        w[_CP + x] = acc
        w[_LP + x] = live


@kernel(inline="always")
def _play_range(pile, card, top, other):
    """The rules' play of ``card`` on ``pile`` (top ``top``, ``other`` the top of the other
    pile of its direction), as the bot prices it: (kind, lo, hi) with kind 0 (skip it:
    not legal, or the other pile of that direction is closer), 1 (a normal play skipping
    the cards in the open range (lo, hi)) or 2 (the backwards trick winning back (lo, hi))."""
    if pile < 2:
        if card > top:
            if other > top and card > other:
                return 0, top, card
            return 1, top, card
        if card == top - BACKWARDS_STEP:
            return 2, card, top
        return 0, card, top
    if card < top:
        if other < top and card < other:
            return 0, card, top
        return 1, card, top
    if card == top + BACKWARDS_STEP:
        return 2, top, card
    return 0, top, card


@kernel(inline="always")
def _range_cost(w, kind, lo, hi, wtrick, btrick):
    """Cost of a play of kind 1 (skip weight of (lo, hi)) or 2 (minus the trick's gain)."""
    if kind == 2:
        return -(wtrick * (w[_LP + hi] - w[_LP + lo + 1]) + btrick)
    return w[_CP + hi] - w[_CP + lo + 1]


@kernel(inline="always")
def _root_candidates_r(w, nh, t0, t1, t2, t3, wtrick, btrick):
    """Every card of the hand on its closest pile of each direction, and the tricks, sorted
    by pile into ``_CAND`` (with ``_PSTART``); returns their number."""
    nc = 0
    for pile in range(NUM_PILES):
        w[_PSTART + pile] = nc
        top = t0 if pile == 0 else (t1 if pile == 1 else (t2 if pile == 2 else t3))
        if pile < 2:
            other = t1 if pile == 0 else t0
        else:
            other = t3 if pile == 2 else t2
        for k in range(nh):
            card = w[_HAND + k]
            kind, lo, hi = _play_range(pile, card, top, other)
            if kind == 0:
                continue
            cb = _CAND + nc * _NC
            w[cb + _C_K] = k
            w[cb + _C_PILE] = pile
            w[cb + _C_CARD] = card
            w[cb + _C_COST] = _range_cost(w, kind, lo, hi, wtrick, btrick)
            w[cb + _C_LO] = lo
            w[cb + _C_HI] = hi
            nc += 1
    w[_PSTART + NUM_PILES] = nc
    return nc


@kernel(inline="always")
def _sets_up_trick(hm0, hm1, pile, card):
    """Whether the hand holds the card that plays backwards on ``card`` on ``pile``."""
    nxt = card - BACKWARDS_STEP if pile < 2 else card + BACKWARDS_STEP
    return nxt >= MIN_CARD and nxt <= NUM_CARDS + 1 and _held(hm0, hm1, nxt) != 0


@kernel(inline="always")
def _optional_plays_r(w, nh, nc, bonus, wtrick, btrick, hm0, hm1):
    """The root candidates worth searching as optional plays (cheaper than the bonus, or
    setting up a trick) into ``_OPT`` / ``_OSTART``; returns (their number, the bound on
    what one optional play can gain, for pruning optional-only subtrees)."""
    no = 0
    for j in range(nc):
        cb = _CAND + j * _NC
        if w[cb + _C_COST] < bonus or _sets_up_trick(hm0, hm1, w[cb + _C_PILE], w[cb + _C_CARD]):
            w[_OPT + no] = j
            no += 1
    gain1 = bonus
    for j in range(no):
        g = bonus - w[_CAND + w[_OPT + j] * _NC + _C_COST]
        if g > gain1:
            gain1 = g
    for k in range(nh):
        card = w[_HAND + k]
        if (card + BACKWARDS_STEP <= NUM_CARDS + 1 and _held(hm0, hm1, card + BACKWARDS_STEP)) or (
            card - BACKWARDS_STEP >= MIN_CARD and _held(hm0, hm1, card - BACKWARDS_STEP)
        ):
            g = bonus + (BACKWARDS_STEP - 1) * wtrick + btrick
            if g > gain1:
                gain1 = g
            break
    p2 = 0
    for pile in range(NUM_PILES + 1):
        while p2 < no and w[_CAND + w[_OPT + p2] * _NC + _C_PILE] < pile:
            p2 += 1
        w[_OSTART + pile] = p2
    return no, gain1


@kernel(inline="always")
def _set_level(w, b, t0, t1, t2, t3, used, acc, owed, it, lastp, root, card):
    """Write search level ``b`` (its four pile tops and fields)."""
    w[b + _F_T0] = t0
    w[b + _F_T0 + 1] = t1
    w[b + _F_T0 + 2] = t2
    w[b + _F_T0 + 3] = t3
    w[b + _F_USED] = used
    w[b + _F_ACC] = acc
    w[b + _F_OWED] = owed
    w[b + _F_IT] = it
    w[b + _F_LASTP] = lastp
    w[b + _F_ROOT] = root
    w[b + _F_CARD] = card
    w[b + _F_CHILD] = 0


@kernel(inline="always")
def _level_option(w, b, it, nh, nc, used, lastp, wtrick, btrick):
    """Option ``it`` of search level ``b``: a chain (hand slot ``it`` on the pile just
    played) or a root candidate. Returns (ok, k, pile, card, cost, lo, hi, trick); ok is
    False when the hand slot is spent or the chain play is not worth trying."""
    if it < nh:
        k = it
        if (used >> k) & 1:
            return False, k, lastp, np.int64(0), np.int64(0), np.int64(0), np.int64(0), False
        pile = lastp
        card = w[_HAND + k]
        other = w[b + _F_T0 + 1 - pile] if pile < 2 else w[b + _F_T0 + 5 - pile]
        kind, lo, hi = _play_range(pile, card, w[b + _F_T0 + pile], other)
        if kind == 0:
            return False, k, pile, card, np.int64(0), lo, hi, False
        return True, k, pile, card, _range_cost(w, kind, lo, hi, wtrick, btrick), lo, hi, kind == 2
    j = it - nh
    if j >= nc:
        j = w[_OPT + j - nc]
    cb = _CAND + j * _NC
    k = w[cb + _C_K]
    pile = w[cb + _C_PILE]
    card = w[cb + _C_CARD]
    lo = w[cb + _C_LO]
    hi = w[cb + _C_HI]
    trick = (pile < 2 and card == lo) or (pile >= 2 and card == hi)
    return ((used >> k) & 1) == 0, k, pile, card, w[cb + _C_COST], lo, hi, trick


@kernel(inline="always")
def _plan_overlap(w, lvl, lo, hi, trick, wtrick):
    """Cost correction for the cards already placed by the plan (levels 1 .. lvl) inside
    (lo, hi): no longer skipped, or no longer won back."""
    d = np.int64(0)
    for j in range(1, lvl + 1):
        u = w[_ST + j * _NF + _F_CARD]
        if u > lo and u < hi:
            if trick:
                d += wtrick
            else:
                d -= w[_CP + u + 1] - w[_CP + u]
    return d


@kernel(inline="always")
def _search_params(prm, deck):
    """The strong bot's search parameters in fixed point for a draw pile of ``deck``
    cards: (bonus of an optional play, weight of a card won back by a trick, flat trick
    bonus, cost of owing a play with none, plays looked ahead)."""
    bonus = np.int64((prm[P_EXTRA] if deck > 0 else prm[P_EXTRA_EMPTY]) * _SCALE + 0.5)
    wtrick = np.int64(prm[P_W_TRICK] * _SCALE + 0.5)
    btrick = np.int64(prm[P_TRICK] * _SCALE + 0.5)
    stuck = np.int64(prm[P_STUCK] * _SCALE + 0.5)
    depth = np.int64(prm[P_DEPTH] if deck > 0 else prm[P_DEPTH_EMPTY])
    if depth > _MAX_DEPTH:
        depth = _MAX_DEPTH
    return bonus, wtrick, btrick, stuck, depth


@kernel(inline="always")
def _push_child(w, b, used, acc, owed, pile, root, card):
    """Write the search level below level ``b``: its pile tops with ``card`` on ``pile``
    and the plan's fields after that play."""
    nb = b + _NF
    tops = b + _F_T0
    _set_level(w, nb, w[tops], w[tops + 1], w[tops + 2], w[tops + 3], used, acc, owed, 0, pile, root, card)
    w[nb + _F_T0 + pile] = card


@kernel(inline="always")
def _search_plans_r(w, nh, nc, no, depth, bonus, wtrick, btrick, stuck, gain1, hm0, hm1, best_a, best_v):
    """The strong bot's depth-first search of the turn's plans from the root level
    written in ``w`` (:func:`strong_decide_r`): owed plays first, then optional ones worth
    the bonus; returns the root action of the cheapest plan (``best_a`` when none beats
    ``best_v``)."""
    one = np.int64(1)
    lvl = 0
    while lvl >= 0:
        b = _ST + lvl * _NF
        it = w[b + _F_IT]
        lastp = w[b + _F_LASTP]
        optional = lvl > 0 and w[b + _F_OWED] <= 0
        if it == nh:
            if optional:
                it = nh + nc + w[_OSTART + lastp + 1]
            else:
                it = nh + w[_PSTART + lastp + 1]
        if it >= nh + nc + no or (not optional and it >= nh + nc):
            if w[b + _F_CHILD] == 0 and w[b + _F_OWED] > 0:
                v = w[b + _F_ACC] + stuck
                if v < best_v:
                    best_v = v
                    best_a = w[b + _F_ROOT]
            lvl -= 1
            continue
        w[b + _F_IT] = it + 1
        used = w[b + _F_USED]
        ok, k, pile, card, c, lo, hi, trick = _level_option(w, b, it, nh, nc, used, lastp, wtrick, btrick)
        if not ok:
            continue
        w[b + _F_CHILD] = 1
        c += _plan_overlap(w, lvl, lo, hi, trick, wtrick)
        owed = w[b + _F_OWED]
        if owed <= 0:
            c -= bonus
            # an optional play that costs is searched only if it sets up a trick
            if c >= 0 and not _sets_up_trick(hm0, hm1, pile, card):
                continue
        total = w[b + _F_ACC] + c
        root = pile * NUM_CARDS + card - MIN_CARD if lvl == 0 else w[b + _F_ROOT]
        if (owed <= 1 or lvl + 1 >= depth) and total < best_v:
            best_v = total
            best_a = root
        if lvl + 1 < depth and (owed > 1 or total - gain1 * (depth - lvl - 1) < best_v):
            _push_child(w, b, used | (one << k), total, owed - 1, pile, root, card)
            lvl += 1
    return best_a


@kernel
def strong_decide_r(e, masks, row, prm):
    """The strong bot's decision for the record ``e`` with parameter vector ``prm``
    (``STRONG_PARAMS[num_players]``); ``masks[row]`` is the acting seat's mask.

    Card-counting turn planner (deterministic; reads only the acting seat's view).

    Cost of a play = the cards still in game (not on a pile: in some hand or in the draw
    pile, known from the public ``played`` array) that it skips, i.e. that can no longer
    go on that pile. Each skipped card is weighted by how many piles still accept it
    afterwards: 3 for a card left with none (dead: the game cannot be perfect), 1.5 with
    one, 1.5 (solo 1.3) with two, 1 with three; own cards are weighted x0.5 in solo (the
    planner sees where they can still go). A backwards trick (exactly 10 the wrong way) is
    a gain: minus the cards it wins back, minus a flat 2.

    Each decision searches the plays of this turn from the own hand (depth 3, solo 5,
    explicit-stack DFS): plays on different piles commute, so they are searched in pile
    order only; chains on one pile (45 then the trick 35, runs 41-42-43) are found by the
    search. Plays beyond the minimum earn a bonus (1.5, solo 1.0), so the bot keeps
    playing only while a play skips less than that (or sets up a trick) and otherwise
    ends the turn; owing a play with none left costs 30. The value of a first play is the
    best plan starting with it; the bot plays the first play of the best plan (or ends
    the turn), and plans again at its next decision. Once the draw pile is empty the
    minimum is 1 and the same planner plays the rest. No communication: other seats are
    only present through the cards still in game and the dead-card weights.

    Steps: prices every root play by the cards it skips (:func:`_skip_prefixes_r`), then
    searches the plans of the turn depth-first (owed plays first, then optional ones worth
    the bonus), keeping the cheapest root action.
    """
    seat = e.current
    nh = np.int64(e.hand_size[seat])
    w = np.empty(_SCRATCH, np.int64)
    hm0, hm1 = _hand_bits_r(e, seat, nh, w)
    t0 = np.int64(e.piles[0])
    t1 = np.int64(e.piles[1])
    t2 = np.int64(e.piles[2])
    t3 = np.int64(e.piles[3])
    _skip_prefixes_r(e, w, prm, hm0, hm1, t0, t1, t2, t3)
    owed0 = min_plays_now_r(e) - np.int64(e.plays_this_turn)
    bonus, wtrick, btrick, stuck, depth = _search_params(prm, NUM_CARDS - np.int64(e.deck_pos))
    nc = _root_candidates_r(w, nh, t0, t1, t2, t3, wtrick, btrick)
    no, gain1 = _optional_plays_r(w, nh, nc, bonus, wtrick, btrick, hm0, hm1)
    best_a = -1
    best_v = _INF
    if masks[row, END_TURN] != 0:
        best_a = END_TURN
        best_v = 0
    # root level: no chain options (it = nh)
    _set_level(w, _ST, t0, t1, t2, t3, 0, 0, owed0, nh, -1, -1, 0)
    best_a = _search_plans_r(
        w, nh, nc, no, depth, bonus, wtrick, btrick, stuck, gain1, hm0, hm1, best_a, best_v
    )
    if best_a < 0 or masks[row, best_a] == 0:
        return first_legal_r(masks, row)
    return best_a


# Tuned parameters per number of players (row 0 unused), on seeds other than the report's.
#   depth, extra, extra_empty, w_own, w_trick, trick, stuck, dead, one, depth_empty, two
STRONG_PARAMS = np.array(
    [
        [3, 1.5, 1.5, 1.0, 1.0, 2.0, 30.0, 3.0, 1.5, 3, 1.5],
        [5, 1.0, 1.5, 0.5, 1.0, 2.0, 30.0, 3.0, 1.5, 5, 1.3],  # solo: deeper, own cards cheaper
        [3, 1.5, 1.5, 1.0, 1.0, 2.0, 30.0, 3.0, 1.5, 3, 1.5],
        [3, 1.5, 1.5, 1.0, 1.0, 2.0, 30.0, 3.0, 1.5, 3, 1.5],
        [3, 1.5, 1.5, 1.0, 1.0, 2.0, 30.0, 3.0, 1.5, 3, 1.5],
        [3, 1.5, 1.5, 1.0, 1.0, 2.0, 30.0, 3.0, 1.5, 3, 1.5],
    ],
    np.float64,
)


@kernel
def bot_action_r(e, bot_id, masks, row, rng, r):
    """:func:`bot_action_r` of the record ``e``; ``masks[row]`` is the acting seat's mask
    (read by ``strong`` and ``greedy`` only)."""
    if bot_id == STRONG_BOT:
        return strong_decide_r(e, masks, row, STRONG_PARAMS[e.cfg_players])
    if bot_id == GREEDY_BOT:
        return greedy_bot_r(e, masks, row)
    return random_bot_r(e, rng, r)
