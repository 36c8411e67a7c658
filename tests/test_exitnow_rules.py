"""Scripted scenarios of Exit Now (``docs/rules/exitnow.md``) on small hand-made maps.

A :class:`Scene` draws a map from text in the top-left corner of the 21x21 map (the rest
is wall), puts pieces and a known event deck on it, sets the pending decision and plays
actions through ``rules.apply_action_r``. Each assertion fails if the named rule breaks.
"""

from __future__ import annotations

import numpy as np
import pytest
from exitnow_reference import assert_derived_fields

from exitnow_envs import rules
from exitnow_envs.spec import (
    ADD_GHOST,
    CENTRE_ROTATION,
    CHAR_KIND,
    CHIP_OFFSET,
    CROSS,
    CROSS_NO,
    CROSS_YES,
    DEST_OFFSET,
    FLOOR,
    I_CROSS,
    I_DOUBLE,
    I_KEY,
    I_MOVE7,
    I_PICKAXE,
    ITEM_DOUBLE,
    ITEM_MOVE7,
    ITEM_NONE,
    KEY,
    MAP,
    MAP_SWAP,
    NUM_ACTIONS,
    PASS_OFFSET,
    PLACE,
    SEAL_A,
    SEAL_B,
    SEALED_A,
    SLIDE_OFFSET,
    WALL,
    Options,
    Phase,
    Status,
)
from exitnow_envs.state import new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

UP, RIGHT, DOWN, LEFT = range(4)


class Scene:
    """A batch-of-one State on a hand-drawn map.

    Map characters: the board legend plus ``o`` (event-chip place without chip), ``$``
    (place with the item chip) and ``a``/``b``/``c`` (sealed doors A/B/C)."""

    def __init__(self, rows, humans=1, team=False, max_rounds=30, seed=0):
        self.n = humans
        s = new_state(1, Options(num_humans=humans, team=team, max_rounds=max_rounds))
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        e = s[0]
        e["cell"][:, :] = WALL
        e["chip"][:, :] = 0
        e["place"][:, :] = -1
        p = 0
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch in "o$?":
                    e["cell"][r, c] = PLACE
                    e["place"][r, c] = p
                    e["chip"][r, c] = {"o": 0, "$": 2, "?": 1}[ch]
                    p += 1
                elif ch in "abc":
                    e["cell"][r, c] = SEALED_A + "abc".index(ch)
                else:
                    e["cell"][r, c] = CHAR_KIND[ch]
        e["hpos"][:, :] = -1
        e["entered"][:] = 1
        e["gon"][:] = 0
        e["gpos"][:, :] = -1
        e["items"][:, :] = 0
        e["round"] = 0
        self.s = s
        self.sync()

    def sync(self):
        """After editing the map by hand: recompute the State's map-derived fields."""
        at(rules.sync_map_r, self.s, 0)
        return self

    @property
    def e(self):
        return self.s[0]

    # --- set-up -------------------------------------------------------------------------
    def human(self, h, r, c, **items):
        e = self.e
        e["hpos"][h] = (r, c)
        e["height_counter"] += 1
        e["hheight"][h] = e["height_counter"]
        for name, k in items.items():
            e["items"][
                h,
                {"key": I_KEY, "cross": I_CROSS, "double": I_DOUBLE, "move7": I_MOVE7, "pickaxe": I_PICKAXE}[
                    name
                ],
            ] = k
        return self

    def ghost(self, g, r, c):
        self.e["gon"][g] = 1
        self.e["gpos"][g] = (r, c)
        return self

    def deck(self, *cards):
        """The next cards drawn, first one first (the bottom of the deck)."""
        e = self.e
        e["deck"][: len(cards)] = list(reversed(cards))
        e["deck_n"] = len(cards)
        return self

    def _clear(self):
        e = self.e
        e["contact_n"] = 0
        e["contact_ghost"] = -1
        e["pending_chip"] = 0
        e["status"] = 0

    def move_turn(self, h, roll):
        """Human ``h`` has rolled ``roll`` and chooses a destination."""
        self._clear()
        e = self.e
        e["phase"] = Phase.MOVE
        e["current"] = h
        e["turn_seat"] = h
        e["stage"] = rules.ST_TURN
        e["roll"] = roll
        return self

    def ghost_turn(self, g, moves, last_dir=-1):
        """Ghost ``g`` of the ghost player has ``moves`` moves left this turn."""
        self._clear()
        e = self.e
        e["phase"] = Phase.GHOST
        e["current"] = self.n
        e["turn_seat"] = self.n
        e["stage"] = rules.ST_GHOST
        e["ghost_idx"] = g
        e["ghost_rolled"] = 1
        e["moves_left"] = moves
        e["last_dir"] = last_dir
        return self

    def next_dice(self, *rolls):
        """Choose the env generator word so that the next dice are ``rolls``."""
        for k in range(200000):
            t = self.s.copy()
            t["rng"][0] = seed_word(k)
            if all(at(rules.die_r, t, 0) == want for want in rolls):
                self.s["rng"][0] = seed_word(k)
                return self
        raise AssertionError("no seed found")

    def start_turn(self, seat):
        """Run the engine from the start of ``seat``'s turn."""
        self._clear()
        e = self.e
        e["stage"] = rules.ST_TURN
        e["turn_seat"] = seat
        at(rules.proceed_r, self.s, 0)
        return self

    # --- reading / acting ---------------------------------------------------------------
    def mask(self):
        m = np.zeros(NUM_ACTIONS, np.int8)
        at(rules.legal_mask_r, self.s, 0, m[None, :], 0)
        return m

    def legal(self):
        return set(np.flatnonzero(self.mask()).tolist())

    def dests(self):
        return {divmod(a - DEST_OFFSET, MAP) for a in self.legal() if DEST_OFFSET <= a < CROSS_NO}

    def act(self, a):
        assert a in self.legal(), (a, sorted(self.legal()))
        assert at(rules.is_legal_r, self.s, 0, a)
        at(rules.apply_action_r, self.s, 0, a)
        assert_derived_fields(self.s, a)
        return self

    def go(self, r, c):
        return self.act(DEST_OFFSET + r * MAP + c)

    def pos(self, h):
        return tuple(int(x) for x in self.e["hpos"][h])

    def gpos(self, g):
        return tuple(int(x) for x in self.e["gpos"][g]) if self.e["gon"][g] else None

    @property
    def phase(self):
        return Phase(int(self.e["phase"]))


