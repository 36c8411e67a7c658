"""Scripted scenarios of The Game (``docs/rules/thegame.md``) run on the numba kernels.

Each scenario builds an exact table with :func:`table` (hands, draw pile, pile tops,
turn...) and plays it through ``rules.apply_action_r``; the assertions fail if the rule
named in the test were broken.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import KernelTable

from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at
from thegame_env import observe, rules
from thegame_env.spec import END_TURN, NUM_ACTIONS, Options, Status, play_to_action
from thegame_env.state import new_state

ALL_CARDS = list(range(2, 100))


# --- a readable table builder -----------------------------------------------------------
class Table(KernelTable):
    """A batch-of-one kernel State with small helpers to play it by card and pile; each
    legality reading is checked against ``is_legal_r`` by :meth:`can` and :meth:`can_end`."""

    rules = rules
    num_actions = NUM_ACTIONS
    status_type = Status
    check_each_action = False

    # reading

    def can(self, card: int, pile: int) -> bool:
        legal = play_to_action(pile, card) in self.legal()
        assert legal == bool(at(rules.is_legal_r, self.s, 0, play_to_action(pile, card)))
        return legal

    def can_end(self) -> bool:
        legal = END_TURN in self.legal()
        assert legal == bool(at(rules.is_legal_r, self.s, 0, END_TURN))
        return legal

    def hand(self, seat: int) -> list[int]:
        return sorted(int(c) for c in self.e["hand"][seat, : self.e["hand_size"][seat]])

    @property
    def turn(self) -> int:
        return int(self.e["turn"])

    @property
    def piles(self) -> list[int]:
        return [int(x) for x in self.e["piles"]]

    def score(self) -> int:
        return int(at(rules.score_r, self.s, 0))

    def obs(self, seat: int | None = None) -> dict[str, np.ndarray]:
        seat = self.current if seat is None else seat
        n = int(self.e["cfg_players"])
        out = np.zeros(observe.observation_dim(n), np.float32)
        at(observe.observe_r, self.s, 0, seat, out[None, :], 0)
        return observe.decode_observation(out, n)

    # acting (each returns the step reward)
    def play(self, card: int, pile: int) -> float:
        action = play_to_action(pile, card)
        assert action in self.legal(), f"{card} on pile {pile} should be legal"
        placed = at(rules.apply_action_r, self.s, 0, action)
        assert placed == 1
        return float(at(rules.step_reward_r, self.s, 0, placed))

    def play_turn(self, *plays: tuple[int, int]) -> float:
        """Plays each ``(card, pile)`` in order, then ends the turn; returns END_TURN's reward."""
        for card, pile in plays:
            self.play(card, pile)
        return self.end_turn()

    def end_turn(self) -> float:
        assert self.can_end(), "END_TURN should be legal"
        placed = at(rules.apply_action_r, self.s, 0, END_TURN)
        assert placed == 0
        return float(at(rules.step_reward_r, self.s, 0, placed))

    def assert_over(self, status: Status) -> None:
        assert self.status == status
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[:] = 7
        assert at(rules.legal_mask_r, self.s, 0, mask[None, :], 0) == 0
        assert not mask.any()
        assert not any(at(rules.is_legal_r, self.s, 0, a) for a in range(NUM_ACTIONS))
        o = self.obs()
        assert o["is_my_turn"] == 0 and o["min_plays_left"] == 0


