"""The commands' help and click's own words, in the language of the command line.

A command's help is the catalog's ``cli.help.<command>``; its summary in the list of
commands is the help's first sentence, or ``cli.short.<command>`` when that sentence is not
the summary, and is always given whole (click would cut one it makes itself to the room the
terminal leaves, ending it with "..."); an option's is
``cli.opt.<command>.<option>``, or ``cli.opt.<option>`` where every command words it alike;
a value's placeholder in French is ``cli.metavar.<the English one>``. Click's own sentences
(``Usage:``, ``No such option``…) go through :mod:`gettext`: its calls are hooked here to
read the catalog's ``click.*``, each keyed by click's English text.

The language is chosen before click reads the command line, from ``--lang`` wherever it
stands, else the locale: click answers ``--help`` and refuses a mistyped option before any
option's callback runs.
"""

from __future__ import annotations

import contextlib
import gettext
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import click

from ..i18n import CATALOGS, EN, LANGS, detect_lang

# The language of the command line under way; outside one, click speaks English as usual.
SPOKEN: ContextVar[str | None] = ContextVar("py421_spoken", default=None)
# The language --lang asks for anywhere on that line (None: none asked; the locale's is then spoken).
ASKED: ContextVar[str | None] = ContextVar("py421_asked", default=None)
# While a command line runs: its language, and the words to put back after it (see speaking).
WORDING: ContextVar[tuple[str, list[tuple[object, str, object]]] | None] = ContextVar(
    "py421_wording", default=None
)

# Click's English sentence -> the key that words it (click's "Error: {message}" is ours too).
CLICK_KEYS: Mapping[str, str] = {
    **{text: key for key, text in EN.items() if key.startswith("click.")},
    EN["cli.error"]: "cli.error",
}


def spoken() -> str:
    """The language of the command line under way (the locale's outside one)."""
    return SPOKEN.get() or detect_lang()


def click_text(lang: str, message: str) -> str:
    """One of click's sentences in ``lang`` (as it is when the catalog does not word it).

    >>> click_text("fr", "Show this message and exit."), click_text("fr", "anything else")
    ('Afficher cette aide et quitter.', 'anything else')
    """
    key = CLICK_KEYS.get(message)
    return message if key is None else CATALOGS.get(lang, EN)[key]


