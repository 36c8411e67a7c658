"""Game-agnostic core of tabletop-rl: jit options, RNG, encoders, AEC adapter, vector env, bots, arena, CLI."""

__version__ = "0.1.0"
