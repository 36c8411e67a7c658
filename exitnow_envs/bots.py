"""Scripted bots for Exit Now, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action_r(e, bot_id, masks, row, rng, r) -> action``
where ``e`` is one env's record, ``masks[row]`` the (471,) int8 action
mask of the acting seat, ``rng`` a uint64 array of bot generator words (never the env's
own stream) and ``r`` the index of the word to use. A bot reads only what its seat
observes: the map, the pieces, public counts and its own items. The batch loops draw the
random bot's action from the mask row itself (:func:`random_bot_row`).

Bots::

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

from tabletop_core.kernel.bits import (
    bit_length,
    ctz,
    nonzero_bits,
    stack_f64,
    stack_i16,
    stack_i64,
    stack_u8,
    stack_u16,
    stack_u32,
    stack_u64,
)
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import random01, sample_legal

from .geometry import BIT_ROWS
from .rules import (
    DC,
    DR,
    MASK_WORDS,
    find_kind_r,
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
    MAX_HUMANS,
    NUM_ITEM_KINDS,
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
_W = MAP + 2  # width of the padded grids (a border square on each side)
_NSQ = _W * _W
_MAX_SWEEP = 6  # the longest sweep the bots ask for (the ghost bot's 6 moves)
_BUCKET = (_MAX_SWEEP + 1) * _NSQ  # a sweep's bucket queue: one row of squares per move count
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_NEED = MAX_HUMANS + 4  # the ghost bot's weighed squares: the humans and the exit's approaches
_STEP = np.array([DR[d] * _W + DC[d] for d in range(4)], np.int64)  # padded index step per direction
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
def ghost_grids_r(e, free, wall):
    """The map as the ghosts see it, on a flat padded grid (square (r, c) at index
    ``(r + 1) * W + c + 1``, ``W = 23``; the one-square border is 0): ``free`` (529,)
    uint8 marks the squares a ghost may move onto (:func:`rules.ghost_free_r`), ``wall``
    the squares a wall pass goes through (a wall or a sealed door). Built once per bot
    decision, so that the sweeps below read one byte per square and never test the map's
    edge."""
    free[:] = 0
    wall[:] = 0
    for r in range(MAP):
        base = (r + 1) * _W + 1
        for c in range(MAP):
            free[base + c] = ghost_free_r(e, r, c)
            k = e.cell[r, c]
            wall[base + c] = k == WALL or is_sealed(k)


@kernel
def _sweep_r(free, wall, starts, k, max_moves, out, front, bucket, need, n_need):
    """:func:`ghost_sweep_r` on the padded grids of :func:`ghost_grids_r` from the squares
    ``starts[:k]`` (padded indices) at once, so ``out`` gets the fewest moves of any ghost
    starting on one of them (the ghosts do not block each other): ``out`` and ``front``
    (529,) int16, ``bucket`` (7 * 529,) int16 scratch (one row of squares per move count).
    It stops early once every square in ``need[:n_need]`` has its final move count (a
    count of at most ``m + 2`` is final once the squares stopped on after ``m`` moves are
    expanded, since later ones add at least ``m + 2``); the other squares may then still
    read ``_FAR`` or a larger count than the full sweep's."""
    out[:] = _FAR
    front[:] = _FAR
    count = stack_u64(8)
    for m in range(max_moves + 1):
        count[m] = 0
    for i in range(k):
        if front[starts[i]] != 0:
            front[starts[i]] = 0
            bucket[count[0]] = starts[i]
            count[0] += 1
    for m in range(max_moves):
        for i in range(count[m]):
            p = np.int64(bucket[m * _NSQ + i])
            if front[p] != m:
                continue  # entered this bucket, then a lower one: expanded there
            for d in range(4):
                s = _STEP[d]
                q = p
                while free[q + s]:
                    q += s
                    if out[q] > m + 1:
                        out[q] = m + 1
                if q != p and front[q] > m + 1:
                    front[q] = m + 1
                    bucket[(m + 1) * _NSQ + count[m + 1]] = q
                    count[m + 1] += 1
                if m + 2 <= max_moves:
                    q1 = p + s
                    if wall[q1] and free[q1 + s]:
                        q2 = q1 + s
                        if out[q2] > m + 2:
                            out[q2] = m + 2
                        if front[q2] > m + 2:
                            front[q2] = m + 2
                            bucket[(m + 2) * _NSQ + count[m + 2]] = q2
                            count[m + 2] += 1
        if n_need > 0:
            done = True
            for j in range(n_need):
                if out[need[j]] > m + 2:
                    done = False
                    break
            if done:
                return


