"""GLUE (today's core API): Leduc hold'em as PettingZoo AEC and vector envs.

Agents ``player_0``, ``player_1``; actions fold / call (check) / raise; observation
``{"observation": float32 (13,), "action_mask": int8 (3,)}`` (:mod:`.observe`).
"""

from __future__ import annotations

from tabletop_core.aec import TabletopAECEnv
from tabletop_core.entry import entry_points

from .game import GAME
from .rules import final_info


class raw_env(TabletopAECEnv):
    """Leduc hold'em as an unwrapped PettingZoo AEC env (options: :class:`.spec.Options`)."""

    game = GAME
    metadata = {**TabletopAECEnv.metadata, "name": "leduc_v1"}

    def __init__(
        self,
        max_raises: int = 2,
        start_player: int = 0,
        reward: str = "chips",
        render_mode: str | None = None,
    ):
        super().__init__(
            render_mode=render_mode, max_raises=max_raises, start_player=start_player, reward=reward
        )

    def _final_info(self, agent: str) -> dict:
        return final_info(self._state, self._seat[agent])


env, vector_env = entry_points(
    GAME, raw_env, "Leduc hold'em", __doc__, rewards="Rewards are (B, 2) float32, zero-sum."
)
