"""Exit Now rules: the turn engine (proceed), the actions, legal masks and rewards."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import nth_set_bit, popcount, read_bits_row, stack_u64, write_bits_row
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint_word, shuffle_word

from ..spec import (
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DECK_SIZE,
    DEST_OFFSET,
    EVENT_CHIP,
    EXIT,
    FLOOR,
    GHOST_START,
    I_CROSS,
    I_DOUBLE,
    I_KEY,
    I_MOVE7,
    I_PICKAXE,
    ITEM_CHIP,
    ITEM_DOUBLE,
    ITEM_MOVE7,
    ITEM_NONE,
    MAP,
    MAX_GHOSTS,
    NUM_ACTIONS,
    NUM_ITEM_KINDS,
    NUM_PLACES,
    PASS_OFFSET,
    RESTART,
    SLIDE_OFFSET,
    START,
)
from .common import (
    _DECK,
    _GHOST_WIN,
    _HUMAN_WIN,
    _P_CHIP,
    _P_CROSS,
    _P_GHOST,
    _P_ITEM,
    _P_MOVE,
    _P_OVER,
    _PLAYING,
    DC,
    DR,
    ST_GHOST,
    ST_ROUND_END,
    ST_TURN,
    _on_top_r,
    die_r,
    find_kind_r,
    ghost_at_r,
    ghost_moves_for_roll,
    in_map,
    is_sealed,
    randint_r,
)
from .events import (
    draw_event_r,
)
from .ghosts import (
    _place_ghost_r,
    can_place_item_chip_r,
    capture_square_r,
    chip_places_r,
    ghost_landing_r,
    ghost_moves_r,
    start_contact_r,
)
from .map import (
    _set_chip_r,
    build_map_r,
    sync_map_r,
)
from .walks import (
    _ALL,
    _ONE,
    _R,
    walk_bits_r,
)


# --- turn engine ------------------------------------------------------------------------------
@kernel(inline="always")
def _enter_r(e, h, r, c):
    """Human ``h`` enters the map on (r, c) (its start, or the restart square after a
    capture), on top of the square's pieces; returns the ghost standing there, or -1."""
    e.entered[h] = 1
    e.hpos[h, 0] = r
    e.hpos[h, 1] = c
    _on_top_r(e, h)
    return ghost_at_r(e, r, c)


@kernel
def _human_turn_start_r(e, h):
    """Start human ``h``'s turn; return True when ``h`` has a decision to take."""
    if e.captured[h] != 0:
        e.turn_seat = h + 1
        r, c = find_kind_r(e, RESTART)
        if die_r(e) == 6 and r >= 0:
            e.captured[h] = 0
            g = _enter_r(e, h, r, c)
            if g >= 0:
                start_contact_r(e, g)
        return False
    if e.skip[h] != 0:
        e.skip[h] = 0
        e.turn_seat = h + 1
        return False
    if e.entered[h] == 0:
        r, c = find_kind_r(e, START)
        if r < 0:  # only on hand-made test maps without a start square
            e.turn_seat = h + 1
            return False
        g = _enter_r(e, h, r, c)
        if g >= 0:
            e.turn_seat = h + 1
            start_contact_r(e, g)
            return False
    e.current = h
    if e.items[h, I_DOUBLE] > 0 or e.items[h, I_MOVE7] > 0:
        e.phase = _P_ITEM
        e.roll = 0
        return True
    e.roll = die_r(e)
    e.phase = _P_MOVE
    return True


@kernel
def _next_ghost_r(e):
    """The next ghost of the ghost player's turn acts."""
    e.ghost_idx += 1
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_turn_start_r(e):
    """Start the ghost player's turn (revival roll when no ghost is out)."""
    out = False
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0:
            out = True
    if not out:
        e.stage = ST_ROUND_END
        if die_r(e) == 6:
            r, c = find_kind_r(e, GHOST_START)
            _place_ghost_r(e, 0, r, c)
            start_contact_r(e, 0)
        return
    e.stage = ST_GHOST
    e.ghost_idx = 0
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_continue_r(e):
    """Roll for / ask the acting ghost; return True when the ghost player must decide."""
    g = e.ghost_idx
    if g >= MAX_GHOSTS:
        e.stage = ST_ROUND_END
        return False
    if e.gon[g] == 0:
        _next_ghost_r(e)
        return False
    if e.ghost_rolled == 0:
        e.roll = die_r(e)
        e.moves_left = ghost_moves_for_roll(e.roll)
        e.last_dir = -1
        e.ghost_rolled = 1
    if e.moves_left <= 0 or ghost_moves_r(e) == 0:
        _next_ghost_r(e)
        return False
    e.phase = _P_GHOST
    e.current = e.cfg_humans
    return True


