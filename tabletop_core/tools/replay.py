"""Replays: record an episode as pictures and write it as ONE self-contained HTML page.

The page needs no network and no server: every step's SVG (from every point of view) is
embedded, gzip-compressed, and unpacked by the browser's own ``DecompressionStream``. It
has a slider and first / back / play / next / last buttons (and the arrow keys), shows
the action taken and the rewards at each step, and a choice of point of view: one seat's
view (what that seat may see: the other hands as backs) or the omniscient view.

From Python, for any trajectory (e.g. an RL agent's episode)::

    from tabletop_core.tools.replay import capture, write_html
    env = thegame_env.raw_env(num_players=2)
    env.reset(seed=0)
    frames = [capture(env)]
    while not all(env.terminations.values()):
        agent = env.agent_selection
        action = my_policy(env.observe(agent))
        env.step(action)
        frames.append(capture(env, action=action, agent=agent))
    write_html(frames, "game.html", title="my agent, seed 0")

From the command line, one game with bots (``policy:FILE.npz`` seats too)::

    tabletop replay koikoi --bots strong --seed 3 --out game.html
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import html
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_core.agents.seats import is_policy, policy_actions, seat_policy
from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.game import bot_count_message
from tabletop_core.contract.svg import rasterize, svg_to_png
from tabletop_core.envs.factories import game_envs
from tabletop_core.kernel.rng import bot_seed_word

__all__ = [
    "Frame",
    "capture",
    "write_html",
    "write_gif",
    "play_episode",
    "replay_game",
    "render_to_file",
    "OMNISCIENT",
]

OMNISCIENT = "omniscient"
_ELEMENT = re.compile(r"(?<=>)(?=<)")  # split an SVG document between its tags


@dataclass
class Frame:
    """One step of a replay.

    Attributes:
        step: index of the frame (0 = the position after reset).
        agent: the agent that acted to reach this position (``None`` for the start).
        action: the action id taken (``None`` for the start).
        action_name: the action as the game names it (``"play 37 on ↑1"``).
        rewards: ``{agent: reward}`` of this step (floats).
        svgs: ``{view: SVG text}``, views ``"omniscient"`` and the agent names.
        acting: the agent to act in this position (``None`` once the episode is over).
        note: free text shown under the action (e.g. an agent's value estimate).
        captions: ``{view: the action as that view may know it}`` (the game's
            ``narrate.seen_action``: another seat's hidden step, e.g. Exhaust's card added
            to a face-down selection, is not named); empty: ``action_name`` in every view.
        outcome: once the episode is over, how it ended in the game's words (its
            ``narrate.end_text``: "every card was played, a perfect game. Score 0 ...");
            ``""`` before the end.
    """

    step: int
    agent: str | None
    action: int | None
    action_name: str
    rewards: dict[str, float]
    svgs: dict[str, str]
    acting: str | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    outcome: str = ""

    def caption(self, view: str) -> str:
        """The action as ``view`` may know it (``""`` for the start)."""
        return self.captions.get(view, self.action_name)


def _default_bot(game) -> str:
    """The bot that plays when none is named: ``strong`` (Exit Now: ``smart``)."""
    return "strong" if "strong" in game.bot_names else game.bot_names[1]


def _new_env(game_name: str, options: dict) -> Any:
    """``raw_env(**options)`` of a game; an unknown option is a ValueError naming the
    game's options."""
    game = load_game(game_name)
    known = [f.name for f in dataclasses.fields(game.make_options())]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"{game_name} has no option {', '.join(unknown)}; its options are {', '.join(sorted(set(known)))}"
        )
    return game_envs(game).raw_env(**options)


def _raw(env: Any):
    raw = getattr(env, "unwrapped", env)
    if not hasattr(raw, "game") or not hasattr(raw, "_state"):
        raise ValueError("capture() needs a tabletop-rl AEC env (raw_env() or env() of a game)")
    if raw.game.render_svg is None:
        raise ValueError(f"{raw.game.name} has no SVG rendering")
    return raw


