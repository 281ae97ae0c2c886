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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .core.rules import Ruleset
from .players.optimal import whole_game
from .sim.fast.bot_tables import build_tables
from .sim.simulate import BATCH, Simulation, Summary, new_pool, run, warm_up
from .solver.duel import solve_duel
from .solver.heads_up import game_outcome
from .solver.solutions import solve_cached
from .solver.solutions import solved as solved_game
from .solver.tables import INDEX, KEEP_INDEX, TRANSITIONS
from .solver.turn import odds

LEVELS = ("random", "heuristic", "optimal")
Step = Callable[[str], None]


@dataclass
class PresetFacts:
    rules: Ruleset
    matrix: dict[tuple[str, str], dict[str, Any]]  # (seat 0, seat 1) -> summary
    equal: dict[str, Any]  # heuristic against heuristic
    duel: float
    solved: dict[str, float] | None  # the solved game, if the solver covers it


def report_steps(presets: Sequence[Ruleset]) -> int:
    """How many times :func:`build_report` calls ``step``: what a progress bar counts."""
    return sum(len(LEVELS) ** 2 + 2 * whole_game(rules, 2) for rules in presets) + 2


def build_report(
    presets: Sequence[Ruleset],
    out: Path,
    games: int,
    seed: int,
    workers: int,
    step: Step | None = None,
    detail: Step | None = None,
) -> Path:
    """Write ``index.html`` and its PNG plots into ``out``; returns the page's path.

    ``step`` is told each step as it starts (:func:`report_steps` of them), ``detail``
    how a long one goes.
    """
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    if step:
        step("preparing the simulator (compiled once per machine)")
    if presets:
        warm_up(presets[0], 2)  # compiled here once, not in every process of the pool
    with contextlib.ExitStack() as stack:
        # One set of processes for every match-up: starting them for each costs more than its games.
        pool = stack.enter_context(new_pool(workers)) if workers > 1 and games > BATCH else None
        facts = [_facts(rules, games, seed, workers, step, detail, pool) for rules in presets]
    if step:
        step("drawing the plots")
    sections = [_preset_section(f, out) for f in facts]
    summary = _summary_plots(facts, out)
    page = out / "index.html"
    page.write_text(_page(facts, summary, sections, games, seed), encoding="utf-8")
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
) -> PresetFacts:
    if whole_game(rules, 2):
        said = f"{rules.name}: the optimal bot (solved and built once per machine)"
        if step:
            step(said)

        def solving(stage: str, n: int) -> None:
            if detail:
                where = f"pot {n} of {rules.pot}" if stage == "charge" else f"pass {n}"
                detail(f"{rules.name}: solving the two-player game, {stage} {where} (once per machine)")

        def building(done: int, total: int) -> None:
            if detail:
                detail(f"{rules.name}: the optimal bot's tables {done}/{total} (once per machine)")

        solve_cached(rules, solving)
        build_tables(rules, workers, building)
    matrix = {}
    for a in LEVELS:
        for b in LEVELS:
            if step:
                step(f"{rules.name}: bot:{a} against bot:{b}")
            sim = Simulation(rules, (a, b), games, seed)
            matrix[(a, b)] = Summary(sim, run(sim, workers, pool=pool)).to_dict()
    equal = matrix[("heuristic", "heuristic")]
    solved = None
    if whole_game(rules, 2):
        if step:
            step(f"{rules.name}: the solved two-player game and the duel")
        outcome = game_outcome(rules, solved_game(rules).manche_loss())
        solved = {"first": outcome.lose[0], "other": outcome.lose[1], "shared": outcome.shared}
    return PresetFacts(rules, matrix, equal, solve_duel(rules).first_wins, solved)


# -- plots ----------------------------------------------------------------------


def _figure(width: float = 8, height: float = 3.6) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height), dpi=110, layout="constrained")
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _save(fig: Any, out: Path, name: str) -> str:
    import matplotlib.pyplot as plt

    fig.savefig(out / name)
    plt.close(fig)
    return name


