"""Messages in English and French, and the choice of language.

One catalog serves every interface: the game's sentences, the commands'
(``cli.*``), the options' and presets' descriptions (``option.*``,
``preset.*``), the engine's refusals (``refusal.*``), the full-screen game's
labels (``tui.*``) and the page's words (``page.*``, sent to the browser as
``static/messages.js``). Each language is one module holding the same keys
with the same ``{fields}``; ``tests/test_i18n.py`` fails when one lacks a key.
French is the default where the system locale is French.

>>> tr("fr", "outcome.loser", who="Ana")
'Ana perd la partie'
>>> tr("xx", "tui.throws", n=1, allowed=3)
'Throw 1 of 3'
"""

from __future__ import annotations

import json
import os
import re
import string
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..core.dice import format_dice
from ..core.errors import Message, Ordinal
from ..core.rules import Ruleset, preset_names
from . import en, fr

if TYPE_CHECKING:  # read when an action is put in words: a command's start imports no engine
    from ..core.actions import ChooseStake, Stop, Throw

LANGS = ("en", "fr")

EN: Mapping[str, str] = en.MESSAGES
FR: Mapping[str, str] = fr.MESSAGES
CATALOGS: Mapping[str, Mapping[str, str]] = {"en": EN, "fr": FR}

# Game sentences and presets' descriptions the page shows as they are, sent with its own words
# so each exists once.
PAGE_SHARED = (
    "outcome.",
    "call.",
    "preset.",
    "action.",
    "analysis.",
    "list.",
    "unit.",
)  # the analyses word as the CLI


def tr(lang: str, key: str, **fields: object) -> str:
    """The message ``key`` in ``lang`` (English for an unknown language), with its fields filled in."""
    return fill(lang, CATALOGS.get(lang, EN)[key], fields)


def fill(lang: str, template: str, fields: Mapping[str, object]) -> str:
    """A catalog's ``template`` in ``lang`` with its fields: « de » elided, ``{s}`` the plural of ``n``.

    In French « de » before a person's name ({who}) or a ruleset's ({rules}) that starts with a
    vowel sound is elided:

    >>> tr("fr", "tui.dice.of", who="Ana"), tr("fr", "tui.dice.of", who="Bob")
    ("Dés d'Ana", 'Dés de Bob')
    >>> tr("fr", "analysis.head", rules="engranjeu-21", players="Ana")
    "Analyse d'engranjeu-21 : Ana"
    """
    template = elide(lang, template, fields)
    fields = with_plural(lang, template, fields)  # of the count itself, before it is written
    if ":,}" in template:  # counts grouped by three (with spaces in French); a word left as it is
        grouped = {name for _, name, spec, _ in string.Formatter().parse(template) if name and spec == ","}
        fields = {
            k: num(lang, v, ",") if k in grouped and isinstance(v, int) else v for k, v in fields.items()
        }
        template = template.replace(":,}", "}")
    return template.format(**fields)


def elide(lang: str, template: str, fields: Mapping[str, object]) -> str:
    """``template`` with « de {who} » or « de {rules} » written « d'… » where that name starts with a vowel sound.

    The one place French elides before a name (the page's ``t`` in ``static/i18n.js`` keeps the same).
    """
    if lang != "fr" or "de {" not in template:
        return template

    def before(found: re.Match[str]) -> str:
        return f"d'{{{found[1]}}}" if _VOWEL_SOUND.match(str(fields.get(found[1], ""))) else found[0]

    return _DE_NAME.sub(before, template)


def plural(lang: str, n: float) -> str:
    """The plural mark of a count: ``s``, or nothing where ``n`` is singular.

    The one rule of the terminal's words (the page's ``t`` in ``static/i18n.js`` keeps the same):
    French counts 0 and 1 in the singular, English 1 only.

    >>> [plural("fr", n) for n in (0, 1, 2)], [plural("en", n) for n in (0, 1, 2)]
    (['', '', 's'], ['s', '', 's'])
    """
    return "s" if (abs(n) >= 2 if lang == "fr" else n != 1) else ""


