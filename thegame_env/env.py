"""The Game — a cooperative card game for 1-5 players, as PettingZoo AEC and vector envs.

Rules: ``docs/rules/thegame.md`` (rulebook: The Game, 2nd edition). 98 cards 2..99 go on four
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

Observation: ``{"observation": float32 (213 + P,), "action_mask": int8 (393,)}``; the
pieces are listed in :mod:`thegame_env.observe` and decoded by
:func:`decode_observation`.

Rules decisions (where the rulebook is silent or garbled) are written once, in
``docs/rules/thegame.md``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.game import GameDef, observe_env
from tabletop_core.envs.aec import TabletopAECEnv
from tabletop_core.envs.factories import baseline_entry, entry_points
from tabletop_core.kernel.records import at

from . import hooks  # noqa: F401  (registers the game's hooks for tabletop_core.contract.loops)
from .bots import BOT_NAMES, bot_action
from .observe import decode_observation, observation_layout, observe_r
from .render import SVG_HEIGHT, SVG_WIDTH, render_ansi, render_svg
from .rules import is_win_r, score_r
from .spec import MAX_EPISODE_STEPS, NUM_ACTIONS, WIN_THRESHOLD, Options, Status, action_name
from .state import new_state, validate_state


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


GAME = GameDef(
    name="thegame",
    version=1,
    num_actions=NUM_ACTIONS,
    make_options=Options,
    agents=_agents,
    observation_layout=lambda o: observation_layout(o.num_players),
    new_state=new_state,
    render_ansi=lambda s, o: render_ansi(s, o),
    action_name=lambda a, s: action_name(a),
    bot_names=BOT_NAMES,
    max_episode_steps=MAX_EPISODE_STEPS,
    reward_range=(-1.0, 1.0),
    observe=observe_env(observe_r),
    episode_stats=episode_stats,
    cooperative=True,
    match_stats=match_stats,
    bot_action=bot_action,
    render_view=lambda s, o, seat: render_ansi(s, o, seat=seat),
    validate_state=validate_state,
    description="cooperative: play all 98 cards onto two ascending and two descending piles",
    render_svg=lambda s, o, seat=None: render_svg(s, o, seat=seat),
    svg_size=(SVG_WIDTH, SVG_HEIGHT),
)


class raw_env(TabletopAECEnv):
    """The Game as an unwrapped PettingZoo AEC env (see the module docstring).

    Args:
        num_players: 1..5. on_fire: bool. level: 0, 1 or 2. reward: "cards" or "win".
        start_player: seat of the first turn. render_mode: None, "ansi" or "human".

    Raises:
        ValueError: on a bad option (naming it and what is allowed).
    """

    game = GAME
    metadata = {**TabletopAECEnv.metadata, "name": "thegame_v1"}

    def __init__(
        self,
        num_players: int = 2,
        on_fire: bool = False,
        level: int = 0,
        reward: str = "cards",
        start_player: int = 0,
        render_mode: str | None = None,
    ):
        super().__init__(
            render_mode=render_mode,
            num_players=num_players,
            on_fire=on_fire,
            level=level,
            reward=reward,
            start_player=start_player,
        )

    def _final_infos(self) -> dict[str, dict]:
        st = int(self._state["status"][0])
        sc = int(at(score_r, self._state, 0))
        info = {"score": sc, "status": Status(st).name.lower(), "win": bool(at(is_win_r, self._state, 0))}
        return {ag: dict(info) for ag in self.agents}  # cooperative: the same for every agent


env, vector_env = entry_points(
    GAME,
    raw_env,
    "The Game",
    __doc__,
    rewards="""Rewards are (B, num_players) float32 with the same value in every column (the game is
cooperative).""",
)
baseline_policy = baseline_entry(GAME, raw_env, "The Game")


__all__ = ["GAME", "raw_env", "env", "vector_env", "decode_observation"]