def table(
    hands,
    draw=(),
    piles=(1, 1, 100, 100),
    *,
    current: int = 0,
    plays: int = 0,
    turn: int = 0,
    on_fire: bool = False,
    level: int = 0,
    reward: str = "cards",
    fire_turn: dict[int, int] | None = None,
) -> Table:
    """A game in progress: ``hands`` one list per seat, ``draw`` the draw pile (next card
    first), ``piles`` the four tops. Every other card counts as already played."""
    hands = [list(h) for h in hands]
    draw = list(draw)
    held = [c for h in hands for c in h] + draw
    assert len(set(held)) == len(held), "a card appears twice"
    assert not set(piles) & set(held), "a pile top is also held"
    options = Options(num_players=len(hands), on_fire=on_fire, level=level, reward=reward)
    s = new_state(1, options)
    e = s[0]
    gone = [c for c in ALL_CARDS if c not in held]
    in_hands = [c for h in hands for c in h]
    e["deck"][:] = gone + in_hands + draw  # [deck_pos:] is the draw pile
    e["deck_pos"] = len(gone) + len(in_hands)
    e["hand"][:] = 0
    for seat, h in enumerate(hands):
        assert len(h) <= options.hand_size
        e["hand"][seat, : len(h)] = h
        e["hand_size"][seat] = len(h)
    e["piles"][:] = piles
    e["played"][:] = 0
    for c in gone:
        e["played"][c - 2] = 1
    e["fire_turn"][:] = -1
    for pile, t in (fire_turn or {}).items():
        e["fire_turn"][pile] = t
    e["current"] = current
    e["plays_this_turn"] = plays
    e["turn"] = turn
    e["status"] = int(Status.PLAYING)
    return Table(s)


def dealt(options: Options, seed: int) -> np.ndarray:
    s = new_state(1, options)
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    return s


FULL_HAND = [10, 11, 12, 13, 14, 15, 16, 17]


# --- placing: the backwards trick -------------------------------------------------------
def test_can_place_matches_the_rule_for_every_top_and_card():
    for top in range(1, 101):
        for card in ALL_CARDS:
            assert rules.can_place(top, 0, card) == (card > top or card == top - 10)
            assert rules.can_place(top, 1, card) == (card > top or card == top - 10)
            assert rules.can_place(top, 2, card) == (card < top or card == top + 10)
            assert rules.can_place(top, 3, card) == (card < top or card == top + 10)


@pytest.mark.parametrize(
    "pile, piles, back",
    [(0, (50, 95, 5, 5), -1), (2, (95, 95, 50, 8), 1)],
    ids=["ascending pile: exactly ten lower", "descending pile: exactly ten higher"],
)
def test_backwards_trick_is_exactly_ten_back(pile, piles, back):
    """``back`` is the pile's backwards direction (-1 on an ascending pile, +1 descending)."""
    top = piles[pile]
    trick = top + 10 * back
    t = table([[trick, trick + back, trick - back, top + back, top - 10 * back]], piles=piles)
    assert t.can(trick, pile)  # top -/+ 10
    assert not t.can(trick + back, pile)  # top -/+ 11
    assert not t.can(trick - back, pile)  # top -/+ 9
    assert not t.can(top + back, pile)  # backwards, not by 10
    assert t.can(top - 10 * back, pile)  # the pile's own direction
    t.play(trick, pile)
    assert t.piles[pile] == trick
    assert t.can(top - 10 * back, pile) and not t.can(trick + back, pile)


def test_backwards_trick_at_the_edges():
    t = table([[2, 99]], piles=(12, 98, 89, 3))
    assert t.can(2, 0)  # 12 - 10
    assert t.can(99, 2)  # 89 + 10
    assert t.can(99, 1) and not t.can(2, 1)
    assert t.can(2, 3) and not t.can(99, 3)
    fresh = table([[2, 99]])  # start piles 1 / 100 take everything, no trick beyond
    assert all(fresh.can(c, p) for c in (2, 99) for p in range(4))


def test_a_card_of_another_seat_or_out_of_range_action_is_not_legal():
    t = table([[10, 11], [50, 51]], draw=[70, 71])
    assert not t.can(50, 0)
    assert not at(rules.is_legal_r, t.s, 0, -1)
    assert not at(rules.is_legal_r, t.s, 0, NUM_ACTIONS)


# --- minimum plays ----------------------------------------------------------------------
def test_minimum_is_two_with_a_draw_pile():
    t = table([FULL_HAND], draw=[60, 61])
    assert not t.can_end() and t.obs()["min_plays_left"] == 2
    t.play(10, 0)
    assert not t.can_end() and t.obs()["min_plays_left"] == 1
    t.play(11, 0)
    assert t.can_end() and t.obs()["min_plays_left"] == 0