@kernel
def proceed_r(e):
    """Run the automatic part of the game until a decision is pending or the game is over.

    Order: a pending contact (ask the next human holding a Cross, else capture everyone on
    the square), a pending item-chip placement, then the turn ``stage``.
    """
    n = e.cfg_humans
    while True:
        if e.status != _PLAYING:
            e.phase = _P_OVER
            return
        if e.contact_n > 0:
            while e.contact_k < e.contact_n:
                h = e.contact_q[e.contact_k]
                if e.items[h, I_CROSS] > 0:
                    e.phase = _P_CROSS
                    e.current = h
                    return
                e.contact_k += 1
            g = e.contact_ghost
            capture_square_r(e, e.gpos[g, 0], e.gpos[g, 1])
            e.contact_n = 0
            e.contact_ghost = -1
            continue
        if e.pending_chip != 0:
            e.pending_chip = 0
            if can_place_item_chip_r(e):
                e.phase = _P_CHIP
                e.current = n
                return
            continue
        if e.stage == ST_TURN:
            if e.turn_seat < n:
                if _human_turn_start_r(e, e.turn_seat):
                    return
            else:
                _ghost_turn_start_r(e)
        elif e.stage == ST_GHOST:
            if _ghost_continue_r(e):
                return
        else:
            e.round += 1
            if e.round >= e.cfg_max_rounds:
                e.status = _GHOST_WIN
            e.turn_seat = 0
            e.stage = ST_TURN


@kernel
def deal_r(e):
    """Start a new game with the env's generator: build the map, shuffle the 17 event
    cards, put ghost 1 on the ghost start, and run the engine to the first decision
    (human_0's first turn: it enters at the start square)."""
    build_map_r(e)
    for k in range(DECK_SIZE):
        e.deck[k] = _DECK[k]
    e.rng = shuffle_word(e.rng, e.deck, DECK_SIZE)
    e.deck_n = DECK_SIZE
    e.items[:, :] = 0
    e.confiscated[:] = 0
    e.used[:] = 0
    e.hpos[:, :] = -1
    e.hheight[:] = 0
    e.entered[:] = 0
    e.captured[:] = 0
    e.skip[:] = 0
    e.gpos[:, :] = -1
    e.gon[:] = 0
    r, c = find_kind_r(e, GHOST_START)
    _place_ghost_r(e, 0, r, c)
    e.last_card = -1
    e.phase = _P_OVER
    e.stage = ST_TURN
    e.turn_seat = 0
    e.roll = 0
    e.ghost_idx = 0
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1
    e.contact_ghost = -1
    e.contact_q[:] = 0
    e.contact_n = 0
    e.contact_k = 0
    e.pending_chip = 0
    e.height_counter = 0
    e.round = 0
    e.winner = -1
    e.current = 0
    e.status = _PLAYING
    proceed_r(e)


# --- actions ----------------------------------------------------------------------------------
MASK_WORDS = (NUM_ACTIONS + 63) // 64  # words of an action bit set (bit a % 64 of word a // 64: action a)


@kernel
def _put_bits(bits, pos, v, width):
    """OR the ``width`` (<= 64) low bits of ``v`` into the bit set ``bits`` at bit ``pos``."""
    v = np.uint64(v)
    w = pos >> 6
    sh = pos & 63
    bits[w] |= v << np.uint64(sh)
    if sh + width > 64:
        bits[w + 1] |= v >> np.uint64(64 - sh)


@kernel
def legal_bits_r(e, bits):
    """The acting seat's legal actions as a bit set (``bits`` (8,) uint64: bit a % 64 of
    word a // 64 is action a); returns their number (>= 1 while the game runs, 0 once it
    is over). ITEM: roll, and Double Dice / Move 7 when held; MOVE: the destinations of
    :func:`walk_bits_r`; CROSS: no / yes; GHOST: :func:`ghost_moves_r`; CHIP:
    :func:`chip_places_r`."""
    for k in range(MASK_WORDS):
        bits[k] = 0
    if e.status != _PLAYING:
        return 0
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        m = np.uint64(1) << np.uint64(ITEM_NONE)
        if e.items[h, I_DOUBLE] > 0:
            m |= np.uint64(1) << np.uint64(ITEM_DOUBLE)
        if e.items[h, I_MOVE7] > 0:
            m |= np.uint64(1) << np.uint64(ITEM_MOVE7)
        bits[0] = m
    elif ph == _P_MOVE:
        acc = stack_u64(_R)
        walk_bits_r(e, h, e.roll, acc)
        for j in range(1, MAP + 1):  # map row j - 1: actions DEST_OFFSET + (j - 1) * 21 ...
            _put_bits(bits, DEST_OFFSET + (j - 1) * MAP, acc[j], MAP)
    elif ph == _P_CROSS:
        _put_bits(bits, CROSS_NO, 3, 2)  # CROSS_NO, CROSS_YES
    elif ph == _P_GHOST:
        _put_bits(bits, SLIDE_OFFSET, ghost_moves_r(e), 8)  # slides then wall passes
    elif ph == _P_CHIP:
        _put_bits(bits, CHIP_OFFSET, chip_places_r(e), NUM_PLACES)
    n = 0
    for k in range(MASK_WORDS):
        n += np.int64(popcount(bits[k]))
    return n


