"""No text or picture view shows a seat what its observation hides (issue 17, item 3).

For each game, positions from random play are changed only in what one seat cannot see
(other seats' hands, the draw pile / stock / undealt cards and their order, the acting
seat's selection in progress, hidden item kinds and the event deck's order). The changed
position must still be a valid State (``validate_state``), and that seat's observation and
its text view (``GameDef.render_view``) must be identical before and after.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from tabletop_core.contract.catalog import load_game
from tabletop_core.tools.testing import at


def _positions(game_name: str, options: dict, seeds: int = 4, every: int = 3, limit: int = 150):
    """States (batch of one, copies) met in random games of the AEC env."""
    game = load_game(game_name)
    module = importlib.import_module(load_game(game_name).package)
    out = []
    for seed in range(seeds):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for t in range(limit):
            if env._done:
                break
            if t % every == 0:
                out.append(env.get_state()["state"].copy())
            legal = env.legal_actions()
            env.step(int(rng.choice(legal)))
    return game, env.options, out


def _same_view(game, options, a: np.ndarray, b: np.ndarray, seat: int) -> None:
    game.validate_state(b)
    d = game.observation_layout(options).dim
    oa = np.zeros(d, np.float32)
    ob = np.zeros(d, np.float32)
    game.observe(a, 0, seat, oa)
    game.observe(b, 0, seat, ob)
    assert np.array_equal(oa, ob), "the change is not hidden from this seat's observation (test premise)"
    view = game.render_view or (lambda s, o, k: game.render_ansi(s, o))
    assert view(a, options, seat) == view(b, options, seat)


# --- The Game: other hands and the draw pile -----------------------------------------------
def _thegame_swap(s: np.ndarray, viewer: int, rng) -> np.ndarray | None:
    e = s[0]
    pos = int(e["deck_pos"])
    others = [
        (k, j) for k in range(int(e["cfg_players"])) if k != viewer for j in range(int(e["hand_size"][k]))
    ]
    if not others or pos >= 98:
        return None
    t = s.copy()
    f = t[0]
    k, j = others[rng.integers(len(others))]
    x = int(f["hand"][k, j])
    iy = int(rng.integers(pos, 98))
    y = int(f["deck"][iy])
    ix = int(np.flatnonzero(f["deck"] == x)[0])
    f["hand"][k, j] = y
    f["deck"][ix], f["deck"][iy] = y, x
    return t


# --- Koikoi: other hands and the stock ------------------------------------------------------
def _koikoi_swap(s: np.ndarray, viewer: int, rng) -> np.ndarray | None:
    from koikoi_env import rules
    from koikoi_env.state import LOC_HAND, LOC_STOCK

    e = s[0]
    if e["phase"] != 0:
        return None  # a pending choice: keep the position simple
    pos = int(e["deck_pos"])
    n = int(e["cfg_players"])
    other = [
        c for c in range(88) if LOC_HAND <= e["loc"][c] < LOC_HAND + n and e["loc"][c] != LOC_HAND + viewer
    ]
    if not other or pos >= 88:
        return None
    t = s.copy()
    f = t[0]
    x = int(other[rng.integers(len(other))])
    iy = int(rng.integers(pos, 88))
    y = int(f["deck"][iy])
    ix = int(np.flatnonzero(f["deck"] == x)[0])
    f["loc"][y] = f["loc"][x]
    f["loc"][x] = LOC_STOCK
    f["deck"][ix], f["deck"][iy] = y, x
    at(rules.sync_bits_r, t, 0)
    return t


@pytest.mark.parametrize(
    "game_name, swap, limit",
    [("thegame", _thegame_swap, 150), ("koikoi", _koikoi_swap, 120)],
    ids=["thegame: other hands and the draw pile", "koikoi: other hands and the stock"],
)
def test_views_hide_other_hands_and_the_undealt_cards(game_name, swap, limit):
    game, options, states = _positions(game_name, {"num_players": 3}, limit=limit)
    rng = np.random.default_rng(0)
    changed = 0
    for s in states:
        for viewer in range(3):
            t = swap(s, viewer, rng)
            if t is not None:
                _same_view(game, options, s, t, viewer)
                changed += 1
    assert changed > 20


# --- Exhaust: the selection in progress, other hands and the undealt cards -------------------
def _exhaust_hide_selection(s: np.ndarray) -> np.ndarray | None:
    if int(s[0]["sel_n"]) == 0 or int(s[0]["status"]) != 0:
        return None
    t = s.copy()
    t[0]["sel"][:] = 0
    t[0]["sel_n"] = 0
    return t


def _exhaust_swap(s: np.ndarray, viewer: int, rng) -> np.ndarray | None:
    e = s[0]
    seats = int(e["cfg_seats"])
    solo = int(e["cfg_mode"]) == 2
    dealt = (15 + int(e["cfg_npc_deck"]) if solo else seats * int(e["cfg_hand_size"])) + 4
    # another seat's hidden hand (not the NPC's open hand; not the acting seat's, whose
    # cards decide whether the position can go on)
    owners = [k for k in range(seats) if k not in (viewer, int(e["current"])) and not (solo and k == 1)]
    if dealt >= 64:
        return None
    if solo:  # the NPC deck is face down: swap one of its cards with an undealt one
        npc = int(e["npc_n"])
        if npc == 0:
            return None
        j = int(rng.integers(npc))
        x = int(e["npc_deck"][j])
        iy = int(rng.integers(dealt, 64))
        y = int(e["deck"][iy])
        ix = int(np.flatnonzero(e["deck"] == x)[0])
        t = s.copy()
        f = t[0]
        f["npc_deck"][j] = y
        f["deck"][ix], f["deck"][iy] = y, x
        return t
    if not owners:
        return None
    k = owners[rng.integers(len(owners))]
    kinds = np.flatnonzero(e["hand"][k] > 0)
    if len(kinds) == 0:
        return None
    x = int(kinds[rng.integers(len(kinds))])
    iy = int(rng.integers(dealt, 64))
    y = int(e["deck"][iy])
    ky = min(y, 60)
    if ky == x or (ky < 60 and e["hand"][k, ky] > 0):
        return None
    ix = [i for i in range(dealt) if min(int(e["deck"][i]), 60) == x]
    if not ix:
        return None
    t = s.copy()
    f = t[0]
    f["hand"][k, x] -= 1
    f["hand"][k, ky] += 1
    f["deck"][ix[0]], f["deck"][iy] = y, int(e["deck"][ix[0]])
    return t


@pytest.mark.parametrize("options", [{"num_players": 3}, {"mode": "solo"}])
def test_exhaust_views_hide_the_selection_and_other_hands(options):
    game, opts, states = _positions("exhaust", options, seeds=6, every=1, limit=120)
    rng = np.random.default_rng(0)
    hidden_sel = swapped = 0
    seats = opts.players
    for s in states:
        t = _exhaust_hide_selection(s)
        if t is not None:
            for viewer in range(seats):
                if viewer != int(s[0]["current"]):
                    _same_view(game, opts, s, t, viewer)
                    hidden_sel += 1
        for viewer in range(seats):
            t = _exhaust_swap(s, viewer, rng)
            if t is not None:
                _same_view(game, opts, s, t, viewer)
                swapped += 1
    if seats > 1:
        assert hidden_sel > 10
    assert swapped > 10


# --- Exit Now: the event deck's order and other humans' item kinds ---------------------------
def _exitnow_change(s: np.ndarray, viewer: int, rng) -> np.ndarray | None:
    from exitnow_envs.spec import FIRST_ITEM

    e = s[0]
    n = int(e["deck_n"])
    if n < 2:
        return None
    t = s.copy()
    f = t[0]
    f["deck"][:n] = f["deck"][:n][rng.permutation(n)]
    holders = [
        (h, a) for h in range(int(e["cfg_humans"])) if h != viewer for a in range(5) if e["items"][h, a] > 0
    ]
    if holders:
        h, a = holders[rng.integers(len(holders))]
        j = [q for q in range(n) if f["deck"][q] >= FIRST_ITEM and f["deck"][q] - FIRST_ITEM != a]
        drawn = [q for q in range(n, len(f["deck"])) if f["deck"][q] == a + FIRST_ITEM]
        if j and drawn:  # h's card a and a card b still in the deck trade places
            b = int(f["deck"][j[0]]) - FIRST_ITEM
            f["items"][h, a] -= 1
            f["items"][h, b] += 1
            f["deck"][j[0]] = a + FIRST_ITEM
            f["deck"][drawn[0]] = b + FIRST_ITEM
    if np.array_equal(t, s):
        return None
    return t


def test_exitnow_views_hide_the_deck_and_other_item_kinds():
    from exitnow_envs.render import render_rgb

    game, options, states = _positions("exitnow", {"num_humans": 3}, seeds=4, every=2, limit=200)
    rng = np.random.default_rng(0)
    changed = 0
    for s in states:
        if int(s[0]["phase"]) in (2,):  # a Cross question reveals that the asked human holds one
            continue
        for viewer in range(4):
            t = _exitnow_change(s, viewer, rng)
            if t is not None:
                _same_view(game, options, s, t, viewer)
                changed += 1
                if changed % 10 == 1:  # the map picture shows public things only
                    assert np.array_equal(render_rgb(s), render_rgb(t))
    assert changed > 20


# --- Replay captions and narration: per seat, nothing that seat cannot know ------------------
def _seat_texts(env, game, before, action: int, actor: int, seat: int) -> tuple[str, list[str], bytes]:
    """What ``seat`` is told of the step ``action`` just taken: the replay caption in its
    view, the narration's lines for it, and its observation after the step."""
    from tabletop_core.tools.replay import capture

    agents = list(env.possible_agents)
    frame = capture(env, action, agents[actor], views=[agents[seat]])
    lines = game.narrate.describe(before, env._state, action, actor, seat)
    return frame.caption(agents[seat]), lines, env.observe(agents[seat])["observation"].tobytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_name, options",
    [
        ("thegame", {}),
        ("koikoi", {"num_players": 3, "rounds": 1}),
        ("exhaust", {"num_players": 3}),
        ("exitnow", {"num_humans": 2}),
    ],
)
def test_replay_captions_and_narration_hold_only_what_each_seat_may_know(game_name, options):
    """At each step of another seat, the position is redrawn in what the watching seat
    cannot see (``resample_hidden``); every legal step there that leaves the seat's
    observation as the real step left it must give the seat the same caption and the same
    narration (else the text named something hidden: Exhaust's card added face down)."""
    game = load_game(game_name)
    module = importlib.import_module(game.package)
    env, twin = module.raw_env(**options), module.raw_env(**options)
    env.reset(seed=1)
    twin.reset(seed=1)
    rng = np.random.default_rng(1)
    n = len(env.possible_agents)
    compared = 0
    for t in range(80):
        if env._done:
            break
        actor = int(env._cur[0])
        saved, before = env.get_state(), env._state.copy()
        action = int(rng.choice(env.legal_actions()))
        env.step(action)
        for seat in {(actor + 1) % n, (actor + 2) % n} - {actor}:
            real = _seat_texts(env, game, before, action, actor, seat)
            twin.set_state(game.resample_hidden(saved, seat, t))
            other_saved = twin.get_state()
            for a2 in rng.permutation(twin.legal_actions())[:10]:
                twin.set_state(other_saved)
                twin_before = twin._state.copy()
                twin.step(int(a2))
                seen = _seat_texts(twin, game, twin_before, int(a2), actor, seat)
                if seen[2] == real[2]:
                    compared += 1
                    assert seen[:2] == real[:2], (game_name, t, action, int(a2))
    assert compared > 0