@kernel
def _free_lines_r(free, rows, cols):
    """The padded grid ``free`` of :func:`ghost_grids_r` as bit boards: ``rows[r]`` (21,)
    uint64 has bit ``c`` set when square (r, c) is free for a ghost, ``cols[c]`` bit ``r``."""
    for c in range(MAP):
        cols[c] = 0
    for r in range(MAP):
        base = (r + 1) * _W + 1
        x = np.uint64(0)
        for c in range(MAP):
            f = np.uint64(free[base + c])
            x |= f << np.uint64(c)
            cols[c] |= f << np.uint64(r)
        rows[r] = x


@kernel(inline="always")
def _slide_ends4_r(rows, cols, p, ends4):
    """``ends4`` (4,): the padded index of the square a ghost sliding from square ``p`` in
    each direction (up, right, down, left) stops on, ``p`` itself when the next square is
    not free: the nearest square that is not free that way, from the bit boards of
    :func:`_free_lines_r` (the map's edge counts as not free), less one step."""
    r = p // _W - 1
    c = p % _W - 1
    line = ~rows[r]  # blocked squares of the row; every bit past the map is set
    right = np.int64(ctz(line & (_ALL << np.uint64(c + 1)))) - 1
    left = bit_length(line & ((np.uint64(1) << np.uint64(c)) - np.uint64(1)))
    line = ~cols[c]
    down = np.int64(ctz(line & (_ALL << np.uint64(r + 1)))) - 1
    up = bit_length(line & ((np.uint64(1) << np.uint64(r)) - np.uint64(1)))
    ends4[0] = (up + 1) * _W + c + 1
    ends4[1] = (r + 1) * _W + right + 1
    ends4[2] = (down + 1) * _W + c + 1
    ends4[3] = (r + 1) * _W + left + 1


@kernel
def _need_bits_r(free, need, n, hit, at):
    """For the squares ``need[:n]`` (padded indices, n <= 16): ``hit[p]`` (529,) uint16
    gets bit ``j`` when some slide from square ``p`` passes over ``need[j]``, ``at[p]`` bit
    ``j`` when ``p`` is ``need[j]`` (a wall pass lands on it). A slide from ``p`` in
    direction ``d`` passes over ``t`` when ``t`` and every square between them are free."""
    hit[:] = 0
    at[:] = 0
    for j in range(n):
        t = need[j]
        bit = np.uint16(1 << j)
        at[t] |= bit
        if free[t] == 0:
            continue
        for d in range(4):
            s = _STEP[d]
            p = t - s
            while True:
                hit[p] |= bit
                if free[p] == 0:
                    break
                p -= s


@kernel
def _lower_r(bits, moves, out):
    """``out[j]`` = min(``out[j]``, ``moves``) for every bit ``j`` set in ``bits``: the
    asked squares a move passes over (:func:`_need_bits_r`)."""
    b = np.uint64(bits)
    while b != 0:
        j = np.int64(ctz(b))
        b &= b - np.uint64(1)
        if out[j] > moves:
            out[j] = moves


