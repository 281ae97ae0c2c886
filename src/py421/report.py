"""``421 report``: an HTML page of plots and tables about the presets.

Exact numbers come from the solvers (the chance of each result, the chance to
beat each target, the heads-up duel, the solved two-player game); the rest
from the fast simulator (bot against bot, game lengths, the first player's
advantage between equal bots). Every simulated number says how many games
it rests on and its 95 % interval.
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .core.rules import Ruleset, description_message
from .i18n import error_text, num, points, tr
from .play.coach import decharge_passes
from .sim.fast.bot_tables import build_tables
from .sim.fast.policy import KINDS
from .sim.ladder import Pairing, Standing, standings
from .sim.simulate import BATCH, Simulation, Summary, new_pool, run, warm_up
from .solver.duel import solve_duel
from .solver.heads_up import game_outcome
from .solver.solutions import solve_cached
from .solver.solutions import solved as solved_game
from .solver.strategy import two_player_game
from .solver.tables import INDEX, KEEP_INDEX, TRANSITIONS
from .solver.turn import odds

LEVELS = tuple(KINDS)  # the bots the fast simulator plays: every match-up takes seconds
Step = Callable[[str], None]


@dataclass
class PresetFacts:
    rules: Ruleset
    matrix: dict[tuple[str, str], dict[str, Any]]  # (seat 0, seat 1) -> summary
    equal: dict[str, Any]  # heuristic against heuristic
    duel: float
    solved: dict[str, float] | None  # the solved game, if the solver covers it
    ladder: list[Standing]  # the bots rated by the match-ups' games, the best first


def report_steps(presets: Sequence[Ruleset]) -> int:
    """How many times :func:`build_report` calls ``step``: what a progress bar counts."""
    return sum(len(LEVELS) ** 2 + 2 * two_player_game(rules, 2) for rules in presets) + 2


def build_report(
    presets: Sequence[Ruleset],
    out: Path,
    games: int,
    seed: int,
    workers: int,
    step: Step | None = None,
    detail: Step | None = None,
    *,
    lang: str = "en",
) -> Path:
    """Write ``index.html`` and its PNG plots into ``out``, worded in ``lang``; returns the page's path.

    ``step`` is told each step as it starts (:func:`report_steps` of them), ``detail``
    how a long one goes.
    """
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    if step:
        step(tr(lang, "cli.sim.warm_up"))
    if presets:
        warm_up(presets[0], 2)  # compiled here once, not in every process of the pool
    with contextlib.ExitStack() as stack:
        # One set of processes for every match-up: starting them for each costs more than its games.
        pool = stack.enter_context(new_pool(workers)) if workers > 1 and games > BATCH else None
        facts = [_facts(rules, games, seed, workers, step, detail, pool, lang) for rules in presets]
    if step:
        step(tr(lang, "report.step.plots"))
    sections = [_preset_section(f, out, lang) for f in facts]
    summary = _summary_plots(facts, out, lang)
    page = out / "index.html"
    page.write_text(_page(facts, summary, sections, games, seed, lang), encoding="utf-8")
    (out / "report.json").write_text(json.dumps(_json(facts), indent=2), encoding="utf-8")
    return page


def _facts(
    rules: Ruleset,
    games: int,
    seed: int,
    workers: int,
    step: Step | None,
    detail: Step | None,
    pool: Executor | None,
    lang: str,
) -> PresetFacts:
    name = rules.name
    if two_player_game(rules, 2):
        if step:
            step(tr(lang, "report.step.optimal", rules=name))

        def solving(stage: str, n: int) -> None:
            if not detail:
                return
            most = decharge_passes(rules) if stage == "decharge" else 0
            if n <= most:  # the décharge, with the passes foretold (while it has not gone past them)
                detail(tr(lang, "report.detail.decharge.most", rules=name, n=n, most=most))
            else:
                detail(tr(lang, f"report.detail.{stage}", rules=name, n=n, pot=rules.pot))

        def building(done: int, total: int) -> None:
            if detail:
                detail(tr(lang, "report.detail.tables", rules=name, done=done, total=total))

        solve_cached(rules, solving)
        build_tables(rules, workers, building)
    matrix = {}
    for a in LEVELS:
        for b in LEVELS:
            if step:
                step(tr(lang, "report.step.match", rules=name, a=a, b=b))
            sim = Simulation(rules, (a, b), games, seed)
            matrix[(a, b)] = Summary(sim, run(sim, workers, pool=pool)).to_dict()
    equal = matrix[("heuristic", "heuristic")]
    ladder = standings(LEVELS, [_pairing(a, b, m) for (a, b), m in matrix.items() if a != b], seed)
    solved = None
    if two_player_game(rules, 2):
        if step:
            step(tr(lang, "report.step.solved", rules=name))
        outcome = game_outcome(rules, solved_game(rules).manche_loss())
        solved = {"first": outcome.lose[0], "other": outcome.lose[1], "shared": outcome.shared}
    return PresetFacts(rules, matrix, equal, solve_duel(rules).first_wins, solved, ladder)


def _pairing(first: str, second: str, summary: dict[str, Any]) -> Pairing:
    """A match-up's games as the ladder counts them: each seat's losses alone, and those shared."""
    shared = summary["outcomes"]["shared"]
    return Pairing(
        first, second, summary["seats"][0]["losses"] - shared, summary["seats"][1]["losses"] - shared, shared
    )


# -- plots ----------------------------------------------------------------------


def _figure(width: float = 8, height: float = 3.6) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height), dpi=110, layout="constrained")
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _numbers_in(lang: str, *axes: Any) -> None:
    """Write the ticks of axes that carry numbers with ``lang``'s decimals (0,5 in French); axes of
    names (the presets, the bots) keep matplotlib's own formatter, which names them."""
    from matplotlib.ticker import ScalarFormatter

    class DecimalComma(ScalarFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return super().__call__(x, pos).replace(".", ",")

    if lang == "fr":
        for axis in axes:
            axis.set_major_formatter(DecimalComma())


def _save(fig: Any, out: Path, name: str) -> str:
    import matplotlib.pyplot as plt

    fig.savefig(out / name)
    plt.close(fig)
    return name


def _preset_section(f: PresetFacts, out: Path, lang: str) -> dict[str, str]:
    rules = f.rules
    order = rules.table.order
    labels = [str(r) for r in order]
    slug = rules.name.replace(" ", "-")
    plots = {}

    fresh = TRANSITIONS[KEEP_INDEX[()]]
    fig, ax = _figure(10, 3.4)
    ax.bar(range(len(order)), [fresh[INDEX[r]] * 100 for r in order], color="#2f6f8f")
    ax.set_xticks(range(len(order)), labels, rotation=90, fontsize=7)
    ax.set_ylabel(tr(lang, "report.plot.results.y"))
    _numbers_in(lang, ax.yaxis)
    ax.set_title(tr(lang, "report.plot.results.title", rules=rules.name))
    plots["results"] = _save(fig, out, f"{slug}-results.png")

    fig, ax = _figure(10, 3.4)
    for throws, colour in ((1, "#9aa9b3"), (2, "#5b8fa8"), (3, "#1d4e68")):
        ax.plot(range(len(order)), [odds(rules.table, r, throws) * 100 for r in order], color=colour,
                label=tr(lang, "report.plot.throws" + ".many" * (throws > 1), n=throws))  # fmt: skip
    ax.set_xticks(range(len(order)), labels, rotation=90, fontsize=7)
    ax.set_ylabel(tr(lang, "report.plot.targets.y"))
    _numbers_in(lang, ax.yaxis)
    ax.set_title(tr(lang, "report.plot.targets.title"))
    ax.legend(frameon=False)
    plots["targets"] = _save(fig, out, f"{slug}-targets.png")

    levels = sorted({a for a, _ in f.matrix}, key=LEVELS.index)
    grid = np.array([[f.matrix[(a, b)]["seats"][0]["loss_rate"] * 100 for b in levels] for a in levels])
    fig, ax = _figure(4.6, 3.6)
    image = ax.imshow(grid, cmap="RdYlGn_r", vmin=0, vmax=100)
    ax.set_xticks(range(len(levels)), [f"bot:{b}" for b in levels])
    ax.set_yticks(range(len(levels)), [f"bot:{a}" for a in levels])
    ax.set_xlabel(tr(lang, "report.plot.matrix.x"))
    for i in range(len(levels)):
        for j in range(len(levels)):
            ax.text(j, i, f"{num(lang, grid[i, j], '.1f')} %", ha="center", va="center", fontsize=9)
    ax.set_title(tr(lang, "report.plot.matrix.title"))
    fig.colorbar(image, ax=ax, shrink=0.8)
    plots["matrix"] = _save(fig, out, f"{slug}-matrix.png")

    fig, ax = _figure(8, 3.2)
    rounds = f.equal["length"]["rounds"]["histogram"]
    ax.bar([int(x) for x in rounds], list(rounds.values()), color="#8f5b2f", width=1.0)
    ax.set_xlabel(tr(lang, "report.plot.length.x"))
    ax.set_ylabel(tr(lang, "report.plot.length.y"))
    _numbers_in(lang, ax.xaxis, ax.yaxis)
    plots["length"] = _save(fig, out, f"{slug}-length.png")
    return plots


def _summary_plots(facts: Sequence[PresetFacts], out: Path, lang: str) -> str:
    fig, ax = _figure(8, 3.4)
    names = [f.rules.name for f in facts]
    adv = [f.equal["first_player"]["advantage"] * 100 for f in facts]
    # the first leader's loss rate carries most of the uncertainty: half its interval
    errors = [(f.equal["first_player"]["ci95"][1] - f.equal["first_player"]["ci95"][0]) * 50 for f in facts]
    ax.bar(names, adv, yerr=errors, color="#2f6f8f", capsize=4)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel(tr(lang, "report.plot.first.y"))
    _numbers_in(lang, ax.yaxis)
    ax.set_title(tr(lang, "report.plot.first.title"))
    ax.tick_params(axis="x", rotation=20)
    return _save(fig, out, "first-player.png")


# -- the page -------------------------------------------------------------------


def _pct(lang: str, p: float | None, digits: int = 2) -> str:
    return "–" if p is None else f"{num(lang, p * 100, f'.{digits}f')} %"


def _page(facts: Sequence[PresetFacts], summary: str, sections: Sequence[dict[str, str]], games: int,
          seed: int, lang: str) -> str:  # fmt: skip
    e = html.escape

    def say(key: str, **fields: object) -> str:
        return html.escape(tr(lang, f"report.page.{key}", **fields), quote=False)

    rows = []
    for f in facts:
        t = f.rules.table
        best = " / ".join(_pct(lang, odds(t, t.order[1], n)) for n in (1, 2, 3))  # better than the runner-up
        solved = f.solved
        advantage = points(lang, f.equal["first_player"]["advantage"] * 100, "+.2f")
        rows.append(
            f"<tr><td>{e(f.rules.name)}</td><td>{say('best', result=t.order[0], odds=best)}</td>"
            f"<td>{_pct(lang, f.duel)}</td>"
            f"<td>{_pct(lang, solved['first']) if solved else say('not_solved')}</td>"
            f"<td>{_pct(lang, solved['other']) if solved else ''}</td>"
            f"<td>{e(advantage)}</td></tr>"
        )
    blocks = []
    for f, plots in zip(facts, sections, strict=True):
        name = e(f.rules.name)
        described = html.escape(error_text(lang, description_message(f.rules)), quote=False)

        def image(k: str, name: str = name, plots: dict[str, str] = plots) -> str:
            return f'<img src="{e(plots[k])}" alt="{name} {say("alt." + k)}">'

        ladder = "".join(
            f"<tr><td>{place}</td><td>bot:{e(s.level)}</td><td>{num(lang, s.mu, '.1f')} ± "
            f"{num(lang, s.sigma, '.1f')}</td><td>{num(lang, s.ordinal, '.1f')}</td>"
            f"<td>{num(lang, s.score, '.3f')}</td></tr>"
            for place, s in enumerate(f.ladder, start=1)
        )
        blocks.append(
            f"<section><h2>{name}</h2><p>{described}</p>"
            + "".join(image(k) for k in ("results", "targets"))
            + '<div class="pair">'
            + "".join(image(k) for k in ("matrix", "length"))
            + "</div>"
            + f'<table class="ladder"><caption>{say("ladder.caption")}</caption><tr>'
            + "".join(f"<th>{say('ladder.' + c)}</th>" for c in ("place", "bot", "rating", "least", "score"))
            + f"</tr>{ladder}</table></section>"
        )
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{say("title")}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1.5rem;
       color: #1f2a30;
       background: #fbfaf7; }}
h1 {{ margin-bottom: .2rem; }} h2 {{ border-bottom: 2px solid #2f6f8f; padding-bottom: .2rem; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
td, th {{ border: 1px solid #d5d8da; padding: .35rem .7rem; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
th {{ background: #e9eef1; }}
img {{ max-width: 100%; display: block; margin: .6rem 0; }}
.pair {{ display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }}
.pair img {{ max-width: 48%; }}
.note {{ color: #5a6770; font-size: .9rem; }}
</style></head><body>
<h1>{say("title")}</h1>
<p class="note">{say("note", games=num(lang, games, ","), seed=seed)}</p>
<table><tr><th>{say("col.preset")}</th><th>{say("col.best")}</th><th>{say("col.duel")}</th>
<th>{say("col.first")}</th><th>{say("col.other")}</th><th>{say("col.advantage")}</th></tr>
{"".join(rows)}</table>
<img src="{e(summary)}" alt="{say("summary_alt")}">
{"".join(blocks)}
</body></html>
"""


def _json(facts: Sequence[PresetFacts]) -> dict[str, Any]:
    return {
        f.rules.name: {
            "duel_first_wins": f.duel,
            "solved": f.solved,
            "matrix": {f"{a} vs {b}": m["seats"][0]["loss_rate"] for (a, b), m in f.matrix.items()},
            "first_player_advantage": f.equal["first_player"]["advantage"],
            "ladder": [asdict(s) for s in f.ladder],
        }
        for f in facts
    }
