"""The ``search`` bot (tabletop_core.contract.search): names and settings, legal and
deterministic decisions that leave the position alone, no peeking at what the seat cannot
see, and every adapter that takes a bot name plays it."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.search import DEFAULT_Z, SEARCH, search_id, search_params
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.arena import run_match

GAMES = {
    "thegame": {"num_players": 2},
    "koikoi": {"num_players": 3},
    "exhaust": {"num_players": 3},
    "exitnow": {"num_humans": 2},
}
SMALL = "search:rollouts=12"


def _positions(name: str, count: int, seed: int, options: dict | None = None):
    """``count`` positions with a live decision of more than one legal action, from random
    play at ``options`` (default: :data:`GAMES`'): ``(state (1,), mask (A,))``."""
    game = load_game(name)
    opts = game.make_options(**(GAMES[name] if options is None else options))
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        s = game.new_state(1, opts)
        s["rng"] = seed_word(seed * 1000 + g)
        g += 1
        notes = game.new_notes(1)
        obs = np.zeros((1, game.observation_layout(opts).dim), np.float32)
        masks = np.zeros((1, game.num_actions), np.int8)
        cur = np.zeros(1, np.int64)
        game.batch_reset(s, notes, obs, masks, cur)
        stop = int(rng.integers(0, 60))
        t = 0
        while s["status"][0] == 0:
            if t >= stop and masks[0].sum() > 1:
                out.append((s.copy(), masks[0].copy()))
                break
            a = int(rng.choice(np.flatnonzero(masks[0])))
            rewards = np.zeros((1, 8), np.float32)
            game.batch_step(
                s, notes, np.array([a]), obs, masks, rewards, np.zeros(1, bool), cur, obs.copy(), 0
            )
            t += 1
    return game, out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_decisions_are_legal_deterministic_and_leave_the_position(name):
    game, positions = _positions(name, 6, seed=1)
    bot = int(game.bot_ids([SMALL], 1)[0])
    for s, mask in positions:
        before = s.copy()
        rng = np.array([12345], np.uint64)
        a = game.bot_decision(bot, s, mask, rng)
        assert mask[a] == 1, (name, a)
        assert s.tobytes() == before.tobytes(), "the search changed the position"
        assert rng[0] != 12345, "the bot generator advances"
        again = game.bot_decision(bot, before.copy(), mask, np.array([12345], np.uint64))
        assert again == a


@pytest.mark.parametrize("name", list(GAMES))
def test_the_decision_depends_only_on_what_the_seat_sees(name):
    """Two positions the acting seat cannot tell apart (one a determinization of the other)
    get the same decision from the same generator: the search never peeks."""
    game, positions = _positions(name, 5, seed=2)
    bot = int(game.bot_ids([SMALL], 1)[0])
    for k, (s, mask) in enumerate(positions):
        seat = int(s["current"][0])
        saved = {"game": game.env_id, "state": s}
        other = game.resample_hidden(saved, seat, 100 + k)["state"]
        assert other.tobytes() != s.tobytes() or name == "exhaust"
        a = game.bot_decision(bot, s.copy(), mask, np.array([7], np.uint64))
        b = game.bot_decision(bot, other.copy(), mask, np.array([7], np.uint64))
        assert a == b, (name, k)


def test_names_settings_and_errors():
    game = load_game("thegame")
    (i,) = game.bot_ids(["search"], 1)
    assert i >= SEARCH and game.bot_name(int(i)) == "search"
    assert "search" in game.bot_choices and "search" not in game.bot_names
    # the loops compile the search in only for uint64 ids: a scripted lineup stays int64
    assert game.bot_ids("strong,greedy", 2).dtype == np.int64
    assert game.bot_ids("strong,search", 2).dtype == np.uint64
    (j,) = game.bot_ids(["search:rollouts=64:bot=greedy:z=2.5"], 1)
    assert search_params(int(j)) == (64, game.bot_names.index("greedy"), 2.5)
    assert game.bot_name(int(j)) == "search:rollouts=64:bot=greedy:z=2.5"
    assert search_params(search_id(5, 1))[2] == 0.0 and DEFAULT_Z > 0
    for bad, words in [
        ("search:rollouts=0", "rollouts must be in"),
        ("search:rollouts=many", "rollouts must be an int"),
        ("search:depth=3", "unknown search setting"),
        ("search:bot=search", "the rollout bot plays every seat"),
        ("search:bot=nobody", "the rollout bot plays every seat"),
        ("search:z=-1", "z must be in"),
        ("search:z=high", "z must be a number"),
        ("searching", "unknown bot"),
    ]:
        with pytest.raises(ValueError, match=words):
            game.bot_ids([bad], 1)
    exitnow = load_game("exitnow")
    with pytest.raises(ValueError, match="the rollout bot plays every seat; choose one of random, smart"):
        exitnow.bot_ids(["search:bot=human"], 1)


def test_a_game_without_resample_hidden_has_no_search():
    from tests.contract_game.game import GAME as game  # not listed: the catalog stays as it is

    assert not game.has_search and "search" not in game.bot_choices
    with pytest.raises(ValueError, match="unknown bot 'search'"):
        game.bot_ids(["search"], 1)


@pytest.mark.slow
def test_match_vector_env_and_trainer_opponents_take_the_search_bot():
    import thegame_env
    from tabletop_core.train.opponents import parse_opponents

    r = run_match(load_game("thegame"), [SMALL, "strong"], 2, seed=0, num_players=2)
    assert r.bots == [SMALL, "strong"] and r.returns.shape == (2, 2)
    again = run_match(load_game("thegame"), [SMALL, "strong"], 2, seed=0, num_players=2)
    assert np.array_equal(r.returns, again.returns)
    venv = thegame_env.vector_env(2, seed=0, num_players=2)
    venv.reset()
    _, _, _, _, info = venv.step_bots(SMALL)
    assert info["actions"].shape == (2,)
    koikoi = load_game("koikoi")
    assert parse_opponents("self:0.5,search:0.5", koikoi) == [("self", 0.5), ("search", 0.5)]


def test_a_given_default_move_replaces_the_rollout_bots_choice():
    """``search_action_from`` with -1 is the search bot itself, draw for draw; with a legal
    default move and a high ``z`` the search keeps that move unless a challenger clearly
    beats it."""
    from tabletop_core.contract.search import batch_search_actions

    game, positions = _positions("thegame", 8, seed=3)
    strict = int(game.bot_ids(["search:rollouts=12:z=25"], 1)[0])
    plain = int(game.bot_ids([SMALL], 1)[0])
    kept = 0
    for k, (s, mask) in enumerate(positions):
        out = np.zeros(1, np.int64)
        rng = np.array([99 + k], np.uint64)
        batch_search_actions(
            s, np.zeros(1, np.int64), np.uint64(plain), rng, np.full(1, -1, np.int64), out, None
        )
        assert out[0] == game.bot_decision(plain, s.copy(), mask, np.array([99 + k], np.uint64))
        assert rng[0] != 99 + k
        legal = np.flatnonzero(mask)
        given = int(legal[-1])
        before = s.copy()
        batch_search_actions(
            s,
            np.zeros(1, np.int64),
            np.uint64(strict),
            np.array([5], np.uint64),
            np.array([given]),
            out,
            None,
        )
        assert mask[out[0]] == 1 and s.tobytes() == before.tobytes()
        kept += int(out[0]) == given
    assert kept >= 6, kept
    ended = positions[0][0].copy()
    ended["status"] = 1
    batch_search_actions(
        ended, np.zeros(1, np.int64), np.uint64(plain), rng, np.full(1, -1, np.int64), out, None
    )
    assert out[0] == -1


@pytest.mark.slow
def test_search_guided_by_the_baseline_in_match_vector_env_and_replay():
    import exitnow_envs
    from tabletop_core.agents.seats import SearchPolicy, is_policy, policy_actions, seat_policy
    from tabletop_core.tools.replay import play_episode
    from tabletop_core.train.opponents import parse_opponents

    game = load_game("exitnow")
    guided = "search:rollouts=4:blueprint=baseline"
    lineup = ["human", "human", "human", guided]
    assert is_policy(guided) and not is_policy("search:rollouts=4")
    r = run_match(game, lineup, 3, seed=0, num_humans=3)
    assert r.bots[3] == guided and r.returns.shape == (3, 4)
    one = run_match(game, lineup, 3, seed=0, chunk=1, num_humans=3)
    assert np.array_equal(r.returns, one.returns), "the games do not depend on how they are batched"
    venv = exitnow_envs.vector_env(4, seed=0, num_humans=3)
    venv.reset()
    for _ in range(30):
        mask = venv.action_masks()
        _, _, _, _, info = venv.step_bots(lineup)
        assert all(mask[i, a] == 1 for i, a in enumerate(info["actions"]))
    frames = play_episode("exitnow", lineup, seed=1, num_humans=3)
    assert len(frames) > 10
    pol = seat_policy(game, guided, 3, {"num_humans": 3})
    assert isinstance(pol, SearchPolicy)
    from tabletop_core.agents.seats import search_blueprint

    assert search_blueprint("search:rollouts=4:blueprint=baseline:z=2") == (
        "search:rollouts=4:z=2",
        "baseline",
    )
    assert search_blueprint("search:rollouts=4") is None and search_blueprint("baseline") is None
    state = venv.state
    obs, mask = venv._obs[:1], venv._mask[:1]
    for rows, o, m, rng, words in [
        ([7], obs, mask, venv._bot_rng, "rows must index the 4 envs"),
        ([-1], obs, mask, venv._bot_rng, "rows must index"),
        ([0, 1], obs, mask, venv._bot_rng, "one row per env asked"),
        ([0], obs, mask, venv._bot_rng[:2], "bot_rng must be a \\(4,\\) uint64 array"),
        ([0], obs, mask, venv._bot_rng.astype(np.int64), "bot_rng must be"),
    ]:
        before = state.copy()
        with pytest.raises(ValueError, match=words):
            policy_actions(pol, o, m, state, rows, rng)
        assert state.tobytes() == before.tobytes()
    with pytest.raises(TypeError, match="searches the position itself"):
        pol(np.zeros((1, 3), np.float32), np.ones((1, 3), np.int8))
    with pytest.raises(ValueError, match="blueprint must be one of baseline"):
        seat_policy(game, "search:blueprint=greedy", 3, {"num_humans": 3})
    with pytest.raises(ValueError, match="rollouts must be in"):
        seat_policy(game, "search:rollouts=0:blueprint=baseline", 3, {"num_humans": 3})
    with pytest.raises(ValueError, match="blueprint= asks a trained policy"):
        game.bot_ids([guided], 1)
    with pytest.raises(ValueError, match="an opponent takes a weight only"):
        parse_opponents(guided, game)


def test_search_guided_by_a_policy_file(tmp_path):
    """``blueprint=FILE.npz`` takes a trained policy file as the default move, checked as
    ``policy:FILE.npz`` is: the shipped ghost file plays exactly as ``blueprint=baseline``
    (the same weights); a missing file, another game's policy, a policy of the other role
    or a name that is no ``.npz`` is a ValueError naming the entry."""
    import exitnow_envs
    from tabletop_core.agents.seats import BLUEPRINTS, SearchPolicy, seat_policy

    game = load_game("exitnow")
    opts = {"num_humans": 3}
    ghost = str(tmp_path / "ghost.npz")
    exitnow_envs.baseline_policy(3, **opts).save(ghost)
    by_file = f"search:rollouts=4:blueprint={ghost}"
    pol = seat_policy(game, by_file, 3, opts)
    assert isinstance(pol, SearchPolicy) and pol.name == by_file and pol.meta["seats"] == [[3]]
    shipped = run_match(game, ["human", "human", "human", "search:rollouts=4:blueprint=baseline"], 2, **opts)
    mine = run_match(game, ["human", "human", "human", by_file], 2, **opts)
    assert np.array_equal(shipped.returns, mine.returns) and mine.bots[3] == by_file
    humans = str(tmp_path / "humans.npz")
    exitnow_envs.baseline_policy(0, **opts).save(humans)
    import thegame_env

    other = thegame_env.baseline_policy(0, num_players=2)
    elsewhere = str(tmp_path / "thegame.npz")
    other.save(elsewhere)
    assert "PATH.npz" in BLUEPRINTS
    for blueprint, words in [
        (str(tmp_path / "missing.npz"), "missing.npz' does not exist"),
        (elsewhere, "trained for 'thegame', not 'exitnow'"),
        (humans, "trained for human seats; seat 3 \\(ghost_0\\) is a ghost seat"),
        ("greedy", "blueprint must be one of baseline, PATH.npz"),
    ]:
        with pytest.raises(ValueError, match=f"search:blueprint={blueprint}'.*{words}"):
            seat_policy(game, f"search:blueprint={blueprint}", 3, opts)