def _gettext(message: str) -> str:
    return click_text(SPOKEN.get() or "en", message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    lang = SPOKEN.get() or "en"
    one = n <= 1 if lang == "fr" else n == 1
    return click_text(lang, singular if one else plural)


def _hook_click() -> None:
    """Click binds gettext's functions in each of its modules: there, they read the catalog."""
    hooks = (("_", gettext.gettext, _gettext), ("ngettext", gettext.ngettext, _ngettext))
    for name, module in list(sys.modules.items()):
        if name == "click" or name.startswith("click."):
            for attribute, original, hook in hooks:
                if getattr(module, attribute, None) is original:
                    setattr(module, attribute, hook)


_hook_click()


def asked_lang(args: Sequence[str]) -> str | None:
    """The language a command line asks for with ``--lang`` (the last one given), before click reads it.

    >>> asked_lang(["play", "--lang", "fr", "--help"]), asked_lang(["odds", "--lang=en"]), asked_lang([])
    ('fr', 'en', None)
    """
    asked = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        else:
            continue
        if value in LANGS:
            asked = value
    return asked


class Worded(click.Command):
    """A command whose help comes from the catalog, in the language of the command line.

    ``key`` names it in the catalog (its name, or ``group.name`` for a group's command). Its
    help is always the catalog's (a docstring is for the code's readers); an option's help given
    in code is shown as it is, in every language, so ``tests/test_cli_french_help.py`` finds it.
    """

    def __init__(self, name: str | None, *, key: str | None = None, **attrs: Any) -> None:
        self.key = key or name or ""
        attrs["help"] = EN[f"cli.help.{self.key}"]
        attrs["short_help"] = summary(EN, self.key)
        super().__init__(name, **attrs)
        self.option_keys: dict[click.Parameter, str] = {}
        for param in self.params:
            key = self._option_key(param)
            if isinstance(param, click.Option) and param.help is None and key is not None:
                param.help = EN[key]
                self.option_keys[param] = key

    def _option_key(self, param: click.Parameter) -> str | None:
        for key in (f"cli.opt.{self.key}.{param.name}", f"cli.opt.{param.name}"):
            if key in EN:
                return key
        return None

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:  # click makes it once and keeps it: worded here at each use
            option.help = click_text(SPOKEN.get() or "en", EN["click.help_option"])
        return option

    def worded(self, lang: str) -> Iterator[tuple[object, str, object]]:
        """What this command shows in words: (object, attribute, its value in ``lang``)."""
        catalog = CATALOGS[lang]
        yield self, "help", catalog[f"cli.help.{self.key}"]
        yield self, "short_help", summary(catalog, self.key)
        for param in self.params:
            key = self.option_keys.get(param)
            if key is not None:
                yield param, "help", catalog[key]
            elif isinstance(param, click.Option) and param.help:
                yield param, "help", click_text(lang, param.help)  # --version's, click's own
            metavar = _metavar(param, lang)
            if metavar is not None:
                yield param, "metavar", metavar
        if isinstance(self, click.Group) and lang != "en":
            yield self, "subcommand_metavar", catalog["cli.metavar.subcommand"]


def summary(catalog: Mapping[str, str], key: str) -> str:
    """A command's line in the list of commands: ``cli.short.<key>``, else its help's first sentence.

    >>> summary(EN, "compare"), summary(EN, "play")
    ('Which of two results wins, and why.', 'Play in the terminal against bots or friends.')
    """
    if f"cli.short.{key}" in catalog:
        return catalog[f"cli.short.{key}"]
    words = [w for w in catalog[f"cli.help.{key}"].partition("\n\n")[0].split() if w != "\b"]
    for i, word in enumerate(words):  # a sentence ends at a period not followed by a lowercase word
        if word.endswith(".") and (i == len(words) - 1 or not words[i + 1][0].islower()):
            return " ".join(words[: i + 1])
    return " ".join(words)


def _metavar(param: click.Parameter, lang: str) -> str | None:
    """A value's placeholder in ``lang`` (``FICHIER`` for ``FILE``), where the catalog words it.

    English keeps click's own (a type's name, or the argument's, in capitals).
    """
    if lang == "en" or isinstance(param.type, click.Choice):
        return None
    if isinstance(param, click.Option):
        if param.is_flag:
            return None
        english = param.metavar or param.type.name
    else:
        english = param.metavar or param.name or ""
    key = f"cli.metavar.{english.lower()}"
    if key not in EN:
        return None
    word = CATALOGS[lang][key]
    return f"[{word}]" if isinstance(param, click.Argument) and not param.required else word


class Command(Worded):
    """A command of ``421``."""


class Group(Worded, click.Group):
    """A group of commands of ``421``; its commands are :class:`Command` unless told otherwise."""

    command_class = Command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands, each by its summary in the catalog: a group whose commands are
        imported when used (``421``'s) imports none of them to list them."""
        if not hasattr(self.commands, "loaded"):
            super().format_commands(ctx, formatter)
            return
        catalog = CATALOGS[SPOKEN.get() or "en"]
        rows = [(name, summary(catalog, name)) for name in self.list_commands(ctx)]
        with formatter.section(_gettext("Commands")):
            formatter.write_dl(rows)


def commands(root: click.Command) -> Iterator[click.Command]:
    """A command and, for a group, every command under it (imported already: see py421.cli)."""
    yield root
    if isinstance(root, click.Group):
        for command in getattr(root.commands, "loaded", root.commands).values():
            yield from commands(command)


def arrived(command: click.Command) -> None:
    """A command imported while a command line runs: worded in its language now, and put back
    with the others after it."""
    wording = WORDING.get()
    if wording is None:
        return
    lang, saved = wording
    changes = [c for each in commands(command) if isinstance(each, Worded) for c in each.worded(lang)]
    saved.extend((target, attribute, getattr(target, attribute)) for target, attribute, _ in changes)
    for target, attribute, value in changes:
        setattr(target, attribute, value)


@contextlib.contextmanager
def speaking(root: click.Command, lang: str) -> Iterator[None]:
    """Word ``root`` and its commands in ``lang`` while a command line runs, and click's sentences too."""
    changes = [c for command in commands(root) if isinstance(command, Worded) for c in command.worded(lang)]
    saved = [(target, attribute, getattr(target, attribute)) for target, attribute, _ in changes]
    token = SPOKEN.set(lang)
    wording = WORDING.set((lang, saved))  # a command imported meanwhile joins them (arrived)
    try:
        for target, attribute, value in changes:
            setattr(target, attribute, value)
        yield
    finally:
        for target, attribute, value in reversed(saved):
            setattr(target, attribute, value)
        WORDING.reset(wording)
        SPOKEN.reset(token)