ROOM = [
    "#######",
    "#.....#",
    "#.....#",
    "#.....#",
    "#.....#",
    "#.....#",
    "#######",
]


# --- human moves -------------------------------------------------------------------------------
def test_exact_length_without_stepping_straight_back():
    sc = Scene(ROOM).human(0, 3, 3).move_turn(0, 2)
    assert sc.dests() == {(1, 3), (5, 3), (3, 1), (3, 5), (2, 2), (2, 4), (4, 2), (4, 4)}
    sc.move_turn(0, 3)
    d3 = {(3 + a, 3 + b) for a in (-2, -1, 1, 2) for b in (-2, -1, 1, 2) if abs(a) + abs(b) == 3}
    d1 = {(2, 3), (4, 3), (3, 2), (3, 4)}
    assert sc.dests() == d3 | d1
    sc.move_turn(0, 4)
    assert (3, 3) in sc.dests()  # a loop around a square is allowed
    sc.go(5, 5)
    assert sc.pos(0) == (5, 5)


def test_stop_early_on_an_event_chip_and_draw_the_bottom_card():
    sc = Scene(["#########", "#..?....#", "#########"]).human(0, 1, 1).deck(KEY, CROSS)
    sc.move_turn(0, 4)
    assert sc.dests() == {(1, 3), (1, 5)}  # the chip (early stop) or the full four squares
    sc.go(1, 3)
    e = sc.e
    assert e["chip"][1, 3] == 0 and e["deck_n"] == 1
    assert e["items"][0, I_KEY] == 1 and e["items"][0, I_CROSS] == 0  # the bottom card: Key
    sc.e["hpos"][0] = (1, 1)
    sc.move_turn(0, 4)
    assert sc.dests() == {(1, 5)}  # the chip is gone: its place is plain floor now


