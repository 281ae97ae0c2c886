"""Solver timings: a full two-player game solve, and one piece of advice.

Run: .venv/bin/python benchmarks/solver_speed.py
     [--large-rounds | --game-maxn N [--preset P] [--games G] | --refused N --preset P [--sweeps K]
      | --heads-up-game
      | --game-rounds [--must-throw-on] [--preset P] [--players N] [--by-pot]]
Targets: the classic-11 game solve under 60 s and `advise` under 50 ms on 2 cores.
``--large-rounds`` only measures rounds of 4 to 8 players (time and peak memory), each in
a process of its own: what sets the round solver's limit of eight players.
``--game-maxn N`` only measures a whole game of N players (classic-11, or ``--preset P``) solved
by max^n at the game level (time, peak memory, the solver's progress): targets under 10 minutes
for three players and under 60 for four. The solve is kept in the data folder, then played by the
fast simulator (G games a lineup, 60,000 unless said): bot:optimal in every seat against what the
solver says (within 4 standard errors), against the heuristic bot, and against the optimal bot
playing round by round as it did before.
``--refused N --preset P`` only measures the first K décharge sweeps (3 unless ``--sweeps K``) of a
whole game the solver refuses for N players (its limits on players and positions lifted): the time
and peak memory at each, and how far from settling, to tell how long the whole solve would take.
``--heads-up-game`` only measures two-player games whose manches carry over (« queue de la vache »,
l'Espagnole losing the game), solved manche by manche.
``--game-rounds`` only measures single rounds of a whole game's manche (``game_maxn.round_at``,
against random values, strategies and classes kept as a sweep keeps them): a charge round of
lyonnaise-21 (or ``--preset P``) at the full pot, its stakes accumulating (median of five), charge
rounds drawn at random among the manche's (mean of 150, the same every run: what a sweep of the
charge costs, most positions holding a small pot; then the same solved side by side, as a charge
level's rounds are), and décharge rounds with every player still in
(mean of forty; then as a pass of the measure of deviating solves them, with each seat's best
response: ``deviation._round``), at three and four players (or ``--players N``); with
``--must-throw-on``, players behind must throw on (the staked turns then merge fewer summaries,
and weigh « le bon »). With ``--by-pot``, the CPU time of a charge round at a few pots left (the
mean of 20 rounds each, one thread), split into the followers' turns and where they end
(``game_maxn_stakes.follower`` and ``advance``), with the count of the manche's charge positions at
each pot: where a whole solve's charge spends its time.
"""

from __future__ import annotations

import functools
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np

from py421.core.dice import Result
from py421.core.rules import Ruleset, preset_names
from py421.sim.fast.policy import ROUNDS_LEVEL
from py421.sim.simulate import Simulation, Summary, run
from py421.solver import deviation
from py421.solver import game_maxn as maxn
from py421.solver.exact_turn import advise
from py421.solver.game_maxn import GameMaxn, Sweep
from py421.solver.game_maxn_turns import THREADS_VARIABLE, side_by_side
from py421.solver.heads_up import HeadsUp, unsupported
from py421.solver.heads_up_game import HeadsUpGame
from py421.solver.rounds import solve_round
from py421.solver.solutions import store_maxn as store


def large_round(players: int) -> None:
    """One classic-11 round of ``players``, both phases: its time and this process's peak memory."""
    rules = Ruleset.preset("classic-11")
    start = time.perf_counter()
    for charge in (True, False):
        solve_round(rules, players, charge, "tokens", None)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  {players} players: {took:6.2f} s, peak {peak:,.0f} MB", flush=True)


def large_rounds() -> None:
    print("a classic-11 round by max^n, charge and décharge, in a fresh process each:")
    for players in (4, 5, 6, 7, 8):
        here = "import sys; sys.path.insert(0, 'benchmarks'); import solver_speed"
        subprocess.run([sys.executable, "-c", f"{here}; solver_speed.large_round({players})"], check=True)