def test_minimum_is_one_once_the_draw_pile_is_empty():
    t = table([[10, 11, 12]])
    assert not t.can_end() and t.obs()["min_plays_left"] == 1
    t.play(10, 0)
    assert t.can_end() and t.obs()["min_plays_left"] == 0


@pytest.mark.parametrize("level", [1, 2])
def test_levels_one_and_two_raise_the_minimum_to_three(level):
    t = table([FULL_HAND[: 8 - level + 1]], draw=[60, 61], level=level)
    assert int(t.e["cfg_min_plays"]) == 3
    for k, card in enumerate((10, 11)):
        assert not t.can_end() and t.obs()["min_plays_left"] == 3 - k
        t.play(card, 0)
    assert not t.can_end()
    t.play(12, 0)
    assert t.can_end()
    empty = table([[10, 11, 12]], level=level)  # no draw pile: 1
    assert not empty.can_end()
    empty.play(10, 0)
    assert empty.can_end()


def test_end_turn_is_legal_once_the_minimum_is_reached_even_with_playable_cards():
    t = table([FULL_HAND], draw=[60, 61, 62])
    t.play(10, 0)
    t.play(11, 0)
    legal = t.legal()
    assert END_TURN in legal and play_to_action(0, 12) in legal
    assert t.end_turn() == 0.0
    assert t.status == Status.PLAYING and t.turn == 1
    assert t.hand(0) == [12, 13, 14, 15, 16, 17, 60, 61]


# --- hand sizes and dealing -------------------------------------------------------------
@pytest.mark.parametrize(("num_players", "size"), [(1, 8), (2, 7), (3, 6), (4, 6), (5, 6)])
@pytest.mark.parametrize("level", [0, 1, 2])
def test_deal_hand_sizes_per_player_count_and_level(num_players, size, level):
    expected = size - 1 if level == 2 else size
    options = Options(num_players=num_players, level=level)
    assert options.hand_size == expected
    s = dealt(options, 5)
    e = s[0]
    assert int(e["cfg_hand_size"]) == expected
    assert [int(x) for x in e["hand_size"][:num_players]] == [expected] * num_players
    assert not e["hand_size"][num_players:].any()
    assert int(e["deck_pos"]) == expected * num_players
    assert sorted(int(c) for c in e["deck"]) == ALL_CARDS
    for seat in range(num_players):  # hands come off the top of the deck, seat by seat
        got = sorted(int(c) for c in e["hand"][seat, :expected])
        assert got == sorted(int(c) for c in e["deck"][seat * expected : (seat + 1) * expected])
    assert e["current"] == 0 and e["turn"] == 0 and e["plays_this_turn"] == 0
    assert e["status"] == Status.PLAYING and not e["played"].any()
    assert list(e["piles"]) == [1, 1, 100, 100] and list(e["fire_turn"]) == [-1] * 4


def test_deal_is_reproducible_and_seeds_differ():
    options = Options(num_players=3)
    a, b = dealt(options, 123), dealt(options, 123)
    assert np.array_equal(a["deck"], b["deck"]) and np.array_equal(a["hand"], b["hand"])
    golden = 0x9E3779B97F4A7C15  # SplitMix64: each draw adds the golden gamma
    assert int(a["rng"][0]) == int(b["rng"][0]) == (int(seed_word(123)) + 97 * golden) % 2**64
    decks = {tuple(dealt(options, seed)["deck"][0]) for seed in range(20)}
    assert len(decks) == 20
    assert tuple(range(2, 100)) not in decks


def test_deal_gives_the_first_turn_to_the_start_player():
    s = dealt(Options(num_players=4, start_player=2), 9)
    assert s["current"][0] == 2


