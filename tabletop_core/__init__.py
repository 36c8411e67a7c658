"""Game-agnostic core of tabletop-rl, in floors that import only the floors below them:
``kernel`` (the numba platform), ``contract`` (what a game declares, the batch loops, the
catalog), ``agents`` (policies), ``envs`` (AEC, vector and learner envs), ``tools`` (arena,
soak, bench, replays, play), ``train`` (the trainer) and ``cli`` (``tabletop``).

See ``docs/architecture.md``; a game plugs in as ``docs/adding-a-game.md`` says.
"""

__version__ = "0.1.0"
