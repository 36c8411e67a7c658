"""Exhaust's State: a NumPy structured array of shape ``(B,)``, one record per env.

Same conventions as :mod:`thegame_env.state`: one record per env (numba dispatches a
record array much faster than a tuple of arrays), options in ``cfg_*`` fields, the
generator word in ``rng``. Flags are ``uint8`` (numba has no bool arrays in records).
Card kinds and area slots are those of :mod:`exhaust_env.spec`.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.validation import StateChecker, check_legal_action_exists, row_counts, states_of
from tabletop_core.kernel.records import blank_state

from .rules import legal_mask_r
from .spec import (
    COPY_KIND,
    HAND_SIZE,
    MAX_NPC_DECK,
    MAX_PLAYERS,
    MAX_ROUND_STEPS,
    MAX_SEATS,
    MIN_NPC_DECK,
    MIN_PLAYERS,
    MODE_NAMES,
    NUM_ACTIONS,
    NUM_AREAS,
    NUM_CARDS,
    NUM_COPIES,
    NUM_KINDS,
    NUM_NUMBERS,
    NUM_SINGLES,
    REPLENISH_SIZE,
    SOLO_HAND,
    TIME_MAGIC_CARDS,
    Mode,
    Options,
    Status,
)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_seats", np.int8),  # seats at the table: num_players, or 2 in solo (player, NPC)
        ("cfg_agents", np.int8),  # agents (reward columns): num_players, or 1 in solo
        ("cfg_mode", np.int8),  # spec.Mode: 0 standard, 1 long, 2 solo
        ("cfg_singles", np.int8),  # Single areas in use: 4 (4-5p), 2 (3p), 1 (2p, solo)
        ("cfg_hand_size", np.int8),  # cards dealt to each seat (15, or 12 with 5 players)
        ("cfg_npc_deck", np.int8),  # solo: cards dealt to the NPC deck
        ("cfg_zero_sum", np.uint8),  # 1: loser -1, others +1/(N-1); 0: loser -1, others +1
        ("cfg_start", np.int8),  # seat of the first turn of the first round
        # cards (kinds: colour * 15 + number - 1, 60 = copy)
        ("deck", np.int8, (NUM_CARDS,)),  # this round's shuffled card ids 0..63 (hidden; tests)
        ("hand", np.uint8, (MAX_SEATS, NUM_KINDS)),  # counts per kind per seat (solo seat 1: NPC open hand)
        ("hand_n", np.int8, (MAX_SEATS,)),  # cards held per seat
        ("sel", np.uint8, (NUM_KINDS,)),  # the acting seat's selection, counts per kind (<= hand)
        ("sel_n", np.int8),  # cards in the selection
        ("repl", np.int8, (REPLENISH_SIZE,)),  # replenishment deck card ids, top = repl[repl_n - 1]
        ("repl_n", np.int8),  # cards left in the replenishment deck
        ("npc_deck", np.int8, (NUM_CARDS,)),  # solo: NPC deck card ids, top = npc_deck[npc_n - 1]
        ("npc_n", np.int8),  # solo: cards left in the NPC deck
        ("played", np.uint8, (NUM_KINDS,)),  # cards on the combo areas this round, counts per kind
        # combo areas (spec area slots)
        ("area_top", np.int8, (NUM_AREAS,)),  # highest number (Single..4 cards) / last play size; 0 empty
        ("area_n", np.uint8, (NUM_AREAS,)),  # cards in each area
        ("area_cards", np.int8, (NUM_AREAS, NUM_CARDS)),  # kinds in play order, [0, area_n)
        ("area_start", np.uint8, (NUM_AREAS, NUM_CARDS)),  # 1 where a play starts (rendering)
        # time magic and exhaust cards
        ("tm", np.int8, (MAX_SEATS,)),  # Time Magic cards held per seat
        ("tm_pile", np.int8),  # Time Magic cards in the pile
        ("exhaust", np.int8, (MAX_SEATS,)),  # long game: Exhaust cards held per seat (0..2)
        ("exhaust_up", np.uint8, (MAX_SEATS,)),  # long game: 1 if its Exhaust card is face up (flip unused)
        # turn
        ("current", np.int8),  # seat to act (solo: always 0 while playing)
        ("round", np.int16),  # round index (long game), 0 for the first
        ("turn", np.int32),  # completed turns this round (NPC turns included)
        ("loser", np.int8),  # seat that lost the episode (-1 while playing); solo: 1 = the NPC lost
        ("last_loser", np.int8),  # long game: loser of the previous round (-1 none)
        ("status", np.int8),  # spec.Status: 0 playing, 1 over
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.kernel.rng)
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """Exhaust's ``(batch,)`` State for ``options``, not yet dealt: the options, the Time
    Magic pile, no loser yet.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    s = blank_state(batch, STATE_DTYPE)
    s["cfg_seats"] = options.seats
    s["cfg_agents"] = options.players
    s["cfg_mode"] = int(MODE_NAMES[options.mode])
    s["cfg_singles"] = options.num_singles
    s["cfg_hand_size"] = options.hand_size
    s["cfg_npc_deck"] = options.npc_deck_size
    s["cfg_zero_sum"] = int(bool(options.zero_sum))
    s["cfg_start"] = options.start_player
    s["tm_pile"] = TIME_MAGIC_CARDS
    s["loser"] = -1
    s["last_loser"] = -1
    s["status"] = 1
    return s


