"""The adapters over a game's kernels: the PettingZoo AEC env (:mod:`.aec`), the Gymnasium
vector self-play env (:mod:`.vector`), the single-agent learner views
(:mod:`.single_agent`) and the factories that give each game its ``raw_env``, ``env`` and
``vector_env`` (:mod:`.factories`).

Imports agents, the contract and the kernel layer."""