@kernel
def _sweep_need_r(free, wall, rows, cols, hit, at, p0, max_moves, front, bucket, n, out):
    """:func:`_sweep_r` read only on the squares of :func:`_need_bits_r`: ``out[j]`` (n,)
    int16 gets the fewest moves (<= ``max_moves`` <= 6) after which a ghost on square
    ``p0`` passes over ``need[j]``, ``_FAR`` if it cannot. The slides jump to their ends
    (:func:`_slide_ends4_r`) instead of walking, and the squares passed over are
    read from ``hit``; the squares stopped on after the last move are not expanded. It
    stops once every count is final."""
    for j in range(n):
        out[j] = _FAR
    front[:] = _FAR
    count = stack_u64(8)
    for m in range(max_moves + 1):
        count[m] = 0
    front[p0] = 0
    bucket[0] = p0
    count[0] = 1
    full = np.uint64((1 << n) - 1)
    for m in range(max_moves):
        for i in range(count[m]):
            p = np.int64(bucket[m * _NSQ + i])
            if front[p] != m:
                continue  # entered this bucket, then a lower one: expanded there
            _lower_r(hit[p], m + 1, out)
            if m + 1 == max_moves:
                continue  # the last move: only the squares it passes over count
            ends4 = stack_i64(4)
            _slide_ends4_r(rows, cols, p, ends4)
            for d in range(4):
                q = ends4[d]
                if q != p and front[q] > m + 1:
                    front[q] = m + 1
                    bucket[(m + 1) * _NSQ + count[m + 1]] = q
                    count[m + 1] += 1
                if m + 2 <= max_moves:
                    s = _STEP[d]
                    q1 = p + s
                    if wall[q1] and free[q1 + s]:
                        q2 = q1 + s
                        _lower_r(at[q2], m + 2, out)
                        if m + 2 < max_moves and front[q2] > m + 2:
                            front[q2] = m + 2
                            bucket[(m + 2) * _NSQ + count[m + 2]] = q2
                            count[m + 2] += 1
        final = np.uint64(0)
        for j in range(n):
            if out[j] <= m + 2:
                final |= np.uint64(1) << np.uint64(j)
        if final == full:
            return


@kernel
def ghost_sweep_r(e, r0, c0, max_moves, out):
    """Fewest ghost moves (<= ``max_moves`` <= 6) after which a ghost starting on (r0, c0)
    passes over each square (slides and wall passes; humans and the no-reversal rule
    ignored); ``out`` (21, 21) int64 gets ``_FAR`` where it cannot.

    A search by layers: the squares a ghost can stop on after ``m`` moves (``front``) are
    kept in a bucket per ``m``; a square enters a bucket once, when its move count drops to
    that bucket's, and is expanded once, at its final count (a slide costs one move, a
    pass through a wall or sealed door two). The same result as rescanning the map once
    per move (``tests/test_exitnow_kernels.py`` holds it against that reading), without the
    ``max_moves`` full scans of the 441 squares."""
    free = stack_u8(_NSQ)
    wall = stack_u8(_NSQ)
    ghost_grids_r(e, free, wall)
    sw = stack_i16(_NSQ)
    front = stack_i16(_NSQ)
    bucket = stack_i16(_BUCKET)
    need = np.empty(1, np.int64)
    start = stack_i64(1)
    start[0] = (r0 + 1) * _W + c0 + 1
    _sweep_r(free, wall, start, 1, max_moves, sw, front, bucket, need, 0)
    for r in range(MAP):
        for c in range(MAP):
            out[r, c] = sw[(r + 1) * _W + c + 1]


@kernel
def _human_seed_r(e, key, er, ec, conf, seed):
    """The human bot's targets as bit rows: ``seed`` (24,) uint32, bit ``c`` of row ``r + 1``
    for square (r, c), as ``State.wbits``. With a key the target is the exit door, or the
    first sealed or exit-kind square beside it that a human walks into but not through
    (the exit itself is not walkable, so the distances are measured to the square before
    it); without one, the event chips and, while items are confiscated, the item chip."""
    for j in range(BIT_ROWS):
        seed[j] = 0
    if key:
        tr = er if er >= 0 else er + MAP  # no exit: the last square, as the grid read it
        tc = ec if ec >= 0 else ec + MAP
        if er >= 0:
            for d in range(4):
                r1 = er + DR[d]
                c1 = ec + DC[d]
                if in_map(r1, c1):
                    k = e.cell[r1, c1]
                    if not human_walkable(k) and not human_never_walks(k):
                        tr = r1
                        tc = c1
                        break
        seed[tr + 1] = np.uint32(1) << np.uint32(tc)
        return
    for r in range(MAP):
        bits = e.cbits[r + 1]
        while bits != 0:
            c = np.int64(ctz(bits))
            bits &= bits - np.uint32(1)
            ch = e.chip[r, c]
            if ch == EVENT_CHIP or (ch == ITEM_CHIP and conf > 0):
                seed[r + 1] |= np.uint32(1) << np.uint32(c)