def validate_state(saved) -> None:
    """Check a saved State (a ``get_state()`` dict or the ``(B,)`` array) field by field
    and against the invariants the rules rely on; the one validation ``set_state`` runs
    before writing anything (vectorized over the batch; nothing runs per step).

    Checked, per env: options in range and consistent (seats, agents, mode, Single
    areas, hand and NPC deck sizes, start seat); ``deck`` a permutation of 0..63;
    per-kind counts within the cards that exist (1 per number kind, 4 copies) and 0 for
    unused seats; ``hand_n`` / ``sel_n`` / ``area_n`` the sums of their counts; the
    selection part of the acting seat's hand; replenishment and NPC decks card ids
    0..63 below their counts (NPC deck: solo only); cards conserved: hands, played cards,
    replenishment deck, NPC deck and the undealt rest of ``deck`` hold every card once;
    ``played`` the cards listed on the areas; area tops within 0..15 (number areas) or
    0..64 (count areas), 0 exactly on empty areas, unused Single areas empty; Time Magic
    16 in all; Exhaust cards 0..2 (long game only), face up only when held; ``current``
    a seat (0 in solo), ``loser`` -1 exactly while playing; and a playing position has a
    legal action.

    Raises:
        ValueError: naming the env index, the field, the value and what is allowed.
    """

    s = states_of(saved, STATE_DTYPE, "exhaust")
    ck = StateChecker(s, "exhaust")
    solo, long_game, seats = _check_options(ck, s)
    in_game = np.arange(MAX_SEATS)[None, :] < seats[:, None]
    _check_cards(ck, s, solo, seats, in_game)
    _check_areas(ck, s)
    playing = _check_counters(ck, s, long_game, seats, in_game)
    check_legal_action_exists(s, legal_mask_r, NUM_ACTIONS, playing, "exhaust")


