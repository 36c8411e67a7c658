"""A slow, readable, pure-Python reference of Exhaust (``docs/rules/exhaust.md``).

Written from the rules file, not from the kernels, so the differential test
(``test_exhaust_differential.py``) can compare the two. No numba, no numpy.

Conventions shared with the environment (``exhaust_env/spec.py``):

- card kinds: ``colour * 15 + number - 1`` (colours red, blue, yellow, green), 60 = copy;
  physical card ids 0..63, ids 60..63 are copies;
- areas: 0..3 Single slots, 4 Pair, 5 3 cards, 6 4 cards, 7 Straight, 8 Flush, 9 Any;
- actions: 0..60 add a card of that kind, 61 + area cast, 71 Time Magic, 72 flip;
- seats: the players; in solo seat 1 is the NPC;
- rewards: 0 until the episode ends, then loser -1, others +1 (zero_sum: +1/(N-1));
  solo +1 / -1 for the player.

Completion of a selection is decided here by listing, per area, the *candidate* plays
that could contain it (every number and copy split for sets, every run of numbers for
straights, the largest same-colour play for flushes, the whole hand for Any) instead of
the kernel's summary arithmetic. The brute-force test checks both against an
enumeration of every subset of small hands.
"""

from __future__ import annotations

from itertools import combinations

COPY = 60
ADD, CAST, TIME_MAGIC, FLIP = 0, 61, 71, 72
N_ACTIONS = 73
PAIR, THREE, FOUR, STRAIGHT, FLUSH, ANY = 4, 5, 6, 7, 8, 9
SET_SIZES = {PAIR: 2, THREE: 3, FOUR: 4}


def number(kind: int) -> int:
    return kind % 15 + 1


def colour(kind: int) -> int:
    return kind // 15


def kind_of_card(card: int) -> int:
    return COPY if card >= 60 else card


def single_accepts(singles: int, area: int, col: int) -> bool:
    """4 singles: one per colour; 2: red+yellow / blue+green; 1: every colour."""
    if area >= singles:
        return False
    if singles == 4:
        return area == col
    if singles == 2:
        return (area == 0) == (col in (0, 2))
    return True


def is_play(cards: list[int], area: int, top: int, singles: int) -> bool:
    """Whether the multiset ``cards`` (kinds) is a legal play on ``area`` with ``top``."""
    nums = [c for c in cards if c != COPY]
    copies = len(cards) - len(nums)
    if not nums:
        return False  # copies never alone
    if area < 4:
        return len(cards) == 1 and single_accepts(singles, area, colour(nums[0])) and number(nums[0]) > top
    if area in SET_SIZES:
        values = {number(c) for c in nums}
        return len(cards) == SET_SIZES[area] and len(values) == 1 and values.pop() > top
    if len(cards) < max(3, top + 1):
        return False
    if area == STRAIGHT:
        values = sorted(number(c) for c in nums)
        return copies == 0 and values == list(range(values[0], values[0] + len(values)))
    if area == FLUSH:
        return len({colour(c) for c in nums}) == 1
    return True


def sub_multiset(small: list[int], big: list[int]) -> bool:
    rest = list(big)
    for c in small:
        if c not in rest:
            return False
        rest.remove(c)
    return True


def candidate_plays(hand: list[int], area: int, top: int, singles: int):
    """Plays on ``area`` from ``hand`` that any completable selection is contained in."""
    copies = hand.count(COPY)
    nums = [c for c in hand if c != COPY]
    if area < 4:
        for c in nums:
            yield [c]
    elif area in SET_SIZES:
        k = SET_SIZES[area]
        for n in range(top + 1, 16):
            same = [c for c in nums if number(c) == n]
            for j in range(1, min(k, len(same)) + 1):
                if k - j <= copies:
                    for combo in combinations(same, j):
                        yield list(combo) + [COPY] * (k - j)
    elif area == STRAIGHT:
        present = {number(c) for c in nums}
        for a in range(1, 16):
            for b in range(a + 2, 16):
                if all(n in present for n in range(a, b + 1)):
                    # one card per number: every choice is a straight; yield the pool, the
                    # caller checks "selection inside, one card per number" itself
                    yield ("run", a, b)
    elif area == FLUSH:
        for col in range(4):
            same = [c for c in nums if colour(c) == col]
            if same:
                yield same + [COPY] * copies
    else:
        yield list(hand)


def completable(hand: list[int], sel: list[int], area: int, top: int, singles: int) -> bool:
    """Whether ``sel`` can be completed from ``hand`` into a legal play on ``area``."""
    for cand in candidate_plays(hand, area, top, singles):
        if isinstance(cand, tuple):
            _, a, b = cand
            values = [number(c) for c in sel if c != COPY]
            if (
                COPY not in sel
                and len(values) == len(set(values))
                and all(a <= v <= b for v in values)
                and b - a + 1 >= max(3, top + 1)
            ):
                return True
            continue
        if not sub_multiset(sel, cand):
            continue
        # flush / any candidates are the largest plays: their legality decides
        if is_play(cand, area, top, singles):
            return True
    return False


