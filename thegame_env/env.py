"""The Game — a cooperative card game for 1-5 players, as PettingZoo AEC and vector envs.

Rules: ``rules/thegame.md`` (rulebook: The Game, 2nd edition). 98 cards 2..99 go on four
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

Decisions where the rules are open (see also rules/thegame.md):
    * On Fire: a fire card placed on an uncovered fire card keeps the older deadline.
    * Placing the last card ends the game at once as a perfect win (no deadline applies).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.aec import LeanChecks, TabletopAECEnv
from tabletop_core.game import GameDef
from tabletop_core.vector import SelfPlayVectorEnv

from . import batch
from .bots import BOT_NAMES, bot_action
from .observe import decode_observation, observation_layout, observe
from .render import render_ansi
from .rules import score
from .spec import MAX_EPISODE_STEPS, NUM_ACTIONS, Options, Status, action_name
from .state import new_state


def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """Score (cards left), perfect and win flags, and fire losses of finished games."""
    n = final["cfg_players"].astype(np.int64)
    seats = np.arange(final["hand_size"].shape[1])[None, :] < n[:, None]
    sc = (98 - final["deck_pos"].astype(np.int64)) + (final["hand_size"] * seats).sum(axis=1)
    fire = final["status"] == int(Status.FIRE_LOSS)
    return {"score": sc, "perfect": sc == 0, "win": (sc <= 9) & ~fire, "fire_loss": fire}


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
    batch_reset=batch.batch_reset,
    batch_observe=batch.batch_observe,
    batch_step=batch.batch_step,
    batch_step_bots=batch.batch_step_bots,
    batch_step_threads=batch.batch_step_threads,
    batch_step_bots_threads=batch.batch_step_bots_threads,
    first_illegal=batch.first_illegal,
    observe=observe,
    play_games=batch.play_games,
    episode_stats=episode_stats,
    cooperative=True,
    bot_action=bot_action,
    batch_reset_learner=batch.batch_reset_learner,
    batch_step_learner=batch.batch_step_learner,
    render_view=lambda s, o, seat: render_ansi(s, o, seat=seat),
    description="cooperative: play all 98 cards onto two ascending and two descending piles",
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

    def _final_info(self, agent: str) -> dict:
        st = int(self._state["status"][0])
        sc = int(score(self._state, 0))
        return {"score": sc, "status": Status(st).name.lower(), "win": st != Status.FIRE_LOSS and sc <= 9}


def env(**kwargs: Any) -> LeanChecks:
    """The Game AEC env with PettingZoo's standard checks in one lean wrapper.

    Takes the same arguments as :class:`raw_env`. An illegal action ends the game with -1
    for the offender (PettingZoo's ``TerminateIllegalWrapper`` policy); an out-of-range one
    raises ``ActionOutOfBoundsError``.
    """
    return LeanChecks(raw_env(**kwargs))


def vector_env(
    num_envs: int, seed: int | None = None, copy: bool = True, num_threads: int | None = None, **options: Any
) -> SelfPlayVectorEnv:
    """``num_envs`` games of The Game stepped together (see :mod:`tabletop_core.vector`).

    ``copy`` and ``num_threads`` (threads that step the batch; results do not depend
    on it) are those of :class:`~tabletop_core.vector.SelfPlayVectorEnv`.
    ``options`` are those of :class:`raw_env` (without ``render_mode``). Rewards are
    (B, num_players) float32 with the same value in every column.
    """
    return SelfPlayVectorEnv(GAME, num_envs, seed=seed, copy=copy, num_threads=num_threads, **options)


__all__ = ["GAME", "raw_env", "env", "vector_env", "decode_observation"]
