"""Scripted scenarios of Exhaust (``docs/rules/exhaust.md``) run on the numba kernels.

Each scenario builds an exact table with :func:`table` (hands, area tops, piles...) and
plays it through ``rules.apply_action_r``; the assertions fail if the rule named in the
test were broken.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import KernelTable

from exhaust_env import rules
from exhaust_env.spec import (
    ANY,
    CAST_OFFSET,
    COPY_KIND,
    FLIP_EXHAUST,
    FLUSH,
    FOUR,
    NUM_ACTIONS,
    PAIR,
    PLAY_TIME_MAGIC,
    STRAIGHT,
    THREE,
    Options,
    parse_card,
)
from exhaust_env.state import new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at


def K(name: str) -> int:
    return parse_card(name)


class Table(KernelTable):
    """A batch-of-one kernel State with helpers to play it by card names."""

    rules = rules
    num_actions = NUM_ACTIONS

    def __init__(self, options: Options, seed: int = 0):
        super().__init__(new_state(1, options))
        self.options = options
        self.s["rng"][0] = seed_word(seed)
        at(rules.deal_r, self.s, 0)

    def set_hand(self, seat: int, cards: str) -> Table:
        e = self.e
        e["hand"][seat] = 0
        for name in cards.split():
            e["hand"][seat, K(name)] += 1
        e["hand_n"][seat] = len(cards.split())
        return self

    def hand(self, seat: int) -> list[str]:
        from exhaust_env.spec import card_name

        return [card_name(k) for k in range(61) for _ in range(int(self.e["hand"][seat, k]))]

    def select(self, cards: str) -> Table:
        for name in cards.split():
            assert K(name) in self.legal(), f"cannot add {name}"
            at(rules.apply_action_r, self.s, 0, K(name))
        return self

    def can_add(self, name: str) -> bool:
        return K(name) in self.legal()

    def can_cast(self, area: int) -> bool:
        return CAST_OFFSET + area in self.legal()

    def cast(self, area: int) -> Table:
        """Casts the selection on ``area`` (the caller checks that it may)."""
        at(rules.apply_action_r, self.s, 0, CAST_OFFSET + area)
        return self

    def play(self, cards: str, area: int) -> Table:
        self.select(cards)
        assert self.can_cast(area), f"cannot cast {cards} on {area}"
        return self.cast(area)

    def act(self, action: int) -> Table:
        assert action in self.legal()
        at(rules.apply_action_r, self.s, 0, action)
        return self

    def rewards(self) -> list[float]:
        out = np.zeros(self.options.players, np.float32)
        at(rules.write_rewards_r, self.s, 0, out[None, :], 0)
        return out.tolist()


FULL = "R1 R2 R3 B4 B5 Y6 G7 G8 R9 B10 Y11 G12 R13 B14 Y15"


def four_players(**hands) -> Table:
    t = Table(Options(num_players=4))
    for seat in range(4):
        t.set_hand(seat, hands.get(f"p{seat}", FULL))
    return t


# --- Single -------------------------------------------------------------------------------
def test_single_with_four_areas_takes_only_its_colour_and_higher_numbers():
    t = four_players(p0="R5 B3 C Y9")
    assert t.legal() >= {K("R5"), K("B3"), K("Y9")}
    t.select("R5")
    assert t.can_cast(0) and not any(t.can_cast(a) for a in (1, 2, 3, PAIR, ANY))
    assert t.can_add("C") and t.can_add("B3")  # R5 C is a pair, R5 B3 Y9 an Any
    t.e["area_top"][PAIR:ANY] = (15, 15, 15, 0, 0)
    t.e["area_top"][ANY] = 4  # the Any would need 5 cards
    assert t.legal() == {CAST_OFFSET + 0}  # only the red Single is left for R5
    t.cast(0)
    assert int(t.e["area_top"][0]) == 5 and int(t.e["tm"][0]) == 0  # no reward
    assert int(t.e["current"]) == 1
    t.set_hand(1, "R4 R5 R7 G1")
    t.e["area_top"][FLUSH] = 3  # no flush of 3 reds either
    assert t.legal() == {K("R7"), K("G1")}  # strictly greater than 5: not R4, not R5


def test_single_areas_by_player_count():
    three = Table(Options(num_players=3)).set_hand(0, "Y4 G4")
    three.select("Y4")
    assert three.can_cast(0) and not three.can_cast(1)  # red+yellow area
    three = Table(Options(num_players=3)).set_hand(0, "Y4 G4").select("G4")
    assert three.can_cast(1) and not three.can_cast(0)  # blue+green area
    two = Table(Options(num_players=2)).set_hand(0, "G4 B2").select("G4")
    assert two.can_cast(0) and not any(two.can_cast(a) for a in (1, 2, 3))


def test_a_copy_is_never_alone_nor_in_a_single():
    t = four_players(p0="C C R3")
    legal = t.legal()
    assert K("C") in legal  # it can still join a set with R3 (Pair R3 + C)
    t.select("C")
    assert not any(t.can_cast(a) for a in range(10))  # a copy alone is no play
    assert t.can_add("R3") and t.can_add("C")  # R3 C C: 3 cards or Any
    t2 = four_players(p0="C C C")
    assert t2.legal() == set()  # copies only: no play at all
    t3 = four_players(p0="C R3").select("R3")
    assert t3.can_cast(0) and t3.can_add("C")  # R3 + C is a pair
    t3.select("C")
    assert t3.legal() == {CAST_OFFSET + PAIR}


# --- sets ---------------------------------------------------------------------------------
def test_pair_needs_one_number_higher_than_the_top_and_draws_a_replenishment_card():
    t = four_players(p0="R7 B7 Y8 C")
    t.e["area_top"][PAIR] = 6
    t.e["area_top"][ANY] = 4  # no Any of mixed cards (it would need 5)
    top_card = int(t.e["repl"][3])
    t.select("R7")
    assert not t.can_add("Y8")  # mixed numbers make no set
    t.select("B7")
    assert t.legal() == {CAST_OFFSET + PAIR, K("C")}  # or R7 B7 C on 3 cards
    t.cast(PAIR)
    assert int(t.e["area_top"][PAIR]) == 7
    assert int(t.e["repl_n"]) == 3
    kind = top_card if top_card < 60 else COPY_KIND
    assert int(t.e["hand"][0, kind]) >= 1 and int(t.e["hand_n"][0]) == 3  # 4 - 2 + 1
    t.e["current"] = 0
    t.set_hand(0, "R7 G7 R8 C")
    t.e["area_top"][:4] = 15
    t.e["area_top"][THREE:STRAIGHT] = 15
    t.e["area_top"][FLUSH] = 3  # only the Pair area is open
    assert t.legal() == {K("R8"), K("C")}  # 7 is not above 7 any more
    t.play("R8 C", PAIR)  # copy card fills a pair


def test_pair_reward_when_the_replenishment_deck_is_empty():
    t = four_players(p0="R7 B7 R1")
    t.e["repl_n"] = 0
    t.play("R7 B7", PAIR)
    assert int(t.e["hand_n"][0]) == 1 and t.hand(0) == ["R1"]


def test_three_cards_gives_one_time_magic_and_four_cards_two():
    t = four_players(p0="R9 B9 Y9 G9 R2 B2 C")
    t.play("R2 B2 C", THREE)
    assert int(t.e["tm"][0]) == 1 and int(t.e["tm_pile"]) == 15
    t.e["current"] = 0
    t.play("R9 B9 Y9 G9", FOUR)
    assert int(t.e["tm"][0]) == 3 and int(t.e["tm_pile"]) == 13
    assert int(t.e["area_top"][THREE]) == 2 and int(t.e["area_top"][FOUR]) == 9


def test_four_cards_with_one_time_magic_left_gives_one():
    t = four_players(p0="R9 B9 C C")
    t.e["tm_pile"] = 1
    t.e["tm"][1] = 15
    t.play("R9 B9 C C", FOUR)
    assert int(t.e["tm"][0]) == 1 and int(t.e["tm_pile"]) == 0
    t.e["current"] = 0
    t.set_hand(0, "R3 B3 Y3 R5 R6 R7")
    t.play("R3 B3 Y3", THREE)  # an empty pile pays nothing
    assert int(t.e["tm"][0]) == 1


# --- count areas --------------------------------------------------------------------------
def test_straight_consecutive_numbers_any_colours_no_copy_no_wrap():
    t = four_players(p0="R13 B14 Y15 G1 G2 C")
    t.e["area_top"][ANY] = 6  # keep the Any out of the way
    t.select("R13 B14")
    assert not t.can_add("C") and not t.can_add("G1")  # no copy, no wrap-around 15 -> 1
    t.select("Y15")
    assert t.legal() == {CAST_OFFSET + STRAIGHT}
    t.cast(STRAIGHT)
    assert int(t.e["area_top"][STRAIGHT]) == 3 and int(t.e["tm"][0]) == 1


def test_count_areas_need_three_first_then_strictly_more():
    t = four_players(p0="R3 R4 R5 R6 B7 B8 B9 B10 C")
    t.e["area_top"][STRAIGHT] = 3
    t.select("R3 R4 R5")
    assert not t.can_cast(STRAIGHT)  # 3 is not more than 3
    t.select("R6")
    assert t.can_cast(STRAIGHT)
    t.e["sel"][:] = 0
    t.e["sel_n"] = 0
    t.set_hand(0, "G1 G2")
    t.e["area_top"][:] = 15
    t.e["area_top"][7:] = 0
    assert t.legal() == set()  # two cards can never open a count area


def test_flush_one_colour_with_copies_count_restricted():
    t = four_players(p0="G2 G9 C R4 G11")
    t.e["area_top"][FLUSH] = 3
    t.e["area_top"][ANY] = 5
    t.select("G2 C")
    assert not t.can_add("R4")  # another colour breaks the flush
    t.select("G9 G11")
    assert t.legal() == {CAST_OFFSET + FLUSH}
    t.cast(FLUSH)
    assert int(t.e["area_top"][FLUSH]) == 4 and int(t.e["tm"][0]) == 1


def test_any_takes_anything_but_copies_only():
    t = four_players(p0="R1 G9 B4 C C")
    t.select("R1 G9 C")
    assert t.can_cast(ANY) and not t.can_cast(FLUSH) and not t.can_cast(STRAIGHT)
    t.cast(ANY)
    assert int(t.e["tm"][0]) == 1 and int(t.e["area_top"][ANY]) == 3


def test_a_card_is_offered_only_if_the_selection_can_still_be_completed():
    t = four_players(p0="R5 B5 Y6")
    t.e["area_top"][:4] = 15  # singles closed
    assert t.legal() == {K("R5"), K("B5"), K("Y6")}  # R5 B5 Y6 is an Any
    t.e["area_top"][ANY] = 3  # Any now needs 4 cards
    # R5 B5 can make a pair; Y6 has no partner and nothing else fits
    assert t.legal() == {K("R5"), K("B5")}
    t.select("R5")
    assert t.legal() == {K("B5")}


# --- turns, losing, Time Magic ----------------------------------------------------------
def test_time_magic_is_an_action_even_when_a_play_exists_but_not_mid_selection():
    t = four_players(p0="R5 B5")
    t.e["tm"][0] = 1
    t.e["tm_pile"] = 15
    assert PLAY_TIME_MAGIC in t.legal()
    t.select("R5")
    assert PLAY_TIME_MAGIC not in t.legal()
    t2 = four_players(p0="R5 B5")
    t2.e["tm"][0] = 1
    t2.e["tm_pile"] = 15
    t2.act(PLAY_TIME_MAGIC)
    assert int(t2.e["tm"][0]) == 0 and int(t2.e["tm_pile"]) == 16 and int(t2.e["current"]) == 1


def test_the_player_who_cannot_act_loses_and_everyone_else_wins():
    t = four_players(p0="R5 R9", p1="G1 G2")
    t.e["area_top"][:] = 15
    t.e["area_top"][0] = 3  # R5 may go on the red Single; player_1 has nothing
    t.play("R5", 0)
    assert int(t.e["status"]) == 1 and int(t.e["loser"]) == 1
    assert t.rewards() == [1.0, -1.0, 1.0, 1.0]
    assert t.legal() == set()


def test_zero_sum_option_splits_the_winners_share():
    t = Table(Options(num_players=3, zero_sum=True))
    t.set_hand(0, "R5").set_hand(1, "G1 G2")
    t.e["area_top"][:] = 15
    t.e["area_top"][0] = 3
    t.play("R5", 0)
    assert t.rewards() == pytest.approx([0.5, -1.0, 0.5])


def test_time_magic_saves_a_player_without_cards():
    t = four_players(p0="R5", p1="")
    t.e["tm"][1] = 1
    t.play("R5", 0)
    assert int(t.e["status"]) == 0 and int(t.e["current"]) == 1
    assert t.legal() == {PLAY_TIME_MAGIC}


# --- long game ----------------------------------------------------------------------------
def long_table() -> Table:
    t = Table(Options(num_players=3, mode="long"), seed=3)
    return t


def test_long_game_loser_gets_an_exhaust_card_redeal_and_starts():
    t = long_table()
    t.set_hand(0, "R5").set_hand(1, "G1")
    t.e["area_top"][:] = 15
    t.e["area_top"][0] = 3
    t.e["tm"][2] = 2
    t.e["tm_pile"] = 14
    old_deck = t.e["deck"].copy()
    t.play("R5", 0)
    e = t.e
    assert int(e["status"]) == 0 and int(e["round"]) == 1
    assert e["exhaust"].tolist()[:3] == [0, 1, 0] and e["exhaust_up"].tolist()[:3] == [0, 1, 0]
    assert int(e["current"]) == 1  # the loser starts
    assert e["tm"].tolist() == [0] * 5 and int(e["tm_pile"]) == 16  # Time Magic back
    assert e["hand_n"].tolist()[:3] == [15, 15, 15] and int(e["repl_n"]) == 4
    assert int(e["played"].sum()) == 0 and int(e["area_top"].sum()) == 0
    assert not np.array_equal(e["deck"], old_deck)  # reshuffled
    assert t.rewards() == [0.0, 0.0, 0.0]  # rounds pay nothing
    assert FLIP_EXHAUST in t.legal()


def test_flip_rescues_once_per_round():
    t = long_table()
    e = t.e
    e["exhaust"][1] = 1
    e["exhaust_up"][1] = 1
    t.set_hand(0, "R5 R6").set_hand(1, "G1").set_hand(2, "G9")
    e["area_top"][:] = 15
    e["area_top"][0] = 3  # red+yellow Single
    e["area_top"][1] = 5  # blue+green Single
    t.play("R5", 0)  # player_1 cannot play, but may flip
    assert int(e["status"]) == 0 and int(e["current"]) == 1
    assert t.legal() == {FLIP_EXHAUST}
    t.act(FLIP_EXHAUST)
    assert int(e["exhaust_up"][1]) == 0 and int(e["current"]) == 2
    t.play("G9", 1)
    t.play("R6", 0)  # player_1 again: the flip is spent, no play: second Exhaust card
    assert int(e["status"]) == 1 and int(e["loser"]) == 1
    assert int(e["exhaust"][1]) == 2
    assert t.rewards() == [1.0, -1.0, 1.0]


def test_flip_is_legal_even_with_a_play_and_comes_back_next_round():
    t = long_table()
    e = t.e
    e["exhaust"][0] = 1
    e["exhaust_up"][0] = 1
    assert FLIP_EXHAUST in t.legal() and K(t.hand(0)[0]) in t.legal()
    t.act(FLIP_EXHAUST)
    # player_1 loses the round: at the redeal player_0's card is face up again
    t.set_hand(1, "G1")
    e["area_top"][:] = 15
    e["tm"][1] = 0
    e["current"] = 2
    t.set_hand(2, "Y9")
    e["area_top"][0] = 5
    t.play("Y9", 0)
    t.set_hand(0, "R10")
    t.play("R10", 0)
    assert int(e["round"]) == 1 and e["exhaust"].tolist()[:3] == [1, 1, 0]
    assert e["exhaust_up"].tolist()[:3] == [1, 1, 0]
    assert int(e["current"]) == 1


# --- solo and the NPC ---------------------------------------------------------------------
def solo(npc_open: str, npc_deck: list[str] | None = None, player: str = FULL) -> Table:
    t = Table(Options(mode="solo", npc_deck_size=15))
    t.set_hand(0, player)
    t.set_hand(1, npc_open)
    deck = npc_deck or []
    t.e["npc_deck"][:] = 0
    for j, name in enumerate(reversed(deck)):  # deck[0] is the top
        k = K(name)
        t.e["npc_deck"][j] = k if k < 60 else 60
    t.e["npc_n"] = len(deck)
    return t


def npc_move(t: Table) -> None:
    """Let the player pass with Time Magic so the NPC takes one turn."""
    t.e["tm"][0] += 1
    t.e["tm_pile"] -= 1
    t.act(PLAY_TIME_MAGIC)


@pytest.mark.parametrize(
    "open_hand, tops, area, played",
    [
        ("R9 B9 Y9 G9 R2", {}, 0, "R2"),  # Single first, lowest number
        ("R9 B9 Y9 G9 R2", {0: 15}, FOUR, "R9 B9 Y9 G9"),  # 4 cards before 3 cards
        ("R9 B9 Y9 R4 B4", {0: 15}, THREE, "R9 B9 Y9"),  # 3 cards before Pair
        ("R9 B9 R4 B4 C", {0: 15, FOUR: 15}, THREE, "R4 B4 C"),  # a copy fills the set
        ("R9 B9 R4 B6 G5", {0: 15}, PAIR, "R9 B9"),  # Pair before Straight
        ("R3 B4 G5 R6 Y1", {0: 15}, STRAIGHT, "R3 B4 G5"),  # lowest run
        ("R3 R9 R12 B1 B2", {0: 15, STRAIGHT: 4}, FLUSH, "R3 R9 R12"),
        ("R3 R9 B12 G1 Y2", {0: 15, STRAIGHT: 4, FLUSH: 5}, ANY, "G1 Y2 R3"),  # lowest numbers
    ],
)
def test_npc_priorities(open_hand, tops, area, played):
    t = solo(open_hand)
    for a, v in tops.items():
        t.e["area_top"][a] = v
    before = t.e["hand"][1].copy()
    npc_move(t)
    gone = before.astype(int) - t.e["hand"][1].astype(int)
    want = np.zeros(61, int)
    for name in played.split():
        want[K(name)] += 1
    assert gone.tolist() == want.tolist()
    assert int(t.e["area_n"][area]) == len(played.split())


def test_npc_flush_prefers_no_copies_then_lowest_numbers():
    t = solo("G2 G5 G9 B1 B3 C")
    t.e["area_top"][:7] = 15
    t.e["area_top"][STRAIGHT] = 9
    before = t.e["hand"][1].copy()
    npc_move(t)
    gone = before.astype(int) - t.e["hand"][1].astype(int)
    assert [k for k in range(61) if gone[k]] == [K("G2"), K("G5"), K("G9")]


def test_npc_draws_up_to_five_then_one_at_a_time_until_a_play_fits():
    t = solo("R1", ["G1", "Y1", "B1", "G2", "R7", "B12"])
    t.e["area_top"][:] = 15
    t.e["area_top"][PAIR] = 0  # only pairs
    t.e["area_top"][ANY] = 9
    npc_move(t)
    # drew G1 Y1 B1 G2 (open hand of 5), the 1s make a pair: R1 B1 (colour order); the
    # replenishment card it wins goes on its deck: 6 - 4 + 1
    assert int(t.e["area_n"][PAIR]) == 2 and int(t.e["npc_n"]) == 3
    assert t.e["hand"][1, K("R1")] == 0 and t.e["hand"][1, K("B1")] == 0 and t.e["hand"][1, K("Y1")] == 1
    t2 = solo("R1 B2 Y3 G4 R5", ["G5", "Y9", "R11"])
    t2.e["area_top"][:] = 15
    t2.e["area_top"][PAIR] = 0
    t2.e["area_top"][ANY] = 9
    npc_move(t2)
    # nothing fits from the open 5: it draws G5 (R5 G5 pair fits) and plays
    assert int(t2.e["npc_n"]) == 3 and int(t2.e["area_n"][PAIR]) == 2  # 3 - 1 + 1
    assert t2.e["hand"][1, K("R5")] == 0 and t2.e["hand"][1, K("G5")] == 0


def test_npc_pair_reward_goes_face_down_on_its_deck_and_time_magic_to_it():
    t = solo("R4 B4", ["Y9"])
    t.e["area_top"][:4] = 15
    repl_top = int(t.e["repl"][3])
    npc_move(t)
    # draws Y9 (3 cards open), plays the pair R4 B4, the replenishment card goes on its deck
    assert int(t.e["area_n"][PAIR]) == 2
    assert int(t.e["npc_n"]) == 1 and int(t.e["npc_deck"][0]) == repl_top
    assert int(t.e["hand_n"][1]) == 1
    t2 = solo("R4 B4 Y4")
    t2.e["area_top"][:4] = 15
    npc_move(t2)
    assert int(t2.e["tm"][1]) == 1  # 3 cards: the NPC keeps the Time Magic


def test_npc_plays_time_magic_when_stuck_and_loses_without():
    t = solo("R1 B2", [])
    t.e["area_top"][:] = 15
    t.e["tm"][0] = 2  # the player survives on Time Magic
    t.e["tm"][1] = 1
    t.e["tm_pile"] = 15
    npc_move(t)
    assert int(t.e["status"]) == 0 and int(t.e["tm"][1]) == 0
    npc_move(t)
    assert int(t.e["status"]) == 1 and int(t.e["loser"]) == 1
    assert t.rewards() == [1.0]


def test_solo_player_who_cannot_act_loses():
    t = solo("R1 B2", [], player="G3 G1")
    t.e["area_top"][:] = 15
    t.e["area_top"][0] = 2
    t.e["tm"][1] = 1
    t.e["tm_pile"] = 15
    t.play("G3", 0)  # the NPC then passes with Time Magic; the player has G1: stuck
    assert int(t.e["status"]) == 1 and int(t.e["loser"]) == 0
    assert t.rewards() == [-1.0]


def test_deal_sizes_and_cards_left_out():
    for options, hand, out in [
        (Options(num_players=2), 15, 30),
        (Options(num_players=3), 15, 15),
        (Options(num_players=4), 15, 0),
        (Options(num_players=5), 12, 0),
        (Options(mode="solo", npc_deck_size=20), 15, 25),
    ]:
        t = Table(options, seed=5)
        e = t.e
        seats = 1 if options.mode == "solo" else options.players
        assert e["hand_n"].tolist()[:seats] == [hand] * seats
        npc = int(e["npc_n"])
        assert npc == (20 if options.mode == "solo" else 0)
        assert int(e["repl_n"]) == 4
        assert 64 - seats * hand - npc - 4 == out
        counts = e["hand"].sum(axis=0).astype(int)
        assert counts[:60].max() <= 1 and counts[60] <= 4
        assert int(e["current"]) == 0 and int(e["tm_pile"]) == 16


def test_action_layout_and_names():
    from exhaust_env.spec import (
        ADD_OFFSET,
        NUM_KINDS,
        action_name,
        card_name,
        kind_of,
    )

    assert (ADD_OFFSET, CAST_OFFSET, PLAY_TIME_MAGIC, FLIP_EXHAUST, NUM_ACTIONS) == (0, 61, 71, 72, 73)
    assert CAST_OFFSET == ADD_OFFSET + NUM_KINDS
    for k in range(NUM_KINDS):
        assert parse_card(card_name(k)) == k
    assert kind_of(0, 1) == 0 and kind_of(3, 15) == 59 and COPY_KIND == 60
    assert action_name(K("G12")) == "add G12" and action_name(COPY_KIND) == "add C"
    assert action_name(CAST_OFFSET + 1, 2) == "cast on Single blue+green"
    assert action_name(CAST_OFFSET + 2, 4) == "cast on Single yellow"
    assert action_name(CAST_OFFSET + FLUSH) == "cast on Flush"
    assert action_name(PLAY_TIME_MAGIC) == "play Time Magic"
    assert action_name(FLIP_EXHAUST) == "flip Exhaust card"
    with pytest.raises(ValueError, match="card name"):
        parse_card("X3")
    with pytest.raises(ValueError, match="number"):
        kind_of(0, 16)


def test_a_turn_takes_at_most_hand_size_plus_one_steps():
    """Adding every card of a big Any then casting: the selection never outgrows the hand."""
    t = four_players(p0="R1 R2 B3 Y5 G7 C C")
    t.e["area_top"][:7] = 15
    for name in ["R1", "R2", "B3", "Y5", "G7", "C", "C"]:
        t.select(name)
    assert t.legal() == {CAST_OFFSET + ANY}  # nothing left to add
    t.act(CAST_OFFSET + ANY)
    assert int(t.e["area_top"][ANY]) == 7 and int(t.e["hand_n"][0]) == 0


# --- building blocks of the fast kernels ----------------------------------------------------
def test_bit_helpers_match_python():
    from exhaust_env import bits

    rnd = np.random.default_rng(7)
    words = [0, 1, 2**63, 2**64 - 1, 0x7FFF, 1 << 45] + [int(x) for x in rnd.integers(0, 2**63, 200)]
    for x in words:
        w = np.uint64(x)
        assert bits.popcount(w) == bin(x).count("1")
        assert bits.lowest_bit(w) == (64 if x == 0 else (x & -x).bit_length() - 1)
        assert bits.bit_length(w) == x.bit_length()
        slices = [(x >> (15 * c)) & 0x7FFF for c in range(4)]
        assert bits.numbers_of(w) == slices[0] | slices[1] | slices[2] | slices[3]
        for c in range(4):
            assert bits.colour_slice(w, c) == slices[c]


def test_nonzero_byte_masks_match_numpy():
    import numba

    from exhaust_env import bits

    @numba.njit
    def masks_1d(a, start):
        return (
            bits.nonzero_bits(a, start, 8),
            bits.nonzero_bits(a, start, 16),
            bits.nonzero_bits(a, start, 32),
            bits.nonzero_bits(a, start, 64),
        )

    @numba.njit
    def mask_row(a, row, start):
        return bits.nonzero_bits_row(a, row, start, 64)

    def want(row, start, width):
        return sum(1 << j for j in range(width) if row[start + j] != 0)

    rnd = np.random.default_rng(5)
    for _ in range(50):
        a = (rnd.integers(0, 3, (3, 80)) * (rnd.random((3, 80)) < 0.4)).astype(np.int8)
        for start in (0, 1, 9, 16):
            got = masks_1d(a[1], start)
            assert [int(x) for x in got] == [want(a[1], start, w) for w in (8, 16, 32, 64)]
            assert int(mask_row(a, 2, start)) == want(a[2], start, 64)


def test_card_word_and_legal_words_agree_with_the_mask():
    """The word forms of the hand and of the legal actions are the count / mask arrays."""
    from exhaust_env.bots import mask_words_row

    s = new_state(64, Options(num_players=3))
    rnd = np.random.default_rng(3)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(64):
        s["rng"][i] = seed_word(i)
        at(rules.deal_r, s, i)
        for _ in range(int(rnd.integers(0, 40))):
            if s["status"][i] != 0:
                break
            at(rules.legal_mask_r, s, i, mask[None, :], 0)
            at(rules.apply_action_r, s, i, int(rnd.choice(np.flatnonzero(mask))))
        hand = s["hand"][i, s["current"][i]]
        assert int(rules.card_word(hand)) == sum(1 << k for k in range(60) if hand[k])
        count = at(rules.legal_mask_r, s, i, mask[None, :], 0)
        w0, w1 = at(rules.legal_words_r, s, i)
        assert mask_words_row(mask[None, :], 0) == (w0, w1)
        legal = np.flatnonzero(mask).tolist()
        assert [int(rules.nth_legal(w0, w1, k)) for k in range(count)] == legal
        assert [a for a in range(-2, NUM_ACTIONS + 2) if at(rules.is_legal_r, s, i, a)] == legal


def test_random_bot_chooses_like_sample_legal():
    """Same mask, same generator word: the random bot picks what ``sample_legal`` picks
    (uniform over the legal actions), so seeded random games replay as before."""
    from exhaust_env.bots import random_bot_r
    from tabletop_core.kernel.rng import sample_legal

    rnd = np.random.default_rng(11)
    masks = (rnd.random((300, NUM_ACTIONS)) < rnd.random((300, 1))).astype(np.int8)
    masks[0] = 0
    masks[1, 72] = 1
    r1 = np.array([seed_word(k) for k in range(300)], np.uint64)
    r2 = r1.copy()
    for i in range(300):
        for _ in range(3):
            assert random_bot_r(None, masks[i], r2, i) == sample_legal(r1, i, masks[i])
    assert np.array_equal(r1, r2)