def test_passing_humans_and_landing_on_humans_steals_and_skips():
    rows = ["##########", "#........#", "##########", "#.......G#", "##########"]
    sc = Scene(rows, humans=3).human(1, 1, 2).human(2, 1, 4, key=1).human(0, 1, 1)
    sc.ghost(0, 3, 3)
    sc.move_turn(0, 3)
    assert sc.dests() == {(1, 4)}  # human_1 on the way is passed over
    sc.go(1, 4)
    e = sc.e
    assert e["items"][0, I_KEY] == 1 and e["items"][2].sum() == 0  # one random card taken
    assert e["skip"][2] == 1 and e["skip"][1] == 0
    assert e["hheight"][0] > e["hheight"][2]  # the newcomer goes on top
    assert sc.phase == Phase.MOVE and e["current"] == 1  # human_1's turn
    sc.go(*sorted(sc.dests())[0])
    # human_2 loses this turn: the ghost player is next
    assert e["current"] == 3 and sc.phase == Phase.GHOST and e["skip"][2] == 0


def test_landing_on_a_stack_steals_from_everyone_below():
    sc = Scene(["#########", "#.......#", "#########", "#G......#", "#########"], humans=3)
    sc.human(0, 1, 4, cross=1).human(1, 1, 4, pickaxe=1).human(2, 1, 2).ghost(0, 3, 1)
    sc.move_turn(2, 2).go(1, 4)
    assert sc.e["items"][2, I_CROSS] == 1 and sc.e["items"][2, I_PICKAXE] == 1
    assert sc.e["skip"][0] == 1 and sc.e["skip"][1] == 1 and sc.e["current"] == 3


def test_entering_a_ghost_ends_the_move_and_captures_without_a_cross():
    rows = ["#########", "#.......#", "#o#######", "#########"]
    sc = Scene(rows).human(0, 1, 1, key=1, move7=1).ghost(0, 1, 3)
    sc.move_turn(0, 5)
    # the ghost ends every walk through it; the dead end below is shorter than that walk
    assert sc.dests() == {(1, 3)}
    sc.go(1, 3)
    e = sc.e
    assert e["captured"][0] == 1 and sc.pos(0) == (-1, -1)
    assert e["items"][0].sum() == 0 and e["confiscated"][I_KEY] == 1 and e["confiscated"][I_MOVE7] == 1
    # the ghost player puts the item chip on a free event-chip place
    assert sc.phase == Phase.CHIP and e["current"] == 1
    assert sc.legal() == {CHIP_OFFSET + 0}
    sc.act(CHIP_OFFSET + 0)
    assert e["chip"][2, 1] == 2


def test_a_cross_banishes_the_ghost():
    sc = Scene(["#########", "#.......#", "#########"], humans=2).human(0, 1, 1, cross=1).ghost(0, 1, 3)
    sc.human(1, 1, 7)
    sc.move_turn(0, 4).go(1, 3)
    assert sc.phase == Phase.CROSS and sc.e["current"] == 0
    assert sc.legal() == {CROSS_NO, CROSS_YES}
    sc.act(CROSS_YES)
    e = sc.e
    assert e["gon"][0] == 0 and e["used"][I_CROSS] == 1 and e["items"][0, I_CROSS] == 0
    assert sc.pos(0) == (1, 3) and e["captured"][0] == 0
    assert e["current"] == 1  # the next human's turn


def test_declining_the_cross_means_capture():
    sc = Scene(["#########", "#.......#", "#########"]).human(0, 1, 1, cross=1).ghost(0, 1, 3)
    sc.move_turn(0, 4).go(1, 3).act(CROSS_NO)
    assert sc.e["captured"][0] == 1 and sc.e["confiscated"][I_CROSS] == 1 and sc.e["gon"][0] == 1


def test_exit_with_a_key_wins_at_once_and_is_closed_without():
    rows = ["###E####", "#......#", "########"]
    sc = Scene(rows, humans=2).human(0, 1, 1).human(1, 1, 6)
    sc.move_turn(0, 3)
    assert (0, 3) not in sc.dests()
    sc.e["items"][0, I_KEY] = 1
    sc.move_turn(0, 5)
    assert (0, 3) in sc.dests()  # an early stop: the human wins at once
    sc.go(0, 3)
    e = sc.e
    assert e["status"] == Status.HUMAN_WIN and e["winner"] == 0 and sc.phase == Phase.OVER
    assert [at(rules.seat_reward_r, sc.s, 0, k) for k in range(3)] == [1.0, -1.0, -1.0]
    e["cfg_team"] = 1
    assert [at(rules.seat_reward_r, sc.s, 0, k) for k in range(3)] == [1.0, 1.0, -1.0]
    assert sc.legal() == set()