def game_maxn(players: int, preset: str = "classic-11", games: int = 60_000) -> None:
    """A whole game solved by max^n at the game level: time, peak memory, what it found, how it plays."""
    rules = Ruleset.preset(preset)
    print(f"{preset}, {players} players, the whole game by max^n (solver/game_maxn.py):", flush=True)
    start = time.perf_counter()
    game = GameMaxn(rules, players)
    charge, decharge = game.model.counts()
    print(f"  positions of a manche: {charge} in the charge, {decharge} in the décharge", flush=True)

    def progress(stage: str, step: int, total: int, sweep: Sweep | None = None, /) -> None:
        if stage == "charge" and step < total:
            return  # the charge's pot levels take a moment: its end is enough
        of = f" of {total}" if total else ""
        change = f", change {sweep.change:.1e}, about {sweep.left} left" if sweep and sweep.left else ""
        print(f"    {stage} {step}{of}{change} ({time.perf_counter() - start:.0f} s)", flush=True)

    game.solve(progress)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    summary = game.summary()
    print(f"  solved in {took:.1f} s, peak {peak:,.0f} MB; manches solved: {len(game.manches)}")
    print(f"  décharge sweeps per manche: {summary['sweeps']}")
    lose = " / ".join(f"{p:.4%}" for p in summary["lose_by_position"])
    print(f"  P(among the losers) from the first round's leader on: {lose}; shared {summary['shared']:.4%}")
    print(f"  largest gap to the exact values of the policies {summary['linear_gap']:.1e}, ", end="")
    print(f"one more pass moves a value by {summary['residual']:.1e}; settled: {summary['converged']}")
    if summary["exploitability"] is not None:  # measured where it did not settle
        print(
            f"  a player deviating alone gains at most {summary['exploitability']:.1e} from the start, "
            f"{summary['gain_anywhere']:.1e} from any position (solver/deviation.py)"
        )
    print(f"  kept in {store(game)} (421 solve and bot:optimal read it)", flush=True)
    game_play(rules, players, summary, games)


class _Enough(Exception):
    """Raised by the progress of :func:`refused` once its sweeps are done."""


def refused(players: int, preset: str, sweeps: int) -> None:
    """The first décharge sweeps of a whole game beyond the solver's limits (see the docstring)."""
    maxn.MOST_COUNTED = maxn.MOST_STAKED = maxn.MOST_PLAYERS = max(players, maxn.MOST_PLAYERS)
    maxn.MOST_DECHARGE[players] = 1 << 40
    rules = Ruleset.preset(preset)
    start = time.perf_counter()
    game = GameMaxn(rules, players)
    built = time.perf_counter() - start
    print(f"{preset}, {players} players, beyond the solver's limits: model built in {built:.0f} s")

    def progress(stage: str, step: int, total: int, sweep: Sweep | None = None, /) -> None:
        if stage != "decharge" or sweep is None:
            return
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"  décharge sweep {step}: {time.perf_counter() - start:.0f} s, peak {peak:,.0f} MB, "
            f"largest change {sweep.change:.1e}",
            flush=True,
        )
        if step >= sweeps:
            raise _Enough

    try:
        game.solve(progress)
    except _Enough:
        return


def game_play(rules: Ruleset, players: int, summary: dict[str, Any], games: int) -> None:
    """The solved game played by the fast simulator: against itself, the heuristic bot and round-level play.

    First seats rotate, so each seat's chance of being among the losers is the
    mean over the places from the first leader.
    """
    print(f"  {games:,} games each in the fast simulator (first seats rotating), 95 % intervals:")
    others = players - 1
    lineups = [
        ("optimal",) * players,
        ("optimal",) + ("heuristic",) * others,
        (ROUNDS_LEVEL,) + ("heuristic",) * others,
        ("optimal",) + (ROUNDS_LEVEL,) * others,
    ]
    expected = statistics.fmean(summary["lose_by_position"])
    for levels in lineups:
        start = time.perf_counter()
        sim = Simulation(rules, levels, games, seed=0)
        seats = Summary(sim, run(sim, workers=1)).to_dict()["seats"]  # one process builds the tables once
        names = ", ".join(f"bot:{level}" for level in levels)
        rates = "; ".join(f"{s['loss_rate']:.2%} ({s['ci95'][0]:.2%}-{s['ci95'][1]:.2%})" for s in seats)
        print(f"    {names}: among the losers {rates} [{time.perf_counter() - start:.1f} s]", flush=True)
        if levels == ("optimal",) * players:
            error = (expected * (1 - expected) / games) ** 0.5
            worst = max(abs(s["loss_rate"] - expected) for s in seats)
            print(
                f"      the solver says {expected:.2%} each: the furthest seat is {worst / error:.1f} SE away"
            )


