"""Terminal play: one person against bots, in any game (``tabletop play GAME``).

The person plays one seat (``seat``); bots play the others. After every step the
terminal shows the action and what the environment did besides it (cards drawn and
flipped, dice, steals, the NPC's turn, round ends), from the game's ``narrate`` module
(``<package>/narrate.py``: ``describe``, ``illegal_reason`` and, optionally,
``action_text``, ``action_group``, ``selection_line``, ``UNDOABLE``, ``QUIET``,
``move_text``, ``parse_move``, ``MOVE_HELP``, ``describe_result``, ``npc_line``), which
reads the State and the rules' helpers. On the person's turn it prints the table from
that seat's view and the legal moves grouped by kind, in columns that fit the terminal,
each as the person types it (the game's ``move_text``).

More optional hooks of ``narrate``: ``RULES_SUMMARY`` (``help rules``), ``HELP_TOPICS``
(more ``help WORD`` texts, e.g. Koikoi's yaku), ``UNDO_HELP`` (what ``undo`` takes back),
``COMMANDS`` (more commands: ``{word: (state, seat) -> text}``, e.g. Exit Now's
``legend``), ``intro`` (lines shown once at the start) and ``table_view`` (the table as
the person's turn shows it, when it differs from the game's ``render_view``).

Commands: a move in the game's own words (the game's ``parse_move``: a card, a card and
a pile, a square; ``MOVE_HELP`` says how); ``#N`` for action id ``N``; a name or part
of one (each word must appear in the action's name; a word that is a whole word of the
name is preferred); ``help`` / ``?``; ``help rules`` and the game's other topics;
``table``; ``undo`` / ``undo all`` (only in games with undoable steps: Exhaust's
selection, The Game's cards played this turn); the game's own commands; ``q`` / ``quit``.

When the game ends it prints each seat's whole-game result in the game's words (the
game's ``describe_result``) and the rewards summed over the whole episode.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any, TextIO

import numpy as np

from tabletop_core.agents.seats import is_policy, policy_actions, seat_policy
from tabletop_core.contract.game import GameDef
from tabletop_core.envs.factories import game_envs
from tabletop_core.kernel.rng import bot_seed_word

__all__ = ["play_in_terminal", "TerminalPlay", "columns", "bot_list_for_others"]

HELP = """commands:
  MOVE          a move as listed under 'your move' (the game's words: see 'moves' below)
  #NUMBER       take the action with that id (the environment's action number)
  WORDS         take the action whose name contains every word
  table         show the table again
  help, ?       this list
  q, quit       leave the game"""

_UNDO_LINE = "  undo          {}"
_TOPIC_LINE = "  help {:<8} {}"


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
        self.rng = np.array([bot_seed_word(seed)], np.uint64)
        self.input = input or sys.stdin
        self.out = output or sys.stdout
        self.width = width or shutil.get_terminal_size((100, 24)).columns
        self.undo_stack: list[tuple[dict, dict[str, float]]] = []  # (saved env, returns)
        self.returns = dict.fromkeys(self.env.possible_agents, 0.0)
        self._warned: int | None = None

    # --- output ---------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _name(self, k: int) -> str:
        return self.env.possible_agents[k]

    def show_table(self) -> None:
        g, env = self.game, self.env
        own = getattr(self.narrate, "table_view", None)
        if own is not None:
            view = own(env._state, env.options, self.seat)
        elif g.render_view:
            view = g.render_view(env._state, env.options, self.seat)
        else:
            view = g.render_ansi(env._state, env.options)
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
        typed = getattr(self.narrate, "move_text", None)
        for a, name in names.items():
            kind = hook(self.env._state, a) if hook is not None else _group(name)
            entry = typed(self.env._state, a) if typed is not None else f"#{a}: {name}"
            groups.setdefault(kind, []).append(entry)
        self.say(
            f"your move, {self._name(self.seat)} — {len(names)} legal move{'s' if len(names) != 1 else ''}"
            + (" (type one as shown):" if typed is not None else ":")
        )
        for kind, entries in groups.items():
            if len(groups) > 1 or len(entries) > 4 or hook is not None:
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
        for agent, reward in env.rewards.items():
            self.returns[agent] += float(reward)
        quiet = getattr(self.narrate, "QUIET", None)
        if actor != self.seat and not (quiet is not None and quiet(action)):
            self.say(f"{self._name(actor)} ({self.bots[actor]}): {name}")
        if self.narrate is not None:
            for line in self.narrate.describe(before, env._state, action, actor, self.seat):
                self.say(f"  · {line}")
        self._write_svg()

    def run(self) -> int:
        """Play until the game ends or the person quits; returns 0."""
        self.env.reset(seed=self.seed)
        self._write_svg()
        self._intro()
        while not self.env._done:
            actor = int(self.env._cur[0])
            if actor != self.seat:
                self.step(self._bot_action(actor), actor)
            elif not self._person_turn():
                self.say("bye")
                return 0
        self._finish()
        return 0

    def _intro(self) -> None:
        """Who plays what, how to type, and the game's own opening lines (``intro``)."""
        env, g = self.env, self.game
        bots = ", ".join(f"{self._name(k)} {b}" for k, b in enumerate(self.bots) if b is not None)
        npc = getattr(self.narrate, "npc_line", None)
        npc_text = npc(env._state) if npc is not None else None
        others = "; ".join(x for x in (f"bots: {bots}" if bots else "", npc_text) if x) or "no other seat"
        self.say(f"{g.name}: you are {self._name(self.seat)}; {others}.")
        rules = " 'help rules' sums up the rules;" if getattr(self.narrate, "RULES_SUMMARY", "") else ""
        self.say(f"Type a move as the list shows it; 'help' lists the commands,{rules} 'q' quits.")
        intro = getattr(self.narrate, "intro", None)
        for line in intro(env._state, self.seat) if intro is not None else []:
            self.say(line)
        self.say("")

    def _bot_action(self, actor: int) -> int:
        """The action of the bot or trained policy (greedy) at seat ``actor``."""
        env = self.env
        if actor in self.policies:
            ob = env.observe(env.agent_selection)
            return int(
                policy_actions(
                    self.policies[actor],
                    ob["observation"][None, :],
                    ob["action_mask"][None, :],
                    env._state,
                    [0],
                    self.rng,
                )[0]
            )
        return self.game.bot_decision(self.bot_ids[actor], env._state, env._mask[0], self.rng)

    def _person_turn(self) -> bool:
        """Show the table and the legal moves, read lines until one makes a move (or
        undo changes the table); False when the person quits or the input ends."""
        self.say("")
        self.show_table()
        names = self.legal_names()
        self.show_legal(names)
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.input.readline()
            if not line:
                return False
            result = self._confirmed(self.command(line.strip(), names))
            if result == "quit":
                return False
            if result == "again":
                return True
            if isinstance(result, int):
                undoable = getattr(self.narrate, "UNDOABLE", None)
                if undoable is not None and undoable(result):
                    self.undo_stack.append((self.env.get_state(), dict(self.returns)))
                else:
                    self.undo_stack.clear()
                self.say(f"you: {self._action_text(result)}")
                self.step(result, self.seat)
                return True

    def _finish(self) -> None:
        """The final table (every hand open) and the result. The narration announced the
        end when it happened, so the table's own game-over line is left out here."""
        env = self.env
        view = getattr(self.narrate, "table_view", None)
        table = (
            view(env._state, env.options, None) if view else self.game.render_ansi(env._state, env.options)
        )
        self.say("")
        self.say("\n".join(x for x in table.splitlines() if not x.startswith("game over")))
        self.say_result()

    def say_result(self) -> None:
        """The whole game's result: each seat's, in the game's words (its ``describe_result``),
        then the rewards summed over the whole episode (every round's, not the last)."""
        self.say("the result:")
        result = getattr(self.narrate, "describe_result", None)
        if result is not None:
            for line in result(self.env._state, self.env.options):
                self.say(f"  {line}")
        returns = ", ".join(f"{k} {v:+g}" for k, v in self.returns.items())
        self.say(f"episode returns (every reward of the game summed): {returns}")

    def _confirmed(self, result: int | str | None) -> int | str | None:
        """``result``, or None for a move the game warns about (its ``warning``: e.g. onto
        a ghost's square) that was not typed twice in a row."""
        warn = getattr(self.narrate, "warning", None)
        if not isinstance(result, int) or warn is None:
            self._warned = None
            return result
        text = warn(self.env._state, result, self.seat)
        if not text or getattr(self, "_warned", None) == result:
            self._warned = None
            return result
        self._warned = result
        self.say(f"careful: {text}. Type the move again to make it, or choose another")
        return None

    def help_text(self, topic: str = "") -> str:
        """``help`` (the commands and how to type a move) or ``help TOPIC`` (``rules``
        and the game's ``HELP_TOPICS``); an unknown topic names the topics."""
        topics = self._topics()
        if topic:
            if topic in topics:
                return topics[topic]
            return f"no help on '{topic}'; topics: {', '.join(topics) or 'none'}"
        lines = HELP.splitlines()
        undo = getattr(self.narrate, "UNDO_HELP", "")
        if getattr(self.narrate, "UNDOABLE", None) is not None:
            lines.insert(
                5, _UNDO_LINE.format(undo or "take back the last undoable step (undo all: every one)")
            )
        for word, fn in getattr(self.narrate, "COMMANDS", {}).items():
            lines.insert(-2, f"  {word:<13} {(fn.__doc__ or '').strip().splitlines()[0]}")
        for word in topics:
            first = topics[word].splitlines()[0].rstrip(":")
            lines.insert(-2, _TOPIC_LINE.format(word, first))
        text = "\n".join(lines)
        moves = getattr(self.narrate, "MOVE_HELP", "")
        if moves:
            text += f"\nmoves in {self.game.title or self.game.name}:\n{moves}"
        return text

    def _topics(self) -> dict[str, str]:
        rules = getattr(self.narrate, "RULES_SUMMARY", "")
        return ({"rules": rules} if rules else {}) | dict(getattr(self.narrate, "HELP_TOPICS", {}))

    def command(self, text: str, names: dict[int, str]) -> int | str | None:
        """Handle one line: an action id to take, ``"quit"``, ``"again"`` (the table
        changed, show it), or None (a message was printed; ask again)."""
        low = text.lower()
        if not low:
            self.say("type an action (number or name), or 'help'")
            return None
        done, result = self._builtin(low, names)
        if done:
            return result
        parse = getattr(self.narrate, "parse_move", None)
        if parse is not None and not low.startswith("#"):
            found = parse(text, self.env._state, names)
            if found is not None:
                return self._pick(text, list(found), names)
        if low.startswith("#") or (parse is None and low.lstrip("-").isdigit()):
            return self._numbered(text, low, names)
        return self._named(text, low, names)

    def _builtin(self, low: str, names: dict[int, str]) -> tuple[bool, int | str | None]:
        """The commands that are not moves: ``(True, result)`` when ``low`` is one."""
        words = low.split()
        if low in ("q", "quit", "exit"):
            return True, "quit"
        if words[0] in ("help", "?", "h") and len(words) <= 2:
            self.say(self.help_text(words[1] if len(words) == 2 else ""))
            return True, None
        if low in ("table", "t", "show"):
            self.show_table()
            self.show_legal(names)
            return True, None
        if low in ("undo", "undo all", "u"):
            return True, self._undo(low == "undo all")
        extra = getattr(self.narrate, "COMMANDS", {})
        if low in extra:
            self.say(extra[low](self.env._state, self.seat))
            return True, None
        return False, None

    def _undo(self, every: bool) -> str | None:
        """Take back the last undoable step (``every``: all of them); ``"again"``."""
        if getattr(self.narrate, "UNDOABLE", None) is None:
            self.say(f"{self.game.title or self.game.name} has no undo: every move is final")
            return None
        if not self.undo_stack:
            self.say("nothing to undo (only your last undoable steps this turn can be taken back)")
            return None
        saved, returns = self.undo_stack[0] if every else self.undo_stack[-1]
        del self.undo_stack[0 if every else -1 :]
        self.env.set_state(saved)
        self.returns = returns
        self._write_svg()
        self.say("undone")
        return "again"

    def _numbered(self, text: str, low: str, names: dict[int, str]) -> int | None:
        """``#N``: action id ``N`` if legal; else why not."""
        number = low.lstrip("#").strip()
        if not number.lstrip("-").isdigit():
            self.say(f"'{text}': after # comes an action number, e.g. #0")
            return None
        a = int(number)
        if a in names:
            return a
        if 0 <= a < self.game.num_actions:
            self.say(f"not legal now: {a} ({self.game.action_name(a, self.env._state)}) — {self._reason(a)}")
        else:
            self.say(f"no action {a}: action numbers are 0..{self.game.num_actions - 1}")
        return None

    def _named(self, text: str, low: str, names: dict[int, str]) -> int | None:
        """Words of an action's name: the one legal action they name; else why not."""
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

    def _pick(self, text: str, found: list[int], names: dict[int, str]) -> int | None:
        """The one legal action among the game's reading ``found`` of ``text``; else say
        why not (none legal: the first one's reason; several: which to choose among)."""
        legal = [a for a in found if a in names]
        if len(legal) == 1:
            return legal[0]
        typed = getattr(self.narrate, "move_text", None)
        if len(legal) > 1:
            shown = ", ".join(typed(self.env._state, a) if typed else names[a] for a in legal)
            self.say(f"'{text}' could be {shown}: type one of them")
            return None
        if not found:
            self.say(f"'{text}' names no move now; type 'table' for the moves, '?' for how to type them")
            return None
        a = found[0]
        self.say(f"not legal now: {text} ({self._action_text(a)}) — {self._reason(a)}")
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


def play_in_terminal(game: GameDef, options: dict[str, Any], *args: Any, **kwargs: Any) -> int:
    """Play one game of ``game`` in the terminal; returns 0. Takes :class:`TerminalPlay`'s
    arguments (``seat``, ``bots``, ``seed``, ``svg_file``, ``input``, ``output``, ``width``).

    Raises:
        ValueError: bad options, seat, bots, or ``svg_file`` for a game without SVG.
    """
    return TerminalPlay(game, options, *args, **kwargs).run()