@kernel
def write_mask_row(bits, out, row):
    """Write the action bit set ``bits`` (:func:`legal_bits_r`) as row ``row`` of ``out``
    ((B, 471) int8): every entry once, 0 or 1, in vector stores
    (:func:`tabletop_core.kernel.bits.write_bits_row`). A leaf kernel (it calls nothing that
    takes ``out`` on), so numba keeps no reference count on ``out``."""
    write_bits_row(bits, out, row, NUM_ACTIONS)


@kernel
def mask_row_bits(masks, row, bits):
    """Read row ``row`` of ``masks`` ((B, 471) int8, C-contiguous) into the action bit set
    ``bits`` ((MASK_WORDS,) uint64: bit set where the entry is nonzero); returns the
    number of nonzero entries. The inverse of :func:`write_mask_row`, in vector loads
    (:func:`tabletop_core.kernel.bits.read_bits_row`)."""
    return read_bits_row(masks, row, NUM_ACTIONS, bits)


@kernel
def legal_mask_r(e, out, row):
    """Write the acting seat's action mask into row ``row`` of ``out`` ((B, 471) int8;
    the row index rather than a row view ``out[row]``, which numba would reference-count);
    return the count (>= 1 while the game runs, 0 once it is over). The hot loops call
    :func:`legal_bits_r` and :func:`write_mask_row` themselves."""
    bits = stack_u64(MASK_WORDS)
    n = legal_bits_r(e, bits)
    write_mask_row(bits, out, row)
    return n


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the acting seat (its bit in
    :func:`legal_bits_r`, without building the mask)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    bits = stack_u64(MASK_WORDS)
    legal_bits_r(e, bits)
    return (bits[action >> 6] >> np.uint64(action & 63)) & _ONE != 0


@kernel
def sample_bits(bits, n, rng, r):
    """A uniformly random set bit of the bit set ``bits`` ((8,) uint64 holding ``n`` >= 1
    bits) drawn with stream ``r`` of ``rng``: one ``randint(rng, r, n)``, then the k-th set
    bit in increasing order (what ``tabletop_core.kernel.rng.sample_legal`` draws on the mask)."""
    w, k = randint_word(rng[r], n)
    rng[r] = w
    for q in range(MASK_WORDS):
        x = bits[q]
        c = np.int64(popcount(x))
        if k < c:
            return 64 * q + nth_set_bit(x, k)
        k -= c
    return -1


@kernel
def random_legal_r(e, rng, r):
    """A uniformly random legal action drawn with stream ``r`` of ``rng`` ((R,) uint64)
    without building the mask: exactly what ``tabletop_core.kernel.rng.sample_legal`` draws from
    the :func:`legal_mask_r` (one ``randint(rng, r, count)``, then the k-th legal action
    in increasing order); -1 once the game is over (no draw)."""
    bits = stack_u64(MASK_WORDS)
    n = legal_bits_r(e, bits)
    if n == 0:
        return -1
    return sample_bits(bits, n, rng, r)


@kernel
def can_step_r(e, h):
    """Whether human ``h`` can take a first step: a neighbour square it may enter
    (walkable, a ghost's square included; the exit with a key; a sealed door with a
    pickaxe). When it cannot, its only destination is its own square and it stays;
    otherwise ending on its own square is a walk that came back (rules "A human's turn" 6-7)."""
    r = np.int64(e.hpos[h, 0])
    c = np.int64(e.hpos[h, 1])
    xm = _ALL if e.items[h, I_KEY] > 0 else np.uint32(0)
    sm = _ALL if e.items[h, I_PICKAXE] > 0 else np.uint32(0)
    for d in range(4):
        r1 = r + DR[d]
        c1 = c + DC[d]
        if in_map(r1, c1):
            j = r1 + 1
            b = np.uint32(1) << np.uint32(c1)
            if ((e.wbits[j] | (e.xbits[j] & xm) | (e.sbits[j] & sm)) & b) != 0:
                return True
    return False


