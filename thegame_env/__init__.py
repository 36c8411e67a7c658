"""The Game (placeholder package init, filled in by env.py)."""
