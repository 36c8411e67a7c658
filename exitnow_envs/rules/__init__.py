"""Exit Now's rules as numba kernels over the State record array (``state.py``).

The rules are ``*_r`` kernels taking one env's record ``e = s[i]`` (from Python, on env
``i`` of a State in place: ``tabletop_core.kernel.records.at(kernel_r, s, i, ...)``). A record is a plain pointer, and its array fields
(``e.cell``, ``e.hpos`` ...) are views without a reference count, whereas numba
reference-counts, with atomic operations, every array passed down a chain of calls (the
State ``s``, a row ``masks[i]``), and those cost more than the rules of a step (see
``tabletop_core/contract/game.py``). The generator word is a field of the record (``e.rng``,
drawn with ``tabletop_core.kernel.rng.randint_word``: the numbers ``randint(s.rng, i, n)``
draws). Kernels that fill a buffer take the whole ``(B, n)`` buffer and the row index.

The package follows the rules' own sections, each module importing only the ones before
it: ``common`` (constants, engine stages, square and piece helpers), ``map`` (boards,
layouts, bit boards, Map Swap, Centre Rotation), ``walks`` (human walks), ``ghosts``
(ghost moves, captures, contact), ``events`` (event cards and chips) and ``engine`` (the
turn engine, the actions, legal masks, rewards). Every public name is re-exported here:
``from exitnow_envs.rules import X`` is the way in.

The engine (:func:`proceed_r`) runs every automatic part of the game (dice, revivals,
skipped turns, card draws, captures without a Cross) until an agent has a decision to
take (``State.phase``, ``State.current``) or the episode is over. Rules:
``docs/rules/exitnow.md``.

Decisions taken here where the rules file is silent (also listed in the env docs):

* The engine takes these steps by itself: rolls; a captured human's revival roll; a
  skipped turn; a human without Double Dice / Move 7 rolls without being asked; a human
  without a Cross is not asked at contact; a ghost with no possible move keeps its place
  (its remaining moves are lost). Every other decision is asked, even with one option.
* A human that cannot move at all stays; staying triggers nothing.
* Contact: the humans on the square, top first, who hold a Cross are asked in turn; a
  Cross banishes that ghost; if another ghost shares the square, contact starts again
  with it. Otherwise every human on the square is captured.
* A piece put on the map (a human entering at the start or restart square, a ghost
  appearing or sent back to the ghost start) onto a square holding the other side's
  pieces makes contact there. A human entering at the start square on a ghost ends its
  turn after the contact. A revived human is put on top of humans already there (no
  stealing, nobody loses a turn).
* The item chip is placed only when the confiscated pile holds at least one item, no
  item chip is on the map and some event-chip place has no chip and no piece.
* Seal Door: a human on the door dies (captured, no Cross possible); a ghost on it goes
  back to the ghost start. A sealed door is a one-square wall for ghost wall passes.
* Map Swap: corners or edges with probability 1/2, then a uniformly random pair of the
  four boards of that kind (the env's generator).
* Ghost slides never stop on water or on another ghost only because of them: they pass.
* ``max_rounds``: when the ghost player's turn of round ``max_rounds`` ends, the ghost wins.
"""

from __future__ import annotations

from .common import (
    DC,
    DR,
    ST_GHOST,
    ST_ROUND_END,
    ST_TURN,
    die_r,
    find_kind_r,
    ghost_at_r,
    ghost_free_r,
    human_never_walks,
    human_walkable,
    humans_at_r,
    in_map,
    is_sealed,
    randint_r,
    rot_local,
)
from .engine import (
    MASK_WORDS,
    apply_action_r,
    can_step_r,
    deal_r,
    is_legal_r,
    legal_bits_r,
    legal_mask_r,
    mask_row_bits,
    move_ghost_r,
    move_human_r,
    proceed_r,
    random_legal_r,
    sample_bits,
    seat_reward_r,
    write_mask_row,
)
from .events import (
    add_ghost_r,
    draw_event_r,
    seal_door_r,
)
from .ghosts import (
    can_place_item_chip_r,
    capture_square_r,
    chip_place_ok_r,
    chip_places_r,
    ghost_landing_r,
    ghost_moves_r,
    start_contact_r,
)
from .map import (
    build_map_r,
    centre_rotation_r,
    map_swap_r,
    move_block_r,
    sync_map_r,
)
from .walks import (
    nth_bit,
    reachable_r,
    walk_bits_r,
)

__all__ = [
    "DC",
    "DR",
    "MASK_WORDS",
    "ST_GHOST",
    "ST_ROUND_END",
    "ST_TURN",
    "add_ghost_r",
    "apply_action_r",
    "build_map_r",
    "can_place_item_chip_r",
    "can_step_r",
    "capture_square_r",
    "centre_rotation_r",
    "chip_place_ok_r",
    "chip_places_r",
    "deal_r",
    "die_r",
    "draw_event_r",
    "find_kind_r",
    "ghost_at_r",
    "ghost_free_r",
    "ghost_landing_r",
    "ghost_moves_r",
    "human_never_walks",
    "human_walkable",
    "humans_at_r",
    "in_map",
    "is_legal_r",
    "is_sealed",
    "legal_bits_r",
    "legal_mask_r",
    "map_swap_r",
    "mask_row_bits",
    "move_block_r",
    "move_ghost_r",
    "move_human_r",
    "nth_bit",
    "proceed_r",
    "randint_r",
    "random_legal_r",
    "reachable_r",
    "rot_local",
    "sample_bits",
    "seal_door_r",
    "seat_reward_r",
    "start_contact_r",
    "sync_map_r",
    "walk_bits_r",
    "write_mask_row",
]
