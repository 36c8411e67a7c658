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

from tabletop_core.contract.game import GameDef
from tabletop_core.kernel.records import at

from . import narrate
from .bots import BOT_NAMES
from .hooks import HOOKS
from .observe import ACTION_PIECES, observation_layout
from .render import SVG_HEIGHT, SVG_WIDTH, render_ansi, render_svg
from .resample import resample_hidden
from .rules import is_win_r, score_r
from .spec import MAX_EPISODE_STEPS, NUM_ACTIONS, NUM_CARDS, WIN_THRESHOLD, Options, Status, action_name
from .state import STATE_DTYPE, new_state, validate_state


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


def _agents(options: Options) -> list[str]:
    return [f"player_{k}" for k in range(options.num_players)]


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


def return_identity(returns: np.ndarray, lengths: np.ndarray, options: Any) -> np.ndarray:
    """Cooperative: every seat has the same return; ``reward="cards"``: the return is
    the cards placed, 0..98 (98 - score); ``"win"``: +1 or -1."""

    same = (returns == returns[:, :1]).all(axis=1)
    r = returns[:, 0]
    if options.reward == "win":
        return same & ((r == 1.0) | (r == -1.0))
    return same & (r >= 0) & (r <= NUM_CARDS) & (r == np.round(r))


GAME = GameDef(
    name="thegame",
    version=1,
    num_actions=NUM_ACTIONS,
    make_options=Options,
    agents=_agents,
    observation_layout=lambda o: observation_layout(o.num_players),
    action_pieces=ACTION_PIECES,
    new_state=new_state,
    render_ansi=lambda s, o: render_ansi(s, o),
    action_name=lambda a, s: action_name(a),
    bot_names=BOT_NAMES,
    max_episode_steps=MAX_EPISODE_STEPS,
    reward_range=(-1.0, 1.0),
    episode_stats=episode_stats,
    cooperative=True,
    match_stats=match_stats,
    render_view=lambda s, o, seat: render_ansi(s, o, seat=seat),
    validate_state=validate_state,
    description="cooperative: play all 98 cards onto two ascending and two descending piles",
    render_svg=lambda s, o, seat=None: render_svg(s, o, seat=seat),
    svg_size=(SVG_WIDTH, SVG_HEIGHT),
    title="The Game",
    package=__package__,
    page=__doc__,
    rewards_doc="""Rewards are (B, num_players) float32 with the same value in every column (the game is
cooperative).""",
    state_dtype=STATE_DTYPE,
    hooks=HOOKS,
    final_info=final_info,
    narrate=narrate,
    return_identity=return_identity,
    resample_hidden=resample_hidden,
)


__all__ = ["GAME", "episode_stats", "final_info", "match_stats"]