@kernel
def move_human_r(e, h, r, c):
    """Human ``h`` ends its move on (r, c) (a legal destination): exit (win), pickaxe on a
    sealed door, contact with a ghost, stacking on humans (steal one random item from each
    below, who lose their next turn), event chip (draw), item chip (take the confiscated
    pile). The turn then ends. A walk that loops back to the human's own square arrives
    there too (stacks, steals and skips); only a human that could not move at all stays
    (:func:`can_step_r`). Rules "A human's turn" 4-9."""
    e.turn_seat = h + 1
    e.stage = ST_TURN
    if e.hpos[h, 0] == r and e.hpos[h, 1] == c and not can_step_r(e, h):
        return  # it could not move at all: it stays (a walk back to its square arrives)
    e.hpos[h, 0] = r
    e.hpos[h, 1] = c
    k = e.cell[r, c]
    if k == EXIT:
        e.items[h, I_KEY] -= 1
        e.used[I_KEY] += 1
        e.status = _HUMAN_WIN
        e.winner = h
        _on_top_r(e, h)
        return
    if is_sealed(k):
        e.items[h, I_PICKAXE] -= 1
        e.used[I_PICKAXE] += 1
        e.cell[r, c] = FLOOR
        sync_map_r(e)
    g = ghost_at_r(e, r, c)
    _on_top_r(e, h)
    if g >= 0:
        start_contact_r(e, g)
        return
    for b in range(e.cfg_humans):
        if b != h and e.hpos[b, 0] == r and e.hpos[b, 1] == c:
            total = 0
            for q in range(NUM_ITEM_KINDS):
                total += e.items[b, q]
            if total > 0:
                x = randint_r(e, total)
                for q in range(NUM_ITEM_KINDS):
                    if x < e.items[b, q]:
                        e.items[b, q] -= 1
                        e.items[h, q] += 1
                        break
                    x -= e.items[b, q]
            e.skip[b] = 1
    if e.chip[r, c] == EVENT_CHIP:
        _set_chip_r(e, r, c, 0)
        draw_event_r(e, h)
    elif e.chip[r, c] == ITEM_CHIP:
        _set_chip_r(e, r, c, 0)
        for q in range(NUM_ITEM_KINDS):
            e.items[h, q] += e.confiscated[q]
            e.confiscated[q] = 0


@kernel
def move_ghost_r(e, action):
    """The acting ghost makes one move (slide or wall pass, :func:`ghost_landing_r`);
    entering a human's square captures (contact) and ends that ghost's turn."""
    g = e.ghost_idx
    r, c, hit = ghost_landing_r(e, g, action)
    if action < PASS_OFFSET:
        d = action - SLIDE_OFFSET
        e.moves_left -= 1
    else:
        d = action - PASS_OFFSET
        e.moves_left -= 2
    e.gpos[g, 0] = r
    e.gpos[g, 1] = c
    e.last_dir = d
    if hit:
        _next_ghost_r(e)
        start_contact_r(e, g)


@kernel
def apply_action_r(e, action):
    """Apply a LEGAL ``action`` for the acting seat and run the engine to the next
    decision. Callers validate with :func:`is_legal_r` or the mask first."""
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        if action == ITEM_DOUBLE:
            e.items[h, I_DOUBLE] -= 1
            e.used[I_DOUBLE] += 1
            e.roll = die_r(e) + die_r(e)
        elif action == ITEM_MOVE7:
            e.items[h, I_MOVE7] -= 1
            e.used[I_MOVE7] += 1
            e.roll = 7
        else:
            e.roll = die_r(e)
        e.phase = _P_MOVE
        return
    if ph == _P_MOVE:
        q = action - DEST_OFFSET
        move_human_r(e, h, q // MAP, q % MAP)
    elif ph == _P_CROSS:
        if action == CROSS_YES:
            e.items[h, I_CROSS] -= 1
            e.used[I_CROSS] += 1
            g = e.contact_ghost
            r = e.gpos[g, 0]
            c = e.gpos[g, 1]
            e.gon[g] = 0
            e.gpos[g, 0] = -1
            e.gpos[g, 1] = -1
            e.contact_n = 0
            e.contact_ghost = -1
            g2 = ghost_at_r(e, r, c)
            if g2 >= 0:
                start_contact_r(e, g2)
        else:
            e.contact_k += 1
    elif ph == _P_GHOST:
        move_ghost_r(e, action)
    elif ph == _P_CHIP:
        p = action - CHIP_OFFSET
        _set_chip_r(e, e.ppos[p, 0], e.ppos[p, 1], ITEM_CHIP)
    proceed_r(e)


@kernel
def seat_reward_r(e, seat):
    """Episode reward of ``seat`` (0 while playing): +1 winners, -1 losers. A human's
    escape: the escaper wins (every human with ``cfg_team``), the ghost and the others
    lose; the ghost's win: the ghost +1, every human -1. Rules "End"."""
    if e.status == _PLAYING:
        return 0.0
    n = e.cfg_humans
    if e.status == _HUMAN_WIN:
        if seat == n:
            return -1.0
        if e.cfg_team != 0 or seat == e.winner:
            return 1.0
        return -1.0
    return 1.0 if seat == n else -1.0
