"""Exit Now's State: a NumPy structured array of shape ``(B,)``, one record per env.

The AEC env holds a batch of one, the vector env a batch of ``num_envs``; the same kernels
(the ``rules`` package) run on both. Options and the board data live in the record (``cfg_*``), so
one record fully describes its game (and a random layout can be built from the episode's
own generator at reset). Squares are ``(row, col)`` on the 21x21 map, row 0 at the top.

The fields after ``place`` up to ``chipv`` are derived from ``cell``, ``chip`` and
``place`` (bit boards and positions the per-step kernels read instead of scanning the map,
and version counters of the map and the chips). Every rules kernel keeps them up to date;
after editing ``cell``, ``chip`` or ``place`` by hand, call
:func:`exitnow_envs.rules.sync_map_r`. What the observation kernels remember of the rows
they wrote is not game state: it lives in the adapters' notes (:data:`NOTES_DTYPE`).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, row_counts, states_of
from tabletop_core.kernel.records import blank_state

from .maps import default_boards
from .rules import ST_ROUND_END, legal_mask_r
from .spec import (
    BIT_ROWS,
    BOARD,
    DECK,
    DECK_SIZE,
    EXIT,
    FIRST_ITEM,
    GHOST_START,
    I_CROSS,
    MAP,
    MAX_GHOSTS,
    MAX_HUMANS,
    MAX_MAX_ROUNDS,
    MIN_HUMANS,
    NUM_ACTIONS,
    NUM_CARD_KINDS,
    NUM_ITEM_KINDS,
    NUM_KINDS,
    NUM_LAYOUTS,
    NUM_PHASES,
    NUM_PLACES,
    PLACE,
    SEALED_A,
    SEALED_C,
    WALL,
    WATER,
    Options,
    Phase,
    Status,
)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_humans", np.int8),  # number of human seats, 1..5 (the ghost player is seat cfg_humans)
        ("cfg_team", np.uint8),  # 1: team win (every human wins when one escapes)
        ("cfg_max_rounds", np.int16),  # the ghost wins once this many rounds are over
        ("cfg_layout", np.int16),  # layout index 0..575, or -1: drawn at reset from the env's generator
        ("cfg_centre_side", np.int8),  # centre piece side 0/1, or -1: drawn at reset
        ("cfg_centre_rot", np.int8),  # centre quarter turns clockwise 0..3, or -1: drawn at reset
        ("cfg_corner", np.uint8, (4, BOARD, BOARD)),  # corner boards (spec square kinds), top-left drawing
        ("cfg_edge", np.uint8, (4, BOARD, BOARD)),  # edge boards, top-edge drawing
        ("cfg_centre", np.uint8, (2, BOARD, BOARD)),  # centre piece sides
        # map
        ("layout", np.int16),  # layout index in play
        (
            "slot_board",
            np.int8,
            (9,),
        ),  # board in slot 3*block_row+block_col (index in its kind; centre: side)
        ("slot_rot", np.int8, (9,)),  # quarter turns clockwise of the board in that slot
        ("cell", np.uint8, (MAP, MAP)),  # square kind (spec.FLOOR ... spec.SEALED_C)
        ("chip", np.uint8, (MAP, MAP)),  # 0 none, 1 event chip, 2 item chip
        ("place", np.int8, (MAP, MAP)),  # event-chip place number 0..16, -1 elsewhere (moves with its square)
        # derived from cell / chip / place (rules.sync_map_r); bit boards (spec.BIT_ROWS) of:
        # wbits squares a walking human may enter (not wall, water, exit, sealed door),
        # xbits the exit door, sbits sealed doors, cbits squares holding a chip
        ("wbits", np.uint32, (BIT_ROWS,)),
        ("xbits", np.uint32, (BIT_ROWS,)),
        ("sbits", np.uint32, (BIT_ROWS,)),
        ("cbits", np.uint32, (BIT_ROWS,)),
        # first square (reading order) of each landmark kind (EXIT, DOOR_A ... SEALED_C),
        # (-1, -1) when absent and for FLOOR, WALL, WATER, PLACE
        ("kpos", np.int8, (NUM_KINDS, 2)),
        ("ppos", np.int8, (NUM_PLACES, 2)),  # square of event-chip place p, (-1, -1) none
        ("mapv", np.uint32),  # map version: + 1 whenever cell or place change (rules.sync_map_r)
        ("chipv", np.uint32),  # chip version: + 1 whenever a chip is taken or put (and with mapv)
        # humans (seat h = human_h)
        ("hpos", np.int8, (MAX_HUMANS, 2)),  # (row, col) on the map, (-1, -1) off the map
        ("hheight", np.int16, (MAX_HUMANS,)),  # stacking order: larger = higher on a shared square
        ("entered", np.uint8, (MAX_HUMANS,)),  # 1 once the piece has entered at the start square
        ("captured", np.uint8, (MAX_HUMANS,)),  # 1 while captured (off the map, rolling for a 6)
        ("skip", np.uint8, (MAX_HUMANS,)),  # 1: loses its next turn (stacked on)
        ("items", np.int8, (MAX_HUMANS, NUM_ITEM_KINDS)),  # held items by kind (spec.I_KEY ...)
        # ghosts (ghost g = ghost number g + 1)
        ("gpos", np.int8, (MAX_GHOSTS, 2)),  # (row, col), (-1, -1) off the map
        ("gon", np.uint8, (MAX_GHOSTS,)),  # 1: on the map
        # cards
        ("deck", np.int8, (DECK_SIZE,)),  # shuffled event cards; the bottom card is deck[deck_n - 1]
        ("deck_n", np.int8),  # cards left in the event deck
        ("confiscated", np.int8, (NUM_ITEM_KINDS,)),  # confiscated pile by item kind (hidden)
        ("used", np.int8, (NUM_ITEM_KINDS,)),  # used pile by item kind (public)
        ("last_card", np.int8),  # last action card resolved (public), -1 none
        # turn machine
        ("phase", np.int8),  # spec.Phase of the pending decision
        ("stage", np.int8),  # rules.ST_*: what the engine does once no contact / chip is pending
        ("turn_seat", np.int8),  # seat whose turn it is (cfg_humans = the ghost player)
        ("roll", np.int8),  # human: squares to move; ghost: the acting ghost's die
        ("ghost_idx", np.int8),  # acting ghost 0..2 during the ghost player's turn
        ("ghost_rolled", np.uint8),  # 1 once the acting ghost has rolled
        ("moves_left", np.int8),  # the acting ghost's moves left
        ("last_dir", np.int8),  # the acting ghost's previous move direction this turn, -1 none
        ("contact_ghost", np.int8),  # ghost of the pending contact, -1 none
        ("contact_q", np.int8, (MAX_HUMANS,)),  # humans on the contact square, top first
        ("contact_n", np.int8),  # humans in contact_q (0: no pending contact)
        ("contact_k", np.int8),  # next human of contact_q to ask for a Cross
        ("pending_chip", np.uint8),  # 1: a capture may let the ghost player place the item chip
        ("height_counter", np.int16),  # last stacking height handed out
        ("round", np.int16),  # rounds completed
        ("winner", np.int8),  # seat of the escaping human, -1 none
        ("current", np.int8),  # seat to act
        ("status", np.int8),  # spec.Status: 0 playing, 1 a human escaped, 2 the ghost won
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng)
    ]
)

NOTES_DTYPE = np.dtype(
    [
        # what observe.refresh_observation_r last wrote for one env (see there): the
        # adapters' data, kept beside their observation buffers, not game state. Two
        # notes: [0] the observation buffer (obs), [1] the final-observation buffer
        # (final_obs, written when an episode ends)
        ("addr", np.uint64, (2,)),  # address of that observation row, 0 none
        ("mapv", np.uint32, (2,)),  # mapv / chipv it showed
        ("chipv", np.uint32, (2,)),
        ("hpos", np.int8, (2, MAX_HUMANS, 2)),  # human squares it showed, (-1, -1) none
        ("gpos", np.int8, (2, MAX_GHOSTS, 2)),  # ghost squares it showed, (-1, -1) none
        ("sq", np.uint8, (2, MAP, MAP)),  # per square: cell | chip << 4 | (place >= 0) << 6 it showed
    ]
)
"""The observation notes of one env (:meth:`tabletop_core.contract.game.GameDef.new_notes`)."""


def new_state(batch: int, options: Options) -> np.ndarray:
    """Exit Now's ``(batch,)`` State for ``options``, not yet dealt: the options and the
    chosen boards.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    boards = options.boards or default_boards()
    corners, edges, centre = boards.arrays()
    s = blank_state(batch, STATE_DTYPE)
    s["cfg_humans"] = options.num_humans
    s["cfg_team"] = int(bool(options.team))
    s["cfg_max_rounds"] = options.max_rounds
    if options.layout == "default":
        s["cfg_layout"] = boards.default_layout()
    elif options.layout == "random":
        s["cfg_layout"] = -1
    else:
        s["cfg_layout"] = options.layout
    s["cfg_centre_side"] = -1 if options.centre_side == "random" else options.centre_side
    s["cfg_centre_rot"] = -1 if options.centre_rotation == "random" else options.centre_rotation
    s["cfg_corner"] = corners
    s["cfg_edge"] = edges
    s["cfg_centre"] = centre
    s["hpos"] = -1
    s["gpos"] = -1
    s["kpos"] = -1
    s["ppos"] = -1
    s["winner"] = -1
    s["contact_ghost"] = -1
    s["last_dir"] = -1
    s["last_card"] = -1
    s["phase"] = 5
    return s