def npc_choice(hand: list[int], tops: list[int], singles: int):
    """The rulebook NPC's play from ``hand``: ``(area, cards)`` or None.

    Priority Single > 4 cards > 3 cards > Pair > Straight > Flush > Any; lowest numbers;
    colour ties red, blue, yellow, green; copies only to fill; count areas the smallest
    legal count; flush: fewest copies, then the lowest numbers lexicographically.
    """
    nums = sorted((c for c in hand if c != COPY), key=lambda c: (number(c), colour(c)))
    copies = hand.count(COPY)
    for c in nums:
        for area in range(singles):
            if single_accepts(singles, area, colour(c)) and number(c) > tops[area]:
                return area, [c]
    for area in (FOUR, THREE, PAIR):
        k = SET_SIZES[area]
        for n in range(tops[area] + 1, 16):
            same = [c for c in nums if number(c) == n]
            if same and len(same) + copies >= k:
                use = same[:k]
                return area, use + [COPY] * (k - len(use))
    need = max(3, tops[STRAIGHT] + 1)
    for a in range(1, 17 - need):
        run = []
        for n in range(a, a + need):
            same = [c for c in nums if number(c) == n]
            if not same:
                break
            run.append(same[0])
        if len(run) == need:
            return STRAIGHT, run
    need = max(3, tops[FLUSH] + 1)
    options = []
    for col in range(4):
        same = [c for c in nums if colour(c) == col]
        if same and len(same) + copies >= need:
            use = same[:need]
            options.append((need - len(use), [number(c) for c in use], col, use))
    if options:
        options.sort(key=lambda o: (o[0], o[1], o[2]))
        ncop, _, _, use = options[0]
        return FLUSH, use + [COPY] * ncop
    need = max(3, tops[ANY] + 1)
    if nums and len(nums) + copies >= need:
        use = nums[:need]
        return ANY, use + [COPY] * (need - len(use))
    return None