# --- drawing back up --------------------------------------------------------------------
def test_end_of_turn_draws_back_up_to_the_hand_size_in_deck_order():
    t = table([FULL_HAND], draw=[60, 61, 62, 63, 64])
    for card in (10, 11, 12):
        t.play(card, 0)
    t.end_turn()
    assert t.hand(0) == [13, 14, 15, 16, 17, 60, 61, 62]
    assert t.obs()["draw_pile_size"] == 2
    assert int(t.e["deck_pos"]) == 98 - 2
    assert t.obs()["min_plays_left"] == 2


def test_end_of_turn_draws_only_as_far_as_the_draw_pile_goes():
    t = table([FULL_HAND], draw=[60, 61])
    for card in (10, 11, 12):
        t.play(card, 0)
    t.end_turn()
    assert t.hand(0) == [13, 14, 15, 16, 17, 60, 61]
    assert t.obs()["draw_pile_size"] == 0
    assert t.obs()["min_plays_left"] == 1  # the draw pile is now empty


def test_only_the_player_ending_the_turn_draws():
    t = table([[10, 11, 12, 13, 14, 15, 16], [20, 21, 22, 23, 24, 25, 26]], draw=[60, 61, 62])
    t.play(10, 0)
    t.play(11, 0)
    t.end_turn()
    assert t.hand(0) == [12, 13, 14, 15, 16, 60, 61]
    assert t.hand(1) == [20, 21, 22, 23, 24, 25, 26]
    assert t.current == 1 and t.turn == 1
    assert list(t.obs(1)["hand_sizes"]) == [7, 7]


# --- On Fire ----------------------------------------------------------------------------
def test_fire_deadline_in_solo_is_the_end_of_the_same_players_next_turn():
    t = table(
        [[22, 30, 31, 32, 40, 41, 42, 43]], draw=[90, 91, 92, 93], piles=(10, 20, 100, 100), on_fire=True
    )
    t.play(22, 0)
    o = t.obs()
    assert list(o["fire_tops"]) == [1, 0, 0, 0] and list(o["fire_deadline"]) == [2, 0, 0, 0]
    t.play(30, 1)
    t.end_turn()  # end of turn 0: not yet
    assert t.status == Status.PLAYING and t.current == 0 and t.turn == 1
    assert list(t.obs()["fire_deadline"]) == [1, 0, 0, 0]
    t.play(31, 1)
    t.play(32, 1)
    assert t.end_turn() == 0.0  # end of turn 1: lost
    t.assert_over(Status.FIRE_LOSS)
    assert t.score() == 6 + 2


def test_covering_the_fire_card_on_the_next_turn_saves_the_game():
    t = table(
        [[22, 30, 31, 32, 40, 41, 42, 43]], draw=[90, 91, 92, 93], piles=(10, 20, 100, 100), on_fire=True
    )
    t.play_turn((22, 0), (30, 1))
    t.play(40, 0)  # covers the 22
    assert list(t.obs()["fire_tops"]) == [0, 0, 0, 0] and list(t.obs()["fire_deadline"]) == [0] * 4
    t.play_turn((31, 1))
    assert t.status == Status.PLAYING and t.turn == 2
    t.play_turn((41, 0), (42, 0))
    assert t.status == Status.PLAYING


def test_covering_in_the_same_turn_clears_the_fire():
    t = table([[22, 23, 30, 31, 32]], piles=(10, 20, 100, 100), on_fire=True)
    t.play_turn((22, 0), (23, 0))
    t.play_turn((30, 1))
    assert t.status == Status.PLAYING


def test_fire_deadline_with_several_players_is_the_end_of_the_next_players_turn():
    hands = [[22, 30, 31, 32, 33, 34], [50, 51, 52, 53, 54, 55], [60, 61, 62, 63, 64, 65]]
    t = table(hands, draw=[90, 91, 92, 93, 94, 95], piles=(10, 20, 100, 100), on_fire=True)
    t.play(22, 0)
    t.play(30, 1)
    t.end_turn()  # seat 0's own turn ends: not yet
    assert t.status == Status.PLAYING and t.current == 1
    t.play(55, 2)
    t.play(54, 2)
    t.end_turn()  # seat 1 (the next player) did not cover: lost, seat 2 never plays
    t.assert_over(Status.FIRE_LOSS)
    assert t.current == 1
    assert t.hand(1) == [50, 51, 52, 53]  # the game ended at once: no drawing


