"""The Game — a cooperative card game for 1-5 players, as PettingZoo AEC and vector envs.

Rules: ``docs/rules/thegame.md`` (from The Game, 2nd edition rulebook). 98 cards 2..99 go on four
piles: two ascending from 1, two descending from 100. A card may also go exactly 10 the
"wrong" way (the backwards trick). Each turn the active player must place at least 2
cards (3 at levels 1-2; 1 once the draw pile is empty), may place more, then ends the
turn and draws back up. The team wins with 9 or fewer cards left, perfectly with 0.

Agents ``player_0`` .. ``player_{n-1}``; every agent gets the same reward.

Options:
    num_players (1-5, default 2); on_fire (False): fire cards 22..77 must be covered by
    the end of the next turn; level (0, 1 or 2); reward ("cards": +1 per card placed,
    return 98 - score; "win": +1 / -1 at the end); start_player (0).

Actions (393): ``pile * 98 + (card - 2)`` places ``card`` on ``pile`` (0-1 ascending, 2-3
descending); ``392`` ends the turn (legal once the minimum is met).

Observation: ``{"observation": float32 (604 + P,), "action_mask": int8 (393,)}``
for P players; the
pieces are listed in :mod:`thegame_env.observe` and decoded by
:func:`decode_observation`.

Rules decisions (where the rulebook is silent or unclear) are written once, in
``docs/rules/thegame.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.contract.game import Bots, Docs, GameDef
from tabletop_core.kernel.records import at

from .bots import BOT_NAMES
from .rules import is_win_r, score_r
from .spec import NUM_CARDS, WIN_THRESHOLD, Options, Status


def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """Score (cards left), perfect and win flags, and fire losses of finished games."""
    games = range(len(final))
    sc = np.fromiter((at(score_r, final, i) for i in games), np.int64, len(final))
    win = np.fromiter((at(is_win_r, final, i) for i in games), bool, len(final))
    fire = final["status"] == int(Status.FIRE_LOSS)
    return {"score": sc, "perfect": sc == 0, "win": win, "fire_loss": fire}


def match_stats(options: Options) -> dict[str, str]:
    """The figures of :func:`episode_stats` a match reports under ``options``, defined."""
    out = {
        "score": "cards left in the hands and the draw pile at the end (0 is a perfect game)",
        "win": f"the team won: score <= {WIN_THRESHOLD}"
        + (" and no fire card left burning" if options.on_fire else ""),
        "perfect": "every card played (score 0)",
    }
    if options.on_fire:
        out["fire_loss"] = "lost because a fire card stayed uncovered past its deadline"
    return out


def final_info(state: np.ndarray, options: Options) -> list[dict]:
    """Every agent's info when an episode ends (the same for all: the game is
    cooperative): ``score`` (cards left), ``status`` and ``win``."""
    sc = int(at(score_r, state, 0))
    info = {
        "score": sc,
        "status": Status(int(state["status"][0])).name.lower(),
        "win": bool(at(is_win_r, state, 0)),
    }
    return [dict(info) for _ in range(options.num_players)]


def return_identity(returns: np.ndarray, options: Any) -> np.ndarray:
    """Beyond cooperation (every seat the same return): ``reward="cards"``: the return is
    the cards placed, 0..98 (98 - score); ``"win"``: +1 or -1."""
    r = returns[:, 0]
    if options.reward == "win":
        return (r == 1.0) | (r == -1.0)
    return (r >= 0) & (r <= NUM_CARDS) & (r == np.round(r))


GAME = GameDef(
    name="thegame",
    version=1,
    module=__name__,
    docs=Docs(
        "The Game",
        "cooperative: play all 98 cards onto two ascending and two descending piles",
        """Rewards are (B, num_players) float32 with the same value in every column (the game is
cooperative).""",
    ),
    bots=Bots(BOT_NAMES),
    cooperative=True,
    reward_range=(-1.0, 1.0),
)
