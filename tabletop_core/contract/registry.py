"""Registration of the games with PettingZoo's registry (PettingZoo >= 1.27).

After ``import thegame_env``: ``pettingzoo.make("aec", "tabletop/thegame-v1", num_players=3)``.
"""

from __future__ import annotations


def register_aec(name: str, version: int, entry_point: str) -> str | None:
    """Register ``tabletop/<name>-v<version>`` (once); return the id, or None when this
    PettingZoo has no registry."""
    try:
        import pettingzoo
        from pettingzoo.env_registry.registration import _get_registry
    except ImportError:  # pragma: no cover - PettingZoo < 1.27
        return None
    env_id = f"tabletop/{name}-v{version}"
    if env_id not in _get_registry("aec"):
        pettingzoo.register("aec", env_id, entry_point=entry_point)
    return env_id
