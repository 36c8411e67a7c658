"""A slow, readable, pure-Python reference of The Game (``docs/rules/thegame.md``).

Written from the rules file, not from the kernels, so the differential test
(``test_thegame_differential.py``) can compare the two. No numba, no numpy.

Conventions shared with the environment (``thegame_env/spec.py``):

- action ids: ``pile * 98 + (card - 2)`` places ``card`` on ``pile`` (0-1 ascending,
  2-3 descending); ``392`` ends the turn;
- statuses: 0 playing, 1 all played, 2 stuck, 3 fire loss;
- rewards (every seat gets the same): ``"cards"`` = +1 per card placed; ``"win"`` = 0
  until the game ends, then +1 on a win (score <= 9, no fire loss), -1 on a loss.

On Fire decision (``thegame_env/rules.py`` docstring): a fire card placed during turn T
must be covered by a non-fire card by the end of turn T + 1, otherwise the game is lost
at the end of turn T + 1. A fire card placed on a pile whose top is an uncovered fire
card keeps the older deadline.

When the game ends at the end of a turn (fire loss), it ends at once: nobody draws and
the turn does not pass (the turn counter and the active seat stay where they were).
"""

from __future__ import annotations

# --- constants, restated from docs/rules/thegame.md ----------------------------------------
LOWEST, HIGHEST = 2, 99
CARDS = list(range(LOWEST, HIGHEST + 1))  # 98 cards
N_CARDS = len(CARDS)
N_PILES = 4
UP_PILES = (0, 1)  # ascending piles start at 1
DOWN_PILES = (2, 3)  # descending piles start at 100
FIRE = frozenset({22, 33, 44, 55, 66, 77})
END_TURN = N_PILES * N_CARDS  # 392
N_ACTIONS = END_TURN + 1
WIN_MAX_SCORE = 9

PLAYING, ALL_PLAYED, STUCK, FIRE_LOSS = 0, 1, 2, 3


def hand_size_for(num_players: int, level: int) -> int:
    """1 player 8, 2 players 7, 3-5 players 6; level 2 one card fewer."""
    base = {1: 8, 2: 7}.get(num_players, 6)
    return base - 1 if level == 2 else base


def turn_minimum_for(level: int) -> int:
    """Plays owed a turn while the draw pile has cards: 2, or 3 at levels 1 and 2."""
    return 3 if level >= 1 else 2


def action_id(pile: int, card: int) -> int:
    return pile * N_CARDS + (card - LOWEST)


def action_play(action: int) -> tuple[int, int]:
    return action // N_CARDS, action % N_CARDS + LOWEST


def fits(pile: int, top: int, card: int) -> bool:
    """Whether ``card`` may go on ``pile`` whose top card is ``top``."""
    if pile in UP_PILES:
        return card > top or card == top - 10
    return card < top or card == top + 10


