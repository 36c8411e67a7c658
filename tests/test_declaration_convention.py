"""The declaration conventions: ``Hooks.from_names`` finds each hook ``h`` as the kernel
``h_r``, and ``GameDef`` fills the fields a declaration leaves out from the game package's
names; both refuse, by name, what they cannot find."""

from __future__ import annotations

import types

import pytest

import tests.contract_game.game as leduc_game
import tests.contract_game.rules as leduc_rules
from tabletop_core.contract.game import Bots, Docs, GameDef, Hooks


def test_from_names_finds_the_r_kernels_and_takes_the_keywords():
    hooks = Hooks.from_names(7, vars(leduc_rules), random_move=leduc_rules.random_bot_r)
    assert hooks.num_actions == 7
    assert hooks.deal is leduc_rules.deal_r
    assert hooks.step is leduc_rules.step_r
    assert hooks.observe is leduc_rules.observe_r
    assert hooks.random_move is leduc_rules.random_bot_r
    assert hooks.resample_hidden is None  # optional, not defined: the default stands


def test_from_names_searches_the_namespaces_in_order():
    first = types.SimpleNamespace(step_r=leduc_rules.is_legal_r)
    hooks = Hooks.from_names(3, first, leduc_rules)
    assert hooks.step is leduc_rules.is_legal_r
    assert hooks.deal is leduc_rules.deal_r


def test_from_names_refuses_a_missing_required_hook_by_name():
    space = {k: v for k, v in vars(leduc_rules).items() if k != "is_legal_r"}
    with pytest.raises(ValueError, match="is_legal"):
        Hooks.from_names(3, space)


def test_from_names_refuses_an_unknown_keyword():
    with pytest.raises(ValueError, match="unknown hooks.*stepp"):
        Hooks.from_names(3, leduc_rules, stepp=leduc_rules.step_r)


def test_gamedef_fills_the_left_out_fields_from_the_package():
    game = leduc_game.GAME
    assert game.hooks is leduc_rules.HOOKS
    assert game.state.dtype == leduc_rules.STATE_DTYPE
    assert game.state.new is leduc_rules.new_state
    assert game.max_episode_steps == leduc_rules.MAX_EPISODE_STEPS
    assert game.make_options is leduc_game.Options
    assert game.agents is leduc_game.agents
    assert game.ending.stats is leduc_game.episode_stats


def test_gamedef_refuses_a_field_it_cannot_make_by_name():
    with pytest.raises(ValueError, match="'make_options'.*Options"):
        GameDef(
            name="nothing",
            version=1,
            module="tabletop_core",  # a module without the game's names, and no package
            docs=Docs("Nothing"),
            bots=Bots(("random",)),
            reward_range=(0.0, 0.0),
        )