def _preset_section(f: PresetFacts, out: Path) -> dict[str, str]:
    rules = f.rules
    order = rules.table.order
    labels = [str(r) for r in order]
    slug = rules.name.replace(" ", "-")
    plots = {}

    fresh = TRANSITIONS[KEEP_INDEX[()]]
    fig, ax = _figure(10, 3.4)
    ax.bar(range(len(order)), [fresh[INDEX[r]] * 100 for r in order], color="#2f6f8f")
    ax.set_xticks(range(len(order)), labels, rotation=90, fontsize=7)
    ax.set_ylabel("% of throws")
    ax.set_title(f"{rules.name}: chance of each result in one throw of three dice (strongest first)")
    plots["results"] = _save(fig, out, f"{slug}-results.png")

    fig, ax = _figure(10, 3.4)
    for throws, colour in ((1, "#9aa9b3"), (2, "#5b8fa8"), (3, "#1d4e68")):
        ax.plot(range(len(order)), [odds(rules.table, r, throws) * 100 for r in order], color=colour,
                label=f"{throws} throw{'s' * (throws > 1)}")  # fmt: skip
    ax.set_xticks(range(len(order)), labels, rotation=90, fontsize=7)
    ax.set_ylabel("% chance")
    ax.set_title("chance to finish strictly better than each target, keeping optimally")
    ax.legend(frameon=False)
    plots["targets"] = _save(fig, out, f"{slug}-targets.png")

    levels = sorted({a for a, _ in f.matrix}, key=LEVELS.index)
    grid = np.array([[f.matrix[(a, b)]["seats"][0]["loss_rate"] * 100 for b in levels] for a in levels])
    fig, ax = _figure(4.6, 3.6)
    image = ax.imshow(grid, cmap="RdYlGn_r", vmin=0, vmax=100)
    ax.set_xticks(range(len(levels)), [f"bot:{b}" for b in levels])
    ax.set_yticks(range(len(levels)), [f"bot:{a}" for a in levels])
    ax.set_xlabel("against")
    for i in range(len(levels)):
        for j in range(len(levels)):
            ax.text(j, i, f"{grid[i, j]:.1f} %", ha="center", va="center", fontsize=9)
    ax.set_title("% of games lost, heads-up")
    fig.colorbar(image, ax=ax, shrink=0.8)
    plots["matrix"] = _save(fig, out, f"{slug}-matrix.png")

    fig, ax = _figure(8, 3.2)
    rounds = f.equal["length"]["rounds"]["histogram"]
    ax.bar([int(x) for x in rounds], list(rounds.values()), color="#8f5b2f", width=1.0)
    ax.set_xlabel("rounds in a game (bot:heuristic against bot:heuristic)")
    ax.set_ylabel("games")
    plots["length"] = _save(fig, out, f"{slug}-length.png")
    return plots


def _summary_plots(facts: Sequence[PresetFacts], out: Path) -> str:
    fig, ax = _figure(8, 3.4)
    names = [f.rules.name for f in facts]
    adv = [f.equal["first_player"]["advantage"] * 100 for f in facts]
    # the first leader's loss rate carries most of the uncertainty: half its interval
    errors = [(f.equal["first_player"]["ci95"][1] - f.equal["first_player"]["ci95"][0]) * 50 for f in facts]
    ax.bar(names, adv, yerr=errors, color="#2f6f8f", capsize=4)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("percentage points")
    ax.set_title("first player's advantage, bot:heuristic against bot:heuristic (95 % interval)")
    ax.tick_params(axis="x", rotation=20)
    return _save(fig, out, "first-player.png")


# -- the page -------------------------------------------------------------------


def _pct(p: float | None, digits: int = 2) -> str:
    return "–" if p is None else f"{p * 100:.{digits}f} %"


def _page(facts: Sequence[PresetFacts], summary: str, sections: Sequence[dict[str, str]], games: int,
          seed: int) -> str:  # fmt: skip
    e = html.escape
    rows = []
    for f in facts:
        t = f.rules.table
        best = " / ".join(_pct(odds(t, t.order[1], n)) for n in (1, 2, 3))  # better than the runner-up
        solved = f.solved
        rows.append(
            f"<tr><td>{e(f.rules.name)}</td><td>{e(str(t.order[0]))}: {best}</td><td>{_pct(f.duel)}</td>"
            f"<td>{_pct(solved['first']) if solved else 'not solved'}</td>"
            f"<td>{_pct(solved['other']) if solved else ''}</td>"
            f"<td>{f.equal['first_player']['advantage'] * 100:+.2f} points</td></tr>"
        )
    blocks = []
    for f, plots in zip(facts, sections, strict=True):
        blocks.append(
            f"<section><h2>{e(f.rules.name)}</h2><p>{e(f.rules.description)}</p>"
            + "".join(
                f'<img src="{e(plots[k])}" alt="{e(f.rules.name)} {k}">' for k in ("results", "targets")
            )
            + '<div class="pair">'
            + "".join(f'<img src="{e(plots[k])}" alt="{e(f.rules.name)} {k}">' for k in ("matrix", "length"))
            + "</div></section>"
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>421: what the numbers say</title>
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
<h1>421: what the numbers say</h1>
<p class="note">Exact values from py421's solvers; simulated values from {games:,} games per match-up
(seed {seed}), seats taking turns to lead first.</p>
<table><tr><th>preset</th><th>the best result within 1 / 2 / 3 throws</th><th>duel: first player wins</th>
<th>solved: first leader loses</th><th>solved: other loses</th><th>simulated first-player advantage</th></tr>
{"".join(rows)}</table>
<img src="{e(summary)}" alt="first player's advantage per preset">
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
        }
        for f in facts
    }