def _check_options(ck, s):
    """Options in range and consistent; returns (solo, long_game, seats) per env."""
    ck.range("cfg_mode", 0, len(Mode) - 1)
    solo = s["cfg_mode"] == Mode.SOLO
    long_game = s["cfg_mode"] == Mode.LONG
    ck.range(
        "cfg_seats",
        np.where(solo, 2, MIN_PLAYERS),
        np.where(solo, 2, MAX_PLAYERS),
        allowed="2..5 (2 in solo: the player and the NPC)",
    )
    seats = s["cfg_seats"].astype(np.int64)
    ck.range(
        "cfg_agents", np.where(solo, 1, seats), np.where(solo, 1, seats), allowed="cfg_seats (1 in solo)"
    )
    players = s["cfg_agents"].astype(np.int64)
    ck.range(
        "cfg_singles",
        np.array([0] + [NUM_SINGLES[k] for k in range(1, 6)])[players],
        np.array([0] + [NUM_SINGLES[k] for k in range(1, 6)])[players],
        allowed="4 (4-5 players), 2 (3), 1 (2, solo)",
    )
    hs = np.where(solo, SOLO_HAND, np.array([0, 0] + [HAND_SIZE[k] for k in range(2, 6)])[seats])
    ck.range("cfg_hand_size", hs, hs, allowed="15 (12 with 5 players)")
    ck.range("cfg_npc_deck", MIN_NPC_DECK, MAX_NPC_DECK)
    ck.range("cfg_zero_sum", 0, 1)
    ck.range("cfg_start", 0, np.where(solo, 0, seats - 1), allowed="a seat 0..cfg_seats-1 (0 in solo)")
    return solo, long_game, seats


def _check_cards(ck, s, solo, seats, in_game):
    """Deck, hands, selection, replenishment and NPC decks; every card once (conserved)."""

    n = s.shape[0]
    ck.range("deck", 0, NUM_CARDS - 1)
    deck = s["deck"].astype(np.int64)
    rows = np.broadcast_to(np.arange(n)[:, None], deck.shape)
    seen = np.zeros((n, NUM_CARDS), np.int64)
    seen += row_counts(rows, deck, seen.shape)
    ck.fail("deck", seen != 1, "a permutation of the card ids 0..63", None)
    kind_max = np.ones(NUM_KINDS, np.int64)
    kind_max[COPY_KIND] = NUM_COPIES
    hand = s["hand"].astype(np.int64)
    ck.range(
        "hand",
        0,
        np.where(in_game[:, :, None], kind_max[None, None, :], 0),
        allowed="0..1 per number kind, 0..4 copies; 0 for unused seats",
    )
    ck.equal("hand_n", hand.sum(axis=2), "the number of cards in the seat's hand")
    ck.range("played", 0, kind_max[None, :], allowed="0..1 per number kind, 0..4 copies")
    cur = s["current"].astype(np.int64)
    ck.range("current", 0, np.where(solo, 0, seats - 1), allowed="a seat 0..cfg_seats-1 (0 in solo)")
    my_hand = np.take_along_axis(hand, np.clip(cur, 0, MAX_SEATS - 1)[:, None, None], axis=1)[:, 0]
    ck.range("sel", 0, my_hand, allowed="at most the acting seat's hand, kind by kind")
    ck.equal("sel_n", s["sel"].astype(np.int64).sum(axis=1), "the number of cards in the selection")
    ck.range("repl_n", 0, REPLENISH_SIZE)
    ck.range("npc_n", 0, np.where(solo, NUM_CARDS, 0), allowed="0..64 in solo, 0 otherwise")
    slot_r = np.arange(REPLENISH_SIZE)[None, :] < s["repl_n"].astype(np.int64)[:, None]
    ck.range("repl", 0, NUM_CARDS - 1, where=slot_r, allowed="card ids 0..63 below repl_n")
    slot_n = np.arange(NUM_CARDS)[None, :] < s["npc_n"].astype(np.int64)[:, None]
    ck.range("npc_deck", 0, NUM_CARDS - 1, where=slot_n, allowed="card ids 0..63 below npc_n")
    # cards conserved: per kind, everything dealt or not is somewhere exactly once
    kind_of_id = np.minimum(np.arange(NUM_CARDS), COPY_KIND)
    count = hand.sum(axis=1) + s["played"].astype(np.int64)
    for field, slots in (("repl", slot_r), ("npc_deck", slot_n)):
        ids = np.clip(s[field].astype(np.int64), 0, NUM_CARDS - 1)
        count += row_counts(
            np.broadcast_to(np.arange(n)[:, None], ids.shape)[slots], kind_of_id[ids[slots]], count.shape
        )
    dealt = (
        np.where(solo, SOLO_HAND + s["cfg_npc_deck"].astype(np.int64), seats * s["cfg_hand_size"])
        + REPLENISH_SIZE
    )
    rest = np.arange(NUM_CARDS)[None, :] >= dealt[:, None]
    count += row_counts(rows[rest], kind_of_id[deck[rest]], count.shape)
    ck.fail(
        "hand",
        count != kind_max[None, :],
        "every card once across hands, played cards, replenishment and NPC decks and the undealt "
        "deck (cards conserved)",
        count,
    )


