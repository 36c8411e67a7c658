"""Terminal play: one person against bots, in any game (``tabletop play GAME``).

The person plays one seat (``seat``); bots play the others. After every step the
terminal shows the action and what the environment did besides it (cards drawn and
flipped, dice, steals, the NPC's turn, round ends), from the game's ``narrate`` module
(``<package>/narrate.py``: ``describe``, ``illegal_reason`` and, optionally,
``action_text``, ``action_group``, ``selection_line``, ``UNDOABLE``, ``QUIET``), which reads the State and the rules'
helpers. On the person's turn it prints the table from that seat's view and the legal
actions grouped by kind, in columns that fit the terminal.

Commands: an action number; a name or part of one (``end``, ``play 37``, ``37 ↑1``: each
word must appear in the action's name; a word that is a whole word of the name is
preferred); ``help`` / ``?``; ``table``; ``undo`` / ``undo all`` (games with
undoable steps, e.g. Exhaust's selection); ``q`` / ``quit``.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any, TextIO

import numpy as np

from tabletop_core.contract.game import GameDef
from tabletop_core.envs.factories import game_envs
from tabletop_core.kernel.rng import seed_word

__all__ = ["play_in_terminal", "TerminalPlay", "columns", "bot_list_for_others"]

HELP = """commands:
  NUMBER        take the action with that number
  WORDS         take the action whose name contains every word (e.g. 'end', 'play 37', '37 ↑1')
  table         show the table again
  undo          take back the last undoable step (undo all: every one)
  help, ?       this list
  q, quit       leave the game"""


def columns(entries: list[str], width: int, indent: str = "  ", gap: int = 3) -> list[str]:
    """Lay ``entries`` out in aligned columns (filled down, then across) that fit in
    ``width`` characters; an entry is never split. Returns the lines."""
    if not entries:
        return []
    w = max(len(x) for x in entries)
    ncol = max(1, (width - len(indent) + gap) // (w + gap))
    nrow = -(-len(entries) // ncol)
    lines = []
    for r in range(nrow):
        row = [entries[c * nrow + r] for c in range(ncol) if c * nrow + r < len(entries)]
        lines.append(indent + (" " * gap).join(x.ljust(w) for x in row).rstrip())
    return lines


def bot_list_for_others(game: GameDef, bots: str | None, num_seats: int, seat: int) -> list[str | None]:
    """The bot of every seat (None for the person's ``seat``) from ``--bots``: one name for
    every other seat, or one name per other seat in seat order (default: the game's
    ``play_bot``).

    Raises:
        ValueError: a wrong count or an unknown bot name, naming what is allowed.
    """
    if not 0 <= seat < num_seats:
        raise ValueError(f"--seat must be a seat in 0..{num_seats - 1}, got {seat}")
    names = [b.strip() for b in (bots or game.play_bot).split(",")]
    others = num_seats - 1
    if len(names) == 1:
        names = names * others
    if len(names) != others:
        raise ValueError(
            f"--bots names the bots of the {others} other seat{'s' if others != 1 else ''} "
            f"(one name for all, or {others} comma-separated), got {len(names)}: {','.join(names)}"
        )
    from tabletop_core.agents.seats import is_policy

    scripted = [b for b in names if not is_policy(b)]
    game.bot_ids(scripted, len(scripted))  # validates the names
    out: list[str | None] = list(names)
    out.insert(seat, None)
    return out


def _group(name: str) -> str:
    """The kind of an action for grouping: the first word of its name (its verb)."""
    return name.split(" ", 1)[0]


class TerminalPlay:
    """One game of ``game`` played in a terminal: the person at ``seat``, bots elsewhere.

    Args:
        game: the GameDef. options: the game's options (keyword arguments of raw_env).
        seat: the person's seat. bots: ``--bots`` (see :func:`bot_list_for_others`).
        seed: the deal (None: fresh). svg_file: write the SVG picture here after every
            step (needs the game's ``"svg"`` render mode).
        input / output: text streams (default stdin / stdout). width: columns of the
            terminal (default: measured).

    Raises:
        ValueError: bad options, seat or bots; ``svg_file`` for a game without SVG.
    """

    def __init__(
        self,
        game: GameDef,
        options: dict[str, Any],
        seat: int = 0,
        bots: str | None = None,
        seed: int | None = None,
        svg_file: str | None = None,
        input: TextIO | None = None,
        output: TextIO | None = None,
        width: int | None = None,
    ):
        self.game = game
        module = game_envs(game)
        self.narrate = game.narrate
        render_mode = None
        if svg_file is not None:
            modes = module.raw_env.metadata.get("render_modes", [])
            if "svg" not in modes:
                raise ValueError(
                    f"--view svg: {game.name} has no SVG picture yet (render modes: {', '.join(modes)})"
                )
            render_mode = "svg"
        self.env = module.raw_env(render_mode=render_mode, **options)
        self.svg_file = svg_file
        self.seat = seat
        n = len(self.env.possible_agents)
        self.bots = bot_list_for_others(game, bots, n, seat)
        from tabletop_core.agents.seats import is_policy, seat_policy

        game.check_roles([None if b is None or is_policy(b) else b for b in self.bots], options)

        self.policies = {
            k: seat_policy(game, b, k, options)
            for k, b in enumerate(self.bots)
            if b is not None and is_policy(b)
        }
        self.bot_ids = [
            None if b is None or k in self.policies else int(game.bot_ids([b], 1)[0])
            for k, b in enumerate(self.bots)
        ]
        self.seed = seed
        self.rng = np.array([seed_word(None if seed is None else seed + 777)], np.uint64)
        self.input = input or sys.stdin
        self.out = output or sys.stdout
        self.width = width or shutil.get_terminal_size((100, 24)).columns
        self.undo_stack: list[dict] = []

    # --- output ---------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _name(self, k: int) -> str:
        return self.env.possible_agents[k]

    def show_table(self) -> None:
        g, env = self.game, self.env
        view = (
            g.render_view(env._state, env.options, self.seat)
            if g.render_view
            else g.render_ansi(env._state, env.options)
        )
        self.say(view)
        line = getattr(self.narrate, "selection_line", None)
        if line is not None:
            text = line(env._state, self.seat)
            if text:
                self.say(text)

    def legal_names(self) -> dict[int, str]:
        return {int(a): self.game.action_name(int(a), self.env._state) for a in self.env.legal_actions()}

    def show_legal(self, names: dict[int, str]) -> None:
        groups: dict[str, list[str]] = {}
        hook = getattr(self.narrate, "action_group", None)
        for a, name in names.items():
            kind = hook(self.env._state, a) if hook is not None else _group(name)
            groups.setdefault(kind, []).append(f"{a}: {name}")
        self.say(
            f"your move, {self._name(self.seat)} — {len(names)} legal action{'s' if len(names) != 1 else ''}:"
        )
        for kind, entries in groups.items():
            if len(groups) > 1 or len(entries) > 4:
                self.say(f" {kind}:")
            for line in columns(entries, self.width):
                self.say(line)

    def _write_svg(self) -> None:
        if self.svg_file is None:
            return
        picture = self.env.render()
        with open(self.svg_file, "w", encoding="utf-8") as f:
            f.write(picture)

    # --- the game -------------------------------------------------------------------------
    def step(self, action: int, actor: int) -> None:
        """Apply ``action`` of seat ``actor`` and print what happened."""
        env = self.env
        before = env._state.copy()
        name = self._action_text(action)
        env.step(action)
        quiet = getattr(self.narrate, "QUIET", None)
        if actor != self.seat and not (quiet is not None and quiet(action)):
            self.say(f"{self._name(actor)} ({self.bots[actor]}): {name}")
        if self.narrate is not None:
            for line in self.narrate.describe(before, env._state, action, actor, self.seat):
                self.say(f"  · {line}")
        self._write_svg()

    def run(self) -> int:
        """Play until the game ends or the person quits; returns 0."""
        env, g = self.env, self.game
        env.reset(seed=self.seed)
        self._write_svg()
        bots = ", ".join(f"{self._name(k)} {b}" for k, b in enumerate(self.bots) if b is not None)
        self.say(f"{g.name}: you are {self._name(self.seat)}; bots: {bots or 'none'}.")
        self.say("Type an action's number or part of its name; 'help' lists the commands, 'q' quits.\n")
        while not env._done:
            actor = int(env._cur[0])
            if actor != self.seat:
                if actor in self.policies:  # a trained policy (baseline, policy:FILE), greedy
                    ob = env.observe(env.agent_selection)
                    a = int(self.policies[actor](ob["observation"][None, :], ob["action_mask"][None, :])[0])
                else:
                    a = g.bot_decision(self.bot_ids[actor], env._state, env._mask[0], self.rng)
                self.step(a, actor)
                continue
            self.say("")
            self.show_table()
            names = self.legal_names()
            self.show_legal(names)
            while True:
                self.out.write("> ")
                self.out.flush()
                line = self.input.readline()
                if not line:
                    self.say("bye")
                    return 0
                result = self.command(line.strip(), names)
                if result == "quit":
                    self.say("bye")
                    return 0
                if result == "again":
                    break
                if isinstance(result, int):
                    undoable = getattr(self.narrate, "UNDOABLE", None)
                    if undoable is not None and undoable(result):
                        self.undo_stack.append(env.get_state())
                    else:
                        self.undo_stack.clear()
                    self.say(f"you: {self._action_text(result)}")
                    self.step(result, self.seat)
                    break
        self.say("")
        self.say(g.render_ansi(env._state, env.options))
        final = env.infos.get(self._name(self.seat), {})
        returns = ", ".join(f"{k} {v:+g}" for k, v in env._cumulative_rewards.items())
        self.say(f"game over — episode returns: {returns}; {self._name(self.seat)}: {final}")
        return 0

    def command(self, text: str, names: dict[int, str]) -> int | str | None:
        """Handle one line: an action id to take, ``"quit"``, ``"again"`` (the table
        changed, show it), or None (a message was printed; ask again)."""
        low = text.lower()
        if not low:
            self.say("type an action (number or name), or 'help'")
            return None
        if low in ("q", "quit", "exit"):
            return "quit"
        if low in ("help", "?", "h"):
            self.say(HELP)
            return None
        if low in ("table", "t", "show"):
            self.show_table()
            self.show_legal(names)
            return None
        if low in ("undo", "undo all", "u"):
            if not self.undo_stack:
                self.say("nothing to undo (only your last undoable steps this turn can be taken back)")
                return None
            saved = self.undo_stack[0] if low == "undo all" else self.undo_stack[-1]
            del self.undo_stack[0 if low == "undo all" else -1 :]
            self.env.set_state(saved)
            self.say("undone")
            return "again"
        if low.lstrip("-").isdigit():
            a = int(low)
            if a in names:
                return a
            if 0 <= a < self.game.num_actions:
                self.say(
                    f"not legal now: {a} ({self.game.action_name(a, self.env._state)}) — {self._reason(a)}"
                )
            else:
                self.say(f"no action {a}: action numbers are 0..{self.game.num_actions - 1}")
            return None
        hits = _match(low, names)
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            shown = ", ".join(f"{a}: {names[a]}" for a in hits[:8])
            more = f" and {len(hits) - 8} more" if len(hits) > 8 else ""
            self.say(f"ambiguous: '{text}' matches {shown}{more} — type more of the name, or the number")
            return None
        every = {a: self.game.action_name(a, self.env._state) for a in range(self.game.num_actions)}
        hits = _match(low, every)
        if hits:
            a = hits[0]
            self.say(f"not legal now: {every[a]} — {self._reason(a)}")
            return None
        self.say(
            f"unknown command '{text}': no legal action's name contains it; type 'help' for the commands"
        )
        return None

    def _action_text(self, action: int) -> str:
        text = getattr(self.narrate, "action_text", None)
        if text is not None:
            return text(self.env._state, action)
        return self.game.action_name(action, self.env._state)

    def _reason(self, action: int) -> str:
        if self.narrate is None:
            return "the rules do not allow it now"
        return self.narrate.illegal_reason(self.env._state, action, self.seat)


def _match(text: str, names: dict[int, str]) -> list[int]:
    """Actions whose name contains every word of ``text`` (case-insensitive); if some
    names hold every word as a whole word, only those (so 'play 3' is not 'play 30')."""
    words = text.split()
    hits = [a for a, n in names.items() if all(w in n.lower() for w in words)]
    whole = [a for a in hits if all(w in names[a].lower().split() for w in words)]
    exact = [a for a in hits if names[a].lower() == text]
    return exact or whole or hits


def play_in_terminal(
    game: GameDef,
    options: dict[str, Any],
    seat: int = 0,
    bots: str | None = None,
    seed: int | None = None,
    svg_file: str | None = None,
    input: TextIO | None = None,
    output: TextIO | None = None,
) -> int:
    """Play one game of ``game`` in the terminal (see :class:`TerminalPlay`); returns 0.

    Raises:
        ValueError: bad options, seat, bots, or ``svg_file`` for a game without SVG.
    """
    return TerminalPlay(game, options, seat, bots, seed, svg_file, input, output).run()