def test_fire_card_covered_by_the_next_player_is_fine():
    hands = [[22, 30, 31, 32, 33, 34], [50, 51, 52, 53, 54, 55], [60, 61, 62, 63, 64, 65]]
    t = table(hands, draw=[90, 91, 92, 93, 94, 95], piles=(10, 20, 100, 100), on_fire=True)
    t.play_turn((22, 0), (30, 1))
    t.play(50, 0)  # seat 1 covers
    t.play_turn((55, 2))
    assert t.status == Status.PLAYING and t.current == 2
    t.play_turn((65, 2), (64, 2))
    assert t.status == Status.PLAYING and t.current == 0


def test_fire_on_fire_keeps_the_older_deadline():
    t = table(
        [[22, 33, 30, 31, 34, 40, 41, 42]], draw=[90, 91, 92, 93], piles=(10, 20, 100, 100), on_fire=True
    )
    t.play(22, 0)  # turn 0
    t.play_turn((30, 1))
    t.play(33, 0)  # turn 1: a fire card on the uncovered 22
    assert list(t.obs()["fire_deadline"]) == [1, 0, 0, 0]  # still the 22's deadline
    assert int(t.e["fire_turn"][0]) == 0
    t.play(31, 1)
    t.end_turn()  # end of turn 1: the 22 (placed at turn 0) was never covered
    t.assert_over(Status.FIRE_LOSS)


def test_fire_on_fire_then_a_normal_card_covers_both():
    t = table(
        [[22, 33, 30, 31, 34, 40, 41, 42]], draw=[90, 91, 92, 93], piles=(10, 20, 100, 100), on_fire=True
    )
    t.play_turn((22, 0), (30, 1))
    t.play_turn((33, 0), (34, 0))
    assert t.status == Status.PLAYING and list(t.obs()["fire_tops"]) == [0] * 4


def test_a_new_fire_card_after_a_cover_gets_a_new_deadline():
    t = table(
        [[22, 25, 33, 30, 31, 32, 40, 41]], draw=[90, 91, 92, 93, 94], piles=(10, 20, 100, 100), on_fire=True
    )
    t.play(22, 0)  # turn 0
    t.play_turn((30, 1))
    t.play(25, 0)  # turn 1: cover
    t.play(33, 0)  # turn 1: a new fire card, due by the end of turn 2
    assert list(t.obs()["fire_deadline"]) == [2, 0, 0, 0]
    t.end_turn()
    assert t.status == Status.PLAYING
    t.play_turn((31, 1), (32, 1))
    t.assert_over(Status.FIRE_LOSS)


def test_fire_cards_are_ordinary_without_the_on_fire_option():
    t = table([[22, 30, 31, 32, 40, 41, 42, 43]], draw=[90, 91, 92, 93], piles=(10, 20, 100, 100))
    t.play_turn((22, 0), (30, 1))
    t.play_turn((31, 1), (32, 1))
    assert t.status == Status.PLAYING
    assert list(t.obs()["fire_tops"]) == [0] * 4


def test_a_fire_loss_is_a_loss_even_with_a_winning_score():
    t = table([[22, 30, 31, 40, 41]], piles=(10, 20, 100, 100), on_fire=True, reward="win")
    assert t.play(22, 0) == 0.0
    assert t.end_turn() == 0.0
    assert t.play(30, 1) == 0.0
    assert t.end_turn() == -1.0
    t.assert_over(Status.FIRE_LOSS)
    assert t.score() == 3


