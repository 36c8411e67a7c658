"""The reachable-destination kernel (``rules.reachable_r``) against a brute-force walk
enumeration on random maps, positions, items and ghosts (rules "A human's turn" 3-6)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from exitnow_envs import rules
from exitnow_envs.spec import (
    DEST_OFFSET,
    EXIT,
    FLOOR,
    I_KEY,
    I_PICKAXE,
    MAP,
    NUM_ACTIONS,
    PLACE,
    SEALED_B,
    WALL,
    WATER,
    Options,
)
from exitnow_envs.state import new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def brute_force_destinations(cell, chip, ghosts, start, length, key, pick):
    """Every legal destination by enumerating all walks (readable, slow).

    A walk: orthogonal steps, never back onto the square just left; walls and water
    block; the exit (with a key), a sealed door (with a pickaxe) and a ghost's square end
    the walk when entered; squares with a chip may end it early. Destinations: ends of
    the walks of exactly ``length`` steps plus early stops and walk-ending squares; if no
    walk has ``length`` steps, the ends of the longest walks instead; if no walk at all,
    the start square."""

    def kind(q):
        r, c = q
        k = cell[r][c]
        if k in (WALL, WATER):
            return "blocked"
        if k == EXIT:
            return "end" if key else "blocked"
        if 11 <= k <= 13:
            return "end" if pick else "blocked"
        if q in ghosts:
            return "end"
        return "stop" if chip[r][c] else "normal"

    walks = []  # (length, end square, terminal?)
    early = set()

    def walk(pos, last, t):
        walks.append((t, pos, False))
        if t == length:
            return
        for d, (dr, dc) in enumerate(DIRS):
            if last is not None and d == (last + 2) % 4:
                continue
            q = (pos[0] + dr, pos[1] + dc)
            if not (0 <= q[0] < MAP and 0 <= q[1] < MAP):
                continue
            k = kind(q)
            if k == "blocked":
                continue
            if k == "end":
                walks.append((t + 1, q, True))
                early.add(q)
                continue
            if k == "stop":
                early.add(q)
            walk(q, d, t + 1)

    walk(start, None, 0)
    longest = max(t for t, _, _ in walks)
    if longest == 0:
        return {start}
    ends = {q for t, q, term in walks if t == longest and not term}
    return ends | early


def kernel_destinations(s, h, length):
    out = np.zeros(NUM_ACTIONS, np.int8)
    n = at(rules.reachable_r, s, 0, h, length, out[None, :], 0, DEST_OFFSET)
    got = {divmod(int(a) - DEST_OFFSET, MAP) for a in np.flatnonzero(out)}
    assert n == len(got) >= 1
    return got


def _random_case(rnd: random.Random, synthetic: bool):
    o = Options(num_humans=2, layout="random", centre_side="random", centre_rotation="random")
    s = new_state(1, o)
    s["rng"][0] = seed_word(rnd.randrange(10**9))
    at(rules.deal_r, s, 0)
    e = s[0]
    if synthetic:
        density = rnd.choice((0.15, 0.3, 0.45))
        for r in range(MAP):
            for c in range(MAP):
                x = rnd.random()
                if x < density:
                    e["cell"][r, c] = WALL
                elif x < density + 0.05:
                    e["cell"][r, c] = WATER
                elif x < density + 0.08:
                    e["cell"][r, c] = rnd.choice((EXIT, SEALED_B))
                elif x < density + 0.15:
                    e["cell"][r, c] = PLACE
                else:
                    e["cell"][r, c] = FLOOR
        e["chip"][:, :] = 0
        e["chip"][e["cell"] == PLACE] = rnd.choice((1, 2))
    else:
        for r, c in np.argwhere(e["chip"] == 1):
            if rnd.random() < 0.5:
                e["chip"][r, c] = 0
        for r, c in np.argwhere((e["cell"] >= 5) & (e["cell"] <= 7)):
            if rnd.random() < 0.5:
                e["cell"][r, c] += 6  # seal the door
    free = [tuple(x) for x in np.argwhere(~np.isin(e["cell"], (WALL, WATER, EXIT, 11, 12, 13)))]
    start = rnd.choice(free)
    e["hpos"][0] = start
    e["gon"][:] = 0
    ghosts = set()
    for g in range(rnd.randrange(0, 4)):
        q = rnd.choice(free)
        if q != start:
            e["gon"][g] = 1
            e["gpos"][g] = q
            ghosts.add(q)
    e["hpos"][1] = rnd.choice(free)  # another human: passable, no effect on the walk
    e["items"][0, I_KEY] = rnd.random() < 0.5
    e["items"][0, I_PICKAXE] = rnd.random() < 0.5
    at(rules.sync_map_r, s, 0)
    return s, start, ghosts


@pytest.mark.parametrize("synthetic", [False, True])
def test_reachable_matches_brute_force(synthetic):
    rnd = random.Random(1234 + synthetic)
    fallback = 0
    for case in range(250):
        s, start, ghosts = _random_case(rnd, synthetic)
        length = rnd.choice((1, 2, 3, 4, 5, 6, 7, 8)) if case % 10 else rnd.choice((9, 10, 11, 12))
        e = s[0]
        cell = e["cell"].tolist()
        chip = e["chip"].tolist()
        key = bool(e["items"][0, I_KEY])
        pick = bool(e["items"][0, I_PICKAXE])
        expect = brute_force_destinations(cell, chip, ghosts, start, length, key, pick)
        got = kernel_destinations(s, 0, length)
        assert got == expect, (case, start, length, sorted(got ^ expect))
        fallback += start in got
    assert fallback > 5  # dead ends and walled-in starts were exercised


def test_corridor_dead_end_uses_the_longest_walk():
    o = Options(num_humans=1)
    s = new_state(1, o)
    e = s[0]
    e["cell"][:, :] = WALL
    e["cell"][5, 3:8] = FLOOR  # a corridor of five squares
    at(rules.sync_map_r, s, 0)
    e["hpos"][0] = (5, 3)
    for roll in range(5, 13):
        assert kernel_destinations(s, 0, roll) == {(5, 7)}  # cannot turn back: walks only 4
    assert kernel_destinations(s, 0, 2) == {(5, 5)}
    e["hpos"][0] = (5, 5)
    assert kernel_destinations(s, 0, 2) == {(5, 3), (5, 7)}
    assert kernel_destinations(s, 0, 6) == {(5, 3), (5, 7)}  # longest walks: 2 steps either way
    e["cell"][5, 4] = WALL
    e["cell"][5, 6] = WALL
    at(rules.sync_map_r, s, 0)
    assert kernel_destinations(s, 0, 3) == {(5, 5)}  # cannot move at all: stays
