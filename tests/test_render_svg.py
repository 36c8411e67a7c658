"""Pictures of every game: ``render_mode="svg"`` and ``"rgb_array"`` over every option,
from every view, on random positions; valid SVG of the documented size; no leak of hidden
cards into a seat's view (states that differ only in what that seat cannot see, checked
with the game's own observation, give the same picture)."""

from __future__ import annotations

import importlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from exitnow_envs.maps import default_boards
from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.tools.testing import at

try:
    import resvg_py  # noqa: F401

    HAVE_RESVG = True
except ImportError:  # the rgb_array checks need the 'render' extra; the SVG checks run anyway
    HAVE_RESVG = False

SVG_NS = "{http://www.w3.org/2000/svg}"

# Option sets that together take every value class of every option of each game.
OPTIONS = {
    "thegame": [
        {"num_players": 1},
        {"num_players": 2, "on_fire": True, "level": 1},
        {"num_players": 3, "level": 2, "reward": "win", "start_player": 2},
        {"num_players": 5, "on_fire": True},
    ],
    "exhaust": [
        {"num_players": 2},
        {"num_players": 3, "mode": "long", "start_player": 1},
        {"num_players": 4, "zero_sum": True},
        {"num_players": 5},
        {"mode": "solo", "npc_deck_size": 5},
    ],
    "koikoi": [
        {"num_players": 2, "rounds": 1},
        {"num_players": 3, "rounds": 2, "first_dealer": 2},
        {"num_players": 4, "rounds": 1},
    ],
    "exitnow": [
        {"num_humans": 1, "max_rounds": 3, "boards": default_boards()},
        {"num_humans": 3, "layout": "random", "centre_side": "random", "centre_rotation": "random"},
        {
            "num_humans": 5,
            "layout": 17,
            "centre_side": 1,
            "centre_rotation": 3,
            "team": True,
            "max_rounds": 6,
        },
    ],
}
CASES = [(g, o) for g in game_names() for o in OPTIONS[g]]


def _package(game: str):
    return importlib.import_module(load_game(game).package)


def _check_svg(text: str, size: tuple[int, int]) -> ET.Element:
    root = ET.fromstring(text)  # raises on invalid XML
    assert root.tag == SVG_NS + "svg"
    assert (int(root.get("width")), int(root.get("height"))) == size
    assert "<script" not in text and "href" not in text  # self-contained, static
    return root


def _random_positions(env, rng: np.random.Generator, seed: int, picks: int = 4):
    """Reset with ``seed``, play random legal actions to the end; yield the env at
    ``picks`` random steps and at the end."""
    env.reset(seed=seed)
    states = [env.get_state()]
    while not env._done:
        env.step(int(rng.choice(env.legal_actions())))
        states.append(env.get_state())
    chosen = sorted(set(rng.integers(0, len(states), picks).tolist()) | {0, len(states) - 1})
    for k in chosen:
        env.set_state(states[k])
        yield k


@pytest.mark.parametrize(
    "game,options", CASES, ids=[f"{g}-{i}" for g, o in CASES for i in [OPTIONS[g].index(o)]]
)
def test_every_view_renders_valid_svg_and_rgb_of_the_documented_size(game, options):
    pkg = _package(game)
    size = pkg.GAME.svg_size
    env = pkg.raw_env(render_mode="svg", **options)
    views = [None, *range(len(env.possible_agents))]
    rng = np.random.default_rng(len(CASES))
    rastered = 0
    for k in _random_positions(env, rng, seed=11):
        for v in views:
            env.render_seat = v
            text = env.render()
            root = _check_svg(text, size)
            assert len(root) > 20  # a table, not an empty canvas
            if HAVE_RESVG and rastered < 3 and (k == 0 or v is None):
                img = pkg.raw_env(render_mode="rgb_array", **options)
                img.set_state(env.get_state())
                img.render_seat = v
                pic = img.render()
                assert pic.shape == (size[1], size[0], 3) and pic.dtype == np.uint8
                assert len(np.unique(pic.reshape(-1, 3), axis=0)) > 20  # cards, text, colours drawn
                rastered += 1
    with pytest.raises(ValueError, match="seat"):
        pkg.GAME.render_svg(env._state, env.options, 99)


@pytest.mark.parametrize("game", game_names())
def test_metadata_lists_the_picture_modes(game):
    pkg = _package(game)
    assert {"svg", "rgb_array"} <= set(pkg.raw_env.metadata["render_modes"])
    svg = pkg.raw_env(render_mode="svg")
    svg.reset(seed=0)
    agent = svg.possible_agents[0]
    svg.render_seat = agent
    by_name = svg.render()
    svg.render_seat = 0
    assert by_name == svg.render() and f"{agent}'s view" in by_name
    svg.render_seat = "nobody"
    with pytest.raises(ValueError, match="render_seat"):
        svg.render()
    if not HAVE_RESVG:
        pytest.skip("rgb_array needs the 'render' extra (pip install 'tabletop-rl[render]')")
    env = pkg.env(render_mode="rgb_array")
    env.reset(seed=0)
    w, h = pkg.GAME.svg_size
    assert env.render().shape == (h, w, 3)