def derived_map_fields(s: np.ndarray) -> dict[str, np.ndarray]:
    """The fields :func:`exitnow_envs.rules.sync_map_r` derives from ``cell``, ``chip`` and
    ``place`` (``wbits``, ``xbits``, ``sbits``, ``cbits``, ``kpos``, ``ppos``), computed
    in NumPy for a whole ``(B,)`` State whose ``cell`` / ``place`` are in range."""

    n = s.shape[0]
    cell = s["cell"].astype(np.int64)
    weights = (np.uint64(1) << np.arange(MAP, dtype=np.uint64))[None, None, :]

    def bits(b: np.ndarray) -> np.ndarray:
        out = np.zeros((n, BIT_ROWS), np.uint32)
        out[:, 1 : MAP + 1] = (b.astype(np.uint64) * weights).sum(axis=2).astype(np.uint32)
        return out

    exit_ = cell == EXIT
    sealed = (cell >= SEALED_A) & (cell <= SEALED_C)
    out = {
        "wbits": bits(~(exit_ | sealed | (cell == WALL) | (cell == WATER))),
        "xbits": bits(exit_),
        "sbits": bits(sealed),
        "cbits": bits(s["chip"] != 0),
    }
    flat = cell.reshape(n, -1)
    kpos = np.full((n, NUM_KINDS, 2), -1, np.int8)
    for k in range(EXIT, NUM_KINDS):
        if k == PLACE:
            continue
        hit = flat == k
        first = np.argmax(hit, axis=1)
        any_ = hit.any(axis=1)
        kpos[any_, k, 0] = first[any_] // MAP
        kpos[any_, k, 1] = first[any_] % MAP
    out["kpos"] = kpos
    place = s["place"].astype(np.int64).reshape(n, -1)
    ppos = np.full((n, NUM_PLACES, 2), -1, np.int8)
    for p in range(NUM_PLACES):
        hit = place == p
        first = np.argmax(hit, axis=1)
        any_ = hit.any(axis=1)
        ppos[any_, p, 0] = first[any_] // MAP
        ppos[any_, p, 1] = first[any_] % MAP
    out["ppos"] = ppos
    return out


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array) field by field
    and against the invariants the rules rely on; the one validation ``set_state`` runs
    before writing anything (vectorized over the batch; nothing runs per step).

    Checked, per env: options and boards in range; ``layout``, ``slot_board``,
    ``slot_rot`` in range; ``cell`` kinds, ``chip`` codes (chips only on places, one item
    chip at most), ``place`` numbers (each at most once); the derived fields exactly what
    ``cell`` / ``chip`` / ``place`` give (:func:`derived_map_fields`); humans: flags 0/1,
    on the map exactly when entered and not captured, on a square a human may stand on
    (the exit only for the winner), nothing for unused seats, heights up to
    ``height_counter``; ghosts on the map exactly when ``gon``, never on a wall, sealed
    door, exit or chip; event cards: ``deck`` the 17 cards, ``deck_n`` 0..17; items
    conserved: held + confiscated + used + still in the deck = the deck's cards of each
    kind; turn machine fields in range and the phase consistent with the acting seat
    (ITEM / MOVE: a human on the map, MOVE with a roll 1..12; CROSS: the asked human of
    the pending contact, holding a Cross; GHOST / CHIP: the ghost player, GHOST with an
    acting ghost on the map and moves left; OVER exactly when the game is over); the
    and a playing position has a legal action.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """

    s = states_of(saved, STATE_DTYPE, "exitnow")
    ck = StateChecker(s, "exitnow")
    n = s.shape[0]
    b = np.arange(n)
    ck.range("cfg_humans", MIN_HUMANS, MAX_HUMANS)
    nh = s["cfg_humans"].astype(np.int64)
    ck.range("cfg_team", 0, 1)
    ck.range("cfg_max_rounds", 1, MAX_MAX_ROUNDS)
    ck.range("cfg_layout", -1, NUM_LAYOUTS - 1)
    ck.range("cfg_centre_side", -1, 1)
    ck.range("cfg_centre_rot", -1, 3)
    for f in ("cfg_corner", "cfg_edge", "cfg_centre"):
        ck.range(f, 0, GHOST_START, allowed="board square kinds 0..10")
    _check_map(ck, s, n, b)
    on = _check_humans(ck, s, nh, b)
    gon = _check_ghosts(ck, s, b)
    _check_cards_and_items(ck, s, n, b)
    playing = _check_turn(ck, s, nh, on, gon, b)
    _check_notes(ck, s, playing)


def _check_map(ck, s, n, b):
    """Boards and layout in range; cell kinds, chips, places and the derived map fields."""

    ck.range("layout", 0, NUM_LAYOUTS - 1)
    ck.range("slot_board", 0, 3)
    ck.fail("slot_board", s["slot_board"][:, 4] > 1, "a centre side 0..1 in slot 4")
    ck.range("slot_rot", 0, 3)
    ck.range("cell", 0, NUM_KINDS - 1)
    ck.range("chip", 0, 2)
    ck.range("place", -1, NUM_PLACES - 1)
    place = s["place"].astype(np.int64)
    ck.fail("chip", (s["chip"] != 0) & (place < 0), "a chip only on an event-chip place (place >= 0)")
    ck.fail("chip", (s["chip"] == 2).reshape(n, -1).sum(axis=1) > 1, "one item chip (2) at most", None)
    per_place = np.zeros((n, NUM_PLACES + 1), np.int64)
    per_place += row_counts(np.broadcast_to(b[:, None, None], place.shape), place + 1, per_place.shape)
    ck.fail("place", per_place[:, 1:] > 1, "each place number 0..16 on one square at most", None)
    for field, want in derived_map_fields(s).items():
        ck.equal(field, want, f"what cell / chip / place give (rules.sync_map_r); got {field} out of step")


def _check_humans(ck, s, nh, b):
    """Human pieces: flags, on the map exactly when entered and not captured, squares, heights."""

    seat = np.arange(MAX_HUMANS)[None, :]
    used = seat < nh[:, None]
    for f in ("entered", "captured", "skip"):
        ck.range(f, 0, np.where(used, 1, 0), allowed="0/1, 0 for unused seats")
    ck.range("items", 0, np.where(used[:, :, None], 2, 0), allowed="0..2 per kind, 0 for unused seats")
    hpos = s["hpos"].astype(np.int64)
    on = (s["entered"] == 1) & (s["captured"] == 0) & used
    ck.range(
        "hpos",
        np.where(on[:, :, None], 0, -1),
        np.where(on[:, :, None], MAP - 1, -1),
        allowed="a square (0..20, 0..20) while entered and not captured, else (-1, -1)",
    )
    hr = np.clip(hpos[:, :, 0], 0, MAP - 1)
    hc = np.clip(hpos[:, :, 1], 0, MAP - 1)
    hcell = s["cell"][b[:, None], hr, hc].astype(np.int64)
    winner = s["winner"].astype(np.int64)
    human_won = (s["status"] == Status.HUMAN_WIN)[:, None] & (seat == winner[:, None])
    bad_sq = (hcell == WALL) | (hcell == WATER) | ((hcell >= SEALED_A) & (hcell <= SEALED_C))
    bad_sq |= (hcell == EXIT) & ~human_won
    ck.fail(
        "hpos",
        on & bad_sq,
        "a square a human may stand on (not wall, water, sealed door; the exit only for the winner)",
    )
    ck.range("height_counter", 0, np.iinfo(np.int16).max)
    ck.range("hheight", 0, s["height_counter"].astype(np.int64), allowed="0..height_counter")
    return on


def _check_ghosts(ck, s, b):
    """Ghosts on the map exactly when on, never on a wall, sealed door, exit or chip."""

    ck.range("gon", 0, 1)
    gon = s["gon"] == 1
    gpos = s["gpos"].astype(np.int64)
    ck.range(
        "gpos",
        np.where(gon[:, :, None], 0, -1),
        np.where(gon[:, :, None], MAP - 1, -1),
        allowed="a square (0..20, 0..20) while on the map (gon), else (-1, -1)",
    )
    gr = np.clip(gpos[:, :, 0], 0, MAP - 1)
    gc = np.clip(gpos[:, :, 1], 0, MAP - 1)
    gcell = s["cell"][b[:, None], gr, gc].astype(np.int64)
    gchip = s["chip"][b[:, None], gr, gc]
    bad_g = (gcell == WALL) | (gcell == EXIT) | ((gcell >= SEALED_A) & (gcell <= SEALED_C)) | (gchip != 0)
    ck.fail("gpos", gon & bad_g, "a square a ghost may stand on (not wall, exit, sealed door or chip)")
    return gon


def _check_cards_and_items(ck, s, n, b):
    """Event deck and items conserved (held + confiscated + used + in the deck)."""

    ck.range("deck", 0, NUM_CARD_KINDS - 1)
    deck = s["deck"].astype(np.int64)
    per_card = np.zeros((n, NUM_CARD_KINDS), np.int64)
    per_card += row_counts(np.broadcast_to(b[:, None], deck.shape), deck, per_card.shape)
    full = np.bincount(np.asarray(DECK), minlength=NUM_CARD_KINDS)
    ck.fail("deck", per_card != full[None, :], "the 17 event cards (a permutation of spec.DECK)", None)
    ck.range("deck_n", 0, DECK_SIZE)
    ck.range("confiscated", 0, 2)
    ck.range("used", 0, 2)
    left = np.zeros((n, NUM_CARD_KINDS), np.int64)
    in_deck = np.arange(DECK_SIZE)[None, :] < s["deck_n"].astype(np.int64)[:, None]
    left += row_counts(np.broadcast_to(b[:, None], deck.shape)[in_deck], deck[in_deck], left.shape)
    total = s["items"].astype(np.int64).sum(axis=1) + s["confiscated"] + s["used"] + left[:, FIRST_ITEM:]
    ck.fail(
        "items",
        total != full[None, FIRST_ITEM:],
        "each item kind's cards once: held + confiscated + used + still in the deck (items conserved)",
        total,
    )
    ck.range("last_card", -1, FIRST_ITEM - 1, allowed="-1 or an action card 0..5")


def _check_turn(ck, s, nh, on, gon, b):
    """Turn machine fields in range and the phase consistent with the acting seat; returns playing."""
    playing, ph, cur = _check_phase(ck, s, nh, on)
    _check_ghost_turn(ck, s, playing, ph, gon, b)
    _check_contact(ck, s, nh, gon, b, playing, ph, cur)
    ck.range("pending_chip", 0, 1)
    ck.range("round", 0, s["cfg_max_rounds"].astype(np.int64), allowed="0..cfg_max_rounds")
    ck.fail("round", playing & (s["round"] >= s["cfg_max_rounds"]), "below cfg_max_rounds while playing")
    return playing


def _check_phase(ck, s, nh, on):
    """Status, winner, phase, stage and the acting seat consistent with the phase, and the
    roll; returns ``(playing, phase, current)`` as (B,) arrays."""

    ck.range("status", 0, len(Status) - 1)
    playing = s["status"] == Status.PLAYING
    ck.range(
        "winner",
        np.where(s["status"] == Status.HUMAN_WIN, 0, -1),
        np.where(s["status"] == Status.HUMAN_WIN, nh - 1, -1),
        allowed="the escaped human once a human won, else -1",
    )
    ck.range("phase", 0, NUM_PHASES - 1)
    ph = s["phase"].astype(np.int64)
    ck.fail("phase", playing == (ph == Phase.OVER), "5 (OVER) exactly when the game is over")
    ck.range("stage", 0, ST_ROUND_END)
    ck.range("turn_seat", 0, nh, allowed="0..cfg_humans (cfg_humans: the ghost player)")
    ck.range("current", 0, nh, allowed="0..cfg_humans (cfg_humans: the ghost player)")
    cur = s["current"].astype(np.int64)
    human_phase = playing & ((ph == Phase.ITEM) | (ph == Phase.MOVE) | (ph == Phase.CROSS))
    ghost_phase = playing & ((ph == Phase.GHOST) | (ph == Phase.CHIP))
    ck.range(
        "current", 0, nh - 1, where=human_phase, allowed="a human seat in the ITEM, MOVE and CROSS phases"
    )
    ck.range(
        "current",
        nh,
        nh,
        where=ghost_phase,
        allowed="cfg_humans (the ghost player) in the GHOST and CHIP phases",
    )
    cur_on = np.take_along_axis(on, np.clip(cur, 0, MAX_HUMANS - 1)[:, None], axis=1)[:, 0]
    ck.fail(
        "current",
        playing & ((ph == Phase.ITEM) | (ph == Phase.MOVE)) & ~cur_on,
        "a human on the map in the ITEM and MOVE phases",
    )
    ck.range("roll", 0, 12)
    ck.range("roll", 1, 12, where=playing & (ph == Phase.MOVE), allowed="1..12 in the MOVE phase")
    return playing, ph, cur


def _check_ghost_turn(ck, s, playing, ph, gon, b):
    """The ghost player's turn fields: the acting ghost on the map with moves left in the
    GHOST phase."""

    ck.range("ghost_idx", 0, MAX_GHOSTS)
    ck.range("ghost_rolled", 0, 1)
    ck.range("moves_left", 0, 3)
    ck.range("last_dir", -1, 3)
    gi = np.clip(s["ghost_idx"].astype(np.int64), 0, MAX_GHOSTS - 1)
    acting_on = gon[b, gi] & (s["ghost_idx"] < MAX_GHOSTS)
    ck.fail(
        "ghost_idx",
        playing & (ph == Phase.GHOST) & ~acting_on,
        "an acting ghost 0..2 on the map in the GHOST phase",
    )
    ck.range("moves_left", 1, 3, where=playing & (ph == Phase.GHOST), allowed="1..3 in the GHOST phase")


def _check_contact(ck, s, nh, gon, b, playing, ph, cur):
    """A pending contact (ghost met humans): its queue and ghost, and the CROSS phase only
    for the asked human holding a Cross."""

    ck.range("contact_n", 0, nh, allowed="0..cfg_humans")
    cn = s["contact_n"].astype(np.int64)
    ck.range("contact_q", 0, nh - 1, allowed="human seats 0..cfg_humans-1")
    ck.range("contact_k", 0, np.where(cn > 0, cn, nh), allowed="0..contact_n while a contact is pending")
    ck.range(
        "contact_ghost",
        np.where(cn > 0, 0, -1),
        np.where(cn > 0, MAX_GHOSTS - 1, -1),
        allowed="a ghost 0..2 while a contact is pending (contact_n > 0), else -1",
    )
    cg = np.clip(s["contact_ghost"].astype(np.int64), 0, MAX_GHOSTS - 1)
    ck.fail("contact_ghost", (cn > 0) & ~gon[b, cg], "a ghost on the map")
    ck_k = np.clip(s["contact_k"].astype(np.int64), 0, MAX_HUMANS - 1)
    asked = np.take_along_axis(s["contact_q"].astype(np.int64), ck_k[:, None], axis=1)[:, 0]
    crosses = s["items"][b, np.clip(cur, 0, MAX_HUMANS - 1), I_CROSS]
    cross = playing & (ph == Phase.CROSS)
    ck.fail(
        "phase",
        cross & ((cn == 0) | (s["contact_k"] >= cn) | (asked != cur) | (crosses <= 0)),
        "CROSS (2) only for the asked human of a pending contact (contact_q[contact_k]) holding a Cross",
    )


def _check_notes(ck, s, playing):
    """Observation notes in range (set_state rewrites them), and a legal action while playing."""

    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, playing, "exitnow")
