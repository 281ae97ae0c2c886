"""``421 rules`` and ``421 compare``: the presets, their options and results."""

from __future__ import annotations

import json

import click

from ..core.combos import compare as compare_results
from ..core.dice import Result
from ..core.rules import Ruleset, preset_names, result_rows, rules_text
from .common import SET_OPTION, Errors, resolve_rules, with_rules


@click.group(cls=Errors)
def rules() -> None:
    """The presets and their rules."""


@rules.command("list")
def rules_list() -> None:
    """Every preset with a one-line description and its source."""
    for name in preset_names():
        r = Ruleset.preset(name)
        click.echo(f"{name:<13} {r.description}")
        click.echo(f"{'':<13} source: {r.source}")


@rules.command("show")
@click.argument("preset")
@SET_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rules_show(preset: str, settings: tuple[str, ...], as_json: bool) -> None:
    """The full ruleset of PRESET (a preset name or a ruleset file)."""
    r = resolve_rules(preset, settings)
    if as_json:
        data = r.to_dict() | {"results": result_rows(r)}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(rules_text(r))


@click.command()
@click.argument("first")
@click.argument("second")
@with_rules
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compare(first: str, second: str, rules: Ruleset, as_json: bool) -> None:
    """Which of two results wins, and why (e.g. 421 compare 611 666)."""
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
    if cmp.winner is None:
        click.echo(f"{a} ties with {b} under {rules.name}: {cmp.reason}")
    else:
        loser = b if cmp.winner == a else a
        click.echo(f"{cmp.winner} beats {loser} under {rules.name}: {cmp.reason}")
    for x in dict.fromkeys((a, b)):
        label = rules.table.categories[x].label
        click.echo(f"  {x}  {label:<15} rank {rules.table.rank(x):>2} of 56, worth {rules.table.values[x]}")