@kernel
def _distance_bits_r(wbits, seed, need, n, out):
    """``out[j]`` (n,) int16: the walking distance (steps over the squares of ``wbits``,
    ``State.wbits``) from the nearest square of ``seed`` (:func:`_human_seed_r`) to square
    ``need[j]`` (padded index), ``_FAR`` if none. Breadth first over bit rows: each step
    grows the whole front by one square in every direction at once (a shift and two
    neighbour rows per row), and it stops once every walkable ``need`` square is reached."""
    front = stack_u32(BIT_ROWS)  # this step's front, and the next: they take turns
    after = stack_u32(BIT_ROWS)
    seen = stack_u32(BIT_ROWS)
    wanted = stack_u32(BIT_ROWS)  # the need squares not reached yet
    for j in range(BIT_ROWS):
        front[j] = seed[j]
        after[j] = 0
        seen[j] = seed[j]
        wanted[j] = 0
    pending = 0
    for j in range(n):
        p = need[j]
        bit = np.uint32(1) << np.uint32(p % _W - 1)
        if seed[p // _W] & bit:
            out[j] = 0
        else:
            out[j] = _FAR
            if wbits[p // _W] & bit:
                pending += 1
                wanted[p // _W] |= bit
    k = 0
    while pending > 0:  # two steps a round, so each step reads one buffer and writes the other
        k += 1
        if not _grow_r(wbits, front, after, seen):
            break
        pending = _reached_r(after, wanted, need, n, k, pending, out)
        if pending == 0:
            break
        k += 1
        if not _grow_r(wbits, after, front, seen):
            break
        pending = _reached_r(front, wanted, need, n, k, pending, out)


@kernel(inline="always")
def _grow_r(wbits, front, grown, seen):
    """One breadth-first step over bit rows: ``grown`` gets the walkable squares next to
    ``front`` not ``seen`` yet (and ``seen`` them); returns whether there were any."""
    grew = np.uint32(0)
    for j in range(1, MAP + 1):
        f = front[j]
        x = (f << np.uint32(1)) | (f >> np.uint32(1)) | front[j - 1] | front[j + 1]
        x &= wbits[j] & ~seen[j]
        seen[j] |= x
        grown[j] = x
        grew |= x
    return grew != 0


@kernel(inline="always")
def _reached_r(grown, wanted, need, n, k, pending, out):
    """Give the need squares in ``grown`` the distance ``k``; returns how many are left."""
    hit = np.uint32(0)
    for j in range(1, MAP + 1):
        hit |= grown[j] & wanted[j]
    if hit == 0:
        return pending
    for j in range(n):
        if out[j] == _FAR:
            p = need[j]
            bit = np.uint32(1) << np.uint32(p % _W - 1)
            if grown[p // _W] & bit:
                out[j] = k
                pending -= 1
                wanted[p // _W] &= ~bit
    return pending


@kernel
def _danger_at_r(e, free, wall, need, n, danger, scratch, front, bucket):
    """``danger[j]``: the chance that some ghost sweeps square ``need[j]`` (padded index) on
    its next turn, weighted by the chance of rolling enough moves (:data:`_REACH_P`). The
    chance falls with the moves needed, so the likeliest ghost is the nearest: one sweep
    from every ghost at once gives it."""
    starts = stack_i64(MAX_GHOSTS)
    k = 0
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0:
            starts[k] = (np.int64(e.gpos[g, 0]) + 1) * _W + e.gpos[g, 1] + 1
            k += 1
    for j in range(n):
        danger[j] = 0.0
    if k == 0:
        return
    _sweep_r(free, wall, starts, k, 3, scratch, front, bucket, need, n)
    for j in range(n):
        m = scratch[need[j]]
        if m <= 3:
            danger[j] = _REACH_P[m]


@kernel
def _padded(r, c):
    """Padded grid index of (r, c); -1 reads the last row or column, as NumPy indexing of
    the (21, 21) maps the bot used to keep did (a human off the map)."""
    if r < 0:
        r += MAP
    if c < 0:
        c += MAP
    return (r + 1) * _W + c + 1


@kernel
def human_bot_r(e, mask, rng, r):
    """The smart human (see the module docstring). It reads its distances and the
    ghosts' reach only on the squares it weighs (its own square before the roll, the
    legal destinations after it), and stops each search once they are known."""
    h = e.current
    ph = e.phase
    if ph == _P_CROSS:
        return CROSS_YES if mask[CROSS_YES] else CROSS_NO
    if ph != _P_ITEM and ph != _P_MOVE:
        return sample_legal(rng, r, mask)
    need = stack_i64(_NSQ)
    acts = stack_i64(_NSQ)
    n, chosen = _human_squares_r(e, mask, rng, r, need, acts)
    if chosen >= 0:
        return chosen
    key = e.items[h, I_KEY] > 0
    er, ec = find_kind_r(e, EXIT)
    conf = 0
    for k in range(NUM_ITEM_KINDS):
        conf += e.confiscated[k]
    free = stack_u8(_NSQ)
    wall = stack_u8(_NSQ)
    ghost_grids_r(e, free, wall)
    dist = stack_i16(_NSQ)
    front = stack_i16(_NSQ)
    bucket = stack_i16(_BUCKET)
    danger = stack_f64(_NSQ)
    _danger_at_r(e, free, wall, need, n, danger, dist, front, bucket)
    # distances to the targets, walking
    seed = stack_u32(BIT_ROWS)
    _human_seed_r(e, key, er, ec, conf, seed)
    _distance_bits_r(e.wbits, seed, need, n, dist)
    if ph == _P_ITEM:
        boost = (key and dist[0] > 3) or danger[0] > 0.3
        if boost:
            if mask[ITEM_MOVE7]:
                return ITEM_MOVE7
            if mask[ITEM_DOUBLE]:
                return ITEM_DOUBLE
        return ITEM_NONE
    return _human_move_r(e, h, acts, n, dist, danger, key, conf, rng, r)


@kernel(inline="always")
def _human_squares_r(e, mask, rng, r, need, acts):
    """``(n, chosen)``: the ``n`` squares the smart human weighs into ``need`` (padded
    indexes; before the roll its own square, after it the legal destinations, their
    actions in ``acts``), or ``chosen >= 0`` when the choice needs no weighing: no
    boost to use, a destination on the exit, or a single destination (each destination
    passed draws its tie-break)."""
    if e.phase == _P_ITEM:
        if mask[ITEM_MOVE7] == 0 and mask[ITEM_DOUBLE] == 0:
            return 0, ITEM_NONE  # nothing to boost with: no need to weigh the square
        h = e.current
        need[0] = _padded(e.hpos[h, 0], e.hpos[h, 1])
        return 1, -1
    n = 0
    for a0 in range(DEST_OFFSET, CROSS_NO, 64):  # the legal destinations, 64 at a time
        bits = nonzero_bits(mask, a0, 64)
        while bits != 0:
            a = a0 + np.int64(ctz(bits))
            bits &= bits - np.uint64(1)
            if a >= CROSS_NO:
                break
            q = a - DEST_OFFSET
            if e.cell[q // MAP, q % MAP] == EXIT:
                for _ in range(n):  # one tie-break draw per destination weighed before
                    random01(rng, r)
                return n, a
            need[n] = _padded(q // MAP, q % MAP)
            acts[n] = a
            n += 1
    if n == 1:  # one destination: its tie-break draw, and no need to weigh it
        random01(rng, r)
        return n, acts[0]
    return n, -1


@kernel(inline="always")
def _human_move_r(e, h, acts, n, dist, danger, key, conf, rng, r):
    """The smart human's destination among ``acts[:n]``: nearer its target, away from the
    ghosts' reach (onto a ghost only with a cross), onto event chips without the key and
    item chips while items are confiscated, off team-mates, onto rivals holding items;
    a small random tie-break per destination."""
    cross = e.items[h, I_CROSS] > 0
    best = -1
    best_v = -1.0e18
    for j in range(n):
        a = acts[j]
        q = a - DEST_OFFSET
        rr = q // MAP
        cc = q % MAP
        v = 0.0
        dd = dist[j]
        v -= 1.0 * (dd if dd < _FAR else 60)
        ghost_here = False
        for g in range(MAX_GHOSTS):
            if e.gon[g] != 0 and e.gpos[g, 0] == rr and e.gpos[g, 1] == cc:
                ghost_here = True
        if ghost_here:
            v += 6.0 if cross else -200.0
        else:
            v -= (8.0 if cross else 40.0) * danger[j]
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
def _chip_bot_r(e, mask, rng, r):
    """The ghost player's item-chip placement: the legal place farthest from every human."""
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


@kernel
def ghost_bot_r(e, mask, rng, r):
    """The smart ghost player (see the module docstring). Each candidate move's sweep
    stops once the humans' squares (and, while they hold items, the exit's approaches)
    have their move counts."""
    if e.phase == _P_CHIP:
        return _chip_bot_r(e, mask, rng, r)
    if e.phase != _P_GHOST:
        return sample_legal(rng, r, mask)
    legal = 0
    only = -1
    for a in range(SLIDE_OFFSET, CHIP_OFFSET):
        if mask[a] != 0:
            legal += 1
            only = a
    if legal == 1:  # one move: its tie-break draw, and no need to weigh it
        random01(rng, r)
        return only
    er, ec = find_kind_r(e, EXIT)
    held_total = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] >= 0:
            for k in range(NUM_ITEM_KINDS):
                held_total += e.items[h, k]
    guard = er >= 0 and held_total > 0  # GUARD * 0 adds nothing: no need to sweep the exit
    need = stack_i64(_NEED)
    n_humans, n = _ghost_needs_r(e, er, ec, guard, need)
    free = stack_u8(_NSQ)
    wall = stack_u8(_NSQ)
    ghost_grids_r(e, free, wall)
    rows = stack_u64(MAP)
    cols = stack_u64(MAP)
    _free_lines_r(free, rows, cols)
    hits = stack_u16(_NSQ)
    at = stack_u16(_NSQ)
    _need_bits_r(free, need, n, hits, at)
    front = stack_i16(_NSQ)
    bucket = stack_i16(_BUCKET)
    sweep = stack_i16(_NEED)
    best = -1
    best_v = -1.0e18
    for a in range(SLIDE_OFFSET, CHIP_OFFSET):
        if mask[a] == 0:
            continue
        lr, lc, hit = ghost_landing_r(e, e.ghost_idx, a)
        if hit:
            v = 0.0
            for h in range(e.cfg_humans):
                if e.hpos[h, 0] == lr and e.hpos[h, 1] == lc:
                    v += 1000.0 + 100.0 * _human_weight_r(e, h, er, ec)
        else:
            left = e.moves_left - (1 if a < PASS_OFFSET else 2)
            _sweep_need_r(
                free, wall, rows, cols, hits, at, (lr + 1) * _W + lc + 1, 6, front, bucket, n, sweep
            )
            v = _ghost_landing_value_r(e, lr, lc, left, er, ec, sweep, n_humans, n, guard, held_total)
        v += 0.01 * random01(rng, r)
        if v > best_v:
            best_v = v
            best = a
    return best


@kernel(inline="always")
def _ghost_needs_r(e, er, ec, guard, need):
    """``(n_humans, n)``: the squares a ghost's sweep must reach into ``need`` (padded
    indexes): the humans on the map, then with ``guard`` the exit's approaches."""
    n = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] >= 0:
            need[n] = (np.int64(e.hpos[h, 0]) + 1) * _W + e.hpos[h, 1] + 1
            n += 1
    n_humans = n
    if guard:
        for d in range(4):
            r1 = er + DR[d]
            c1 = ec + DC[d]
            if in_map(r1, c1):
                need[n] = (r1 + 1) * _W + c1 + 1
                n += 1
    return n_humans, n


@kernel(inline="always")
def _ghost_landing_value_r(e, lr, lc, left, er, ec, sweep, n_humans, n, guard, held_total):
    """The smart ghost's value of landing on (lr, lc) with ``left`` moves to spare and
    the move counts ``sweep`` from there: the most wanted human within reach (or near
    it), nearness to the exit and, with ``guard``, its approaches."""
    v = 0.0
    j = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] < 0:
            continue
        m = sweep[j]
        j += 1
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
    if guard:
        # guard the exit's approach while the humans hold items (a key may be among them)
        m_ex = _FAR
        for j in range(n_humans, n):
            if sweep[j] < m_ex:
                m_ex = sweep[j]
        if m_ex < _FAR:
            v += GUARD * held_total / max(m_ex, 1)
    return v


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
