"""``421 rules`` and ``421 compare``: the presets, their options and results."""

from __future__ import annotations

import json
import shutil
from functools import partial

import click

from ..core.combos import compare as compare_results
from ..core.dice import Result
from ..core.rules import Ruleset, description_message, preset_names, result_rows, rules_text
from ..i18n import error_text, tr
from .common import SAY_OPTION, SET_OPTION, Command, Errors, argument_hint, resolve_rules, with_rules


@click.group(cls=Errors)
@SAY_OPTION
def rules(lang: str) -> None:
    """The presets' commands; each command's help is the catalog's ``cli.help.*``."""


@rules.command("list", key="rules.list")
@SAY_OPTION
def rules_list(lang: str) -> None:
    for name in preset_names():
        r = Ruleset.preset(name)
        click.echo(f"{name:<13} {error_text(lang, description_message(r))}")
        click.echo(f"{'':<13} {tr(lang, 'rules.source', source=r.source)}")


@rules.command("show", key="rules.show")
@click.argument("preset")
@SET_OPTION
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def rules_show(preset: str, settings: tuple[str, ...], as_json: bool, lang: str) -> None:
    r = resolve_rules(preset, settings, param_hint=argument_hint("preset"))
    if as_json:
        data = r.to_dict() | {"results": result_rows(r)}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(rules_text(r, partial(error_text, lang), width=shutil.get_terminal_size().columns))


@click.command(cls=Command)
@click.argument("first")
@click.argument("second")
@with_rules
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def compare(first: str, second: str, rules: Ruleset, as_json: bool, lang: str) -> None:
    a, b = Result.parse(first), Result.parse(second)
    cmp = compare_results(rules.table, a, b, ace_high=rules.ace_high)
    if as_json:
        rows = {
            str(x): {
                "category": rules.table.categories[x].value,
                "rank": rules.table.rank(x),
                "value": rules.table.values[x],
            }
            for x in (a, b)
        }
        winner = str(cmp.winner) if cmp.winner else None
        data = {"rules": rules.name, "winner": winner, "reason": cmp.reason, "results": rows}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    reason = error_text(lang, cmp.why)
    if cmp.winner is None:
        click.echo(
            tr(lang, "cli.compare.ties", a=a, b=b, rules=rules.name, reason=reason, tie_break=rules.tie_break)
        )
    else:
        loser = b if cmp.winner == a else a
        click.echo(
            tr(lang, "cli.compare.beats", winner=cmp.winner, loser=loser, rules=rules.name, reason=reason)
        )
    for x in dict.fromkeys((a, b)):
        label = error_text(lang, rules.table.categories[x].message)
        row = tr(lang, "cli.compare.row", rank=f"{rules.table.rank(x):>2}", value=rules.table.values[x])
        click.echo(f"  {x}  {label:<15} {row}")