# --- skipping empty hands ---------------------------------------------------------------
def test_seats_with_empty_hands_are_skipped_once_the_draw_pile_is_empty():
    t = table([[10, 11], [], [20, 21, 23]])
    t.play_turn((10, 0))
    assert t.current == 2 and t.turn == 1
    assert list(t.obs(2)["hand_sizes"]) == [3, 1, 0]  # from seat 2: itself, seat 0, seat 1
    t.play_turn((20, 0))
    assert t.current == 0
    t.play(11, 1)  # seat 0 plays its last card
    t.end_turn()
    assert t.current == 2  # seats 0 and 1 are both empty now
    t.play_turn((21, 0))
    assert t.current == 2 and t.turn == 4  # the only seat with cards plays again
    assert t.status == Status.PLAYING


# --- the game ending --------------------------------------------------------------------
def test_stuck_mid_turn_ends_the_game_at_once():
    t = table([[99, 50, 60, 40, 45, 55, 65, 75]], draw=[70, 71], piles=(98, 98, 3, 3))
    assert t.legal() == {play_to_action(0, 99), play_to_action(1, 99)}
    t.play(99, 0)  # one play still owed, nothing fits
    t.assert_over(Status.STUCK)
    assert t.score() == 7 + 2


@pytest.mark.parametrize(("draw", "reward"), [([70, 71], 1.0), ([70, 71, 72], -1.0)])
def test_win_threshold_is_a_score_of_nine(draw, reward):
    t = table([[99, 50, 60, 40, 45, 55, 65, 75]], draw=draw, piles=(98, 98, 3, 3), reward="win")
    assert t.play(99, 0) == reward
    t.assert_over(Status.STUCK)
    assert t.score() == 7 + len(draw)


def test_no_legal_play_after_the_minimum_leaves_only_end_turn():
    t = table([[99, 50]], piles=(98, 98, 3, 3))
    t.play(99, 0)
    assert t.status == Status.PLAYING
    assert t.legal() == {END_TURN}
    t.end_turn()  # solo: the same player's next turn starts with no legal play
    t.assert_over(Status.STUCK)
    assert t.score() == 1


def test_stuck_at_the_start_of_the_next_players_turn():
    t = table([[99, 2, 4, 5, 6, 7, 8], [50, 60, 40, 45, 55, 65, 75]], draw=[70, 71], piles=(98, 98, 3, 3))
    t.play(99, 0)
    t.play(2, 2)
    assert t.end_turn() == 0.0
    t.assert_over(Status.STUCK)
    assert t.current == 1 and t.turn == 1
    assert t.hand(0) == [4, 5, 6, 7, 8, 70, 71]  # seat 0 drew before seat 1 was stuck
    assert t.score() == 7 + 7


def test_not_stuck_while_the_next_player_can_play():
    t = table([[99, 2], [50, 13]], piles=(98, 98, 3, 3))
    t.play_turn((99, 0))
    assert t.status == Status.PLAYING and t.current == 1
    assert t.legal() == {play_to_action(2, 13), play_to_action(3, 13)}  # 3 + 10


@pytest.mark.parametrize("reward", ["cards", "win"])
def test_perfect_game(reward):
    t = table([[50]], piles=(40, 97, 98, 99), reward=reward)
    assert t.play(50, 0) == 1.0
    t.assert_over(Status.ALL_PLAYED)
    assert t.score() == 0
    o = t.obs(0)
    assert o["played_cards"].all() and not o["hand"].any()


def test_placing_the_last_card_ends_the_game_at_once_even_on_fire():
    # seat 1 still holds nothing, seat 0 places the 98th card: a fire card left uncovered
    t = table([[22], []], piles=(10, 97, 98, 99), on_fire=True, reward="win", turn=5)
    assert t.play(22, 0) == 1.0
    t.assert_over(Status.ALL_PLAYED)


def test_the_game_ending_pays_nothing_more_in_cards_mode():
    t = table([[99, 50, 60, 40, 45, 55, 65, 75]], draw=[70, 71], piles=(98, 98, 3, 3))
    assert t.play(99, 0) == 1.0
    t.assert_over(Status.STUCK)