def with_plural(lang: str, template: str, fields: Mapping[str, object]) -> Mapping[str, object]:
    """``fields`` with ``{s}``, the plural mark of ``n``, where the template has it and the caller left it out.

    >>> tr("fr", "page.tokens", n=0), tr("en", "page.tokens", n=0)
    ('0 jeton', '0 tokens')
    """
    n = fields.get("n")
    if "{s}" not in template or "s" in fields or not isinstance(n, int | float) or isinstance(n, bool):
        return fields
    return {**fields, "s": plural(lang, n)}


# A vowel, or h (« d'Hugo »), or y before a consonant (« d'Yves », but « de Yasmine »). Only names
# are elided, a person's ({who}) or a ruleset's ({rules}): a host or a folder is written as it is.
_VOWEL_SOUND = re.compile(r"[aeiouàâäéèêëîïôöûùœh]|y[^aeiouy]", re.IGNORECASE)
_DE_NAME = re.compile(r"\bde \{(who|rules)\}")


def num(lang: str, value: float, spec: str = "") -> str:
    """A number as ``format(value, spec)`` writes it, with French separators in French.

    >>> num("fr", 0.1234567, ".4%"), num("fr", 12345, ",")
    ('12,3457 %', '12 345')
    """
    text = format(value, spec)
    if value < 0 and not any(digit in text for digit in "123456789"):  # rounded to zero: no minus
        text = format(0.0, spec)
    if lang != "fr":
        return text
    text = text.replace(",", "\x00").replace(".", ",").replace("\x00", " ")
    return text[:-1] + " %" if text.endswith("%") else text


def points(lang: str, value: float, spec: str = ".2f") -> str:
    """Points (hundredths of a chance) with their word: the plural as the number is written, French
    counting below two in the singular, decimals too.

    >>> points("fr", 1.5), points("fr", -2), points("en", 1.5), points("fr", 1.999)
    ('1,50 point', '-2,00 points', '1.50 points', '2,00 points')
    """
    return tr(lang, "unit.points", n=num(lang, value, spec), s=plural(lang, float(format(value, spec))))


