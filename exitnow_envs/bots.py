"""Scripted bots for Exit Now, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action_r(e, bot_id, masks, row, rng, r) -> action``
where ``e`` is one env's record, ``masks[row]`` the (471,) int8 action
mask of the acting seat, ``rng`` a uint64 array of bot generator words (never the env's
own stream) and ``r`` the index of the word to use. A bot reads only what its seat
observes: the map, the pieces, public counts and its own items. The batch loops draw the
random bot's action from the mask row itself (:func:`random_bot_row`).

Bots:
    random  uniform over the legal actions (both roles).
    smart   role-aware. As a human: collects event chips and the item chip, heads for the
            exit once it holds a key (using Move 7 / Double Dice to rush or to flee),
            avoids squares a ghost can sweep on its next turn (weighted by the chance of
            rolling enough moves), banishes ghosts with a Cross, steals from other
            humans in individual play. As the ghost player: captures when it can, else
            hunts the most dangerous reachable human (items held, nearness to the exit),
            keeps near the exit door, and puts the item chip far from the humans.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import stack_u64
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import random01, sample_legal

from .rules import (
    DC,
    DR,
    MASK_WORDS,
    ghost_free_r,
    ghost_landing_r,
    human_never_walks,
    human_walkable,
    in_map,
    is_sealed,
    mask_row_bits,
    sample_bits,
)
from .spec import (
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DEST_OFFSET,
    EVENT_CHIP,
    EXIT,
    I_CROSS,
    I_KEY,
    ITEM_CHIP,
    ITEM_DOUBLE,
    ITEM_MOVE7,
    ITEM_NONE,
    MAP,
    MAX_GHOSTS,
    NUM_ITEM_KINDS,
    NUM_SQUARES,
    PASS_OFFSET,
    SLIDE_OFFSET,
    WALL,
    Phase,
)

BOT_NAMES = ("random", "smart", "human", "ghost")  # "human"/"ghost": the smart bot in that role
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}
#: The bots bound to one role (``GameDef.bot_roles``): "human" plays a human seat, "ghost"
#: the ghost seat; random and smart play either (smart as the seat's role).
BOT_ROLES = (("human", "human"), ("ghost", "ghost"))

_FAR = 999
GUARD = 15.0  # weight of guarding the exit per item held by the humans
_P_ITEM = int(Phase.ITEM)
_P_MOVE = int(Phase.MOVE)
_P_CROSS = int(Phase.CROSS)
_P_GHOST = int(Phase.GHOST)
_P_CHIP = int(Phase.CHIP)
# chance that a ghost gets at least k moves: 1, 4/6, 2/6
_REACH_P = np.array([0.0, 1.0, 4.0 / 6.0, 2.0 / 6.0], np.float64)


@kernel
def random_bot_r(e, mask, rng, r):
    """Uniform over the legal actions in ``mask`` (A,) int8."""
    return sample_legal(rng, r, mask)


@kernel
def random_bot_row(masks, row, rng, r):
    """:func:`random_bot_r` on row ``row`` of ``masks`` ((B, 471) int8, C-contiguous), without
    the row view (which numba would reference-count): the draw of
    ``tabletop_core.kernel.rng.sample_legal(rng, r, masks[row])`` (the count, one ``randint``,
    the k-th legal action); -1 when no action is legal (no draw)."""
    bits = stack_u64(MASK_WORDS)
    n = mask_row_bits(masks, row, bits)
    if n == 0:
        return -1
    return sample_bits(bits, n, rng, r)


@kernel
def ghost_sweep_r(e, r0, c0, max_moves, out):
    """Fewest ghost moves (<= ``max_moves``) after which a ghost starting on (r0, c0)
    passes over each square (slides and wall passes; humans and the no-reversal rule
    ignored); ``out`` (21, 21) int64 gets ``_FAR`` where it cannot.

    A search by layers: the squares a ghost can stop on after ``m`` moves (``front``) are
    kept in a bucket per ``m``; a square enters a bucket once, when its move count drops to
    that bucket's, and is expanded once, at its final count (a slide costs one move, a
    pass through a wall or sealed door two). The same result as rescanning the map once
    per move (``tests/test_exitnow_kernels.py`` holds it against that reading), without the
    ``max_moves`` full scans of the 441 squares."""
    out[:, :] = _FAR
    front = np.empty((MAP, MAP), np.int64)
    front[:, :] = _FAR
    bucket = np.empty((max_moves + 1, NUM_SQUARES), np.int64)
    count = np.zeros(max_moves + 1, np.int64)
    front[r0, c0] = 0
    bucket[0, 0] = r0 * MAP + c0
    count[0] = 1
    for m in range(max_moves):
        for i in range(count[m]):
            r = bucket[m, i] // MAP
            c = bucket[m, i] % MAP
            if front[r, c] != m:
                continue  # entered this bucket, then a lower one: expanded there
            for d in range(4):
                rr = r
                cc = c
                while ghost_free_r(e, rr + DR[d], cc + DC[d]):
                    rr += DR[d]
                    cc += DC[d]
                    if out[rr, cc] > m + 1:
                        out[rr, cc] = m + 1
                if (rr != r or cc != c) and front[rr, cc] > m + 1:
                    front[rr, cc] = m + 1
                    bucket[m + 1, count[m + 1]] = rr * MAP + cc
                    count[m + 1] += 1
                if m + 2 <= max_moves:
                    r1 = r + DR[d]
                    c1 = c + DC[d]
                    if in_map(r1, c1):
                        k = e.cell[r1, c1]
                        r2 = r1 + DR[d]
                        c2 = c1 + DC[d]
                        if (k == WALL or is_sealed(k)) and ghost_free_r(e, r2, c2):
                            if out[r2, c2] > m + 2:
                                out[r2, c2] = m + 2
                            if front[r2, c2] > m + 2:
                                front[r2, c2] = m + 2
                                bucket[m + 2, count[m + 2]] = r2 * MAP + c2
                                count[m + 2] += 1


@kernel
def human_distance_r(e, targets, out):
    """Walking distance (BFS steps over human-passable squares) from every square to the
    nearest square marked in ``targets`` (21, 21); ``out`` int64, ``_FAR`` if none."""
    out[:, :] = _FAR
    qr = np.empty(MAP * MAP, np.int64)
    qc = np.empty(MAP * MAP, np.int64)
    head = 0
    tail = 0
    for r in range(MAP):
        for c in range(MAP):
            if targets[r, c] != 0:
                out[r, c] = 0
                qr[tail] = r
                qc[tail] = c
                tail += 1
    while head < tail:
        r = qr[head]
        c = qc[head]
        head += 1
        for d in range(4):
            r1 = r + DR[d]
            c1 = c + DC[d]
            if not in_map(r1, c1) or out[r1, c1] != _FAR:
                continue
            if not human_walkable(e.cell[r1, c1]):
                continue
            out[r1, c1] = out[r, c] + 1
            qr[tail] = r1
            qc[tail] = c1
            tail += 1


@kernel
def _danger_r(e, out):
    """Probability-weighted chance that some ghost sweeps each square next turn."""
    out[:, :] = 0.0
    sweep = np.zeros((MAP, MAP), np.int64)
    for g in range(MAX_GHOSTS):
        if e.gon[g] == 0:
            continue
        ghost_sweep_r(e, e.gpos[g, 0], e.gpos[g, 1], 3, sweep)
        for r in range(MAP):
            for c in range(MAP):
                m = sweep[r, c]
                if m <= 3 and _REACH_P[m] > out[r, c]:
                    out[r, c] = _REACH_P[m]


@kernel
def _exit_square_r(e):
    """First exit square in reading order, or (-1, -1)."""
    for r in range(MAP):
        for c in range(MAP):
            if e.cell[r, c] == EXIT:
                return r, c
    return -1, -1


@kernel
def human_bot_r(e, mask, rng, r):
    """The smart human (see the module docstring)."""
    h = e.current
    ph = e.phase
    if ph == _P_CROSS:
        return CROSS_YES if mask[CROSS_YES] else CROSS_NO
    key = e.items[h, I_KEY] > 0
    danger = np.zeros((MAP, MAP), np.float64)
    _danger_r(e, danger)
    targets = np.zeros((MAP, MAP), np.uint8)
    er, ec = _exit_square_r(e)
    conf = 0
    for k in range(NUM_ITEM_KINDS):
        conf += e.confiscated[k]
    if key:
        targets[er, ec] = 1
    else:
        for rr in range(MAP):
            for cc in range(MAP):
                if e.chip[rr, cc] == EVENT_CHIP or (e.chip[rr, cc] == ITEM_CHIP and conf > 0):
                    targets[rr, cc] = 1
    dist = np.zeros((MAP, MAP), np.int64)
    # the exit itself is not walkable for the BFS: seed from its inner neighbour instead
    human_distance_r(e, targets, dist)
    if key and er >= 0:
        for d in range(4):
            r1 = er + DR[d]
            c1 = ec + DC[d]
            if in_map(r1, c1) and dist[r1, c1] == _FAR and not human_never_walks(e.cell[r1, c1]):
                t2 = np.zeros((MAP, MAP), np.uint8)
                t2[r1, c1] = 1
                human_distance_r(e, t2, dist)
                break
    hr = e.hpos[h, 0]
    hc = e.hpos[h, 1]
    if ph == _P_ITEM:
        here = danger[hr, hc]
        far = dist[hr, hc]
        boost = (key and far > 3) or here > 0.3
        if boost:
            if mask[ITEM_MOVE7]:
                return ITEM_MOVE7
            if mask[ITEM_DOUBLE]:
                return ITEM_DOUBLE
        return ITEM_NONE
    if ph != _P_MOVE:
        return sample_legal(rng, r, mask)
    cross = e.items[h, I_CROSS] > 0
    best = -1
    best_v = -1.0e18
    for a in range(DEST_OFFSET, CROSS_NO):
        if mask[a] == 0:
            continue
        q = a - DEST_OFFSET
        rr = q // MAP
        cc = q % MAP
        if e.cell[rr, cc] == EXIT:
            return a
        v = 0.0
        dd = dist[rr, cc]
        v -= 1.0 * (dd if dd < _FAR else 60)
        ghost_here = False
        for g in range(MAX_GHOSTS):
            if e.gon[g] != 0 and e.gpos[g, 0] == rr and e.gpos[g, 1] == cc:
                ghost_here = True
        if ghost_here:
            v += 6.0 if cross else -200.0
        else:
            v -= (8.0 if cross else 40.0) * danger[rr, cc]
        if e.chip[rr, cc] == EVENT_CHIP and not key:
            v += 10.0
        if e.chip[rr, cc] == ITEM_CHIP:
            v += 4.0 * conf
        for b in range(e.cfg_humans):
            if b != h and e.hpos[b, 0] == rr and e.hpos[b, 1] == cc:
                held = 0
                for k in range(NUM_ITEM_KINDS):
                    held += e.items[b, k]
                if e.cfg_team != 0:
                    v -= 3.0
                elif held > 0:
                    v += 3.0
        v += 0.01 * random01(rng, r)
        if v > best_v:
            best_v = v
            best = a
    return best


@kernel
def _human_weight_r(e, h, er, ec):
    """How much the ghost wants human ``h``: items held, nearness to the exit (er, ec)."""
    held = 0
    for k in range(NUM_ITEM_KINDS):
        held += e.items[h, k]
    near = abs(e.hpos[h, 0] - er) + abs(e.hpos[h, 1] - ec)
    return 1.0 + 0.5 * held + (3.0 if near < 10 else 0.0)


@kernel
def ghost_bot_r(e, mask, rng, r):
    """The smart ghost player (see the module docstring)."""
    er, ec = _exit_square_r(e)
    if e.phase == _P_CHIP:
        best = -1
        best_v = -1.0e18
        for rr in range(MAP):
            for cc in range(MAP):
                p = e.place[rr, cc]
                if p < 0 or mask[CHIP_OFFSET + p] == 0:
                    continue
                near = 1000.0
                for h in range(e.cfg_humans):
                    if e.hpos[h, 0] >= 0:
                        dd = abs(e.hpos[h, 0] - rr) + abs(e.hpos[h, 1] - cc)
                        if dd < near:
                            near = dd
                v = near + 0.01 * random01(rng, r)
                if v > best_v:
                    best_v = v
                    best = CHIP_OFFSET + p
        return best
    if e.phase != _P_GHOST:
        return sample_legal(rng, r, mask)
    g = e.ghost_idx
    sweep = np.zeros((MAP, MAP), np.int64)
    held_total = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] >= 0:
            for k in range(NUM_ITEM_KINDS):
                held_total += e.items[h, k]
    best = -1
    best_v = -1.0e18
    for a in range(SLIDE_OFFSET, CHIP_OFFSET):
        if mask[a] == 0:
            continue
        cost = 1 if a < PASS_OFFSET else 2
        lr, lc, hit = ghost_landing_r(e, g, a)
        v = 0.0
        if hit:
            for h in range(e.cfg_humans):
                if e.hpos[h, 0] == lr and e.hpos[h, 1] == lc:
                    v += 1000.0 + 100.0 * _human_weight_r(e, h, er, ec)
        else:
            left = e.moves_left - cost
            ghost_sweep_r(e, lr, lc, 6, sweep)
            for h in range(e.cfg_humans):
                if e.hpos[h, 0] < 0:
                    continue
                m = sweep[e.hpos[h, 0], e.hpos[h, 1]]
                w = _human_weight_r(e, h, er, ec)
                if m <= left:
                    val = 300.0 * w
                elif m < _FAR:
                    val = w * 20.0 / (m - left)
                else:
                    val = w * (1.0 - 0.02 * (abs(e.hpos[h, 0] - lr) + abs(e.hpos[h, 1] - lc)))
                if val > v:
                    v = val
            if er >= 0:
                v -= 0.05 * (abs(er - lr) + abs(ec - lc))
                # guard the exit's approach while the humans hold items (a key may be among them)
                m_ex = _FAR
                for d in range(4):
                    r1 = er + DR[d]
                    c1 = ec + DC[d]
                    if in_map(r1, c1) and sweep[r1, c1] < m_ex:
                        m_ex = sweep[r1, c1]
                if m_ex < _FAR:
                    v += GUARD * held_total / max(m_ex, 1)
        v += 0.01 * random01(rng, r)
        if v > best_v:
            best_v = v
            best = a
    return best


@kernel
def smart_bot_r(e, mask, rng, r):
    """Role-aware: :func:`human_bot_r` on human seats, :func:`ghost_bot_r` for the ghost."""
    if e.current == e.cfg_humans:
        return ghost_bot_r(e, mask, rng, r)
    return human_bot_r(e, mask, rng, r)


@kernel
def bot_action_r(e, bot_id, masks, row, rng, r):
    """Dispatch to the bot ``bot_id`` (index in :data:`BOT_NAMES`) for the acting seat of
    the record ``e`` (``mask`` (A,) int8 its action mask)."""
    mask = masks[row]
    if bot_id >= 1:  # smart, or its role names "human" and "ghost"
        return smart_bot_r(e, mask, rng, r)
    return random_bot_r(e, mask, rng, r)
