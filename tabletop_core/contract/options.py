"""Game options declared once: a field of the game's ``Options`` dataclass with its help.

Each game's ``spec.Options`` (its ``GameDef.make_options``) declares every option as one
dataclass field made by :func:`option`: the default, a one-line help, the allowed values
(``choices``, an integer range ``low..high``, extra ``words`` such as ``"random"``) and
the command-line flag. The dataclass validates values (``__post_init__``); everything
else reads the declaration through :func:`option_infos`: the CLI builds one argument per
option from it (:func:`add_option_arguments`), ``tabletop list`` prints it, tests walk
it. So an option is named, typed and documented in one place.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Options:
...     level: int = option(0, "difficulty", choices=(0, 1, 2))
>>> [(o.flag, o.allowed) for o in option_infos(Options)]
[('--level', '0, 1 or 2')]
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FLAGS",
    "OptionInfo",
    "option",
    "option_infos",
    "check_options",
    "add_option_arguments",
    "options_from_args",
    "as_options",
    "options_dict",
]

_KEY = "tabletop_option"

FLAGS = {"num_players": "--players"}
"""The one table of options whose command-line flag is not their field name: the player
count is ``--players`` on the command line, ``num_players`` in a game's ``Options``, in
``env(num_players=...)`` and in ``GameDef.players_option`` (the State keeps it as
``cfg_players``). Exit Now counts its human seats (``num_humans``, ``--humans``) and
takes ``--players`` as an alias."""


@dataclass(frozen=True)
class OptionInfo:
    """The declaration of one game option.

    Attributes:
        name: the Python keyword (``"on_fire"``).
        default: the default value (``None`` where the game derives it, see ``help``).
        help: one line saying what the option does.
        type: ``int``, ``bool`` or ``str``: the type of a value given on the command line.
        choices: the allowed values, or ``()`` for any value of ``type`` (within the range).
        low / high: inclusive range of an ``int`` option (``None``: unbounded).
        words: strings allowed besides the ``int`` values (``("random",)``).
        flag: the command-line flag (``"--on-fire"``; the players option is ``--players``).
        aliases: further accepted flags (Exit Now's ``--players`` next to ``--humans``).
        cli: False for options that only Python callers can give (an object).
    """

    name: str
    default: Any
    help: str
    type: type = int
    choices: tuple = ()
    low: int | None = None
    high: int | None = None
    words: tuple = ()
    flag: str = ""
    aliases: tuple = ()
    cli: bool = True

    @property
    def allowed(self) -> str:
        """The allowed values in words: ``"1..5"``, ``"'cards' or 'win'"``, ``"True or False"``."""
        if self.type is bool:
            return "True or False"
        parts: list[str] = []
        if self.choices:
            parts += [repr(c) if isinstance(c, str) else str(c) for c in self.choices]
        elif self.type is int:
            lo = "" if self.low is None else str(self.low)
            hi = "" if self.high is None else str(self.high)
            parts.append(f"{lo}..{hi}" if lo or hi else "an integer")
        else:
            parts.append("text")
        parts += [repr(w) for w in self.words]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    @property
    def metavar(self) -> str:
        if self.choices or self.words:
            vals = [str(c) for c in self.choices] or (
                [f"{self.low}..{self.high}"] if self.type is int else []
            )
            return "{" + ",".join(vals + [str(w) for w in self.words]) + "}"
        if self.type is int and self.low is not None and self.high is not None:
            return f"{self.low}..{self.high}"
        return self.name.upper()

    def parse(self, text: str) -> Any:
        """A command-line value of this option (``"3"`` -> 3, ``"random"`` -> "random").

        Raises:
            argparse.ArgumentTypeError: naming the allowed values.
        """
        t = text.strip()
        if t in self.words:
            return t
        value: Any = t
        if self.type is int:
            try:
                value = int(t)
            except ValueError:
                value = None
        elif self.type is bool:
            low = t.lower()
            value = (
                True
                if low in ("true", "yes", "on", "1")
                else False
                if low in ("false", "no", "off", "0")
                else None
            )
        ok = value is not None
        if ok and self.choices:
            ok = value in self.choices
        if ok and self.type is int:
            ok = (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
        if not ok:
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: use {self.allowed}")
        return value

    def accepts(self, value: Any) -> bool:
        """Whether a Python value is allowed by this declaration (ints may be NumPy ints;
        a bool is not an int; ``None`` only where the default is ``None``)."""
        if value is None:
            return self.default is None
        if isinstance(value, str) and value in self.words:
            return True
        if self.type is bool:
            return isinstance(value, (bool, np.bool_))
        if self.type is int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                return False
            if self.low is not None and value < self.low or self.high is not None and value > self.high:
                return False
        elif self.type is str and not isinstance(value, str):
            return False
        return not self.choices or value in self.choices

    def describe(self) -> str:
        """The help line: ``"difficulty (0, 1 or 2; default 0)"``."""
        if self.type is bool:
            return f"{self.help} (default {'on' if self.default else 'off'})"
        if self.default is None:
            return f"{self.help} ({self.allowed})"
        return f"{self.help} ({self.allowed}; default {self.default!r})"


def option(
    default: Any,
    help: str,
    *,
    type: type | None = None,
    choices: tuple = (),
    low: int | None = None,
    high: int | None = None,
    words: tuple = (),
    flag: str = "",
    aliases: tuple = (),
    cli: bool = True,
) -> Any:
    """A dataclass field declaring one game option (see :class:`OptionInfo` for the
    arguments; ``type`` defaults to the type of ``default``, ``int`` for ``None``)."""
    if type is None:
        type = int if default is None else builtins_type(default)
    meta = {
        _KEY: {
            "default": default,
            "help": help,
            "type": type,
            "choices": tuple(choices),
            "low": low,
            "high": high,
            "words": tuple(words),
            "flag": flag,
            "aliases": tuple(aliases),
            "cli": cli,
        }
    }
    return dataclasses.field(default=default, metadata=meta)


def builtins_type(value: Any) -> type:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    return str


def option_infos(options_cls: Any) -> tuple[OptionInfo, ...]:
    """The declarations of a game's ``Options`` dataclass (class or instance), in field
    order. A field made without :func:`option` gets a declaration from its default."""
    out = []
    for f in dataclasses.fields(options_cls):
        meta = dict(f.metadata.get(_KEY, {}))
        if not meta:
            default = None if f.default is dataclasses.MISSING else f.default
            meta = {"default": default, "help": "", "type": builtins_type(default)}
        flag = meta.pop("flag", "") or FLAGS.get(f.name) or "--" + f.name.replace("_", "-")
        out.append(OptionInfo(name=f.name, flag=flag, **meta))
    return tuple(out)


def check_options(options: Any) -> None:
    """Check every declared option of an ``Options`` instance against its declaration
    (call it first in ``__post_init__``; checks between options stay in the game).

    Raises:
        ValueError: ``"<name> must be <allowed>, got <value>"`` for the first bad option.
    """
    for info in option_infos(options):
        if info.type not in (int, bool, str):
            continue  # an object option (Exit Now's boards) is checked by its game
        value = getattr(options, info.name)
        if not info.accepts(value):
            kind = "an int in " if info.type is int and not info.choices and info.low is not None else ""
            raise ValueError(f"{info.name} must be {kind}{info.allowed}, got {value!r}")


def add_option_arguments(
    parser: argparse.ArgumentParser, options_cls: Any, title: str = "game options"
) -> None:
    """One argument per command-line option of ``options_cls`` (a game's ``Options``),
    in an argument group ``title``. A bool option is a pair ``--name`` / ``--no-name``;
    every value is checked against the declaration by argparse (a bad value exits 2
    naming what is allowed). Values land in ``args.opt_<name>`` (None: not given)."""
    group = parser.add_argument_group(title)
    for info in option_infos(options_cls):
        if not info.cli:
            continue
        flags = [info.flag, *info.aliases]
        if info.type is bool:
            group.add_argument(
                *flags,
                dest="opt_" + info.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=info.describe(),
            )
        else:
            group.add_argument(
                *flags,
                dest="opt_" + info.name,
                type=info.parse,
                default=None,
                metavar=info.metavar,
                help=info.describe().replace("%", "%%"),
            )


def options_from_args(args: argparse.Namespace, options_cls: Any) -> dict[str, Any]:
    """The game options given on the command line, as keyword arguments (options not
    given are left out, so the game's defaults apply)."""
    out = {}
    for info in option_infos(options_cls):
        value = getattr(args, "opt_" + info.name, None)
        if value is not None:
            out[info.name] = value
    return out


def as_options(make_options: Any, options: Any = None, **kwargs: Any) -> Any:
    """The game's options object, built once where options enter the library (the CLI
    parser, ``env(**kwargs)``, ``run_match(...)``) and passed as itself after.

    Args:
        make_options: the game's ``Options`` class (``GameDef.make_options``).
        options: an instance of it (returned as it is), a dict of keyword arguments, or
            None (the defaults).
        **kwargs: options given one by one (over ``options``).

    Raises:
        ValueError: ``options`` is neither an options object of this game nor a dict, or
            an option value is not allowed (the game's own message).
    """
    if options is None:
        return make_options(**kwargs)
    if isinstance(options, dict):
        return make_options(**{**options, **kwargs})
    if isinstance(make_options, type) and not isinstance(options, make_options):
        raise ValueError(
            f"options must be a {make_options.__qualname__} or a dict of its fields, got {type(options).__name__}"
        )
    return dataclasses.replace(options, **kwargs) if kwargs else options


def options_dict(options: Any) -> dict[str, Any]:
    """An options object (or a dict) as a dict of its fields, for what records options as
    data (a match's JSON, a policy's ``meta``)."""
    if isinstance(options, dict):
        return dict(options)
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