def test_a_pickaxe_destroys_a_sealed_door_and_ends_the_move_there():
    rows = ["#########", "#..b....#", "#########"]
    sc = Scene(rows).human(0, 1, 1)
    sc.move_turn(0, 4)
    assert sc.dests() == {(1, 2)}  # sealed door blocks: longest walk is one square
    sc.e["items"][0, I_PICKAXE] = 1
    sc.move_turn(0, 4)
    assert sc.dests() == {(1, 3)}
    sc.go(1, 3)
    assert sc.e["cell"][1, 3] == FLOOR and sc.e["used"][I_PICKAXE] == 1 and sc.e["items"][0].sum() == 0


def test_a_human_that_cannot_move_stays():
    sc = Scene(["###", "#.#", "###"]).human(0, 1, 1).move_turn(0, 4)
    assert sc.dests() == {(1, 1)}
    sc.go(1, 1)
    assert sc.pos(0) == (1, 1)


def test_first_turn_enters_at_the_start_square_then_moves():
    rows = ["#######", "#S....#", "#######", "#G....#", "#######"]
    sc = Scene(rows)
    sc.e["entered"][0] = 0
    sc.ghost(0, 3, 3)
    sc.next_dice(2).start_turn(0)
    assert sc.pos(0) == (1, 1) and sc.phase == Phase.MOVE and sc.e["roll"] == 2
    assert sc.dests() == {(1, 3)}


# --- items ---------------------------------------------------------------------------------
def test_no_item_means_no_item_question():
    sc = Scene(ROOM).human(0, 3, 3).ghost(0, 1, 1).next_dice(5).start_turn(0)
    assert sc.phase == Phase.MOVE and sc.e["roll"] == 5


def test_double_dice_and_move_seven():
    sc = Scene(ROOM).human(0, 3, 3, double=1, move7=1).ghost(0, 1, 1).next_dice(4, 6).start_turn(0)
    assert sc.phase == Phase.ITEM and sc.legal() == {ITEM_NONE, ITEM_DOUBLE, ITEM_MOVE7}
    before = sc.s.copy()
    sc.act(ITEM_DOUBLE)
    assert sc.e["roll"] == 10 and sc.e["used"][I_DOUBLE] == 1 and sc.e["items"][0, I_DOUBLE] == 0
    assert sc.phase == Phase.MOVE
    sc.s[...] = before
    sc.act(ITEM_MOVE7)
    assert sc.e["roll"] == 7 and sc.e["used"][I_MOVE7] == 1
    sc.s[...] = before
    sc.act(ITEM_NONE)
    assert sc.e["roll"] == 4 and sc.e["items"][0].sum() == 2


# --- events --------------------------------------------------------------------------------
EVENT_MAP = ["##########", "#G..?...A#", "#........#", "##########", "#R.B....##", "##########"]


def test_add_ghost_appears_on_the_ghost_start():
    sc = Scene(EVENT_MAP).human(0, 2, 4).ghost(0, 2, 8).deck(ADD_GHOST, ADD_GHOST, ADD_GHOST)
    sc.move_turn(0, 1).go(1, 4)
    assert sc.gpos(1) == (1, 1) and sc.e["last_card"] == ADD_GHOST
    for _ in range(2):
        sc.e["chip"][1, 4] = 1
        sc.sync()
        sc.e["hpos"][0] = (2, 4)
        sc.move_turn(0, 1).go(1, 4)
    assert sc.gpos(2) == (1, 1)
    assert sc.e["gon"].sum() == 3 and sc.e["deck_n"] == 0  # a fourth ghost does not exist


def test_add_ghost_onto_humans_makes_contact():
    sc = Scene(EVENT_MAP, humans=2).human(1, 1, 1).human(0, 2, 4).deck(ADD_GHOST)
    sc.move_turn(0, 1).go(1, 4)
    assert sc.e["captured"][1] == 1 and sc.gpos(0) == (1, 1)


def test_seal_door_kills_the_human_on_it_and_sends_a_ghost_home():
    sc = Scene(EVENT_MAP, humans=2).human(1, 1, 8, key=1).human(0, 2, 4).deck(SEAL_A, SEAL_B)
    sc.move_turn(0, 1).go(1, 4)
    e = sc.e
    assert e["cell"][1, 8] == SEALED_A and e["captured"][1] == 1 and e["confiscated"][I_KEY] == 1
    sc.ghost(0, 4, 3)
    e["chip"][1, 4] = 1
    sc.sync()
    e["hpos"][0] = (2, 4)
    sc.move_turn(0, 1).go(1, 4)
    assert e["cell"][4, 3] == SEALED_A + 1 and sc.gpos(0) == (1, 1)