class TheGameReference:
    """One game of The Game, dealt from a given deck order.

    Args:
        deck_order: the 98 cards, in the order they come off the shuffled deck. Hands
            are dealt seat by seat (seat 0 takes the first ``hand_size`` cards, then
            seat 1, ...); the rest is the draw pile, its first card drawn first.
        num_players, on_fire, level, reward, start_player: the game options.
    """

    def __init__(
        self,
        deck_order,
        num_players: int = 2,
        on_fire: bool = False,
        level: int = 0,
        reward: str = "cards",
        start_player: int = 0,
    ):
        deck_order = [int(c) for c in deck_order]
        if sorted(deck_order) != CARDS:
            raise ValueError("deck_order must hold each card 2..99 once")
        if not 1 <= num_players <= 5:
            raise ValueError("num_players must be 1..5")
        self.num_players = num_players
        self.on_fire = bool(on_fire)
        self.level = level
        self.reward_mode = reward
        self.hand_size = hand_size_for(num_players, level)
        self.turn_minimum = turn_minimum_for(level)

        self.draw_pile = list(deck_order)
        self.hands = [[] for _ in range(num_players)]
        for seat in range(num_players):
            for _ in range(self.hand_size):
                self.hands[seat].append(self.draw_pile.pop(0))
        self.piles = [1, 1, 100, 100]
        # per pile: the turn at which its uncovered fire top (the oldest one of a run of
        # fire cards, see the module docstring) was placed, or None
        self.fire_placed = [None] * N_PILES
        self.played = set()
        self.current = start_player
        self.plays_this_turn = 0
        self.turn = 0
        self.status = PLAYING

    # --- queries ------------------------------------------------------------------------
    def owed_this_turn(self) -> int:
        """Minimum plays of this turn: the level's minimum, or 1 once the draw pile is empty."""
        return self.turn_minimum if self.draw_pile else 1

    def playable(self, seat: int | None = None) -> list[tuple[int, int]]:
        """All ``(pile, card)`` the seat (default: active) could place now."""
        seat = self.current if seat is None else seat
        return [
            (pile, card)
            for card in self.hands[seat]
            for pile in range(N_PILES)
            if fits(pile, self.piles[pile], card)
        ]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the active player (empty once the game is over)."""
        if self.status != PLAYING:
            return []
        actions = [action_id(pile, card) for pile, card in self.playable()]
        if self.plays_this_turn >= self.owed_this_turn():
            actions.append(END_TURN)
        return sorted(actions)

    def score(self) -> int:
        """Cards not played: all hands plus the draw pile."""
        return len(self.draw_pile) + sum(len(h) for h in self.hands)

    def is_win(self) -> bool:
        return self.status != FIRE_LOSS and self.score() <= WIN_MAX_SCORE

    def done(self) -> bool:
        return self.status != PLAYING

    # --- moves --------------------------------------------------------------------------
    def apply(self, action: int) -> float:
        """Play a legal action; return the reward every seat gets for it."""
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        placed = 0
        if action == END_TURN:
            self._end_turn()
        else:
            self._place(*action_play(action))
            placed = 1
        return self._reward(placed)

    def _reward(self, placed: int) -> float:
        if self.reward_mode == "cards":
            return float(placed)
        if self.status == PLAYING:
            return 0.0
        return 1.0 if self.is_win() else -1.0

    def _place(self, pile: int, card: int) -> None:
        self.hands[self.current].remove(card)
        if self.on_fire:
            if card in FIRE:
                if self.fire_placed[pile] is None:  # a fire card on a fire card keeps the older deadline
                    self.fire_placed[pile] = self.turn
            else:
                self.fire_placed[pile] = None  # covered
        self.piles[pile] = card
        self.played.add(card)
        self.plays_this_turn += 1
        if len(self.played) == N_CARDS:
            self.status = ALL_PLAYED
        elif self.plays_this_turn < self.owed_this_turn() and not self.playable():
            self.status = STUCK

    def _end_turn(self) -> None:
        if self.on_fire:
            for placed_at in self.fire_placed:
                if placed_at is not None and self.turn >= placed_at + 1:
                    self.status = FIRE_LOSS
                    return
        hand = self.hands[self.current]
        while len(hand) < self.hand_size and self.draw_pile:
            hand.append(self.draw_pile.pop(0))
        # next seat that still holds cards (possibly the same seat again)
        seat = self.current
        for step in range(1, self.num_players + 1):
            candidate = (self.current + step) % self.num_players
            if self.hands[candidate]:
                seat = candidate
                break
        self.current = seat
        self.plays_this_turn = 0
        self.turn += 1
        if not self.playable():  # owes at least one play and has none
            self.status = STUCK

    # --- observation --------------------------------------------------------------------
    def observation(self, seat: int) -> dict:
        """The observation pieces of ``seat`` as plain Python values (see observe.py)."""
        hand = [0] * N_CARDS
        for card in self.hands[seat]:
            hand[card - LOWEST] = 1
        played = [0] * N_CARDS
        for card in self.played:
            played[card - LOWEST] = 1
        fire_tops = [0] * N_PILES
        deadline = [0] * N_PILES
        for pile, placed_at in enumerate(self.fire_placed):
            if placed_at is not None:
                fire_tops[pile] = 1
                # turn ends left: the deadline is the end of turn placed_at + 1
                deadline[pile] = placed_at + 1 - self.turn + 1
        playing = self.status == PLAYING
        play_fit = [[0] * N_CARDS for _ in range(N_PILES)]
        for card in self.hands[seat] if playing else []:
            for pile, top in enumerate(self.piles):
                if fits(pile, top, card):  # the backwards trick gains ground: the best fit
                    forward = card - top if pile < 2 else top - card
                    play_fit[pile][card - LOWEST] = 100 if forward < 0 else 100 - forward
        return {
            "hand": hand,
            "played_cards": played,
            "pile_tops": list(self.piles),
            "fire_tops": fire_tops,
            "fire_deadline": deadline,
            "draw_pile_size": len(self.draw_pile),
            "plays_this_turn": self.plays_this_turn,
            "min_plays_left": max(0, self.owed_this_turn() - self.plays_this_turn) if playing else 0,
            "is_my_turn": int(playing and seat == self.current),
            "play_fit": play_fit,
            "hand_sizes": [len(self.hands[(seat + k) % self.num_players]) for k in range(self.num_players)],
        }
