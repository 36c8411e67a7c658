"""Shikokushi Koikoi (四国志こいこい) — koi-koi for 2-4 players with the 88 minor-arcana
cards of the Ex Tarot deck, as PettingZoo AEC and vector self-play envs.

Rules: ``docs/rules/koikoi.md`` (from 四国志こいこい, v1.00, entry 031 of the Ex Tarot
rule contest).

Cards: four suits — swords 魔剣 ♠, cups 聖杯 ♥, coins 金貨 ♦, trees 聖樹 ♣ — each with 22
ranks: the numbers 0..15 and six non-number cards (ranks 16..21, neutral names α..ζ kept
in :data:`koikoi_env.spec.RANK_NAMES`). Card id ``suit * 22 + rank``. Cards match by rank.

Game: every player starts with 25 chips. A round: shuffle, deal 8 cards to each player
and 8 face up to the field. From the dealer, clockwise, each turn:

1. play a hand card; field cards of its rank: one -> capture it with the played card;
   two -> the player chooses which one; three -> capture all three; then step 5. No
   match: the card stays on the field;
2. flip the deck's top card and match it the same way (two matches: the same player
   chooses); a capture goes to step 5; no match: it stays on the field and the player
   draws ``min(2, 8 - hand size, deck size)`` cards (compulsory);
3. step 5: if the captures raised the player's yaku score, the player stops (ends the
   round and collects yaku score x multiplier from EACH other player, payments capped at
   what the payer has; the stopper deals next) or declares koi-koi (continues).

Yaku per suit X (scores add up): Great X (>= 3 non-number cards of X): 5, +3 per card
beyond 3; Triple X (a run of >= 3 consecutive numbers of X): 5, +3 per card beyond 3;
X (>= 6 cards of X): 1, +1 per card beyond 6. Multiplier by the scorer's koi-koi this
round: 0-1 -> x1, 2 -> x2, 3 -> x3, 4+ -> x4. A round ends with no score (same dealer)
when, at the end of a turn, a hand is empty or the deck is empty. The game lasts
``rounds`` rounds or ends after a round that leaves a player at 0 chips; highest chips
wins (ties share).

Agents ``player_0`` .. ``player_{n-1}`` (seat order = clockwise turn order).

Options:
    num_players (2-4, default 4); rounds (1-32, default 8; ``rounds=1`` makes every
    episode a single round); first_dealer (seat, default 0); render_mode (None,
    "ansi", "human").

Actions (178), masked by phase (:class:`koikoi_env.spec.Phase`)::

    0..87     play hand card c                      PLAY
    88..175   take field card c - 88                CHOOSE_PLAYED / CHOOSE_FLIPPED
    176       KOIKOI: declare koi-koi, continue     DECIDE
    177       STOP: end the round and score          DECIDE

Rewards: each seat's chip change, paid on the step that scores a round (a STOP); 0 on
every other step. The episode return of a seat is its final chips - 25; the rewards of
a step sum to 0 (chips are conserved).

Observation: ``{"observation": float32 (1591 + 94 P,), "action_mask": int8 (178,)}``
from any seat's view; per-seat pieces start at the observer (index 0 = self, then
clockwise). Pieces (decoded by :func:`decode_observation`): hand (88,), field (88,),
pending_card (88,), pending_matches (88,), unseen_of_rank (88,), what the acting seat's
action on each card does to the yaku (action_takes, own_yaku_rise, rival_yaku_rise
(88,); own_yaku_closer, rival_yaku_closer (88, 3); own_run, rival_run (88, 2)), phase (4,), deck_size, round,
rounds_left, captured (P, 88), current (P,), dealer (P,), chips (P,), hand_sizes (P,),
koikoi_counts (P,), yaku_scores (P,); see :mod:`koikoi_env.observe`. Never another
seat's hand nor the deck order.

Rules decisions (where the rulebook is silent or unclear) are written once, in
``docs/rules/koikoi.md``.

Infos: empty during the game; when it ends every agent gets ``chips``, ``status``
("rounds_done" or "bankrupt"), ``rounds`` played, ``win`` (top chips, ties share) and
``last_round_end``.

Bots (kernels, :mod:`koikoi_env.bots`): ``random``, ``greedy`` (captures what adds most
to its yaku potential, stops at once), ``strong`` (tuned evaluation with denial and
discard risk). Their chips per game against each other are in the bot match table of
the game's page.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.game import Bots, Docs, GameDef

from .bots import BOT_NAMES
from .spec import (
    MAX_PLAYERS,
    START_CHIPS,
    Options,
    RoundEnd,
    Status,
)


def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """Figures of finished games ``final`` (G,): rounds played, whether a player went
    bankrupt, the winning seat (-1 on a tie for first), the top chip count and each
    seat's final chips (``chips_k``, 0 for absent seats)."""
    n = final["cfg_players"].astype(np.int64)
    seats = np.arange(MAX_PLAYERS)[None, :] < n[:, None]
    chips = np.where(seats, final["chips"].astype(np.int64), -1)
    top = chips.max(axis=1)
    winners = (chips == top[:, None]).sum(axis=1)
    winner = np.where(winners == 1, chips.argmax(axis=1), -1)
    out = {
        "rounds": final["round"].astype(np.int64),
        "bankrupt": final["status"] == int(Status.BANKRUPT),
        "winner": winner,
        "top_chips": top,
    }
    for k in range(MAX_PLAYERS):
        out[f"chips_{k}"] = np.where(seats[:, k], chips[:, k], 0)
    return out


def match_stats(options: Options) -> dict[str, str]:
    """The figures of :func:`episode_stats` a match reports under ``options``, defined
    (the winning seat shows in the seats' win rates)."""
    out = {
        "rounds": "rounds played",
        "bankrupt": "the game ended early: a player's chips reached 0",
        "top_chips": f"chips of the richest player at the end (each starts with {START_CHIPS})",
    }
    for k in range(options.num_players):
        out[f"chips_{k}"] = f"chips of player_{k} at the end"
    return out


def final_info(state: np.ndarray, options: Options) -> list[dict]:
    """Every agent's info when an episode ends: its ``chips``, ``status``, ``rounds``
    played, ``win`` (top chips, ties share) and ``last_round_end``."""
    e = state[0]
    n = int(e["cfg_players"])
    chips = [int(c) for c in e["chips"][:n]]
    best = max(chips)
    return [
        {
            "chips": chips[k],
            "status": Status(int(e["status"])).name.lower(),
            "rounds": int(e["round"]),
            "win": chips[k] == best,
            "last_round_end": RoundEnd(int(e["last_end"])).name.lower(),
        }
        for k in range(n)
    ]


GAME = GameDef(
    name="koikoi",
    version=1,
    module=__name__,
    docs=Docs(
        "Shikokushi Koikoi",
        "koi-koi for 2-4 players with 88 cards: capture by rank, build yaku, stop or koi-koi",
        "Rewards are (B, num_players) float32 chip changes; observations are the acting seat's.",
    ),
    bots=Bots(BOT_NAMES, rollouts=1024),
    zero_sum=True,
    reward_range=(-float(START_CHIPS * MAX_PLAYERS), float(START_CHIPS * MAX_PLAYERS)),
)