def fields_of(text: str) -> frozenset[str]:
    """The ``{field}`` names a message fills in."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


def error_text(lang: str, error: BaseException | Message) -> str:
    """A project error in ``lang``: its catalog wording when it carries a :class:`Message`, else its text."""
    message = error if isinstance(error, Message) else getattr(error, "message", None)
    if not isinstance(message, Message):
        return str(error)
    catalog = CATALOGS.get(lang, EN)
    if message.key not in catalog:  # never in py421 (a test holds every key to both catalogs)
        catalog = EN if message.key in EN else {message.key: message.key}
    return fill(lang, catalog[message.key], {k: _localised(lang, v) for k, v in message.fields.items()})


def action_text(lang: str, action: Throw | Stop | ChooseStake) -> str:
    """An action in words: in English its text form, in French what a player does."""
    from ..core.actions import ChooseStake, Stop

    if isinstance(action, Stop):
        return tr(lang, "action.stop")
    if isinstance(action, ChooseStake):
        return tr(lang, f"action.{action.stake}")
    kept = format_dice(action.keep)
    if action.bon:
        return tr(lang, "action.bon_keep", kept=kept) if kept else tr(lang, "action.bon")
    return tr(lang, "action.keep", kept=kept) if kept else tr(lang, "action.throw")


def action_phrase(lang: str, action: Throw | Stop | ChooseStake) -> str:
    """An action as the verb of a sentence: « le bon » is called, a stake played.

    >>> from py421.core.actions import Throw
    >>> action_phrase("en", Throw((4,), bon=True)), action_phrase("fr", Throw((4,), bon=True))
    ('call « bon 4 »', 'annoncer « le bon » en gardant 4')
    >>> action_phrase("en", Throw((4,)))
    'keep 4'
    """
    from ..core.actions import ChooseStake, Throw

    if isinstance(action, ChooseStake):
        return tr(lang, f"refusal.action.{action.stake}")
    if isinstance(action, Throw) and action.bon:
        kept = format_dice(action.keep)
        return tr(lang, "refusal.action.bon_keep", kept=kept) if kept else tr(lang, "refusal.action.bon")
    return action_text(lang, action)


def actions_text(lang: str, actions: Iterable[Throw | Stop | ChooseStake]) -> str:
    """Several actions in words, as a list."""
    return ", ".join(action_text(lang, a) for a in actions)


def ordinal(lang: str, n: int) -> str:
    """A rank as ``lang`` writes it.

    >>> [ordinal("en", n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 56)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '56th']
    >>> ordinal("fr", 1), ordinal("fr", 3)
    ('1ᵉʳ', '3ᵉ')
    """
    if lang == "fr":
        return "1ᵉʳ" if n == 1 else f"{n}ᵉ"
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _localised(lang: str, value: object) -> object:
    """A field that is itself a message (a refusal's reason) or actions is worded in ``lang`` too.

    One action is what someone does (« Ana cannot call « bon 42 » »); several are the choices as
    they are typed.
    """
    if isinstance(value, Message):
        return error_text(lang, value)
    if isinstance(value, Ordinal):
        return ordinal(lang, value.n)
    actions = sys.modules.get("py421.core.actions")  # an action is here only if its module is loaded
    kinds = (actions.Throw, actions.Stop, actions.ChooseStake) if actions else ()
    if kinds and isinstance(value, kinds):
        return action_phrase(lang, value)
    if kinds and isinstance(value, tuple) and all(isinstance(a, kinds) for a in value):
        return actions_text(lang, value)
    if isinstance(value, tuple) and all(isinstance(m, Message) for m in value):
        return tr(lang, "list.semicolon").join(error_text(lang, m) for m in value)
    return value


# The spaces inside « … »: a line never ends on « nor starts with ».
_INSIDE_GUILLEMETS = re.compile(r"(?<=«) +| +(?=»)")


def guillemets(text: str) -> str:
    """``text`` with no-break spaces inside its guillemets, for a page that wraps lines.

    >>> guillemets("après « le bon »") == "après «\u00a0le bon\u00a0»"
    True
    """
    return _INSIDE_GUILLEMETS.sub("\u00a0", text)


def page_catalog(lang: str) -> dict[str, str]:
    """What the page is sent for ``lang``: its ``page.*`` words without the prefix, and the shared
    sentences; every « … » held together by no-break spaces (:func:`guillemets`)."""
    catalog = CATALOGS[lang]
    words = {key.removeprefix("page."): text for key, text in catalog.items() if key.startswith("page.")}
    words.update({key: text for key, text in catalog.items() if key.startswith(PAGE_SHARED)})
    # the page lists the presets as they are: each description with its own pot
    words.update(
        {f"preset.{name}": tr(lang, f"preset.{name}", n=Ruleset.preset(name).pot) for name in preset_names()}
    )
    return {key: guillemets(text) for key, text in words.items()}


def page_module() -> str:
    """``static/messages.js``: the page's part of the catalog as an ES module (``scripts/page_types.py``)."""
    body = json.dumps({lang: page_catalog(lang) for lang in LANGS}, ensure_ascii=False, indent=2)
    return (
        "// Written by scripts/page_types.py from py421.i18n, the one catalog: edit the catalog, not this file.\n"
        "/** The page's words in each language. */\n"
        f"export const MESSAGES = {body};\n"
    )


def detect_lang(environ: Mapping[str, str] | None = None) -> str:
    """French where the system locale is French, English elsewhere.

    As gettext reads them: the locale is the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
    that is set, and ``LANGUAGE`` (``fr:en``, languages by preference) comes before it unless the
    locale is C, which has no translations.
    """
    env = os.environ if environ is None else environ
    locale = next((env[var] for var in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(var)), "")
    in_c = locale.split(".")[0] in ("C", "POSIX")
    chosen = env.get("LANGUAGE", "") if not in_c else ""
    return "fr" if (chosen or locale).lower().startswith("fr") else "en"


def header_lang(header: str) -> str:
    """The language an HTTP request asks for in its ``Accept-Language`` header: the one of ours it
    ranks highest (the first of equals), English where it names neither.

    >>> header_lang("fr-FR,fr;q=0.9,en;q=0.8"), header_lang("de, fr;q=0.5"), header_lang("fr;q=0.2, en")
    ('fr', 'fr', 'en')
    """
    best, best_q = "en", 0.0
    for part in header.split(","):
        tag, _, params = part.partition(";")
        name, _, value = params.partition("=")
        try:
            q = float(value) if params.strip() and name.strip().lower() == "q" else 1.0
        except ValueError:
            continue  # a weight that is no number: that language is not asked
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGS and 0 <= q <= 1 and q > best_q:
            best, best_q = primary, q
    return best
