"""GLUE (today's core API): Leduc hold'em's :class:`GameDef`, every field a fact of the
game's own modules."""

from __future__ import annotations

from tabletop_core.game import GameDef, observe_env

from . import hooks  # noqa: F401  (today: registers the hook kernels with tabletop_core.loops)
from .bots import BOT_NAMES, bot_action
from .observe import observation_layout, observe_r
from .render import SVG_HEIGHT, SVG_WIDTH, render_ansi, render_svg
from .rules import episode_stats, match_stats
from .spec import MAX_CONTRIB, MAX_EPISODE_STEPS, NUM_ACTIONS, Options, action_name, agents
from .state import new_state, validate_state

GAME = GameDef(
    name="leduc",
    version=1,
    num_actions=NUM_ACTIONS,
    make_options=Options,
    agents=agents,
    observation_layout=observation_layout,
    new_state=new_state,
    render_ansi=render_ansi,
    action_name=action_name,
    bot_names=BOT_NAMES,
    max_episode_steps=MAX_EPISODE_STEPS,
    reward_range=(-float(MAX_CONTRIB), float(MAX_CONTRIB)),
    observe=observe_env(observe_r),
    episode_stats=episode_stats,
    match_stats=match_stats,
    bot_action=bot_action,
    render_view=render_ansi,
    render_svg=render_svg,
    svg_size=(SVG_WIDTH, SVG_HEIGHT),
    validate_state=validate_state,
    description="two-player Leduc hold'em: six cards, two betting rounds, a public card",
)
