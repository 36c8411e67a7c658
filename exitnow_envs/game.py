"""Exit Now (Exitなう) — humans flee a haunted house, one player runs the ghosts.

Rules: ``docs/rules/exitnow.md`` (from the Exitなう rules, Japanese). 1-5 human players and one
ghost player share a 21x21 map of nine 7x7 boards (:mod:`exitnow_envs.maps`, boards as
text files in ``exitnow_envs/boards/``). A human wins by reaching the exit door while
holding an Exit Key; the ghost player wins when ``max_rounds`` rounds are over.

Turn order: every human in seat order, then the ghost player (one round).

* Human: a captured human rolls for a 6 to come back on the restart square; a human who
  was stacked on loses the turn. Otherwise it may use Double Dice (roll twice) or Move 7
  (no roll) before rolling, then moves exactly the rolled number of squares
  orthogonally, never straight back onto the square it just left; it may stop early on
  an event chip or the item chip, on the exit door with a key (wins) and on a sealed
  door with a pickaxe (destroys it); entering a ghost's square ends the move (contact).
  If no walk of the full length exists, the ends of the longest walks are the choices.
  Ending on humans: on top, steals one random item from each human below, who lose
  their next turn. Ending on an event chip: draw the BOTTOM card of the event deck (items
  are kept hidden; actions happen at once: Add Ghost, Seal Door A/B/C, Map Swap, Centre
  Rotation). Ending on the item chip: take the whole confiscated pile.
* Ghost player: with no ghost out, a 6 brings one back on the ghost start. Otherwise
  each ghost in number order rolls and makes ceil(roll / 2) moves; a move slides until
  the next square is an obstacle (wall, sealed door, exit door, event chip, item chip,
  map edge) or enters a human's square (contact, that ghost's turn ends); two moves pass
  a one-square wall. No straight reversal of the previous move unless nothing else is
  possible.
* Contact: the humans on the square, top first, may use a Cross to banish the ghost;
  otherwise all of them are captured (items to the confiscated pile, and the ghost
  player may put the item chip on a free event-chip place).

Agents: ``human_0`` .. ``human_{n-1}`` and ``ghost_0`` (the ghost player, last seat).
Rewards: +1 to each winner and -1 to each loser on the final step, 0 otherwise. Individual
play: the escaping human wins, everyone else loses. ``team=True``: every human wins.
The ghost's win after ``max_rounds`` is a termination, not a truncation.

Options (:class:`exitnow_envs.spec.Options`):
    num_humans 1..5 (default 3); layout "default" (Tower/Graveyard top-left, Entrance
    bottom-right, the centre piece between them, the exit edge on top), "random" (drawn
    from the seed at each reset) or an index 0..575 (:func:`exitnow_envs.layouts`);
    centre_side 0/1/"random"; centre_rotation 0..3/"random"; team (False);
    max_rounds (default 14, calibrated so that the bots of both sides win a fair share:
    see ``docs/rules/exitnow.md``);
    boards: a :class:`exitnow_envs.maps.BoardSet` of your own boards.

Actions (471, :mod:`exitnow_envs.spec`)::

    0 roll without an item, 1 use Double Dice, 2 use Move 7          (human, before rolling)
    3 + row * 21 + col   end the move on that square                   (human)
    444 no Cross, 445 use a Cross                                      (human at contact)
    446 + d slide, 450 + d wall pass; d = 0 up, 1 right, 2 down, 3 left (ghost player)
    454 + p put the item chip on event-chip place p (0..16)             (ghost player)

Observation: ``{"observation": float32 (8033,), "action_mask": int8 (471,)}``; pieces
(:func:`decode_observation`): ``planes`` (18, 21, 21) with channels
:data:`exitnow_envs.observe.PLANE_NAMES`, ``seat``, ``current``, ``items`` (own, by
kind), ``item_counts`` (per human), ``roll``, ``phase``, ``round``, ``rounds_left``,
``captured``, ``skip``, ``entered``, ``deck_size``, ``used``, ``confiscated`` (count),
``moves_left``, ``acting_ghost``, ``last_dir``, ``ghost_rolled``, ``team`` and
``ghost_moves`` (8, 4) (for each move of the acting ghost: possible, catches, and the
row and column where it lands). Never another human's item kinds, the event deck's order
or the confiscated pile's contents.

Rendering: ``render_mode="ansi"`` (text), ``"human"`` (prints the text), ``"svg"`` (the
map, pieces, seats and a legend as SVG text, :func:`exitnow_envs.render.render_svg`) and
``"rgb_array"`` (that picture rasterized, (600, 900, 3) uint8; the ``render`` extra).
``exitnow_envs.render.render_rgb`` still draws the bare map with NumPy only.

Bots (kernels, :mod:`exitnow_envs.bots`): ``random`` (both roles), ``smart`` (a human
bot on human seats, a ghost bot on the ghost seat), ``human`` and ``ghost`` (the smart
bot bound to that role). Single-agent training:
``tabletop_core.envs.single_agent.LearnerEnv(GAME, seat="ghost_0", opponents="smart")``.

Rules decisions (where the rulebook is silent or unclear) are written once, in
``docs/rules/exitnow.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_core.contract.game import Bots, Docs, GameDef

from .bots import BOT_NAMES, BOT_ROLES
from .spec import (
    Options,
    Status,
)


def episode_stats(final: np.ndarray) -> dict[str, np.ndarray]:
    """Figures of finished games: ``human_win`` / ``ghost_win`` flags, ``winner`` seat
    (-1 none), ``rounds`` played, ``captured`` humans at the end, ``ghosts`` on the map."""
    n = final["cfg_humans"].astype(np.int64)
    seats = np.arange(final["captured"].shape[1])[None, :] < n[:, None]
    return {
        "human_win": final["status"] == int(Status.HUMAN_WIN),
        "ghost_win": final["status"] == int(Status.GHOST_WIN),
        "winner": final["winner"].astype(np.int64),
        "rounds": final["round"].astype(np.int64),
        "captured": (final["captured"] * seats).sum(axis=1),
        "ghosts": final["gon"].sum(axis=1).astype(np.int64),
    }


def match_stats(options: Options) -> dict[str, str]:
    """The figures of :func:`episode_stats` a match reports under ``options``, defined
    (the escaping seat shows in the seats' win rates)."""
    return {
        "human_win": "a human with an Exit Key reached the exit door",
        "ghost_win": f"the ghost player won: {options.max_rounds} rounds were played",
        "rounds": "rounds played",
        "captured": "humans captured (off the map) at the end",
        "ghosts": "ghosts on the map at the end",
    }


def agents(options: Options) -> list[str]:
    return [f"human_{k}" for k in range(options.num_humans)] + ["ghost_0"]


def record_agents(e: np.void) -> list[str]:
    return [f"human_{k}" for k in range(int(e["cfg_humans"]))] + ["ghost_0"]


def final_info(state: np.ndarray, options: Options) -> list[dict]:
    """Every agent's info when an episode ends (the same for all): ``status``, the
    ``winner`` seat (-1 none) and the ``rounds`` played."""
    info = {
        "status": Status(int(state["status"][0])).name.lower(),
        "winner": int(state["winner"][0]),
        "rounds": int(state["round"][0]),
    }
    return [dict(info) for _ in range(options.num_humans + 1)]


def return_identity(returns: np.ndarray, options: Any) -> np.ndarray:
    """Every seat +1 or -1; the ghost (last seat) wins exactly when no human does; with
    an individual win one human at most wins."""
    ghost = returns[:, -1]
    humans = returns[:, :-1]
    unit = (np.abs(returns) == 1.0).all(axis=1)
    ghost_won = ghost == 1.0
    ok = np.where(ghost_won, (humans == -1.0).all(axis=1), (humans == 1.0).any(axis=1))
    if not options.team:
        ok &= (humans == 1.0).sum(axis=1) <= 1
    return unit & ok


def seat_roles(options: Options) -> tuple[str, ...]:
    """The role of each seat: the humans, then the ghost player (seats of one role play
    as one team in ratings)."""
    return ("human",) * options.num_humans + ("ghost",)


GAME = GameDef(
    name="exitnow",
    version=1,
    module=__name__,
    docs=Docs(
        "Exit Now",
        "humans race for the exit with a key while the ghost player hunts them",
        """Rewards are (B, num_humans + 1) float32, the ghost player last. With ``copy=False`` the
returned observations are a read-only view of the env's own buffer, which each step
patches in place (only what changed is rewritten).""",
    ),
    bots=Bots(BOT_NAMES, play="smart", rollout="smart", rollouts=128, roles=BOT_ROLES),
    reward_range=(-1.0, 1.0),
)