def test_map_swap_moves_pieces_and_chips_with_their_boards():
    s = new_state(1, Options(num_humans=2))
    s["rng"][0] = seed_word(3)
    at(rules.deal_r, s, 0)
    e = s[0]
    e["hpos"][0] = (1, 1)  # top-left corner board
    e["hpos"][1] = (19, 19)  # bottom-right corner board
    e["gpos"][0] = (2, 2)
    kinds = (int(e["cell"][1, 1]), int(e["cell"][19, 19]))
    chips_tl = int((e["chip"][:7, :7] == 1).sum())
    at(rules.map_swap_r, s, 0, 0, 0, 2)  # corners top-left <-> bottom-right: turned twice
    assert tuple(e["hpos"][0]) == (19, 19) and tuple(e["hpos"][1]) == (1, 1)
    assert tuple(e["gpos"][0]) == (18, 18)
    assert (int(e["cell"][19, 19]), int(e["cell"][1, 1])) == kinds
    assert int((e["chip"][14:, 14:] == 1).sum()) == chips_tl
    at(rules.map_swap_r, s, 0, 0, 0, 1)  # top-left -> top-right: one quarter turn
    assert tuple(e["hpos"][1]) == (1, 19)


def test_map_swap_and_centre_rotation_events():
    s = new_state(1, Options(num_humans=2))
    s["rng"][0] = seed_word(9)
    at(rules.deal_r, s, 0)
    e = s[0]
    (cr, cc) = np.argwhere(e["place"][7:14, 7:14] >= 0)[0] + 7  # the centre's chip place
    e["hpos"][0] = (cr, cc)
    e["hpos"][1] = (7, 10)  # centre piece, top middle
    e["gon"][1] = 1
    e["gpos"][1] = (8, 7)
    e["deck"][e["deck_n"] - 1] = CENTRE_ROTATION
    e["chip"][cr, cc] = 0
    at(rules.sync_map_r, s, 0)
    at(rules.draw_event_r, s, 0, 0)
    assert tuple(e["hpos"][1]) == (10, 13)  # (0, 3) -> (3, 6) in the centre piece
    assert tuple(e["gpos"][1]) == (7, 12)  # (1, 0) -> (0, 5)
    before = e["cell"].copy()
    e["deck"][e["deck_n"] - 1] = MAP_SWAP
    at(rules.draw_event_r, s, 0, 0)
    assert not np.array_equal(before, e["cell"])
    assert np.array_equal(before[7:14, 7:14], e["cell"][7:14, 7:14])  # the centre never swaps
    assert e["last_card"] == MAP_SWAP


# --- ghosts ------------------------------------------------------------------------------------
GHOST_ROOM = [
    "###########",
    "#.........#",
    "#.~...#.?.#",
    "#.........#",
    "###E#######",
]


def test_a_ghost_slides_until_an_obstacle():
    sc = Scene(GHOST_ROOM).human(0, 3, 9).ghost(0, 2, 1)
    sc.ghost(1, 2, 4)
    sc.ghost_turn(0, 3)
    sc.act(SLIDE_OFFSET + RIGHT)
    assert sc.gpos(0) == (2, 5)  # over water and ghost 2, stops before the wall
    sc.ghost_turn(0, 3)
    sc.e["gpos"][0] = (2, 7)
    assert SLIDE_OFFSET + RIGHT not in sc.legal()  # the event chip is an obstacle next to it
    sc.ghost_turn(0, 3)
    sc.e["gpos"][0] = (1, 3)
    sc.act(SLIDE_OFFSET + DOWN)
    assert sc.gpos(0) == (3, 3)  # the exit door below is an obstacle


def test_a_ghost_captures_the_first_human_on_its_way_and_its_turn_ends():
    sc = Scene(GHOST_ROOM, humans=2).human(0, 1, 5).human(1, 1, 8).ghost(0, 1, 1).ghost(1, 3, 1)
    sc.ghost_turn(0, 3)
    sc.act(SLIDE_OFFSET + RIGHT)
    e = sc.e
    assert sc.gpos(0) == (1, 5) and e["captured"][0] == 1 and e["captured"][1] == 0
    assert e["ghost_idx"] == 1 and e["current"] == 2 and sc.phase == Phase.GHOST  # ghost 2 now


