"""Exit Now's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules kernels of
the ``rules`` package, ``observe.py`` and ``bots.py`` on the env's record, nothing else.

Observation buffers: the loops' obs and final-obs rows are patched
(:func:`observe.refresh_observation_r`): only what changed since the previous write is
rewritten, so between calls ``obs`` and ``final_obs`` must keep what the kernels wrote
there (the vector env hands its buffers out as read-only views). A row that another call
wrote (another buffer, a restored State) is recognised and written in full, as is every
row of a buffer the loops mark fresh (``observe``: :func:`observe.observe_full_r`,
which streams the rows of a large buffer to memory). The mask goes
through an action bit set on the stack (:func:`rules.legal_bits_r`), written to the row
in vector stores; the random bot draws from the bit set or from the mask row the
previous call wrote (:func:`bots.random_bot_row`). A step also asks the CPU for the
memory of the next envs (:func:`prefetch_r`)."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.bits import prefetch as prefetch_line
from tabletop_core.kernel.bits import stack_u64
from tabletop_core.kernel.jit import kernel

from . import bots, resample, rules
from .observe import _C_GHOST, _C_OTHERS, _C_OWN, _SQ, O_SEAT, OBS_DIM, observe_full_r, refresh_observation_r
from .rules import MASK_WORDS, apply_action_r, legal_bits_r, sample_bits, seat_reward_r
from .spec import MAP, MAX_GHOSTS, MAX_HUMANS, NUM_ACTIONS
from .state import NOTES_DTYPE, STATE_DTYPE

_ITEM = STATE_DTYPE.itemsize
# a step reads the record's first line (options), ``cell`` and ``chip`` around the moving
# piece and the fields from ``wbits`` to the end (``place`` is read when the map or a chip
# changes: prefetching it too costs more than it saves), and the notes' first line
# (``sq`` is read when the map or a chip changes)
_CELL0 = STATE_DTYPE.fields["cell"][1]
_PLACE0 = STATE_DTYPE.fields["place"][1]
_HOT0 = STATE_DTYPE.fields["wbits"][1]
_NOTE_ITEM = NOTES_DTYPE.itemsize
_OBS_TAIL = O_SEAT * 4  # bytes of the planes: the scalar pieces follow


@kernel(inline="always")
def step_r(e, action, acc, row):
    """Play ``action``; the episode's outcome (+1 / -1 per seat) is the reward of the step
    that ends it."""
    apply_action_r(e, action)
    if e.status != 0:
        for k in range(e.cfg_humans + 1):
            acc[row, k] += seat_reward_r(e, k)


@kernel(inline="always")
def observe_patch_r(e, n, seat, out, row, note):
    refresh_observation_r(e, n, seat, out, row, note)


@kernel(inline="always")
def observe_fresh_r(e, n, seat, out, row):
    """In full, and the final-observation note is dropped: this State may come from
    elsewhere, so its final-obs row must be written in full next time."""
    n.addr[0] = 0
    n.addr[1] = 0
    refresh_observation_r(e, n, seat, out, row, 0)


@kernel(inline="always")
def random_move_r(e, rng, r):
    """The random bot's draw from the legal bit set (:func:`rules.sample_bits`, the draw
    :func:`bots.random_bot_r` makes on the mask), without a mask."""
    bits = stack_u64(MASK_WORDS)
    return sample_bits(bits, legal_bits_r(e, bits), rng, r)


@kernel(inline="always")
def prefetch_r(s, notes, obs, masks, i):
    """Ask the CPU for the memory the step of the next envs will touch (State fields and
    notes of env i + 2; observation scalars, piece squares and mask of env i + 1): a hint that hides
    memory latency at large batches, with no effect on results."""
    if i + 2 < s.shape[0]:
        base = (i + 2) * _ITEM
        prefetch_line(s, base)
        for off in range(_CELL0, _PLACE0, 64):
            prefetch_line(s, base + off)
        for off in range(_HOT0, _ITEM, 64):
            prefetch_line(s, base + off)
        prefetch_line(notes, (i + 2) * _NOTE_ITEM)
    if i + 1 < s.shape[0]:
        j = i + 1
        ob = j * obs.strides[0]
        for off in range(_OBS_TAIL, OBS_DIM * 4, 64):
            prefetch_line(obs, ob + off)
        mb = j * masks.strides[0]
        for off in range(0, NUM_ACTIONS, 64):
            prefetch_line(masks, mb + off)
        n = notes[j]
        for h in range(MAX_HUMANS):
            if n.hpos[0, h, 0] >= 0:
                q = n.hpos[0, h, 0] * MAP + n.hpos[0, h, 1]
                prefetch_line(obs, ob + (_C_OWN + q) * 4)
                prefetch_line(obs, ob + (_C_OTHERS + q) * 4)
        for g in range(MAX_GHOSTS):
            if n.gpos[0, g, 0] >= 0:
                prefetch_line(obs, ob + (_C_GHOST + g * _SQ + n.gpos[0, g, 0] * MAP + n.gpos[0, g, 1]) * 4)


HOOKS = Hooks.from_names(
    NUM_ACTIONS,
    globals(),
    rules,
    bots,
    resample,
    observe=observe_full_r,
    random_on_mask=bots.random_bot_row,
    notes_dtype=NOTES_DTYPE,
)
"""Exit Now's hooks, declared in :data:`exitnow_envs.game.GAME`."""