def heads_up_games() -> None:
    """Two players where manches carry over: the manche played for itself, then each manche's charge
    played for the game (``--heads-up-game`` runs only this)."""
    print("two-player game solve where manches carry over (heads_up_game), peak memory so far:")
    variants: list[tuple[str, dict[str, Any]]] = [
        ("classic-11", {"espagnole": "loses_game"}),
        ("vache-41", {"queue_de_la_vache": True}),
    ]
    for name, options in variants:
        rules = Ruleset.preset(name).with_options(**options)
        start = time.perf_counter()
        game = HeadsUpGame(rules).solve()
        took = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        said = ", ".join(f"{k}={v}" for k, v in options.items())
        lose = game.outcome().lose
        print(
            f"  {name} {said}: {took:.2f} s, peak {peak:,.0f} MB ({1 + len(game.manches)} manches solved; "
            f"lose {lose[0]:.4%} / {lose[1]:.4%})",
            flush=True,
        )


def _charge_round(manche: maxn.Manche, values: np.ndarray, p: int) -> maxn.RoundPlay:
    return maxn.round_at(manche, p, values, keep=True)


def _manche(throw_on: bool, preset: str, players: int) -> tuple[Ruleset, maxn.Manche, np.ndarray]:
    """The preset's rules (players behind must throw on, or not), a manche of ``players`` and random
    values of its positions and ends: what the round benchmarks solve against."""
    rules = Ruleset.preset(preset).with_options(must_throw_on=throw_on)
    manche = maxn.Manche(rules, players)
    return rules, manche, np.random.default_rng(0).random((len(manche.positions) + 2 * players, players))


def game_rounds(throw_on: bool, preset: str, counts: list[int]) -> None:
    """Rounds of a whole game's manche, as its sweeps solve them (see the module's docstring)."""
    said = " (must_throw_on=true)" if throw_on else ""
    print(f"{preset}{said}, one round of a manche by max^n (game_maxn.round_at, random values):")
    for players in counts:
        rules, manche, values = _manche(throw_on, preset, players)
        charge = [p for p, pos in enumerate(manche.positions) if pos.charge]
        full = next(p for p in charge if manche.positions[p].pot == rules.pot)
        drawn = np.random.default_rng(1).choice(charge, min(150, len(charge)), replace=False).tolist()
        decharge = [p for p, pos in enumerate(manche.positions) if not pos.charge and all(pos.active)][:40]
        maxn.round_at(manche, full, values, keep=True)  # compiled and cached beforehand
        maxn.round_at(manche, decharge[0], values, keep=True)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            maxn.round_at(manche, full, values, keep=True)
            times.append(time.perf_counter() - start)
        means = []
        for positions in (drawn, decharge):
            start = time.perf_counter()
            for p in positions:
                maxn.round_at(manche, p, values, keep=True)
            means.append((time.perf_counter() - start) / len(positions))
        start = time.perf_counter()  # as a charge level's rounds are solved, where they only lead down
        list(side_by_side(functools.partial(_charge_round, manche, values), drawn))
        side = (time.perf_counter() - start) / len(drawn)
        start = time.perf_counter()  # as a pass of the measure of deviating solves them: every seat's best
        for p in decharge:
            deviation._round(manche, p, values, values)
        responded = (time.perf_counter() - start) / len(decharge)
        print(
            f"  {players} players: a charge round at the full pot {statistics.median(times):.3f} s, "
            f"one drawn at random {means[0]:.3f} s ({side:.3f} s side by side), "
            f"a décharge round {means[1]:.3f} s ({responded:.3f} s with each seat's best response)",
            flush=True,
        )