def test_stacked_humans_are_asked_for_a_cross_top_first():
    sc = Scene(GHOST_ROOM, humans=3).human(0, 1, 5, key=1).human(1, 1, 5, cross=1).human(2, 1, 5, cross=1)
    sc.ghost(0, 1, 1).ghost(1, 3, 1).ghost_turn(0, 2)  # ghost 2 keeps the engine waiting after
    sc.act(SLIDE_OFFSET + RIGHT)
    assert sc.phase == Phase.CROSS and sc.e["current"] == 2  # the top human first
    sc.act(CROSS_NO)
    assert sc.phase == Phase.CROSS and sc.e["current"] == 1
    sc.act(CROSS_YES)
    e = sc.e
    assert e["gon"][0] == 0 and e["captured"].sum() == 0 and e["items"][2, I_CROSS] == 1
    # nobody uses one: all are captured
    sc2 = Scene(GHOST_ROOM, humans=3).human(0, 1, 5, key=1).human(1, 1, 5, cross=1).human(2, 1, 5)
    sc2.ghost(0, 1, 1).ghost(1, 3, 1).ghost_turn(0, 2).act(SLIDE_OFFSET + RIGHT)
    assert sc2.e["current"] == 1
    sc2.act(CROSS_NO)
    assert sc2.e["captured"][:3].tolist() == [1, 1, 1]
    assert sc2.e["confiscated"][I_KEY] == 1 and sc2.e["confiscated"][I_CROSS] == 1


WALL_ROOM = [
    "#########",
    "#...#...#",
    "#...#...#",
    "#...##..#",
    "#########",
]


def test_wall_pass_costs_two_moves_and_needs_a_thin_wall():
    sc = Scene(WALL_ROOM).human(0, 1, 7).ghost(0, 2, 3).ghost(1, 3, 1).ghost_turn(0, 2)
    assert PASS_OFFSET + RIGHT in sc.legal()
    sc.act(PASS_OFFSET + RIGHT)
    assert sc.gpos(0) == (2, 5) and sc.e["ghost_idx"] == 1  # both moves spent: ghost 2 next
    sc.ghost_turn(0, 1)
    sc.e["gpos"][0] = (2, 3)
    assert PASS_OFFSET + RIGHT not in sc.legal()  # one move left is not enough
    sc.ghost_turn(0, 3)
    sc.e["gpos"][0] = (3, 3)
    assert PASS_OFFSET + RIGHT not in sc.legal()  # a two-square wall cannot be passed
    sc.ghost_turn(0, 3)
    sc.e["gpos"][0] = (1, 3)
    sc.e["hpos"][0] = (1, 5)
    sc.act(PASS_OFFSET + RIGHT)
    assert sc.e["captured"][0] == 1  # landing on a human captures


def test_no_straight_reversal_unless_nothing_else():
    sc = Scene(WALL_ROOM).human(0, 1, 7).ghost(0, 1, 1).ghost_turn(0, 3)
    sc.act(SLIDE_OFFSET + RIGHT)
    assert sc.gpos(0) == (1, 3)
    assert SLIDE_OFFSET + LEFT not in sc.legal() and SLIDE_OFFSET + DOWN in sc.legal()
    corridor = ["#####", "#...#", "#####"]
    sc2 = Scene(corridor).ghost(0, 1, 1).ghost_turn(0, 3)
    sc2.act(SLIDE_OFFSET + RIGHT)
    assert sc2.gpos(0) == (1, 3)
    assert sc2.legal() == {SLIDE_OFFSET + LEFT}  # a dead end: reversing is allowed