# --- options ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 0},
        {"num_players": 6},
        {"num_players": "2"},
        {"num_players": True},
        {"num_players": 2.0},
        {"level": 3},
        {"level": -1},
        {"level": "1"},
        {"reward": "x"},
        {"reward": 0},
        {"on_fire": "yes"},
        {"num_players": 2, "start_player": 2},
        {"num_players": 2, "start_player": -1},
        {"num_players": 1, "start_player": 1},
    ],
)
def test_options_reject_bad_values(kwargs):
    with pytest.raises(ValueError):
        Options(**kwargs)


def test_options_accept_every_valid_combination():
    for n in range(1, 6):
        for level in (0, 1, 2):
            for reward in ("cards", "win"):
                o = Options(num_players=n, on_fire=True, level=level, reward=reward, start_player=n - 1)
                assert o.min_plays == (2 if level == 0 else 3)


# --- hidden information -----------------------------------------------------------------
def _random_midgame(seed: int) -> np.ndarray | None:
    rnd = random.Random(seed)
    n = rnd.randint(1, 5)
    options = Options(num_players=n, on_fire=rnd.random() < 0.5, level=rnd.choice((0, 1, 2)))
    s = dealt(options, seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for _ in range(rnd.randrange(0, 40)):
        if not at(rules.legal_mask_r, s, 0, mask[None, :], 0):
            return None
        at(rules.apply_action_r, s, 0, rnd.choice(np.flatnonzero(mask).tolist()))
    return s if s["status"][0] == Status.PLAYING else None


def _hide_shuffle(s: np.ndarray, viewer: int, rnd: random.Random) -> np.ndarray:
    """Rearrange what ``viewer`` cannot see: other seats' cards (sizes kept) and the draw pile."""
    t = s.copy()
    e = t[0]
    n = int(e["cfg_players"])
    others = [seat for seat in range(n) if seat != viewer]
    pos = int(e["deck_pos"])
    hidden = [int(c) for seat in others for c in e["hand"][seat, : e["hand_size"][seat]]]
    hidden += [int(c) for c in e["deck"][pos:]]
    rnd.shuffle(hidden)
    for seat in others:
        k = int(e["hand_size"][seat])
        e["hand"][seat, :k] = hidden[:k]
        hidden = hidden[k:]
    e["deck"][pos:] = hidden
    return t


def test_observation_hides_other_hands_and_the_draw_pile_order():
    rnd = random.Random(2024)
    checked = changed = 0
    for seed in range(300):
        s = _random_midgame(seed)
        if s is None:
            continue
        n = int(s["cfg_players"][0])
        dim = observe.observation_dim(n)
        for viewer in range(n):
            base = np.zeros(dim, np.float32)
            at(observe.observe_r, s, 0, viewer, base[None, :], 0)
            for _ in range(3):
                t = _hide_shuffle(s, viewer, rnd)
                changed += not np.array_equal(t["hand"], s["hand"]) or not np.array_equal(
                    t["deck"], s["deck"]
                )
                out = np.zeros(dim, np.float32)
                at(observe.observe_r, t, 0, viewer, out[None, :], 0)
                assert np.array_equal(out, base), f"seed {seed} viewer {viewer}"
                checked += 1
    assert checked > 500 and changed > 0.9 * checked


def test_observation_does_show_the_own_hand():
    """Control for the test above: a change the viewer may see does change the observation."""
    s = next(s for s in map(_random_midgame, range(100)) if s is not None)
    seat = int(s["current"][0])
    dim = observe.observation_dim(int(s["cfg_players"][0]))
    base, out = np.zeros(dim, np.float32), np.zeros(dim, np.float32)
    at(observe.observe_r, s, 0, seat, base[None, :], 0)
    t = s.copy()
    t["hand"][0, seat, 0] = [c for c in ALL_CARDS if c not in t["hand"][0, seat]][0]
    at(observe.observe_r, t, 0, seat, out[None, :], 0)
    assert not np.array_equal(out, base)