# --- no leak: change only what the viewer cannot see ------------------------------------------
def _obs(env, state, seat):
    out = np.empty(env.layout.dim, np.float32)
    env.game.observe(state, 0, seat, out)
    return out


def _hide_thegame(state, viewer, rng):
    """Swap a card of another hand with a card of the draw pile."""
    e = state[0]
    other = (viewer + 1) % int(e["cfg_players"])
    pos = int(e["deck_pos"])
    k = int(rng.integers(0, int(e["hand_size"][other])))
    j = int(rng.integers(pos, len(e["deck"])))
    a, b = int(e["hand"][other, k]), int(e["deck"][j])
    state["hand"][0, other, k] = b
    state["deck"][0, j] = a


def _hide_exhaust(state, viewer, rng):
    """Exchange one card between the two other hands (kinds they do not share)."""
    e = state[0]
    n = int(e["cfg_seats"])
    p, q = (viewer + 1) % n, (viewer + 2) % n
    hp, hq = e["hand"][p].copy(), e["hand"][q].copy()
    a = int(rng.choice(np.flatnonzero((hp > 0) & (hq == 0))))
    b = int(rng.choice(np.flatnonzero((hq > 0) & (hp == 0))))
    state["hand"][0, p, a] -= 1
    state["hand"][0, p, b] += 1
    state["hand"][0, q, b] -= 1
    state["hand"][0, q, a] += 1


def _hide_koikoi(state, viewer, rng):
    """Swap a card of another hand with a card of the stock."""
    from koikoi_env.rules import sync_bits_r
    from koikoi_env.state import LOC_HAND, LOC_STOCK

    e = state[0]
    other = (viewer + 1) % int(e["cfg_players"])
    a = int(rng.choice(np.flatnonzero(e["loc"] == LOC_HAND + other)))
    b = int(rng.choice(np.flatnonzero(e["loc"] == LOC_STOCK)))
    state["loc"][0, a], state["loc"][0, b] = LOC_STOCK, LOC_HAND + other
    deck = state["deck"][0]
    ja = int(np.flatnonzero(deck == b)[0])
    deck[ja] = a
    at(sync_bits_r, state, 0)


def _hide_exitnow(state, viewer, rng, base=None):
    """Another human holds one item of another kind (same count: the count is public);
    the event deck is reordered."""
    other = (viewer + 1) % int(state["cfg_humans"][0])
    base["items"][0, other] = [1, 0, 0, 0, 0]
    state["items"][0, other] = [0, 0, 0, 0, 1]
    n = int(state["deck_n"][0])
    state["deck"][0, :n] = state["deck"][0, :n][::-1].copy()


@pytest.mark.parametrize(
    "game,options",
    [
        ("thegame", {"num_players": 3}),
        ("exhaust", {"num_players": 4}),
        ("exhaust", {"num_players": 3, "mode": "long"}),
        ("koikoi", {"num_players": 3, "rounds": 1}),
        ("exitnow", {"num_humans": 3}),
    ],
)
def test_a_seat_view_shows_backs_for_what_the_seat_cannot_see(game, options):
    """Two states differing only in hidden cards (the viewer's observation is the same,
    checked with the game's observe kernel): the viewer's picture is the same, the
    omniscient picture is not."""
    pkg = _package(game)
    env = pkg.raw_env(**options)
    hide = {
        "thegame": _hide_thegame,
        "exhaust": _hide_exhaust,
        "koikoi": _hide_koikoi,
        "exitnow": _hide_exitnow,
    }[game]
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(6):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 12))):
            if env._done:
                break
            env.step(int(rng.choice(env.legal_actions())))
        if env._done:
            continue
        viewer = int(env._cur[0])
        base = env._state.copy()
        twin = env._state.copy()
        try:
            if game == "exitnow":
                hide(twin, viewer, rng, base=base)
            else:
                hide(twin, viewer, rng)
        except ValueError:  # nothing to exchange in this position
            continue
        assert np.array_equal(_obs(env, base, viewer), _obs(env, twin, viewer)), "perturbation is visible"
        render = pkg.GAME.render_svg
        assert render(base, env.options, viewer) == render(twin, env.options, viewer)
        assert render(base, env.options, None) != render(twin, env.options, None)
        checked += 1
    assert checked >= 3


def test_exhaust_selection_is_shown_to_the_acting_seat_only():
    """Adding a card to the selection changes the acting seat's picture (the card moves
    from the hand to "selected") and nobody else's, as in the observations."""
    import exhaust_env
    from exhaust_env.spec import CAST_OFFSET

    env = exhaust_env.raw_env(num_players=3)
    env.reset(seed=3)
    acting = int(env._cur[0])
    before = env._state.copy()
    add = int(next(a for a in env.legal_actions() if a < CAST_OFFSET))
    env.step(add)
    assert int(env._cur[0]) == acting and int(env._state["sel_n"][0]) == 1
    render = exhaust_env.GAME.render_svg
    after_self = render(env._state, env.options, acting)
    assert "selected" in after_self and after_self != render(before, env.options, acting)
    for seat in range(3):
        if seat != acting:
            assert np.array_equal(_obs(env, before, seat), _obs(env, env._state, seat))
            assert render(before, env.options, seat) == render(env._state, env.options, seat)