def _check_areas(ck, s):
    """Combo areas: cards listed below area_n, played = listed, tops, unused Singles."""

    n = s.shape[0]
    area_n = s["area_n"].astype(np.int64)
    ck.range("area_n", 0, NUM_CARDS)
    on_area = np.arange(NUM_CARDS)[None, None, :] < area_n[:, :, None]
    cards = s["area_cards"].astype(np.int64)
    ck.fail("area_cards", on_area & ((cards < 0) | (cards >= NUM_KINDS)), "kinds 0..60 below area_n")
    ck.fail("area_cards", ~on_area & (cards != 0), "0 from area_n on")
    ck.range("area_start", 0, 1)
    listed = np.zeros((n, NUM_KINDS), np.int64)
    r3 = np.broadcast_to(np.arange(n)[:, None, None], cards.shape)
    listed += row_counts(r3[on_area], np.clip(cards[on_area], 0, NUM_KINDS - 1), listed.shape)
    ck.equal("played", listed, "the cards listed on the combo areas")
    top = s["area_top"].astype(np.int64)
    number_area = np.arange(NUM_AREAS) <= 6  # Singles, Pair, 3 cards, 4 cards: highest number
    ck.range(
        "area_top",
        0,
        np.where(number_area, NUM_NUMBERS, NUM_CARDS)[None, :],
        allowed="0..15 on Single and set areas, 0..64 on Straight / Flush / Any",
    )
    ck.fail("area_top", (top == 0) != (area_n == 0), "0 exactly on an empty area")
    unused = (np.arange(NUM_AREAS)[None, :] < 4) & (
        np.arange(NUM_AREAS)[None, :] >= s["cfg_singles"][:, None]
    )
    ck.fail("area_n", unused & (area_n != 0), "0 on the unused Single areas")


def _check_counters(ck, s, long_game, seats, in_game):
    """Time Magic and Exhaust cards, round, turn, status and loser; returns playing."""
    ck.range("tm", 0, np.where(in_game, TIME_MAGIC_CARDS, 0), allowed="0..16, 0 for unused seats")
    ck.range("tm_pile", 0, TIME_MAGIC_CARDS)
    ck.fail(
        "tm_pile",
        s["tm"].astype(np.int64).sum(axis=1) + s["tm_pile"] != TIME_MAGIC_CARDS,
        "16 Time Magic cards in all (held + pile)",
    )
    ck.range(
        "exhaust", 0, np.where(long_game[:, None] & in_game, 2, 0), allowed="0..2 in the long game, else 0"
    )
    ck.range(
        "exhaust_up",
        0,
        np.where(s["exhaust"] > 0, 1, 0),
        allowed="1 only while the seat holds an Exhaust card",
    )
    # turn
    ck.range("round", 0, np.where(long_game, MAX_SEATS, 0), allowed="0..5 in the long game, else 0")
    ck.range(
        "turn",
        0,
        2 * MAX_ROUND_STEPS,
        allowed=f"0..{2 * MAX_ROUND_STEPS} (a round's turns, NPC turns included)",
    )
    ck.range("status", 0, len(Status) - 1)
    playing = s["status"] == Status.PLAYING
    ck.range(
        "loser",
        np.where(playing, -1, 0),
        np.where(playing, -1, seats - 1),
        allowed="-1 while playing, the losing seat once over",
    )
    ck.range("last_loser", -1, seats - 1, allowed="-1 or a seat")
    return playing