def capture(
    env: Any,
    action: int | None = None,
    agent: str | None = None,
    views: Sequence[str] | None = None,
    note: str = "",
) -> Frame:
    """The current position of an AEC env as a :class:`Frame`.

    Call it once after ``reset`` and once after every ``step``, passing the action just
    taken and the agent that took it.

    Args:
        env: a game's ``raw_env()`` or ``env()``.
        action: the action id just taken (``None`` after reset).
        agent: the agent that took it.
        views: the points of view to draw: ``"omniscient"`` and/or agent names
            (default: all of them).
        note: text shown with this step.

    Raises:
        ValueError: not a tabletop-rl env, or an unknown view.
    """
    raw = _raw(env)
    game = raw.game
    agents = list(raw.possible_agents)
    views = [OMNISCIENT, *agents] if views is None else list(views)
    svgs = {}
    for v in views:
        if v == OMNISCIENT:
            seat = None
        elif v in agents:
            seat = agents.index(v)
        else:
            raise ValueError(f"unknown view {v!r}; views are {[OMNISCIENT, *agents]}")
        svgs[v] = game.render_svg(raw._state, raw.options, seat)
    name = "" if action is None else game.action_name(int(action), raw._state)
    seen = getattr(game.narrate, "seen_action", None)
    captions = {}
    for v in views:
        if action is not None and seen is not None and v in agents and agent in agents:
            captions[v] = seen(raw._state, int(action), agents.index(agent), agents.index(v))
        else:
            captions[v] = name
    done = bool(getattr(raw, "_done", False))
    end = getattr(game.narrate, "end_text", None)
    return Frame(
        step=0,
        agent=agent,
        action=None if action is None else int(action),
        action_name=name,
        rewards={a: float(raw.rewards.get(a, 0.0)) for a in agents}
        if action is not None
        else dict.fromkeys(agents, 0.0),
        svgs=svgs,
        acting=None if done else raw.agent_selection,
        note=note,
        captions=captions,
        outcome=end(raw._state) if done and end is not None else "",
    )


def _payload(frames: Sequence[Frame], title: str) -> dict:
    if not frames:
        raise ValueError("write_html needs at least one frame")
    views = list(frames[0].svgs)
    if not views:
        raise ValueError("the frames hold no picture")
    agents = list(frames[0].rewards)
    unique: dict[str, int] = {}
    rows = []
    totals = dict.fromkeys(agents, 0.0)
    for k, f in enumerate(frames):
        if list(f.svgs) != views:
            raise ValueError(f"frame {k} has views {list(f.svgs)}; frame 0 has {views}")
        ids = [unique.setdefault(f.svgs[v], len(unique)) for v in views]
        for a in agents:
            totals[a] += float(f.rewards.get(a, 0.0))
        rows.append(
            {
                "agent": f.agent,
                "action": f.action,
                "names": [f.caption(v) for v in views],
                "ids": [f.action if f.caption(v) == f.action_name else None for v in views],
                "rewards": [round(float(f.rewards.get(a, 0.0)), 6) for a in agents],
                "totals": [round(totals[a], 6) for a in agents],
                "acting": f.acting,
                "note": f.note,
                "outcome": f.outcome,
                "svg": ids,
            }
        )
    # Each picture is stored as a list of element ids into one table of distinct elements
    # (``<rect .../>``, ``<text ...>7</text>``): the map, the areas and most cards repeat
    # from step to step and view to view, so a long episode stays small.
    parts: dict[str, int] = {}
    svgs = [[parts.setdefault(p, len(parts)) for p in _ELEMENT.split(svg)] for svg in unique]
    return {
        "title": title,
        "views": views,
        "agents": agents,
        "frames": rows,
        "parts": list(parts),
        "svgs": svgs,
    }


