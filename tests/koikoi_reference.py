"""A slow, readable pure-Python Shikokushi Koikoi (``docs/rules/koikoi.md``), for differential
tests against the numba kernels.

Plain lists and sets, no arrays, no shared code with ``koikoi_env.rules``. The only
shared piece is the chance source: each round's deck order comes from ``next_deck``
(the tests pass the env's own shuffle so that both play the same deals).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache

NUM_CARDS = 88
RANKS = 22
NUMBERS = 16
PLAY, CHOOSE_PLAYED, CHOOSE_FLIPPED, DECIDE = 0, 1, 2, 3
KOIKOI, STOP = 176, 177
TAKE = 88


def suit(card: int) -> int:
    return card // RANKS


def rank(card: int) -> int:
    return card % RANKS


def longest_runs(cards) -> list[int]:
    """Per suit, the longest run of consecutive numbers 0..15."""
    out = []
    for x in range(4):
        numbers = {rank(c) for c in cards if suit(c) == x and rank(c) < NUMBERS}
        best = length = 0
        for number in range(NUMBERS):  # the run that ends at each number
            length = length + 1 if number in numbers else 0
            if length > best:
                best = length
        out.append(best)
    return out


def yaku_of(cards) -> int:
    """Sum over the suits of Great X + Triple X (longest run only) + X."""
    total = 0
    for x, longest in enumerate(longest_runs(cards)):
        mine = [rank(c) for c in cards if suit(c) == x]
        non_numbers = sum(1 for r in mine if r >= NUMBERS)
        if non_numbers >= 3:
            total += 5 + 3 * (non_numbers - 3)
        if longest >= 3:
            total += 5 + 3 * (longest - 3)
        if len(mine) >= 6:
            total += 1 + (len(mine) - 6)
    return total


def missing_of(cards) -> list[int]:
    """Summed over the suits: non-number cards short of 3, numbers short of a run of 3
    (fewest missing in any 3 consecutive numbers), cards short of 6 (0 once held)."""
    total = [0, 0, 0]
    for x in range(4):
        mine = [rank(c) for c in cards if suit(c) == x]
        total[0] += max(3 - sum(1 for r in mine if r >= NUMBERS), 0)
        held = set(mine)  # one card per suit and rank
        total[1] += 3 - max(
            (start in held) + (start + 1 in held) + (start + 2 in held) for start in range(NUMBERS - 2)
        )
        total[2] += max(6 - len(mine), 0)
    return total


@lru_cache(maxsize=1 << 16)
def standing(cards: frozenset) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """What a set of captured cards makes: (missing_of, longest_runs, yaku_of). Cached: the
    observation asks for the same sets at step after step (tuples: a cached value is shared)."""
    return tuple(missing_of(cards)), tuple(longest_runs(cards)), yaku_of(cards)


def multiplier(koikoi: int) -> int:
    return {0: 1, 1: 1, 2: 2, 3: 3}.get(koikoi, 4)


class KoikoiReference:
    """One game. ``next_deck()`` returns a round's 88 card ids in deal order."""

    def __init__(self, next_deck: Callable[[], list[int]], num_players=4, rounds=8, first_dealer=0):
        self.next_deck = next_deck
        self.n = num_players
        self.rounds = rounds
        self.chips = [25] * num_players
        self.dealer = first_dealer
        self.round = 0
        self.over = False
        self.status = 0
        self.deal()

    # --- round --------------------------------------------------------------------------
    def deal(self) -> None:
        deck = list(self.next_deck())
        assert sorted(deck) == list(range(NUM_CARDS))
        self.hands = [set(deck[8 * k : 8 * k + 8]) for k in range(self.n)]
        self.field = set(deck[8 * self.n : 8 * self.n + 8])
        self.stock = deck[8 * self.n + 8 :]  # top first
        self.captured = [set() for _ in range(self.n)]
        self.yaku = [0] * self.n
        self.koikoi = [0] * self.n
        self.current = self.dealer
        self.phase = PLAY
        self.pending = None

    def field_of_rank(self, card: int) -> list[int]:
        return sorted(c for c in self.field if rank(c) == rank(card) and c != card)

    def legal(self) -> list[int]:
        if self.over:
            return []
        if self.phase == PLAY:
            return sorted(self.hands[self.current])
        if self.phase == DECIDE:
            return [KOIKOI, STOP]
        return [TAKE + c for c in self.field_of_rank(self.pending)]

    def step(self, action: int) -> list[int]:
        """Apply a legal action; return each seat's chip change."""
        assert action in self.legal(), (action, self.legal())
        self.delta = [0] * self.n
        me = self.current
        if self.phase == PLAY:
            self.hands[me].remove(action)
            self.resolve(action, played=True)
        elif self.phase == DECIDE:
            if action == KOIKOI:
                self.koikoi[me] += 1
                self.end_turn()
            else:
                self.score_stop()
        else:
            taken = action - TAKE
            self.field.remove(taken)
            self.captured[me] |= {taken, self.pending}
            self.pending = None
            self.after_capture()
        return self.delta

    def resolve(self, card: int, played: bool) -> None:
        """Match a played (step 2) or flipped (step 3) card against the field."""
        matches = self.field_of_rank(card)
        me = self.current
        if len(matches) == 0:
            self.field.add(card)
            if played:
                self.flip()
            else:
                for _ in range(2):
                    if len(self.hands[me]) < 8 and self.stock:
                        self.hands[me].add(self.stock.pop(0))
                self.end_turn()
        elif len(matches) == 2:
            self.pending = card
            self.phase = CHOOSE_PLAYED if played else CHOOSE_FLIPPED
        else:
            for c in matches:
                self.field.remove(c)
            self.captured[me] |= set(matches) | {card}
            self.after_capture()

    def flip(self) -> None:
        if not self.stock:
            self.end_turn()
            return
        self.resolve(self.stock.pop(0), played=False)

    def after_capture(self) -> None:
        me = self.current
        score = yaku_of(self.captured[me])
        if score > self.yaku[me]:
            self.yaku[me] = score
            self.phase = DECIDE
        else:
            self.end_turn()

    def end_turn(self) -> None:
        self.phase = PLAY
        self.pending = None
        if any(len(h) == 0 for h in self.hands) or not self.stock:
            self.end_round()
            return
        self.current = (self.current + 1) % self.n

    def score_stop(self) -> None:
        me = self.current
        points = self.yaku[me] * multiplier(self.koikoi[me])
        for p in range(self.n):
            if p != me:
                pay = min(points, self.chips[p])
                self.chips[p] -= pay
                self.chips[me] += pay
                self.delta[p] -= pay
                self.delta[me] += pay
        self.dealer = me
        self.end_round()

    def end_round(self) -> None:
        self.round += 1
        self.phase = PLAY
        self.pending = None
        if min(self.chips) <= 0:
            self.over, self.status = True, 2
        elif self.round >= self.rounds:
            self.over, self.status = True, 1
        else:
            self.deal()

    # --- observation ----------------------------------------------------------------------
    def observation(self, seat: int) -> dict[str, list]:
        """The named observation pieces from ``seat``'s view (index 0 = seat itself)."""
        n = self.n
        order = [(seat + k) % n for k in range(n)]

        def hot(cards):
            v = [0.0] * NUM_CARDS
            for c in cards:
                v[c] = 1.0
            return v

        def one_hot(p):
            return [1.0 if q == p else 0.0 for q in order]

        playing = not self.over
        phase = [0.0] * 4
        if playing:
            phase[self.phase] = 1.0
        pending = [self.pending] if playing and self.pending is not None else []
        stock_or_other_hand = set(self.stock).union(*(self.hands[p] for p in range(n) if p != seat))
        unseen_by_rank = Counter(rank(d) for d in stock_or_other_hand)
        unseen = [float(unseen_by_rank[rank(c)]) for c in range(NUM_CARDS)]
        takes = [0.0] * NUM_CARDS
        own_rise, rival_rise = [0.0] * NUM_CARDS, [0.0] * NUM_CARDS
        own_closer = [[0.0] * 3 for _ in range(NUM_CARDS)]
        rival_closer = [[0.0] * 3 for _ in range(NUM_CARDS)]
        own_run = [[0.0] * 2 for _ in range(NUM_CARDS)]
        rival_run = [[0.0] * 2 for _ in range(NUM_CARDS)]

        def stake(p, cards):  # yaku rise, fall of each kind's missing cards, run rise, run after
            before = frozenset(self.captured[p])
            missing0, runs0, yaku0 = standing(before)
            missing1, runs1, yaku1 = standing(before | set(cards))
            fall = [b - a for b, a in zip(missing0, missing1)]
            longest = max([runs1[suit(c)] for c in cards if rank(c) < NUMBERS], default=0)
            return [yaku1 - yaku0, *fall, sum(runs1) - sum(runs0), longest]

        def values(cards):  # the actor's and the best other seat's, value by value
            own = stake(seat, cards)
            rival = [max(v) for v in zip(*(stake(p, cards) for p in range(n) if p != seat))]
            return own, rival

        if playing and seat == self.current and self.phase != DECIDE:
            if self.phase == PLAY:
                choices = {}
                for c in self.hands[seat]:
                    m = self.field_of_rank(c)
                    options = [[c, f] for f in m] if len(m) == 2 else [[c, *m]]
                    choices[c] = (len(options[0]) if m else 0, options)  # cards captured
            else:
                choices = {f: (2, [[self.pending, f]]) for f in self.field_of_rank(self.pending)}
            for c, (k, options) in choices.items():
                both = [values(o) for o in options]
                own = [max(v) for v in zip(*(b[0] for b in both))]
                rival = [max(v) for v in zip(*(b[1] for b in both))]
                takes[c] = float(k)
                own_rise[c], rival_rise[c] = float(min(own[0], 10)), float(min(rival[0], 10))
                own_closer[c], rival_closer[c] = [float(x) for x in own[1:4]], [float(x) for x in rival[1:4]]
                own_run[c] = [float(min(own[4], 4)), float(own[5])]
                rival_run[c] = [float(min(rival[4], 4)), float(rival[5])]
        return {
            "hand": hot(self.hands[seat]),
            "field": hot(self.field),
            "pending_card": hot(pending),
            "pending_matches": hot(self.field_of_rank(pending[0]) if pending else []),
            "unseen_of_rank": unseen,
            "action_takes": takes,
            "own_yaku_rise": own_rise,
            "own_yaku_closer": own_closer,
            "rival_yaku_rise": rival_rise,
            "rival_yaku_closer": rival_closer,
            "own_run": own_run,
            "rival_run": rival_run,
            "phase": phase,
            "deck_size": len(self.stock),
            "round": self.round,
            "rounds_left": max(self.rounds - self.round, 0) if playing else 0,
            "captured": [hot(self.captured[p]) for p in order],
            "current": one_hot(self.current) if playing else [0.0] * n,
            "dealer": one_hot(self.dealer),
            "chips": [self.chips[p] for p in order],
            "hand_sizes": [len(self.hands[p]) for p in order],
            "koikoi_counts": [self.koikoi[p] for p in order],
            "yaku_scores": [self.yaku[p] for p in order],
        }