@pytest.mark.parametrize("roll,moves", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_a_ghost_makes_ceil_half_its_roll_moves(roll, moves):
    sc = Scene(GHOST_ROOM).human(0, 3, 9).ghost(0, 1, 1).next_dice(roll).start_turn(1)
    assert sc.phase == Phase.GHOST and sc.e["roll"] == roll and sc.e["moves_left"] == moves


def test_a_ghost_without_moves_keeps_its_place():
    rows = ["#####", "#.###", "#####", "#####", "###.#", "#####"]
    sc = Scene(rows).human(0, 4, 3).ghost(0, 1, 1).start_turn(1)
    assert sc.gpos(0) == (1, 1) and sc.e["round"] == 1 and sc.e["current"] == 0


# --- revivals, item chip, end ------------------------------------------------------------------
def test_a_captured_human_comes_back_on_a_six():
    rows = ["#######", "#R....#", "#.....#", "#G....#", "#######"]
    sc = Scene(rows).ghost(0, 3, 1)
    sc.e["captured"][0] = 1
    sc.next_dice(5).start_turn(0)
    assert sc.e["captured"][0] == 1 and sc.e["current"] == 1  # still out; the ghost plays
    sc.next_dice(6).start_turn(0)
    assert sc.e["captured"][0] == 0 and sc.pos(0) == (1, 1) and sc.e["current"] == 1


def test_the_ghost_comes_back_on_a_six_only_when_none_is_out():
    rows = ["#######", "#R....#", "#.....#", "#G....#", "#######"]
    sc = Scene(rows).human(0, 1, 5)
    sc.next_dice(4).start_turn(1)
    assert sc.e["gon"].sum() == 0 and sc.e["round"] == 1
    sc.next_dice(6).start_turn(1)
    assert sc.gpos(0) == (3, 1) and sc.e["current"] == 0  # it moves from the next turn


def test_the_item_chip_gives_the_whole_confiscated_pile():
    sc = Scene(["########", "#..$...#", "########"]).human(0, 1, 1)
    sc.e["confiscated"][I_KEY] = 1
    sc.e["confiscated"][I_CROSS] = 2
    sc.move_turn(0, 5)
    assert (1, 3) in sc.dests()
    sc.go(1, 3)
    assert sc.e["items"][0, I_KEY] == 1 and sc.e["items"][0, I_CROSS] == 2
    assert sc.e["confiscated"].sum() == 0 and sc.e["chip"][1, 3] == 0


def test_the_ghost_wins_after_max_rounds():
    sc = Scene(ROOM, max_rounds=5).human(0, 3, 3)
    sc.e["round"] = 4
    sc.next_dice(1).start_turn(1)  # no ghost out, no six: the round ends
    assert sc.e["status"] == Status.GHOST_WIN and sc.phase == Phase.OVER
    assert [at(rules.seat_reward_r, sc.s, 0, k) for k in range(2)] == [-1.0, 1.0]


def test_a_walk_looping_back_onto_its_own_square_stacks_steals_and_skips():
    # rules "A human's turn" 7: a piece that walked and ends on the square it started from
    # has arrived; human_1 stands there with a key, human_0 (below it) walks the 2x2 loop;
    # a ghost waits in a room of its own
    rows = ["####", "#..#", "#..#", "####", "#..#", "####"]
    sc = Scene(rows, humans=2).human(0, 1, 1).human(1, 1, 1, key=1).ghost(0, 4, 1)
    assert sc.e["hheight"][1] > sc.e["hheight"][0]
    sc.move_turn(0, 4)
    assert sc.dests() == {(1, 1)}  # both ways round the loop come back
    sc.next_dice(2)
    sc.go(1, 1)
    e = sc.e
    assert sc.pos(0) == (1, 1)
    assert e["hheight"][0] > e["hheight"][1]  # the arriving piece goes on top
    assert e["items"][0, I_KEY] == 1 and e["items"][1].sum() == 0  # and steals
    # the human below loses its next turn: the ghost player is next, human_1's skip used up
    assert sc.phase == Phase.GHOST and e["current"] == 2 and e["skip"][1] == 0


def test_a_human_that_cannot_move_stays_without_stacking():
    rows = ["###", "#.#", "###", "#.#", "###"]
    sc = Scene(rows, humans=2).human(0, 1, 1).human(1, 1, 1, key=1).ghost(0, 3, 1).move_turn(0, 4)
    assert sc.dests() == {(1, 1)}
    sc.go(1, 1)  # it cannot move at all: it stays, nothing is stolen, nobody skips
    assert sc.e["items"][1, I_KEY] == 1 and sc.e["items"][0].sum() == 0
    assert sc.e["hheight"][1] > sc.e["hheight"][0]
    assert sc.e["current"] == 1 and sc.phase in (Phase.ITEM, Phase.MOVE)  # human_1 plays next
