"""Exhaust — a shedding card game for 2-5 players (or solo against an NPC), as PettingZoo
AEC and vector envs.

Rules: ``docs/rules/exhaust.md`` (from the イグゾースト / Exhaust rulebook, OKAZU brand;
the Japanese text is the authority). 64 spell cards: numbers 1..15 in four colours (red, blue,
yellow, green) and 4 copy cards. Each player gets 15 cards (12 with 5 players), 4 more
form a face-down replenishment deck, the rest stay out of the game unseen. On a turn a
player does exactly one thing: casts one or more cards onto one combo area following its
rule (and takes its reward), plays a Time Magic card, or — long game only — flips a
face-up Exhaust card. The player to act who can do none of these is exhausted: that
player loses, every other player wins.

Combo areas (number-restricted: the number must exceed every number already there;
count-restricted: first play >= 3 cards, then strictly more cards than the last play)::

    Single    1 number card of the area's colour(s)      number   no reward
              (4-5 players: one area per colour; 3 players: red+yellow, blue+green;
               2 players and solo: one area for every colour)
    Pair      2 cards of one number                      number   1 replenishment card
    3 cards   3 cards of one number                      number   1 Time Magic
    4 cards   4 cards of one number                      number   2 Time Magic
    Straight  >= 3 consecutive numbers, any colours      count    1 Time Magic
    Flush     >= 3 cards of one colour                   count    1 Time Magic
    Any       >= 3 cards                                 count    1 Time Magic

A copy card becomes a copy of one number card played with it: it fills sets, flushes and
Any plays, never a Single or a Straight, never alone, never in a play of copies only.
Rewards are paid as far as the piles go.

Modes (option ``mode``)::

    "standard"      one round; the episode ends when a player cannot act.
    "long"          rounds repeat; the round's loser receives an Exhaust card and starts
                    the next round (Time Magic back to the pile, all 64 cards reshuffled
                    and redealt); a player with two Exhaust cards loses the whole game.
                    Once per round a player holding a face-up Exhaust card may flip it
                    face down as the turn's action (action C).
    "solo"          one agent (player_0) against the NPC, which acts inside the
                    kernels right after each of the player's turns: it draws its open
                    hand (public) up to 5 from its deck of npc_deck_size cards, plays
                    by the priority Single > 4 cards > 3 cards > Pair > Straight > Flush
                    > Any (lowest numbers first), draws one card at a time while nothing
                    fits, then plays Time Magic; if it can do nothing the player wins.
                    Its Time Magic stays with it; a replenishment card it wins goes face
                    down on top of its deck.

Agents: ``player_0`` .. ``player_{N-1}`` (solo: ``player_0`` only).

Options: ``num_players`` (2-5, default 4; solo: 1 or None), ``mode`` ("standard"),
``npc_deck_size`` (15, 1..45; solo), ``zero_sum`` (False), ``start_player`` (0),
``render_mode`` (None, "ansi", "human").

Rewards: 0 on every step until the episode ends; then the loser gets -1 and every other
seat +1 (the rulebook's single loser / everyone else wins). ``zero_sum=True`` pays the
others +1/(N-1) each instead, so the rewards sum to 0. Long game: only the final outcome
(the player with two Exhaust cards loses) is paid; the rounds before pay nothing. Solo:
+1 if the NPC is exhausted, -1 if the player is.

Actions (73; :mod:`exhaust_env.spec`): a play is built over several steps of the same
agent::

    0..60    add one card of that kind to the selection (kind = colour*15 + number-1;
             60 = "a copy card")
    61..70   cast the selection onto area 0..9 (0-3 Single slots, 4 Pair, 5 3 cards,
             6 4 cards, 7 Straight, 8 Flush, 9 Any)
    71       play a Time Magic card
    72       flip the own face-up Exhaust card (long game)

The mask admits a card only if the selection plus that card can still be completed into
a legal play from the hand, and a cast only if the selection is a legal play on that area
now; so an agent is never stuck mid-selection and a turn takes at most hand size + 1
steps (there is no undo, which keeps every turn bounded).

Observation: ``{"observation": float32 (379 + 4 P,), "action_mask": int8 (73,)}``
for P players (solo: 387), the pieces of
:mod:`exhaust_env.observe` (hand, selection, area_top, area_cards, area_kind,
area_colours, time_magic, hand_sizes, exhaust_cards, exhaust_face_up, time_magic_pile,
replenish_size, played_cards, npc_hand, npc_deck_size, is_my_turn, round), decoded by
:func:`decode_observation`. Never another seat's hand, the replenishment deck, the NPC
deck or the cards left out.

Bots (kernels, :mod:`exhaust_env.bots`; ``vector_env(...).step_bots`` and
``GAME.play_games``): ``random``; ``npc`` (the rulebook NPC's choices on its own hand,
usable in any seat); ``strong`` (simulates how long its hand lasts after each candidate
play). How often each loses against the others is in the bot match table of the game's
page.

Single-agent training: ``tabletop_core.envs.single_agent.LearnerEnv(GAME, seat=..., opponents=
"npc")`` runs the other seats' bots inside the kernels (``batch_*_learner``).

Rules decisions (where the rulebook is silent or unclear) are written once, in
``docs/rules/exhaust.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.contract.game import Bots, Docs, GameDef, player_agents

from .bots import BOT_NAMES
from .spec import Mode, Options


def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """Figures of finished episodes (G,): ``loser`` seat (solo: 1 = the NPC lost, so the
    player won), ``rounds`` played, ``turns`` of the last round, ``player_won`` (solo)."""
    loser = final["loser"].astype(np.int64)
    return {
        "loser": loser,
        "rounds": final["round"].astype(np.int64) + 1,
        "turns": final["turn"].astype(np.int64),
        "player_won": (final["cfg_mode"] == int(Mode.SOLO)) & (loser == 1),
    }


def match_stats(options: Options) -> dict[str, str]:
    """The figures of :func:`episode_stats` a match reports under ``options``, defined
    (the loser's seat shows in the seats' loss rates)."""
    out = {"turns": "turns of the last round (NPC turns included)"}
    if options.mode == "long":
        out["rounds"] = "rounds played (a player holding two Exhaust cards ends the game)"
    if options.mode == "solo":
        out["player_won"] = "the player beat the NPC"
    return out


def agents(options: Options) -> list[str]:
    return player_agents(options.players)


def record_agents(e: np.void) -> list[str]:
    return player_agents(e["cfg_agents"])


def final_info(state: np.ndarray, options: Options) -> list[dict]:
    """Every agent's info when an episode ends: the ``loser`` (solo: ``"NPC"`` or
    ``"player_0"``), whether this agent won, and (multiplayer) the ``rounds`` played."""
    st = state[0]
    loser = int(st["loser"])
    if int(st["cfg_mode"]) == Mode.SOLO:
        return [{"loser": "NPC" if loser == 1 else "player_0", "win": loser == 1}]
    rounds = int(st["round"]) + 1
    return [{"loser": f"player_{loser}", "win": k != loser, "rounds": rounds} for k in range(options.players)]


def return_identity(returns: np.ndarray, options: Any) -> np.ndarray:
    """Exactly one loser at -1; the others +1 (or +1/(N-1) zero-sum, returns summing to
    0); solo: +1 or -1."""
    n = returns.shape[1]
    if n == 1:
        return (returns[:, 0] == 1.0) | (returns[:, 0] == -1.0)
    losers = (returns == -1.0).sum(axis=1) == 1
    win = 1.0 / (n - 1) if options.zero_sum else 1.0
    others = (np.isclose(returns, win, atol=1e-5) | (returns == -1.0)).all(axis=1)
    return losers & others


GAME = GameDef(
    name="exhaust",
    version=1,
    module=__name__,
    docs=Docs(
        "Exhaust",
        "shed spell cards onto combo areas; the player who cannot act loses",
        "Rewards are (B, num_players) float32, (B, 1) in solo.",
    ),
    bots=Bots(BOT_NAMES, rollout="npc", rollouts=1024),
    reward_range=(-1.0, 1.0),
)