def rounds_by_pot(throw_on: bool, preset: str, players: int) -> None:
    """The CPU time of a charge round by the pot left, and of its two costliest parts."""
    from py421.solver import game_maxn_stakes as stakes

    rules, manche, values = _manche(throw_on, preset, players)
    by_pot: dict[int, list[int]] = {}
    for p, pos in enumerate(manche.positions):
        if pos.charge:
            by_pot.setdefault(pos.pot, []).append(p)
    spent = {"follower": 0.0, "advance": 0.0}

    def timed(name: str, part: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return part(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start

        return run

    stakes.follower = timed("follower", stakes.follower)
    stakes.advance = timed("advance", stakes.advance)
    said = " (must_throw_on=true)" if throw_on else ""
    print(f"{rules.name}{said}, {players} players, a charge round by the pot left (CPU, one thread):")
    for pot in sorted({2, 5, 10, 20, rules.pot} & set(by_pot)):
        positions = by_pot[pot][:20]
        maxn.round_at(manche, positions[0], values, keep=True)  # compiled beforehand
        spent.update(follower=0.0, advance=0.0)
        start = time.process_time()
        for p in positions:
            maxn.round_at(manche, p, values, keep=True)
        each = (time.process_time() - start) / len(positions) * 1000
        turns, ends = (spent[k] / len(positions) * 1000 for k in ("follower", "advance"))
        print(
            f"  pot {pot:2}: {each:5.1f} ms a round ({turns:5.1f} ms the followers' turns, {ends:4.1f} ms "
            f"where they end); {len(by_pot[pot]):,} positions",
            flush=True,
        )
    print(f"  charge positions by pot left: {dict(sorted((k, len(v)) for k, v in by_pot.items()))}")


def main() -> None:
    if "--game-rounds" in sys.argv:
        preset = sys.argv[sys.argv.index("--preset") + 1] if "--preset" in sys.argv else "lyonnaise-21"
        counts = [int(sys.argv[sys.argv.index("--players") + 1])] if "--players" in sys.argv else [3, 4]
        if "--by-pot" in sys.argv:
            os.environ[THREADS_VARIABLE] = "1"  # read each time the cores are shared
            rounds_by_pot("--must-throw-on" in sys.argv, preset, counts[0])
        else:
            game_rounds("--must-throw-on" in sys.argv, preset, counts)
        return
    if "--heads-up-game" in sys.argv:
        heads_up_games()
        return
    if "--large-rounds" in sys.argv:
        large_rounds()
        return
    if "--refused" in sys.argv:
        sweeps = int(sys.argv[sys.argv.index("--sweeps") + 1]) if "--sweeps" in sys.argv else 3
        refused(
            int(sys.argv[sys.argv.index("--refused") + 1]), sys.argv[sys.argv.index("--preset") + 1], sweeps
        )
        return
    if "--game-maxn" in sys.argv:
        preset = sys.argv[sys.argv.index("--preset") + 1] if "--preset" in sys.argv else "classic-11"
        games = int(sys.argv[sys.argv.index("--games") + 1]) if "--games" in sys.argv else 60_000
        game_maxn(int(sys.argv[sys.argv.index("--game-maxn") + 1]), preset, games)
        return
    print("two-player game solve (decharge value iteration + charge):")
    for name in preset_names():
        rules = Ruleset.preset(name)
        if unsupported(rules):
            print(f"  {name:<13} not solved yet: {unsupported(rules)}")
            continue
        start = time.perf_counter()
        solver = HeadsUp(rules).solve()
        took = time.perf_counter() - start
        print(f"  {name:<13} {took:7.2f} s  ({solver.iterations} décharge sweeps)")

    print("two-player game solve, options no preset combines:")
    variants: list[tuple[str, dict[str, Any]]] = [
        ("engranjeu-21", {"initial_tokens": 5, "nenette_penalty": 2}),
        ("vache-41", {"tie_break": "qui_barre_demarre", "nenette_penalty": 4}),
    ]
    for name, options in variants:
        rules = Ruleset.preset(name).with_options(**options)
        start = time.perf_counter()
        solver = HeadsUp(rules).solve()
        took = time.perf_counter() - start
        said = ", ".join(f"{k}={v}" for k, v in options.items())
        print(f"  {name} {said}: {took:.2f} s  ({solver.iterations} décharge sweeps)")

    heads_up_games()

    print("a round solved by max^n (tokens objective), every position:")
    for name in ("classic-11", "engranjeu-21"):
        rules = Ruleset.preset(name)
        for players in (3, 4):
            for charge in (True, False):
                start = time.perf_counter()
                solve_round.__wrapped__(rules, players, charge, "tokens", None)
                took = time.perf_counter() - start
                phase = "charge" if charge else "décharge"
                print(f"  {name:<13} {players} players, {phase:<9} {took:6.2f} s")

    table = Ruleset.preset("classic-11").table
    hands = [Result.parse(h) for h in ("642", "611", "553", "321", "665")]
    start = time.perf_counter()
    advise(table, hands[0], 2, Result.parse("654"))
    print(f"advise, first call (solves the turn): {(time.perf_counter() - start) * 1000:.2f} ms")
    times = []
    for hand in hands * 20:
        start = time.perf_counter()
        advise(table, hand, 2, Result.parse("653"))
        times.append(time.perf_counter() - start)
    print(f"advise (in process, after the first): median {statistics.median(times) * 1000:.2f} ms")

    runs = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "py421", "advise", "642", "--throws-left", "2", "--target", "653"],
            check=True,
            capture_output=True,
        )
        runs.append(time.perf_counter() - start)
    median = statistics.median(runs) * 1000
    print(f"421 advise (the whole command, Python start-up included): median {median:.0f} ms")


if __name__ == "__main__":
    main()
