"""A slow, readable pure-Python Exit Now (``docs/rules/exitnow.md`` and the decisions listed in
``exitnow_envs/env.py``), used by the differential test against the numba kernels.

Written independently of ``exitnow_envs/rules.py``: plain Python sets, lists and a
pure-Python SplitMix64 that draws the same numbers in the same order as the kernels
(dice, layout, deck shuffle, steals, map swaps), so both play the same game from a seed.
"""

from __future__ import annotations

import numpy as np

from exitnow_envs.maps import CENTRE_SLOT, CORNER_SLOTS, EDGE_SLOTS, build_map, rot_local
from exitnow_envs.spec import (
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DECK,
    DEST_OFFSET,
    ITEM_DOUBLE,
    ITEM_MOVE7,
    ITEM_NONE,
    MAP,
    PASS_OFFSET,
    SLIDE_OFFSET,
)

M64 = (1 << 64) - 1
FLOOR, WALL, WATER, EXIT, PLACE = 0, 1, 2, 3, 4
DOORS = (5, 6, 7)
START, RESTART, GHOST_START = 8, 9, 10
SEALED = (11, 12, 13)
KEY, CROSS, DOUBLE, MOVE7, PICKAXE = range(5)
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))
ITEM, MOVE, CROSSQ, GHOST, CHIP, OVER = range(6)