def write_html(
    frames: Sequence[Frame],
    path: str | os.PathLike,
    title: str = "tabletop-rl replay",
    fps: float = 2.0,
    compress: bool = True,
) -> Path:
    """Write the replay of ``frames`` (from :func:`capture`) as one HTML file.

    Args:
        frames: the episode's frames, in order; every frame with the same views.
        path: the ``.html`` file to write (its folder must exist).
        title: the page's title.
        fps: steps a second while playing.
        compress: gzip the pictures (unpacked by the browser's ``DecompressionStream``;
            about 10x smaller). ``False`` embeds plain JSON.

    Returns:
        The path written.

    Raises:
        ValueError: no frames, frames with different views, or a missing folder.
    """
    out = Path(path)
    if not out.parent.exists():
        raise ValueError(f"folder {str(out.parent)!r} does not exist")
    data = json.dumps(_payload(frames, title), separators=(",", ":"))
    if compress:
        blob = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")
        script = f'<script id="replay-data" type="application/octet-stream" data-gzip="1">{blob}</script>'
    else:
        safe = data.replace("</", "<\\/")  # a JSON escape that cannot close the script
        script = f'<script id="replay-data" type="application/json">{safe}</script>'
    page = _PAGE.replace("__TITLE__", html.escape(title)).replace("__FPS__", str(float(fps)))
    page = page.replace("__DATA__", script)
    out.write_text(page, encoding="utf-8")
    return out


def write_gif(
    frames: Sequence[Frame], path: str | os.PathLike, view: str = OMNISCIENT, fps: float = 2.0
) -> Path:
    """Write one point of view of ``frames`` as an animated GIF (each picture rasterized,
    with a caption strip under it naming the move just made as ``view`` may know it;
    ``1 / fps`` seconds a step, shown once; the last step held 3 s).

    Raises:
        ValueError: no frames, a view the frames do not hold, or a missing folder.
        ImportError: without the ``render`` extra.
    """
    out = Path(path)
    if not frames:
        raise ValueError("write_gif needs at least one frame")
    if not out.parent.exists():
        raise ValueError(f"folder {str(out.parent)!r} does not exist")
    if view not in frames[0].svgs:
        raise ValueError(f"unknown view {view!r}; the frames hold {list(frames[0].svgs)}")

    cache: dict[str, np.ndarray] = {}
    images = []
    for k, f in enumerate(frames):
        svg = f.svgs[view]
        if svg not in cache:
            cache[svg] = rasterize(svg)
        text = f"step {k} / {len(frames) - 1}: " + (
            f"{f.agent}: {f.caption(view)}" if f.agent else "start of the episode"
        )
        if f.outcome:
            text += f" — {f.outcome}"
        images.append(_captioned(cache[svg], text))
    ms = max(20, int(1000 / fps))
    durations = [ms] * (len(images) - 1) + [3000]
    images[0].save(out, save_all=True, append_images=images[1:], duration=durations, optimize=True)
    return out


def _caption_font() -> Any:
    """DejaVu Sans (it has the card suits), from the system or matplotlib; else Pillow's own."""
    from PIL import ImageFont

    for path in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(path, 14)
        except OSError:
            pass
    try:
        import matplotlib

        return ImageFont.truetype(os.path.join(matplotlib.get_data_path(), "fonts/ttf/DejaVuSans.ttf"), 14)
    except (ImportError, OSError):
        return ImageFont.load_default()


def _captioned(picture: np.ndarray, text: str) -> Any:
    """``picture`` (H, W, 3) with a white strip under it holding ``text`` (a GIF frame)."""
    from PIL import Image, ImageDraw

    h, w = picture.shape[:2]
    canvas = Image.new("RGB", (w, h + 22), (255, 255, 255))
    canvas.paste(Image.fromarray(picture), (0, 0))
    draw = ImageDraw.Draw(canvas)
    draw.text((8, h + 3), text, fill=(20, 20, 20), font=_caption_font())
    return canvas.quantize(colors=128, method=Image.Quantize.MEDIANCUT)