class ExhaustReference:
    """One game of Exhaust from a given deck order (card ids, the kernel's shuffle).

    Args:
        deck: the 64 card ids in deal order.
        num_players: seats (solo: 1). mode: "standard", "long" or "solo".
        npc_deck_size, zero_sum, start_player: the env's options.
    """

    def __init__(
        self, deck, num_players=4, mode="standard", npc_deck_size=15, zero_sum=False, start_player=0
    ):
        self.mode = mode
        self.players = 1 if mode == "solo" else num_players
        self.seats = 2 if mode == "solo" else num_players
        self.singles = {1: 1, 2: 1, 3: 2}.get(self.players, 4)
        self.hand_size = 12 if self.players == 5 else 15
        self.npc_deck_size = npc_deck_size
        self.zero_sum = zero_sum
        self.exhaust = [0] * self.seats
        self.round = 0
        self.status = 0
        self.loser = -1
        self.new_round(deck, start_player)

    def new_round(self, deck, starter: int) -> None:
        deck = [int(c) for c in deck]
        self.hands = [[] for _ in range(self.seats)]
        pos = 0
        dealt = 1 if self.mode == "solo" else self.seats
        for seat in range(dealt):
            self.hands[seat] = [kind_of_card(c) for c in deck[pos : pos + self.hand_size]]
            pos += self.hand_size
        self.npc_deck = []  # top = last
        if self.mode == "solo":
            self.npc_deck = deck[pos : pos + self.npc_deck_size]
            pos += self.npc_deck_size
        self.repl = deck[pos : pos + 4]  # top = last
        self.areas = [[] for _ in range(10)]  # list of plays (lists of kinds)
        self.tops = [0] * 10
        self.tm = [0] * self.seats
        self.tm_pile = 16
        self.face_up = [e > 0 for e in self.exhaust]
        self.sel = []
        self.current = starter
        self.turn = 0

    # --- legality --------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.status:
            return []
        hand = self.hands[self.current]
        out = []
        for k in range(61):
            if hand.count(k) > self.sel.count(k):
                sel2 = self.sel + [k]
                if any(completable(hand, sel2, a, self.tops[a], self.singles) for a in range(10)):
                    out.append(ADD + k)
        for a in range(10):
            if self.sel and is_play(self.sel, a, self.tops[a], self.singles):
                out.append(CAST + a)
        if not self.sel:
            if self.tm[self.current]:
                out.append(TIME_MAGIC)
            if self.face_up[self.current]:
                out.append(FLIP)
        return out

    def can_act(self, seat: int) -> bool:
        if self.tm[seat] or self.face_up[seat]:
            return True
        hand = self.hands[seat]
        return any(
            completable(hand, [k], a, self.tops[a], self.singles) for k in set(hand) for a in range(10)
        )

    # --- acting ----------------------------------------------------------------------
    def _cast(self, seat: int, area: int, cards: list[int]) -> None:
        for c in cards:
            self.hands[seat].remove(c)
        self.areas[area].append(sorted(cards, key=lambda c: (c == COPY, number(c), colour(c))))
        if area <= FOUR:
            self.tops[area] = max(number(c) for c in cards if c != COPY)
        else:
            self.tops[area] = len(cards)
        if area == PAIR:
            if self.repl:
                card = self.repl.pop()
                if self.mode == "solo" and seat == 1:
                    self.npc_deck.append(card)
                else:
                    self.hands[seat].append(kind_of_card(card))
            return
        if area < 4:
            return  # Single: no reward
        gain = {THREE: 1, FOUR: 2}.get(area, 1)
        gain = min(gain, self.tm_pile)
        self.tm[seat] += gain
        self.tm_pile -= gain

    def _npc_turn(self) -> None:
        npc = self.hands[1]
        while len(npc) < 5 and self.npc_deck:
            npc.append(kind_of_card(self.npc_deck.pop()))
        while True:
            choice = npc_choice(npc, self.tops, self.singles)
            if choice is not None:
                self._cast(1, *choice)
                return
            if not self.npc_deck:
                break
            npc.append(kind_of_card(self.npc_deck.pop()))
        if self.tm[1]:
            self.tm[1] -= 1
            self.tm_pile += 1
            return
        self.status, self.loser = 1, 1

    def apply(self, action: int, redeal=None) -> list[float]:
        """Apply a legal action; return the rewards per agent. ``redeal()`` gives the deck
        of a new long-game round (the kernel's shuffle)."""
        assert action in self.legal_actions(), action
        seat = self.current
        if action < CAST:
            self.sel.append(action)
            return [0.0] * self.players
        if action < TIME_MAGIC:
            self._cast(seat, action - CAST, self.sel)
            self.sel = []
        elif action == TIME_MAGIC:
            self.tm[seat] -= 1
            self.tm_pile += 1
        else:
            self.face_up[seat] = False
        self.turn += 1
        if self.mode == "solo":
            self._npc_turn()
            if self.status:
                return self.rewards()
            self.turn += 1
            nxt = 0
        else:
            nxt = (seat + 1) % self.seats
        self.current = nxt
        if not self.can_act(nxt):
            if self.mode == "long":
                self.exhaust[nxt] += 1
                if self.exhaust[nxt] < 2:
                    self.round += 1
                    self.new_round(redeal(), nxt)
                    return self.rewards()
            self.status, self.loser = 1, nxt
        return self.rewards()

    def rewards(self) -> list[float]:
        if not self.status:
            return [0.0] * self.players
        if self.mode == "solo":
            return [1.0 if self.loser == 1 else -1.0]
        win = 1.0 / (self.players - 1) if self.zero_sum else 1.0
        return [-1.0 if k == self.loser else win for k in range(self.players)]

    # --- observation -----------------------------------------------------------------
    def observation(self, seat: int) -> dict:
        def counts(cards):
            v = [0] * 61
            for c in cards:
                v[c] += 1
            return v

        n = self.seats
        order = [(seat + k) % n for k in range(n)]
        acting = self.status == 0 and self.current == seat
        kinds = [[0] * 7 for _ in range(10)]
        cols = [[0] * 4 for _ in range(10)]
        for a in range(10):
            if a < 4:
                if a < self.singles:
                    kinds[a][0] = 1
                    for c in range(4):
                        cols[a][c] = int(single_accepts(self.singles, a, c))
            else:
                kinds[a][a - 3] = 1
        played = [c for area in self.areas for play in area for c in play]
        return {
            "hand": counts(self.hands[seat]),
            "selection": counts(self.sel) if acting else [0] * 61,
            "area_top": list(self.tops),
            "area_cards": [sum(len(p) for p in area) for area in self.areas],
            "area_kind": kinds,
            "area_colours": cols,
            "time_magic": [self.tm[s] for s in order],
            "hand_sizes": [len(self.hands[s]) for s in order],
            "exhaust_cards": [self.exhaust[s] for s in order],
            "exhaust_face_up": [int(self.face_up[s]) for s in order],
            "time_magic_pile": self.tm_pile,
            "replenish_size": len(self.repl),
            "played_cards": counts(played),
            "npc_hand": counts(self.hands[1]) if self.mode == "solo" else [0] * 61,
            "npc_deck_size": len(self.npc_deck),
            "is_my_turn": int(acting),
            "round": self.round,
        }
