"""The adapters over a game's kernels: the PettingZoo AEC env (:mod:`.aec`), the Gymnasium
vector self-play env (:mod:`.vector`), the single-agent learner views
(:mod:`.single_agent`) and the factories that give each game its ``raw_env``, ``env`` and
``vector_env`` (:mod:`.factories`).

Imports agents, the contract and the kernel layer.

``register_games()`` registers every game of the catalog with PettingZoo
(``pettingzoo.make("aec", "tabletop/thegame-v1")``)."""

from tabletop_core.envs.factories import register_games

__all__ = ["register_games"]
