"""Scripted scenarios of Shikokushi Koikoi (``docs/rules/koikoi.md``) run on the numba kernels.

Each scenario builds an exact table with :func:`table` (hands, field, stock order,
captured cards, chips, koi-koi counts...) and plays it through ``rules.apply_action_r``;
the assertions fail if the rule named in the test were broken. Cards are written the
way a player reads them (``"♠7"``, ``"♥α"``).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from helpers import KernelTable
from koikoi_reference import yaku_of

from koikoi_env import observe, rules
from koikoi_env.spec import (
    KOIKOI,
    NUM_ACTIONS,
    NUM_CARDS,
    PLAY_OFFSET,
    STOP,
    TAKE_OFFSET,
    Options,
    Phase,
    RoundEnd,
    Status,
    multiplier,
    parse_card,
)
from koikoi_env.state import LOC_CAPTURED, LOC_FIELD, LOC_HAND, LOC_OUT, LOC_STOCK, new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at


def C(name: str) -> int:
    return parse_card(name)


def cards(names: str) -> list[int]:
    return [C(x) for x in names.split()]


# --- a readable table builder -----------------------------------------------------------
class Table(KernelTable):
    """A batch-of-one kernel State with helpers to play it by card name."""

    rules = rules
    num_actions = NUM_ACTIONS
    status_type = Status

    def _act(self, action: int) -> list[int]:
        assert action in self.legal(), f"{action} should be legal; legal: {sorted(self.legal())}"
        chips_before = self.chips
        at(rules.apply_action_r, self.s, 0, action)
        delta = [int(x) for x in self.e["delta"][: self.n]]
        assert [a + d for a, d in zip(chips_before, delta)] == self.chips
        assert sum(delta) == 0
        return delta

    def play(self, name: str) -> list[int]:
        return self._act(PLAY_OFFSET + C(name))

    def take(self, name: str) -> list[int]:
        return self._act(TAKE_OFFSET + C(name))

    def koikoi(self) -> list[int]:
        return self._act(KOIKOI)

    def stop(self) -> list[int]:
        return self._act(STOP)

    # reading
    @property
    def n(self) -> int:
        return int(self.e["cfg_players"])

    def where(self, code: int) -> set[int]:
        return set(np.flatnonzero(self.e["loc"] == code).tolist())

    def hand(self, seat: int) -> set[int]:
        h = self.where(LOC_HAND + seat)
        assert len(h) == int(self.e["hand_size"][seat])
        return h

    def captured(self, seat: int) -> set[int]:
        return self.where(LOC_CAPTURED + seat)

    @property
    def field(self) -> set[int]:
        return self.where(LOC_FIELD)

    @property
    def stock(self) -> list[int]:
        return [int(c) for c in self.e["deck"][int(self.e["deck_pos"]) :]]

    @property
    def phase(self) -> Phase:
        return Phase(int(self.e["phase"]))

    @property
    def dealer(self) -> int:
        return int(self.e["dealer"])

    @property
    def chips(self) -> list[int]:
        return [int(x) for x in self.e["chips"][: self.n]]

    @property
    def round(self) -> int:
        return int(self.e["round"])

    @property
    def last_end(self) -> RoundEnd:
        return RoundEnd(int(self.e["last_end"]))

    def yaku(self, seat: int) -> int:
        return int(self.e["yaku"][seat])

    def obs(self, seat: int) -> dict[str, np.ndarray]:
        out = np.zeros(observe.observation_dim(self.n), np.float32)
        at(observe.observe_r, self.s, 0, seat, out[None, :], 0)
        return observe.decode_observation(out, self.n)


def table(
    hands,
    field="",
    stock="",
    captured=None,
    *,
    current: int = 0,
    dealer: int = 0,
    chips=None,
    koikoi=None,
    rounds: int = 8,
    round_index: int = 0,
    seed: int = 0,
) -> Table:
    """A round in progress. ``hands``: one string of card names per seat; ``field``;
    ``stock`` top first; ``captured``: one string per seat. Every other card is out of
    play. Stored yaku scores are those of the captured cards."""
    n = len(hands)
    s = new_state(1, Options(num_players=n, rounds=rounds, first_dealer=dealer))
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    e = s[0]
    captured = captured or [""] * n
    hands_c = [cards(h) for h in hands]
    field_c = cards(field) if field else []
    stock_c = cards(stock) if stock else []
    capt_c = [cards(c) if c else [] for c in captured]
    listed = [c for h in hands_c for c in h] + field_c + stock_c + [c for cc in capt_c for c in cc]
    assert len(set(listed)) == len(listed), "a card appears twice"
    e["loc"][:] = LOC_OUT
    rest = [c for c in range(NUM_CARDS) if c not in set(stock_c)]
    e["deck"][:] = rest + stock_c
    e["deck_pos"] = len(rest)
    for c in stock_c:
        e["loc"][c] = LOC_STOCK
    for seat, h in enumerate(hands_c):
        for c in h:
            e["loc"][c] = LOC_HAND + seat
        e["hand_size"][seat] = len(h)
    for c in field_c:
        e["loc"][c] = LOC_FIELD
    t = Table(s)
    for seat, cc in enumerate(capt_c):
        for c in cc:
            e["loc"][c] = LOC_CAPTURED + seat
    at(rules.sync_bits_r, s, 0)
    for seat in range(n):
        e["yaku"][seat] = at(rules.yaku_score_r, s, 0, seat)
    e["current"] = current
    e["dealer"] = dealer
    e["chips"][:n] = chips if chips is not None else [25] * n
    e["koikoi"][:n] = koikoi if koikoi is not None else [0] * n
    e["round"] = round_index
    e["phase"] = int(Phase.PLAY)
    e["pending"] = -1
    return t


# --- dealing ------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_deal_gives_eight_cards_each_eight_to_the_field_and_the_rest_to_the_stock(num_players):
    s = new_state(1, Options(num_players=num_players, first_dealer=num_players - 1))
    s["rng"][0] = seed_word(5)
    at(rules.deal_r, s, 0)
    t = Table(s)
    for seat in range(num_players):
        assert len(t.hand(seat)) == 8
        assert t.hand(seat) == set(int(c) for c in t.e["deck"][8 * seat : 8 * seat + 8])
    assert len(t.field) == 8
    assert len(t.stock) == {2: 64, 3: 56, 4: 48}[num_players]
    everything = set(t.stock) | t.field | set().union(*(t.hand(k) for k in range(num_players)))
    assert everything == set(range(NUM_CARDS))
    assert t.current == t.dealer == num_players - 1
    assert t.chips == [25] * num_players and t.phase == Phase.PLAY and t.status == Status.PLAYING


def test_deal_is_reproducible_and_seeds_differ():
    a, b, c = (new_state(1, Options()) for _ in range(3))
    for s, seed in ((a, 1), (b, 1), (c, 2)):
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
    assert np.array_equal(a["deck"], b["deck"]) and np.array_equal(a["loc"], b["loc"])
    assert not np.array_equal(a["deck"], c["deck"])


# --- step 2: matching the played card -----------------------------------------------------
def test_played_card_with_one_match_takes_it_and_skips_flip_and_draw():
    t = table(["♠7 ♠9", "♥1 ♥2"], field="♥7 ♦3", stock="♣3 ♣4 ♣5")
    assert t.play("♠7") == [0, 0]
    assert t.captured(0) == set(cards("♠7 ♥7"))
    assert t.field == {C("♦3")}
    assert t.stock == cards("♣3 ♣4 ♣5")  # no flip
    assert t.hand(0) == {C("♠9")}  # no draw
    assert t.current == 1 and t.phase == Phase.PLAY


def test_played_card_with_two_matches_lets_the_player_choose():
    t = table(["♠7 ♠9", "♥1 ♥2"], field="♥7 ♦7 ♦3", stock="♣3 ♣4")
    t.play("♠7")
    assert t.phase == Phase.CHOOSE_PLAYED and t.current == 0
    assert t.legal() == {TAKE_OFFSET + C("♥7"), TAKE_OFFSET + C("♦7")}
    o = t.obs(1)  # public: the other seat sees the pending choice too
    assert np.flatnonzero(o["pending_card"]).tolist() == [C("♠7")]
    assert set(np.flatnonzero(o["pending_matches"]).tolist()) == set(cards("♥7 ♦7"))
    assert o["phase"].tolist() == [0, 1, 0, 0]
    t.take("♦7")
    assert t.captured(0) == set(cards("♠7 ♦7"))
    assert t.field == set(cards("♥7 ♦3"))
    assert t.stock == cards("♣3 ♣4")
    assert t.current == 1 and t.phase == Phase.PLAY


def test_played_card_with_three_matches_takes_all_three():
    t = table(["♠7 ♠9", "♥1 ♥2"], field="♥7 ♦7 ♣7 ♦3", stock="♣3")
    t.play("♠7")
    assert t.captured(0) == set(cards("♠7 ♥7 ♦7 ♣7"))
    assert t.field == {C("♦3")} and t.stock == [C("♣3")]
    assert t.current == 1


# --- step 3: the flip -------------------------------------------------------------------------
def test_unmatched_play_stays_and_the_flip_captures_with_one_match():
    t = table(["♠7 ♠9", "♥1 ♥2"], field="♥3 ♦5", stock="♣3 ♣4 ♣6")
    t.play("♠9")
    assert t.captured(0) == set(cards("♣3 ♥3"))
    assert t.field == set(cards("♠9 ♦5"))
    assert t.stock == cards("♣4 ♣6")
    assert t.hand(0) == {C("♠7")}  # a capture by the flip skips the draw
    assert t.current == 1


def test_flipped_card_with_two_matches_the_same_player_chooses():
    t = table(["♠7 ♠9", "♥1 ♥2"], field="♥3 ♦3", stock="♣3 ♣4")
    t.play("♠9")
    assert t.phase == Phase.CHOOSE_FLIPPED and t.current == 0
    assert t.legal() == {TAKE_OFFSET + C("♥3"), TAKE_OFFSET + C("♦3")}
    assert np.flatnonzero(t.obs(0)["pending_card"]).tolist() == [C("♣3")]
    t.take("♥3")
    assert t.captured(0) == set(cards("♣3 ♥3"))
    assert t.field == set(cards("♠9 ♦3"))
    assert t.hand(0) == {C("♠7")} and t.stock == [C("♣4")]
    assert t.current == 1


@pytest.mark.parametrize(
    "hands, field, stock, play, captured, field_after",
    [
        pytest.param(
            ["♠α ♠9", "♥1 ♥2"],
            "♥α ♥β",
            "♣3 ♣4",
            "♠α",
            "♠α ♥α",
            "♥β",
            id="matching is by rank for non-number cards too",
        ),
        pytest.param(
            ["♠7 ♠9", "♥1 ♥2"],
            "♥3 ♦3 ♠3",
            "♣3 ♣4",
            "♠9",
            "♣3 ♥3 ♦3 ♠3",
            "♠9",
            id="flipped card with three matches takes all three",
        ),
        pytest.param(
            ["♠9 ♠1", "♥1 ♥2"],
            "♥3",
            "♣9 ♣4",
            "♠9",
            "♠9 ♣9",
            "♥3",
            id="the flip can match the card just played",
        ),
    ],
)
def test_a_play_and_its_flip_capture(hands, field, stock, play, captured, field_after):
    t = table(hands, field=field, stock=stock)
    t.play(play)
    assert t.captured(0) == set(cards(captured)) and t.field == set(cards(field_after))


# --- step 4: the draw -------------------------------------------------------------------------
def test_no_match_at_all_draws_back_up_to_eight():
    t = table(["♠0 ♠1 ♠2 ♠4 ♠5 ♠6 ♠8 ♠9", "♥1"], field="♥3", stock="♣5 ♣6 ♣7 ♣8")
    t.play("♠9")
    assert t.field == set(cards("♥3 ♠9 ♣5"))
    assert t.hand(0) == set(cards("♠0 ♠1 ♠2 ♠4 ♠5 ♠6 ♠8 ♣6"))  # 7 + 1 = 8
    assert t.stock == cards("♣7 ♣8")
    assert t.current == 1


def test_the_draw_is_at_most_two_cards():
    t = table(["♠0 ♠1 ♠9", "♥1"], field="♥3", stock="♣5 ♣6 ♣7 ♣8")
    t.play("♠9")
    assert t.hand(0) == set(cards("♠0 ♠1 ♣6 ♣7"))
    assert t.stock == [C("♣8")]


def test_the_draw_is_limited_by_the_stock_and_an_empty_stock_ends_the_round():
    t = table(["♠0 ♠9", "♥1 ♥4"], field="♥3", stock="♣5 ♣6", dealer=1, current=0)
    t.play("♠9")
    # flipped ♣5, drew ♣6 (one card left although two were allowed): the stock is empty
    assert t.last_end == RoundEnd.DECK_EMPTY
    assert t.round == 1 and t.chips == [25, 25]
    assert t.dealer == 1 and t.current == 1  # same dealer deals and starts again


# --- step 5 and the yaku ---------------------------------------------------------------------
def test_great_x_at_three_non_numbers_then_plus_three_per_card():
    t = table(["♠γ ♠δ", "♥1 ♥2"], field="♥γ ♥δ", stock="♣0 ♣1 ♣2 ♣4 ♣5", captured=["♠α ♠β", ""])
    assert t.yaku(0) == 0
    t.play("♠γ")
    assert t.yaku(0) == 5 and t.phase == Phase.DECIDE and t.current == 0
    assert t.legal() == {KOIKOI, STOP}
    t.koikoi()
    assert t.current == 1 and t.e["koikoi"][0] == 1
    t.play("♥1")  # no match anywhere: flips ♣0, draws
    t.play("♠δ")  # fourth non-number of swords; the fourth captured ♥δ is a cups card
    assert t.yaku(0) == 8 and t.phase == Phase.DECIDE


def test_triple_x_at_a_run_of_three_then_plus_three_per_card():
    t = table(["♦6 ♦3", "♥15 ♥14"], field="♣6 ♣3", stock="♠α ♠β ♠γ ♠δ ♠ε", captured=["♦4 ♦5", ""])
    t.play("♦6")
    assert t.yaku(0) == 5 and t.phase == Phase.DECIDE
    t.koikoi()
    t.play("♥15")
    t.play("♦3")
    assert t.yaku(0) == 8 and t.phase == Phase.DECIDE


def test_suit_count_at_six_cards_then_plus_one_per_card():
    t = table(["♣9 ♣13", "♥15 ♥14"], field="♠9 ♠13", stock="♦α ♦β ♦γ ♦δ ♦ε", captured=["♣0 ♣2 ♣4 ♣11", ""])
    t.play("♣9")  # ♣9 + ♠9: 5 clubs -> no yaku yet
    assert t.yaku(0) == 0 and t.phase == Phase.PLAY and t.current == 1
    t.play("♥15")
    t.play("♣13")  # 6 clubs
    assert t.yaku(0) == 1 and t.phase == Phase.DECIDE
    t2 = table(["♣9", "♥15"], field="♥9", stock="♦α", captured=["♣0 ♣2 ♣4 ♣11 ♣13 ♣15", ""])
    assert t2.yaku(0) == 1
    t2.play("♣9")
    assert t2.yaku(0) == 2 and t2.phase == Phase.DECIDE


def test_yaku_scores_add_up_across_kinds_and_suits():
    capt = "♠0 ♠1 ♠2 ♠3 ♠α ♠β ♠γ ♥δ ♥ε ♥ζ ♥14 ♥15"
    t = table(["♦1", "♦2"], field="", stock="♦3", captured=[capt, ""])
    # swords: triple of 4 (8) + great of 3 (5) + 7 cards (2); cups: great 3 (5), 5 cards
    assert t.yaku(0) == 8 + 5 + 2 + 5
    assert yaku_of(cards(capt)) == 20


def test_triple_counts_only_the_longest_run_of_the_suit():
    t = table(["♦1", "♦2"], stock="♦3", captured=["♠0 ♠1 ♠2 ♠5 ♠6 ♠7 ♠8", ""])
    # two runs (3 and 4): only the run of 4 counts -> 8, plus 7 swords -> 2
    assert t.yaku(0) == 8 + 2


def test_runs_use_numbers_only_and_do_not_wrap():
    t = table(["♦1", "♦2"], stock="♦3", captured=["♠14 ♠15 ♠α ♠0 ♥15 ♥0 ♥1", ""])
    assert t.yaku(0) == 0


@pytest.mark.parametrize("seed", range(4))
def test_yaku_kernel_matches_the_reference_on_random_capture_sets(seed):
    rnd = random.Random(seed)
    s = new_state(1, Options(num_players=2))
    at(rules.deal_r, s, 0)
    for _ in range(300):
        k = rnd.randint(0, 40)
        chosen = rnd.sample(range(NUM_CARDS), k)
        s["loc"][0, :] = LOC_OUT
        s["loc"][0, chosen] = LOC_CAPTURED + 1
        at(rules.sync_bits_r, s, 0)
        assert at(rules.yaku_score_r, s, 0, 1) == yaku_of(chosen)
        assert at(rules.yaku_score_r, s, 0, 0) == 0


def test_a_capture_that_does_not_raise_the_score_ends_the_turn():
    t = table(["♠9 ♠1", "♥1 ♥2"], field="♥9", stock="♣4", captured=["♠α ♠β ♠γ", ""])
    assert t.yaku(0) == 5
    t.play("♠9")
    assert t.phase == Phase.PLAY and t.current == 1 and t.yaku(0) == 5


def test_koikoi_passes_the_turn_and_a_later_rise_offers_the_choice_again():
    t = table(["♠γ ♠δ ♠0", "♥1 ♥2 ♥4"], field="♥γ ♥δ", stock="♣0 ♣1 ♣2 ♣5", captured=["♠α ♠β", ""])
    t.play("♠γ")
    t.koikoi()
    assert t.current == 1 and t.phase == Phase.PLAY
    t.play("♥1")
    assert t.current == 0
    t.play("♠δ")
    assert t.phase == Phase.DECIDE
    t.koikoi()
    assert int(t.e["koikoi"][0]) == 2
    assert t.obs(1)["koikoi_counts"].tolist() == [0, 2]
    assert t.obs(1)["yaku_scores"].tolist() == [0, 8]


# --- scoring ----------------------------------------------------------------------------------
@pytest.mark.parametrize("declared,mult", [(0, 1), (1, 1), (2, 2), (3, 3), (4, 4), (5, 4)])
def test_stop_collects_yaku_times_the_multiplier_from_every_other_player(declared, mult):
    assert multiplier(declared) == mult and rules.koikoi_multiplier(declared) == mult
    t = table(
        ["♠γ ♠0", "♥1 ♥2", "♦1 ♦2"],
        field="♥γ",
        stock="♣0 ♣1",
        captured=["♠α ♠β", "", ""],
        koikoi=[declared, 0, 0],
        chips=[25, 25, 25],
        dealer=1,
    )
    t.play("♠γ")
    assert t.phase == Phase.DECIDE
    delta = t.stop()
    pts = 5 * mult
    assert delta == [2 * pts, -pts, -pts]
    assert t.chips == [25 + 2 * pts, 25 - pts, 25 - pts]
    assert t.last_end == RoundEnd.STOP and int(t.e["last_points"]) == pts
    # the stopper deals the next round and acts first
    assert t.round == 1 and t.dealer == 0 and t.current == 0
    assert t.status == Status.PLAYING and len(t.hand(0)) == 8 and t.yaku(0) == 0
    assert int(t.e["koikoi"][0]) == 0


def test_payment_is_capped_at_what_the_payer_has_and_zero_chips_end_the_game():
    t = table(
        ["♠γ ♠0", "♥1 ♥2", "♦1 ♦2", "♣9 ♣10"],
        field="♥γ",
        stock="♣0 ♣1",
        captured=["♠α ♠β ♠ε", "", "", ""],  # already 5: the capture raises it to 8
        koikoi=[2, 0, 0, 0],
        chips=[10, 3, 40, 47],
        dealer=3,
        round_index=2,
    )
    t.play("♠γ")
    assert t.yaku(0) == 8
    delta = t.stop()  # 16 points from each: 3 (capped), 16, 16
    assert delta == [35, -3, -16, -16]
    assert t.chips == [45, 0, 24, 31] and sum(t.chips) == 100
    assert t.status == Status.BANKRUPT and t.round == 3
    assert t.legal() == set()
    assert t.obs(0)["phase"].tolist() == [0, 0, 0, 0]


def test_the_game_ends_after_the_last_round():
    t = table(["♠γ ♠0", "♥1 ♥2"], field="♥γ", stock="♣0", captured=["♠α ♠β", ""], rounds=3, round_index=2)
    t.play("♠γ")
    assert t.stop() == [5, -5]
    assert t.status == Status.ROUNDS_DONE and t.round == 3 and t.legal() == set()


def test_koikoi_on_the_last_card_ends_the_round_without_score():
    t = table(["♠γ", "♥1 ♥2"], field="♥γ", stock="♣0 ♣1", captured=["♠α ♠β", ""], dealer=1)
    t.play("♠γ")
    assert t.phase == Phase.DECIDE  # the choice is offered although the hand is empty
    assert t.koikoi() == [0, 0]
    assert t.last_end == RoundEnd.HAND_EMPTY and t.round == 1 and t.dealer == 1
    assert t.chips == [25, 25]


# --- no-score round ends ----------------------------------------------------------------------
def test_an_empty_hand_ends_the_round_with_no_score_and_the_dealer_stays():
    t = table(["♠9", "♥1 ♥2", "♦1 ♦2"], field="♥9", stock="♣0 ♣1", current=0, dealer=2)
    assert t.play("♠9") == [0, 0, 0]
    assert t.last_end == RoundEnd.HAND_EMPTY and int(t.e["last_winner"]) == -1
    assert t.round == 1 and t.dealer == 2 and t.current == 2
    assert t.chips == [25, 25, 25] and t.status == Status.PLAYING
    for seat in range(3):
        assert len(t.hand(seat)) == 8


def test_an_empty_hand_of_another_seat_ends_the_round_at_the_end_of_the_turn():
    t = table(["♠9 ♠1", "", "♦1 ♦2"], field="♥3", stock="♣0 ♣5 ♣6", current=0, dealer=0)
    t.play("♠9")
    assert t.last_end == RoundEnd.HAND_EMPTY and t.round == 1 and t.dealer == 0


def test_a_flip_from_an_empty_stock_ends_the_turn_and_the_round():
    t = table(["♠9 ♠1", "♥1 ♥2"], field="♥3", stock="", current=1, dealer=0)
    t.play("♥1")
    assert t.last_end == RoundEnd.DECK_EMPTY and t.round == 1 and t.dealer == 0 and t.current == 0


def test_taking_the_last_stock_card_by_a_flip_capture_ends_the_round_after_the_turn():
    t = table(["♠9 ♠1", "♥1 ♥2"], field="♥3", stock="♣3", current=0)
    t.play("♠9")  # flip ♣3 captures ♥3 (no yaku): the stock is empty at the end of the turn
    assert t.last_end == RoundEnd.DECK_EMPTY and t.round == 1


def test_no_score_rounds_count_towards_the_number_of_rounds():
    t = table(["♠9", "♥1"], field="♥9", stock="♣0", rounds=2, round_index=1)
    t.play("♠9")
    assert t.status == Status.ROUNDS_DONE and t.round == 2 and t.chips == [25, 25]


# --- observation: what each action does to the yaku ----------------------------------------
def test_action_pieces_give_each_actions_yaku_rise_and_missing_cards():
    """``observe`` (module docstring): per action card, the cards it captures, the rise of
    the actor's yaku score and of the best other seat's, the fall of the cards each lacks
    for Great X, Triple X and X (``rules.suit_missing``) and the rise of the longest runs
    of numbers, summed over the suits."""
    t = table(
        ["♠γ ♥5 ♦9 ♣0", "♠9 ♦1"],
        field="♦γ ♠5 ♣5 ♠0 ♥0 ♦0",
        stock="♥9 ♣9",
        captured=["♠α ♠β", "♥3 ♥4"],
    )
    o = t.obs(0)

    def at_card(piece, name):
        return o[piece][C(name)].tolist()

    # ♠γ takes ♦γ: the third ♠ non-number makes Great ♠ (5); ♠ and ♦ each lack one card
    # fewer for Great and for X. Seat 1 would come one card closer to Great ♠ and Great ♦.
    assert at_card("action_takes", "♠γ") == 2
    assert at_card("own_yaku_rise", "♠γ") == 5
    assert at_card("own_yaku_closer", "♠γ") == [2, 0, 2]
    assert at_card("rival_yaku_rise", "♠γ") == 0
    assert at_card("rival_yaku_closer", "♠γ") == [2, 0, 2]
    # ♥5 has two matches (♠5, ♣5), the choice comes later: the best of either capture.
    # For seat 1 (♥3 ♥4) the ♥5 makes Triple ♥: what this capture denies it.
    assert at_card("action_takes", "♥5") == 2
    assert at_card("own_yaku_rise", "♥5") == 0
    assert at_card("own_yaku_closer", "♥5") == [0, 2, 2]
    assert at_card("rival_yaku_rise", "♥5") == 5
    assert at_card("rival_yaku_closer", "♥5") == [0, 2, 2]
    # the longest runs of numbers: +1 in ♥ and +1 in the other suit taken; after it,
    # seat 1's longest run (in the suits the capture adds to) is ♥3 ♥4 ♥5
    assert at_card("own_run", "♥5") == [2, 1]
    assert at_card("rival_run", "♥5") == [2, 3]
    assert at_card("own_run", "♠γ") == [0, 0]  # non-numbers make no run
    # ♦9 matches nothing: it stays on the field, and the card itself is at stake
    assert at_card("action_takes", "♦9") == 0
    assert at_card("own_yaku_closer", "♦9") == [0, 1, 1]
    # ♣0 takes all three zeros: four cards, one of each suit
    assert at_card("action_takes", "♣0") == 4
    assert at_card("own_yaku_closer", "♣0") == [0, 4, 4]
    # only the actor's actions are written
    assert np.flatnonzero(o["action_takes"]).tolist() == sorted(cards("♠γ ♥5 ♣0"))
    assert np.count_nonzero(o["own_yaku_closer"].sum(axis=1)) == 4
    # the unseen cards of each rank: the stock and the other hand, never one's own cards
    assert at_card("unseen_of_rank", "♦9") == 3  # ♥9 ♣9 in the stock, ♠9 in seat 1's hand
    assert at_card("unseen_of_rank", "♠γ") == 0  # ♦γ on the field, ♥γ ♣γ out of play
    other = t.obs(1)
    assert other["unseen_of_rank"][C("♠9")] == 3  # ♦9 in seat 0's hand, ♥9 ♣9 in the stock
    pieces = (
        "action_takes",
        "own_yaku_rise",
        "own_yaku_closer",
        "rival_yaku_rise",
        "rival_yaku_closer",
        "own_run",
    )
    for piece in pieces:
        assert not other[piece].any(), piece  # seat 1 is not acting

    # the choice between ♠5 and ♣5: each take's own capture, at the field card's place
    t.play("♥5")
    assert t.phase == Phase.CHOOSE_PLAYED
    o = t.obs(0)
    assert np.flatnonzero(o["action_takes"]).tolist() == sorted(cards("♠5 ♣5"))
    assert at_card("rival_yaku_rise", "♠5") == 5
    assert at_card("own_yaku_closer", "♣5") == [0, 2, 2]
    t.take("♠5")  # no yaku rise: the turn ends, seat 1 acts; seat 0's view has none
    assert t.current == 1
    assert not t.obs(0)["action_takes"].any()
    seat1 = t.obs(1)
    assert seat1["action_takes"][C("♦1")] == 0 and seat1["own_yaku_closer"][C("♦1")].tolist() == [0, 1, 1]


# --- masks ----------------------------------------------------------------------------------------
def test_play_phase_allows_exactly_the_own_hand_cards():
    t = table(["♠9 ♠1 ♥α", "♥1 ♥2"], field="♥9", stock="♣0")
    assert t.legal() == {PLAY_OFFSET + c for c in cards("♠9 ♠1 ♥α")}
    assert not at(rules.is_legal_r, t.s, 0, PLAY_OFFSET + C("♥1"))  # the other seat's card
    for a in (-1, NUM_ACTIONS, KOIKOI, STOP, TAKE_OFFSET + C("♥9"), 10_000):
        assert not at(rules.is_legal_r, t.s, 0, a)


def test_every_combination_of_matches_on_the_field():
    for k in range(4):
        for field_suits in itertools.combinations(("♥", "♦", "♣"), k):
            field = " ".join(f"{x}5" for x in field_suits) + " ♦α"
            t = table(["♠5 ♠1", "♥1 ♥2"], field=field.strip(), stock="♣14 ♣13 ♣12 ♣11")
            t.play("♠5")
            if k == 2:
                assert t.phase == Phase.CHOOSE_PLAYED
            else:
                assert t.phase == Phase.PLAY and t.current == 1
                got = t.captured(0)
                assert got == (set() if k == 0 else {C("♠5")} | {C(f"{x}5") for x in field_suits})