class Rng:
    """SplitMix64 with Lemire's multiply-shift, as ``tabletop_core.kernel.rng``."""

    def __init__(self, word: int):
        self.state = int(word)

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def randint(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32

    def die(self) -> int:
        return self.randint(6) + 1


def derived_map_fields(cell, chip, place) -> dict:
    """The State fields derived from the map (``wbits`` ... ``ppos``, see
    ``exitnow_envs/state.py``), recomputed here square by square."""
    rows = MAP + 3
    out = {
        "wbits": np.zeros(rows, np.uint32),
        "xbits": np.zeros(rows, np.uint32),
        "sbits": np.zeros(rows, np.uint32),
        "cbits": np.zeros(rows, np.uint32),
        "kpos": np.full((14, 2), -1, np.int8),
        "ppos": np.full((17, 2), -1, np.int8),
    }
    for r in range(MAP):
        for c in range(MAP):
            k = int(cell[r, c])
            name = (
                "xbits" if k == EXIT else "sbits" if k in SEALED else None if k in (WALL, WATER) else "wbits"
            )
            if name:
                out[name][r + 1] |= 1 << c
            if chip[r, c]:
                out["cbits"][r + 1] |= 1 << c
            if out["kpos"][k, 0] < 0 and k not in (FLOOR, WALL, WATER, PLACE):
                out["kpos"][k] = (r, c)
            if place[r, c] >= 0 and out["ppos"][place[r, c], 0] < 0:
                out["ppos"][place[r, c]] = (r, c)
    return out


def assert_derived_fields(state, where="") -> None:
    """Every env of a State keeps its map-derived fields equal to a fresh recomputation."""
    for i in range(state.shape[0]):
        e = state[i]
        for name, value in derived_map_fields(e["cell"], e["chip"], e["place"]).items():
            assert np.array_equal(e[name], value), (where, i, name)


class Reference:
    def __init__(self, boards, num_humans, team, max_rounds, layout, side, rot, rng_word):
        self.rng = Rng(rng_word)
        self.n = num_humans
        self.team = team
        self.max_rounds = max_rounds
        if layout < 0:
            layout = self.rng.randint(576)
        if side < 0:
            side = self.rng.randint(2)
        if rot < 0:
            rot = self.rng.randint(4)
        self.layout = layout
        self.cell = build_map(boards, layout, side, rot).copy()
        self.chip = np.zeros((MAP, MAP), np.uint8)
        self.place = np.full((MAP, MAP), -1, np.int8)
        k = 0
        for r in range(MAP):
            for c in range(MAP):
                if self.cell[r, c] == PLACE:
                    self.chip[r, c] = 1
                    self.place[r, c] = k
                    k += 1
        deck = list(DECK)
        for j in range(len(deck) - 1, 0, -1):
            x = self.rng.randint(j + 1)
            deck[j], deck[x] = deck[x], deck[j]
        self.deck = deck  # the bottom card is deck[-1]
        self.pos = [None] * num_humans  # (r, c) or None
        self.height = [0] * num_humans
        self.counter = 0
        self.entered = [False] * num_humans
        self.captured = [False] * num_humans
        self.skip = [False] * num_humans
        self.items = [[0] * 5 for _ in range(num_humans)]
        self.ghosts = [None, None, None]
        self.ghosts[0] = self.find(GHOST_START)
        self.confiscated = [0] * 5
        self.used = [0] * 5
        self.round = 0
        self.status = 0
        self.winner = -1
        self.phase = OVER
        self.current = 0
        self.roll = 0
        # agenda: contact (ghost, queue, k), item chip, then the turn cursor
        self.contact = None
        self.chip_pending = False
        self.cursor = ("turn", 0)  # ("turn", seat) | ("ghost", g, rolled, moves, last_dir) | ("round_end",)
        self.run()

    # --- helpers -----------------------------------------------------------------------
    def find(self, kind):
        hits = np.argwhere(self.cell == kind)
        return (int(hits[0][0]), int(hits[0][1])) if len(hits) else None

    def humans_on(self, q):
        return [h for h in range(self.n) if self.pos[h] == q]

    def ghost_on(self, q):
        for g in range(3):
            if self.ghosts[g] == q:
                return g
        return -1

    def top(self, h):
        self.counter += 1
        self.height[h] = self.counter

    def ghost_free(self, q):
        r, c = q
        if not (0 <= r < MAP and 0 <= c < MAP):
            return False
        k = self.cell[r, c]
        return k not in (WALL, EXIT) + SEALED and self.chip[r, c] == 0

    # --- contact and capture -------------------------------------------------------------
    def meet(self, g):
        q = self.ghosts[g]
        hs = sorted(self.humans_on(q), key=lambda h: -self.height[h])
        if hs:
            self.contact = [g, hs, 0]

    def capture(self, q):
        for h in self.humans_on(q):
            self.captured[h] = True
            self.pos[h] = None
            self.skip[h] = False
            for k in range(5):
                self.confiscated[k] += self.items[h][k]
            self.items[h] = [0] * 5
            self.chip_pending = True

    def chip_places(self):
        return [
            (int(r), int(c))
            for r, c in np.argwhere(self.place >= 0)
            if self.chip[r, c] == 0 and not self.humans_on((r, c)) and self.ghost_on((r, c)) < 0
        ]

    # --- the engine --------------------------------------------------------------------------
    def run(self):
        while True:
            if self.status:
                self.phase = OVER
                return
            if self.contact is not None:
                g, hs, k = self.contact
                while k < len(hs) and self.items[hs[k]][CROSS] == 0:
                    k += 1
                self.contact[2] = k
                if k < len(hs):
                    self.phase, self.current = CROSSQ, hs[k]
                    return
                self.capture(self.ghosts[g])
                self.contact = None
                continue
            if self.chip_pending:
                self.chip_pending = False
                if sum(self.confiscated) and not (self.chip == 2).any() and self.chip_places():
                    self.phase, self.current = CHIP, self.n
                    return
                continue
            kind = self.cursor[0]
            if kind == "turn":
                seat = self.cursor[1]
                if seat < self.n:
                    if self.human_turn(seat):
                        return
                else:
                    self.ghost_turn()
            elif kind == "ghost":
                if self.ghost_step():
                    return
            else:
                self.round += 1
                if self.round >= self.max_rounds:
                    self.status = 2
                self.cursor = ("turn", 0)

    def human_turn(self, h):
        if self.captured[h]:
            self.cursor = ("turn", h + 1)
            if self.rng.die() == 6:
                q = self.find(RESTART)
                self.captured[h] = False
                self.entered[h] = True
                self.pos[h] = q
                self.top(h)
                g = self.ghost_on(q)
                if g >= 0:
                    self.meet(g)
            return False
        if self.skip[h]:
            self.skip[h] = False
            self.cursor = ("turn", h + 1)
            return False
        if not self.entered[h]:
            q = self.find(START)
            self.entered[h] = True
            self.pos[h] = q
            self.top(h)
            g = self.ghost_on(q)
            if g >= 0:
                self.cursor = ("turn", h + 1)
                self.meet(g)
                return False
        self.current = h
        if self.items[h][DOUBLE] or self.items[h][MOVE7]:
            self.phase = ITEM
            self.roll = 0  # not rolled yet
        else:
            self.roll = self.rng.die()
            self.phase = MOVE
        return True

    def ghost_turn(self):
        if all(q is None for q in self.ghosts):
            self.cursor = ("round_end",)
            if self.rng.die() == 6:
                self.ghosts[0] = self.find(GHOST_START)
                self.meet(0)
            return
        self.cursor = ("ghost", 0, False, 0, -1)

    def ghost_step(self):
        _, g, rolled, moves, last = self.cursor
        if g >= 3:
            self.cursor = ("round_end",)
            return False
        if self.ghosts[g] is None:
            self.cursor = ("ghost", g + 1, False, 0, -1)
            return False
        if not rolled:
            self.roll = self.rng.die()
            moves = (self.roll + 1) // 2
            self.cursor = ("ghost", g, True, moves, -1)
        if moves <= 0 or not self.ghost_options():
            self.cursor = ("ghost", g + 1, False, 0, -1)
            return False
        self.phase, self.current = GHOST, self.n
        return True

    # --- legal actions --------------------------------------------------------------------
    def ghost_options(self):
        _, g, _, moves, last = self.cursor
        r, c = self.ghosts[g]
        opts = set()
        for d, (dr, dc) in enumerate(DIRS):
            q1 = (r + dr, c + dc)
            if not (0 <= q1[0] < MAP and 0 <= q1[1] < MAP):
                continue
            if self.ghost_free(q1):
                opts.add(SLIDE_OFFSET + d)
            elif (
                moves >= 2 and self.cell[q1] in (WALL,) + SEALED and self.ghost_free((r + 2 * dr, c + 2 * dc))
            ):
                opts.add(PASS_OFFSET + d)
        if last >= 0:
            back = {SLIDE_OFFSET + (last + 2) % 4, PASS_OFFSET + (last + 2) % 4}
            if opts - back:
                opts -= back
        return opts

    def destinations(self, h, length):
        key = self.items[h][KEY] > 0
        pick = self.items[h][PICKAXE] > 0
        ghosts = {q for q in self.ghosts if q is not None}
        dests = set()
        frontier = {(self.pos[h], None)}
        longest = 0
        last_frontier, last_t = frontier, 0
        for t in range(1, length + 1):
            nxt = set()
            for (r, c), came in frontier:
                for d, (dr, dc) in enumerate(DIRS):
                    if came is not None and d == (came + 2) % 4:
                        continue
                    q = (r + dr, c + dc)
                    if not (0 <= q[0] < MAP and 0 <= q[1] < MAP):
                        continue
                    k = self.cell[q]
                    ends = (
                        (k == EXIT and key)
                        or (k in SEALED and pick)
                        or (q in ghosts and k not in (WALL, WATER, EXIT) + SEALED)
                    )
                    if ends:
                        dests.add(q)
                        longest = max(longest, t)
                        continue
                    if k in (WALL, WATER, EXIT) + SEALED:
                        continue
                    if self.chip[q]:
                        dests.add(q)
                    nxt.add((q, d))
            if not nxt:
                break
            frontier = nxt
            last_frontier, last_t = nxt, t
            longest = max(longest, t)
        if last_t >= 1 and last_t >= longest:
            dests |= {q for q, _ in last_frontier}
        elif longest == 0:
            dests.add(self.pos[h])
        return dests

    def legal(self):
        if self.status:
            return set()
        h = self.current
        if self.phase == ITEM:
            out = {ITEM_NONE}
            if self.items[h][DOUBLE]:
                out.add(ITEM_DOUBLE)
            if self.items[h][MOVE7]:
                out.add(ITEM_MOVE7)
            return out
        if self.phase == MOVE:
            return {DEST_OFFSET + r * MAP + c for r, c in self.destinations(h, self.roll)}
        if self.phase == CROSSQ:
            return {CROSS_NO, CROSS_YES}
        if self.phase == GHOST:
            return self.ghost_options()
        if self.phase == CHIP:
            return {CHIP_OFFSET + int(self.place[q]) for q in self.chip_places()}
        return set()

    # --- actions ----------------------------------------------------------------------------
    def step(self, a):
        assert a in self.legal()
        h = self.current
        if self.phase == ITEM:
            if a == ITEM_DOUBLE:
                self.items[h][DOUBLE] -= 1
                self.used[DOUBLE] += 1
                self.roll = self.rng.die() + self.rng.die()
            elif a == ITEM_MOVE7:
                self.items[h][MOVE7] -= 1
                self.used[MOVE7] += 1
                self.roll = 7
            else:
                self.roll = self.rng.die()
            self.phase = MOVE
            return
        if self.phase == MOVE:
            self.move(h, divmod(a - DEST_OFFSET, MAP))
        elif self.phase == CROSSQ:
            g, hs, k = self.contact
            if a == CROSS_YES:
                self.items[h][CROSS] -= 1
                self.used[CROSS] += 1
                q = self.ghosts[g]
                self.ghosts[g] = None
                self.contact = None
                g2 = self.ghost_on(q)
                if g2 >= 0:
                    self.meet(g2)
            else:
                self.contact[2] = k + 1
        elif self.phase == GHOST:
            self.ghost_move(a)
        elif self.phase == CHIP:
            r, c = np.argwhere(self.place == a - CHIP_OFFSET)[0]
            self.chip[r, c] = 2
        self.run()

    def can_step(self, h):
        """Whether human h has a first step (so ending on its own square is a loop back)."""
        key = self.items[h][KEY] > 0
        pick = self.items[h][PICKAXE] > 0
        r, c = self.pos[h]
        for dr, dc in DIRS:
            q = (r + dr, c + dc)
            if not (0 <= q[0] < MAP and 0 <= q[1] < MAP):
                continue
            k = self.cell[q]
            if k not in (WALL, WATER, EXIT) + SEALED or (k == EXIT and key) or (k in SEALED and pick):
                return True
        return False

    def move(self, h, q):
        self.cursor = ("turn", h + 1)
        if q == self.pos[h] and not self.can_step(h):
            return  # could not move: stays (a walk looping back to its square arrives)
        self.pos[h] = q
        k = self.cell[q]
        if k == EXIT:
            self.items[h][KEY] -= 1
            self.used[KEY] += 1
            self.status, self.winner = 1, h
            self.top(h)
            return
        if k in SEALED:
            self.items[h][PICKAXE] -= 1
            self.used[PICKAXE] += 1
            self.cell[q] = FLOOR
        g = self.ghost_on(q)
        self.top(h)
        if g >= 0:
            self.meet(g)
            return
        for b in range(self.n):
            if b != h and self.pos[b] == q:
                total = sum(self.items[b])
                if total:
                    x = self.rng.randint(total)
                    for kind in range(5):
                        if x < self.items[b][kind]:
                            self.items[b][kind] -= 1
                            self.items[h][kind] += 1
                            break
                        x -= self.items[b][kind]
                self.skip[b] = True
        if self.chip[q] == 1:
            self.chip[q] = 0
            self.draw(h)
        elif self.chip[q] == 2:
            self.chip[q] = 0
            for kind in range(5):
                self.items[h][kind] += self.confiscated[kind]
            self.confiscated = [0] * 5

    def draw(self, h):
        if not self.deck:
            return
        card = self.deck.pop()
        if card >= 6:
            self.items[h][card - 6] += 1
            return
        self.last_card = card
        if card == 0:
            if None in self.ghosts:
                g = self.ghosts.index(None)
                self.ghosts[g] = self.find(GHOST_START)
                self.meet(g)
        elif card in (1, 2, 3):
            q = self.find(DOORS[card - 1])
            if q is None:
                return
            self.cell[q] = SEALED[card - 1]
            self.capture(q)
            home = self.find(GHOST_START)
            moved = False
            for g in range(3):
                if self.ghosts[g] == q:
                    self.ghosts[g] = home
                    moved = True
            if moved:
                self.meet(self.ghost_on(home))
        elif card == 4:
            kind = self.rng.randint(2)
            a = self.rng.randint(4)
            b = self.rng.randint(3)
            if b >= a:
                b += 1
            slots = CORNER_SLOTS if kind == 0 else EDGE_SLOTS
            self.swap(slots[a], slots[b], (b - a) % 4)
        else:
            self.swap(CENTRE_SLOT, CENTRE_SLOT, 1)

    def swap(self, sa, sb, k):
        """Board at slot sa -> slot sb turned k quarter turns clockwise (and back)."""
        grids = (self.cell, self.chip, self.place)
        ba = [g[sa[0] * 7 : sa[0] * 7 + 7, sa[1] * 7 : sa[1] * 7 + 7].copy() for g in grids]
        bb = [g[sb[0] * 7 : sb[0] * 7 + 7, sb[1] * 7 : sb[1] * 7 + 7].copy() for g in grids]
        for g, a_, b_ in zip(grids, ba, bb):
            g[sb[0] * 7 : sb[0] * 7 + 7, sb[1] * 7 : sb[1] * 7 + 7] = np.rot90(a_, -k)
            if sa != sb:
                g[sa[0] * 7 : sa[0] * 7 + 7, sa[1] * 7 : sa[1] * 7 + 7] = np.rot90(b_, k)

        def moved(q):
            if q is None:
                return None
            r, c = q
            if (r // 7, c // 7) == sa:
                rr, cc = rot_local(r % 7, c % 7, k)
                return (sb[0] * 7 + rr, sb[1] * 7 + cc)
            if (r // 7, c // 7) == sb:
                rr, cc = rot_local(r % 7, c % 7, -k)
                return (sa[0] * 7 + rr, sa[1] * 7 + cc)
            return q

        self.pos = [moved(q) for q in self.pos]
        self.ghosts = [moved(q) for q in self.ghosts]

    def ghost_landing(self, a):
        """Where the acting ghost's move ``a`` ends, and whether on a human."""
        g = self.cursor[1]
        r, c = self.ghosts[g]
        if a < PASS_OFFSET:
            dr, dc = DIRS[a - SLIDE_OFFSET]
            while self.ghost_free((r + dr, c + dc)):
                r, c = r + dr, c + dc
                if self.humans_on((r, c)):
                    return (r, c), True
            return (r, c), False
        dr, dc = DIRS[a - PASS_OFFSET]
        r, c = r + 2 * dr, c + 2 * dc
        return (r, c), bool(self.humans_on((r, c)))

    def ghost_move(self, a):
        _, g, rolled, moves, last = self.cursor
        (r, c), hit = self.ghost_landing(a)
        if a < PASS_OFFSET:
            d = a - SLIDE_OFFSET
            moves -= 1
        else:
            d = a - PASS_OFFSET
            moves -= 2
        self.ghosts[g] = (r, c)
        self.cursor = ("ghost", g, rolled, moves, d)
        if hit:
            self.cursor = ("ghost", g + 1, False, 0, -1)
            self.meet(g)

    def reward(self, seat):
        if self.status == 0:
            return 0.0
        if self.status == 1:
            if seat == self.n:
                return -1.0
            return 1.0 if self.team or seat == self.winner else -1.0
        return 1.0 if seat == self.n else -1.0