def play_episode(
    game_name: str,
    bots: str | Sequence[str] | None = None,
    seed: int = 0,
    views: Sequence[str] | None = None,
    **options: Any,
) -> list[Frame]:
    """Play one game with bots (and ``policy:FILE.npz`` or ``baseline`` seats) and capture
    every step.

    Args:
        game_name: ``"thegame"``, ``"exhaust"``, ``"koikoi"`` or ``"exitnow"``.
        bots: one bot per seat (list or comma-separated) or one for every seat;
            ``policy:FILE.npz`` is a trained policy (:class:`~tabletop_core.agents.policy.MLPPolicy`,
            greedy over the legal actions), ``baseline`` the game's shipped one. Default: the game's ``strong`` bot (Exit Now:
            ``smart``).
        seed: the env's reset seed (the deal, as ``tabletop match`` game ``seed``).
        views: as :func:`capture`.
        **options: the game's options.

    Raises:
        ValueError: unknown game, bad bots or options, a policy of another shape.
    """

    game = load_game(game_name)
    env = _new_env(game_name, options)
    players = _players(game, game_name, list(env.possible_agents), bots, options)
    rng = np.array([bot_seed_word(int(seed))], np.uint64)
    env.reset(seed=int(seed))
    frames = [capture(env, views=views)]
    agents = list(env.possible_agents)
    limit = game.max_episode_steps
    while not env._done and len(frames) <= limit:
        agent = env.agent_selection
        who = players[agents.index(agent)]
        if not isinstance(who, int):  # a trained policy, or the search bot it guides
            obs = env.observe(agent)
            a = int(
                policy_actions(
                    who, obs["observation"][None, :], obs["action_mask"][None, :], env._state, [0], rng
                )[0]
            )
        else:
            a = game.bot_decision(who, env._state, env._mask[0], rng)
        env.step(a)
        f = capture(env, action=a, agent=agent, views=views)
        f.step = len(frames)
        frames.append(f)
    return frames


def _players(game, game_name: str, agents: list[str], bots, options: dict) -> list[Any]:
    """Each seat's player: a bot id (int) or a policy (``policy:FILE``, ``baseline``).

    Raises:
        ValueError: a wrong number of bots, an unknown bot or a bot in a wrong role.
    """
    if bots is None:
        bots = _default_bot(game)
    names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    if len(names) == 1:
        names = names * len(agents)
    if len(names) != len(agents):
        raise ValueError(bot_count_message(game_name, len(agents), names))
    game.check_roles([None if is_policy(b) else b for b in names], options)
    players: list[Any] = []
    for k, b in enumerate(names):
        if is_policy(b):
            players.append(seat_policy(game, b, k, options))
        else:
            players.append(int(game.bot_ids([b], 1)[0]))
    return players


def replay_game(
    game_name: str,
    out: str | os.PathLike,
    bots: str | Sequence[str] | None = None,
    seed: int = 0,
    **options: Any,
) -> tuple[Path, int]:
    """``tabletop replay``: play one game (:func:`play_episode`) and write its page
    (``.html``), or the omniscient view as an animated GIF (``.gif``, :func:`write_gif`).

    Returns:
        ``(path, number of frames)``.

    Raises:
        ValueError: as :func:`play_episode`; ``out`` not ``.html``/``.htm``/``.gif`` or
            in a missing folder.
    """
    p = Path(out)
    ext = p.suffix.lower()
    if ext not in (".html", ".htm", ".gif"):
        raise ValueError(f"--out must name an .html file (or a .gif animation), got {str(out)!r}")
    if not p.parent.exists():
        raise ValueError(f"folder {str(p.parent)!r} does not exist")
    if ext == ".gif":
        frames = play_episode(game_name, bots, seed, views=[OMNISCIENT], **options)
        return write_gif(frames, p), len(frames)
    frames = play_episode(game_name, bots, seed, **options)
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    if bots is None:
        bots = _default_bot(load_game(game_name))
    label = bots if isinstance(bots, str) else ",".join(bots)
    title = f"{game_name} — seed {seed}, bots {label}" + (f" ({opts})" if opts else "")
    return write_html(frames, p, title=title), len(frames)


_PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
 body { margin: 0; background: #10261a; color: #eee; font: 14px "DejaVu Sans", Verdana, sans-serif; }
 header { padding: 8px 14px; background: #0b1b12; }
 header h1 { font-size: 17px; margin: 0 0 6px 0; }
 .controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
 button { font-size: 14px; padding: 4px 10px; border-radius: 5px; border: 1px solid #6b8; background: #234; color: #fff; cursor: pointer; }
 button:hover { background: #356; }
 #slider { flex: 1; min-width: 200px; }
 #step-label { min-width: 120px; font-weight: bold; }
 #status { padding: 6px 14px; display: flex; flex-wrap: wrap; gap: 18px; align-items: center; background: #142f20; }
 #action { font-size: 15px; font-weight: bold; color: #ffd34d; min-width: 360px; }
 table { border-collapse: collapse; }
 td, th { padding: 1px 8px; border-bottom: 1px solid #345; text-align: right; }
 th:first-child { text-align: left; color: #bcd; font-weight: normal; }
 #note { color: #bcd; white-space: pre-wrap; }
 main { padding: 10px; }
 #table svg { max-width: 100%; height: auto; display: block; }
</style></head>
<body>
<header><h1>__TITLE__</h1>
<div class="controls">
 <button id="first" title="first step (Home)">« first</button>
 <button id="back" title="previous step (←)">◀ back</button>
 <button id="play" title="play / pause (space)">▶ play</button>
 <button id="next" title="next step (→)">next ▶</button>
 <button id="last" title="last step (End)">last »</button>
 <input id="slider" type="range" min="0" max="0" value="0">
 <span id="step-label">loading…</span>
 <label>view <select id="view"></select></label>
</div></header>
<div id="status"><div id="action"></div>
<table id="rewards"><thead></thead><tbody></tbody></table>
<div id="note"></div></div>
<main><div id="table"></div></main>
__DATA__
<script>
"use strict";
const FPS = __FPS__;
async function loadReplay() {
  const el = document.getElementById("replay-data");
  if (!el.dataset.gzip) return JSON.parse(el.textContent);
  const bin = Uint8Array.from(atob(el.textContent.trim()), c => c.charCodeAt(0));
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
loadReplay().then(R => {
  const n = R.frames.length;
  const $ = id => document.getElementById(id);
  const slider = $("slider"), view = $("view");
  slider.max = String(n - 1);
  const head = $("rewards").tHead.insertRow();
  ["agent", ...R.agents].forEach(a => { const th = document.createElement("th"); th.textContent = a; head.appendChild(th); });
  R.views.forEach((v, k) => { const o = document.createElement("option"); o.value = String(k); o.textContent = v === "omniscient" ? "omniscient (everything)" : v + "'s view"; view.appendChild(o); });
  let cur = 0, timer = null;
  const picture = k => R.svgs[k].map(i => R.parts[i]).join("");
  function show(k) {
    cur = Math.max(0, Math.min(n - 1, k));
    slider.value = String(cur);
    const f = R.frames[cur];
    $("table").innerHTML = picture(f.svg[Number(view.value)]);
    $("step-label").textContent = "step " + cur + " / " + (n - 1);
    $("action").textContent = cur === 0 ? "start of the episode" + (f.acting ? " — " + f.acting + " to act" : "")
      : f.agent + ": " + f.names[Number(view.value)] + (f.ids[Number(view.value)] === null ? "" : " (action " + f.ids[Number(view.value)] + ")") + (f.acting ? " — next: " + f.acting : " — episode over" + (f.outcome ? ": " + f.outcome : ""));
    const body = $("rewards").tBodies[0];
    body.innerHTML = "";
    [["reward", f.rewards], ["return", f.totals]].forEach(([label, values]) => {
      const tr = body.insertRow();
      const th = document.createElement("th"); th.textContent = label; tr.appendChild(th);
      values.forEach(v => { tr.insertCell().textContent = String(v); });
    });
    $("note").textContent = f.note || "";
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶ play"; } }
  function play() {
    if (timer) { stop(); return; }
    if (cur >= n - 1) show(0);
    $("play").textContent = "⏸ pause";
    timer = setInterval(() => { if (cur >= n - 1) stop(); else show(cur + 1); }, 1000 / FPS);
  }
  $("first").onclick = () => { stop(); show(0); };
  $("back").onclick = () => { stop(); show(cur - 1); };
  $("next").onclick = () => { stop(); show(cur + 1); };
  $("last").onclick = () => { stop(); show(n - 1); };
  $("play").onclick = play;
  slider.oninput = () => { stop(); show(Number(slider.value)); };
  view.onchange = () => show(cur);
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "SELECT") return;
    if (e.key === "ArrowLeft") { stop(); show(cur - 1); }
    else if (e.key === "ArrowRight") { stop(); show(cur + 1); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(n - 1); }
    else if (e.key === " ") { e.preventDefault(); play(); }
  });
  show(0);
  document.body.dataset.ready = "1";
}).catch(err => { document.getElementById("step-label").textContent = "could not load the replay: " + err; });
</script>
</body></html>
"""


def render_to_file(
    game_name: str,
    out: str | os.PathLike,
    seed: int = 0,
    view: str | int | None = None,
    steps: int = 0,
    bots: str | Sequence[str] | None = None,
    report: dict | None = None,
    **options: Any,
) -> tuple[Path, tuple[int, int]]:
    """``tabletop render``: deal a game (reset with ``seed``), let the bots play ``steps``
    moves, and write the table as ``.svg`` (the SVG text) or ``.png`` (rasterized).

    Args:
        view: ``None`` / ``"omniscient"``, a seat number or an agent name.
        steps: bot moves before the picture (stops early at the end of the game).
        bots: as :func:`play_episode` (bot names only).
        report: a dict that gets ``steps`` (the moves played) and ``ended`` (the game
            ended, possibly before ``steps`` moves).

    Returns:
        ``(path, (width, height))``.

    Raises:
        ValueError: an extension other than ``.svg``/``.png``, a missing folder, an
            unknown view, or bad options.
        ImportError: ``.png`` without the ``render`` extra.
    """

    p = Path(out)
    ext = p.suffix.lower()
    if ext not in (".svg", ".png"):
        raise ValueError(f"--out must end in .svg or .png, got {str(out)!r}")
    if not p.parent.exists():
        raise ValueError(f"folder {str(p.parent)!r} does not exist")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    game = load_game(game_name)
    env = _new_env(game_name, options)
    seat = _seat_of(view, list(env.possible_agents))
    env.reset(seed=int(seed))
    played = _bot_moves(game, env, int(seed), int(steps), bots) if steps else 0
    if report is not None:
        report.update(steps=played, ended=bool(env._done))
    svg = game.render_svg(env._state, env.options, seat)
    if ext == ".svg":
        p.write_text(svg, encoding="utf-8")
    else:
        p.write_bytes(svg_to_png(svg))
    return p, game.svg_size


def _bot_moves(game, env: Any, seed: int, steps: int, bots) -> int:
    """Let the bots (default: the game's strong one) play up to ``steps`` moves of
    ``env`` (fewer when the game ends); returns the moves played."""
    if bots is None:
        bots = _default_bot(game)
    agents = list(env.possible_agents)
    ids = game.bot_ids(bots, len(agents))
    rng = np.array([bot_seed_word(seed)], np.uint64)
    played = 0
    for _ in range(steps):
        if env._done:
            break
        s = agents.index(env.agent_selection)
        env.step(game.bot_decision(ids[s], env._state, env._mask[0], rng))
        played += 1
    return played


def _seat_of(view: str | int | None, agents: list[str]) -> int | None:
    """``None``/``"omniscient"`` -> None; a seat number or an agent name -> the seat."""
    if view is None or view == OMNISCIENT:
        return None
    if isinstance(view, str) and view.lstrip("-").isdigit():
        view = int(view)
    if isinstance(view, (int, np.integer)) and not isinstance(view, bool):
        if 0 <= view < len(agents):
            return int(view)
    elif view in agents:
        return agents.index(view)
    raise ValueError(
        f"view must be 'omniscient', a seat 0..{len(agents) - 1} or one of {agents}, got {view!r}"
    )
