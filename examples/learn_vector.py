"""Learning to beat bot:heuristic at two-player 421, on the vector environment.

Tabular Q-learning with numpy alone: thousands of games of ``VectorGameEnv``
are stepped at once against bot:heuristic, and every decision of the learning
seat updates a table of action values. The table's rows are the positions
that matter to a decision, read from the observation: the phase, the pot,
the seat's tokens, whether it leads, its dice, the throws used and allowed,
and the result it must beat. Manches are left out: in two-player
``classic-11`` every manche is worth the same (half a game), so a manche is
learned as an episode whose cost is losing it, with the tokens held as
shaping (the environment's ``tokens`` reward, read off the observations).

The run prints its progress, saves the table (``policy.npz``) and a policy
file py421 seats at a table (``bot:policy:PATH``), the learning curve (``curve.csv``,
``learning-curve.png``) and ends with an evaluation against bot:heuristic and
bot:optimal (``evaluation.json``):

    python examples/learn_vector.py --minutes 30 --out runs/classic-11
    python examples/learn_vector.py --policy runs/classic-11/policy.npz --out runs/again   # evaluate only
    421 play --players Ana,bot:policy:runs/classic-11/policy.npz                         # play against it

Needs the ``sim``, ``rl`` and ``report`` extras (numba, Gymnasium, matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from py421.core.actions import Action
from py421.core.combos import Category
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.envs.features import ACTIONS, PLAYERS, Features, kept_dice
from py421.envs.observation import gym_mask, gym_move
from py421.envs.saved_policy import greedy, load_saved_policy, save_table
from py421.envs.vector import VectorGameEnv, random_actions
from py421.players import make_bot
from py421.players.base import Player
from py421.players.heuristic import GOOD_RANK, HeuristicBot
from py421.sim.fast import kernel as k
from py421.sim.fast.counter_dice import batch_key
from py421.sim.loop import play_out
from py421.sim.simulate import CounterDice, Simulation, run
from py421.solver.tables import RESULTS

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
# A policy for a batch of games: observations (N, size) and legal-action masks (N, 8) to actions (N,).
Policy = Callable[[FloatArray, BoolArray], IntArray]
Z95 = 1.959964


# -- the table of action values ----------------------------------------------------


class QTable:
    """Action values by position key, rows added as new positions are met."""

    def __init__(self, rows: int = 1 << 16) -> None:
        self.sorted_keys = np.empty(0, dtype=np.int64)
        self.sorted_rows = np.empty(0, dtype=np.int64)
        self.q = np.zeros((rows, ACTIONS), dtype=np.float64)
        self.visits = np.zeros((rows, ACTIONS), dtype=np.int64)
        self.size = 0

    def find(self, keys: IntArray) -> IntArray:
        """The row of each key, -1 for a key never met."""
        if self.size == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), self.size - 1)
        return np.where(self.sorted_keys[at] == keys, self.sorted_rows[at], -1)

    def rows(self, keys: IntArray) -> IntArray:
        """The row of each key, new keys added."""
        found = self.find(keys)
        missing = found < 0
        if missing.any():
            new = np.unique(keys[missing])
            self._grow(self.size + len(new))
            order = np.argsort(np.concatenate([self.sorted_keys, new]), kind="stable")
            self.sorted_keys = np.concatenate([self.sorted_keys, new])[order]
            rows = np.arange(self.size, self.size + len(new), dtype=np.int64)
            self.sorted_rows = np.concatenate([self.sorted_rows, rows])[order]
            self.size += len(new)
            found = self.find(keys)
        return found

    def _grow(self, size: int) -> None:
        if size > len(self.q):
            rows = max(size, 2 * len(self.q))
            self.q = np.concatenate([self.q, np.zeros((rows - len(self.q), ACTIONS))])
            self.visits = np.concatenate(
                [self.visits, np.zeros((rows - len(self.visits), ACTIONS), np.int64)]
            )

    def best(self, rows: IntArray, allowed: BoolArray) -> tuple[IntArray, npt.NDArray[np.float64]]:
        """The greedy action among ``allowed`` and its value (rows -1: the first allowed, value 0)."""
        values = np.where(allowed, self.q[np.maximum(rows, 0)], -np.inf)
        values[rows < 0] = np.where(allowed[rows < 0], 0.0, -np.inf)
        action = np.argmax(values, axis=1)
        value = values[np.arange(len(rows)), action]
        return action.astype(np.int64), np.where(np.isfinite(value), value, 0.0)

    def update(
        self, rows: IntArray, actions: IntArray, targets: npt.NDArray[np.float64], power: float
    ) -> None:
        """Move each value towards the mean of its targets, by a step of 1 / visits ** power per target."""
        cell = rows * ACTIONS + actions
        cells, inverse, count = np.unique(cell, return_inverse=True, return_counts=True)
        mean = np.bincount(inverse, weights=targets) / count
        q, visits = self.q.reshape(-1), self.visits.reshape(-1)
        visits[cells] += count
        step = np.minimum(1.0, count / visits[cells].astype(np.float64) ** power)
        q[cells] += step * (mean - q[cells])

    def save(self, path: Path, rules: Ruleset, about: dict[str, Any]) -> None:
        """The table as a policy file py421 seats (``bot:policy:PATH``, :mod:`py421.envs.saved_policy`)."""
        keys = np.empty(self.size, dtype=np.int64)
        keys[self.sorted_rows] = self.sorted_keys
        save_table(path, keys, self.q[: self.size], self.visits[: self.size], rules, about)

    @classmethod
    def load(cls, path: Path) -> tuple[QTable, dict[str, Any]]:
        """The table this script saved; a network (``export_policy``'s) is refused, saying so."""
        saved = load_saved_policy(path)
        if saved.kind != "table":
            raise ValueError(
                f"{path} is a {saved.kind}; --policy takes a table saved by this script (its policy.npz). "
                f"Evaluate a network as a bot: 421 simulate --players bot:policy:{path},bot:heuristic"
            )
        keys = saved.arrays["keys"]
        table = cls(max(1, len(keys)))
        table.sorted_rows = np.argsort(keys, kind="stable")
        table.sorted_keys = keys[table.sorted_rows]
        table.size = len(keys)
        table.q[: table.size] = saved.arrays["q"]
        table.visits[: table.size] = saved.arrays["visits"]
        return table, saved.meta


# -- policies -----------------------------------------------------------------------


@dataclass
class Seen:
    """How many decisions a policy took, and how many in positions its table never met."""

    decisions: int = 0
    unseen: int = 0


def greedy_policy(features: Features, table: QTable, seen: Seen | None = None) -> Policy:
    """The table's best move in each position among those tried in training; a position never met stops."""

    def policy(obs: FloatArray, masks: BoolArray) -> IntArray:
        rows = table.find(features.keys(obs))
        if seen is not None:
            seen.decisions += len(rows)
            seen.unseen += int((rows < 0).sum())
        return greedy(rows, features.choices(obs, masks), table.q, table.visits)

    return policy


def heuristic_policy(features: Features) -> Policy:
    """bot:heuristic's play (``py421.players.HeuristicBot``) read from observations, as a policy.

    It stops on 421 or 111; as leader, on a result of rank ``GOOD_RANK`` or better; after the
    other seat, as soon as it beats its result; else it rethrows what ``HeuristicBot.keep`` leaves.
    """
    table = features.rules.table
    always = np.array([table.categories[r] in (Category.FOUR_TWO_ONE, Category.TRIPLE_ACE) for r in RESULTS])
    leads = np.array([table.rank(r) <= GOOD_RANK for r in RESULTS])
    beats = np.array([[table.beats(a, b) for b in RESULTS] for a in RESULTS])
    keep = np.array(
        [
            min(i for i in range(1, ACTIONS) if kept_dice(r.dice, i) == HeuristicBot.keep(r.dice))
            for r in RESULTS
        ],
    )

    def policy(obs: FloatArray, masks: BoolArray) -> IntArray:
        r = np.maximum(features.result(obs), 0)
        other = features.to_beat(obs)
        stop = always[r] | np.where(other >= 0, beats[r, np.maximum(other, 0)], leads[r])
        stop |= features.column(obs, "stake_choice") == 1  # « pour ce qui est »
        return np.where(stop, 0, keep[r]).astype(np.int64)

    return policy


# -- training -----------------------------------------------------------------------


@dataclass
class Settings:
    rules: str = "classic-11"
    opponent: str = "heuristic"
    envs: int = 4096
    seed: int = 0
    epsilon: tuple[float, float] = (0.3, 0.02)  # exploration at the start and from 60 % of the budget on
    power: float = 0.7  # step size 1 / visits ** power
    curve_games: int = 16_384  # games of each point of the learning curve (half in each seat)
    curve_every: float = 60.0  # seconds between points
    curve_every_steps: int = 1000  # steps between points, with a budget in steps


@dataclass
class Point:
    """One point of the learning curve."""

    seconds: float
    decisions: int
    positions: int
    epsilon: float
    training_rate: float  # not-lost rate of the games finished since the last point (exploring)
    rate: float  # the greedy policy's not-lost rate against the opponent (curve_games games)
    low: float
    high: float


@dataclass
class Training:
    table: QTable
    curve: list[Point] = field(default_factory=list)
    decisions: int = 0
    seconds: float = 0.0


def game_scores(features: Features, final: FloatArray) -> npt.NDArray[np.float64]:
    """1 for a game won, 1/2 for a shared loss, 0 for a loss, from the seat's last observations."""
    mine, other = features.manches_lost(final), features.manches_lost(final, 1)
    return np.where(mine < other, 1.0, np.where(mine == other, 0.5, 0.0))


def _final_observations(obs: FloatArray, ended: BoolArray, info: dict[str, Any]) -> FloatArray:
    """Each game's last observation: the one returned, or the ended game's own."""
    last = obs.copy()
    if ended.any():
        last[ended] = np.stack(info["final_obs"][ended])
    return last


def train(
    settings: Settings, seconds: float, log: Callable[[str], None] = print, steps: int | None = None
) -> Training:
    """Q-learning for ``seconds`` against ``settings.opponent``, the curve's games included in the time.

    With ``steps``, the budget is that many steps of every game at once instead, with a point of the
    curve every ``settings.curve_every_steps``: the same run on any machine, however busy.
    """
    rules = Ruleset.preset(settings.rules)
    features = Features(rules)
    env = VectorGameEnv(
        settings.envs,
        rules,
        PLAYERS,
        opponents=settings.opponent,
        actions="gym",
        autoreset_mode="SameStep",  # a game's end and the next start in one step: no step wasted
        seed=settings.seed,
    )
    rng = np.random.default_rng(settings.seed)
    done = Training(QTable())
    q = done.table
    obs, _ = env.reset()
    rows = q.rows(features.keys(obs))
    start = time.perf_counter()
    next_point, scores, step = 0.0, [0.0, 0], 0
    while True:
        elapsed = time.perf_counter() - start
        # the budget's clock: seconds, or steps when the run must not depend on the machine's speed
        clock, budget, every = (elapsed, seconds, settings.curve_every)
        if steps is not None:
            clock, budget, every = (step, steps, settings.curve_every_steps)
        start_eps, end_eps = settings.epsilon
        epsilon = max(end_eps, start_eps + (end_eps - start_eps) * clock / (0.6 * budget))
        if clock >= next_point or clock >= budget:
            done.curve.append(_point(settings, features, q, elapsed, done.decisions, epsilon, scores))
            _log_point(log, done.curve[-1])
            scores = [0.0, 0]
            next_point = clock + every
            if clock >= budget:
                break
        allowed = features.choices(obs, env.action_masks())
        greedy, _ = q.best(rows, allowed)
        explore = rng.random(settings.envs) < epsilon
        actions = np.where(explore, random_actions(allowed, rng), greedy)
        after, _, terminated, truncated, info = env.step(actions)
        ended = terminated | truncated
        last = _final_observations(after, ended, info)
        # A manche is an episode: its end costs the manche lost, tokens held on the way are shaping.
        boundary = ended | (features.manche(last) != features.manche(obs))
        reward = features.held(obs) - np.where(
            boundary, features.manches_lost(last) - features.manches_lost(obs), features.held(last)
        )
        next_rows = q.rows(features.keys(after))
        _, follow = q.best(next_rows, features.choices(after, env.action_masks()))
        q.update(rows, actions, reward + np.where(boundary, 0.0, follow), settings.power)
        if ended.any():
            scores[0] += float(game_scores(features, last[ended]).sum())
            scores[1] += int(ended.sum())
        obs, rows = after, next_rows
        done.decisions += settings.envs
        step += 1
    done.seconds = time.perf_counter() - start if steps is not None else seconds
    env.close()
    return done


def _point(
    settings: Settings,
    features: Features,
    q: QTable,
    elapsed: float,
    decisions: int,
    epsilon: float,
    scores: list[float],
) -> Point:
    result = evaluate(greedy_policy(features, q), settings.rules, settings.opponent, settings.curve_games, 1)
    low, high = result.interval
    training_rate = scores[0] / scores[1] if scores[1] else math.nan
    return Point(elapsed, decisions, q.size, epsilon, training_rate, result.rate, low, high)


def _log_point(log: Callable[[str], None], p: Point) -> None:
    log(
        f"{p.seconds / 60:6.1f} min  {p.decisions / 1e6:8.1f} M decisions  {p.positions:7,} positions  "
        f"ε {p.epsilon:.3f}  training {p.training_rate:.4f}  greedy {p.rate:.4f} ({p.low:.4f}-{p.high:.4f})"
    )


# -- evaluation ---------------------------------------------------------------------


@dataclass
class Evaluation:
    """A policy's games against bots: half with the policy in seat 0, which leads the first round."""

    opponent: str
    scores: npt.NDArray[np.float64]  # per game: 1 won, 1/2 shared loss, 0 lost; seat 0's games first
    seed: int
    # where counted (the engine): the games passed over because the policy never had a decision to take
    passed_over: npt.NDArray[np.float64] = field(default_factory=lambda: np.empty(0))

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def rate(self) -> float:
        """The not-lost rate, a shared loss counting half."""
        return float(self.scores.mean())

    @property
    def interval(self) -> tuple[float, float]:
        """The rate's 95 % interval (normal: the mean of many games scored 0, 1/2 or 1)."""
        half = Z95 * float(self.scores.std(ddof=1)) / math.sqrt(self.games)
        return self.rate - half, self.rate + half


def evaluate(
    policy: Policy, rules: str, opponent: str, games: int, seed: int, envs: int = 2048
) -> Evaluation:
    """``games`` games of ``policy`` against ``opponent`` bots on the vector environment.

    Half of them with the policy in seat 0 (it leads the first round), half in seat 1. Game ``g``
    of env ``e`` throws the same dice for any policy given the same seed (the kernel's
    counter-based dice), so two policies evaluated with one seed play paired games.
    """
    features = Features(Ruleset.preset(rules))
    per_seat = -(-games // 2)
    envs = min(envs, per_seat)
    per_env = -(-per_seat // envs)
    scores = []
    for seat in range(PLAYERS):
        env = VectorGameEnv(
            envs,
            rules,
            PLAYERS,
            opponents=opponent,
            seat=seat,
            actions="gym",
            reward="game",
            autoreset_mode="SameStep",
        )
        got = np.full((envs, per_env), np.nan)
        played = np.zeros(envs, dtype=np.int64)
        obs, _ = env.reset(seed=seed)
        while played.min() < per_env:
            obs, reward, terminated, truncated, info = env.step(policy(obs, env.action_masks()))
            ended = terminated | truncated
            if ended.any():
                last = np.stack(info["final_obs"][ended])
                score = game_scores(features, last)
                if not np.array_equal(reward[ended] < 0, score < 1):  # the environment's losers
                    raise AssertionError("the manches lost disagree with the environment's losers")
                for e, s in zip(np.flatnonzero(ended), score, strict=True):
                    if played[e] < per_env:
                        got[e, played[e]] = s
                    played[e] += 1
        env.close()
        scores.append(got.reshape(-1)[: per_seat if seat == 0 else games - per_seat])
    return Evaluation(opponent, np.concatenate(scores), seed)


@dataclass
class Comparison:
    """The paired difference of two evaluations played on the same dice."""

    difference: float
    low: float
    high: float
    z: float
    p: float  # two-sided


def compare(a: Evaluation, b: Evaluation) -> Comparison:
    """``a``'s rate less ``b``'s, from the differences game by game (same seed, same games)."""
    if a.seed != b.seed or a.games != b.games or a.opponent != b.opponent:
        raise ValueError("paired games need the same opponent, seed and number of games")
    d = a.scores - b.scores
    mean, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(len(d))
    z = mean / se if se > 0 else math.inf
    return Comparison(mean, mean - Z95 * se, mean + Z95 * se, z, math.erfc(abs(z) / math.sqrt(2)))


def simulated(rules: str, bot: str, opponent: str, games: int, seed: int) -> Evaluation:
    """``bot`` against ``opponent`` in the fast simulator (``421 simulate``): each leads the first round
    in half the games. Only counts come back; the scores are rebuilt from them, in no particular order."""
    counts = run(Simulation(Ruleset.preset(rules), (bot, opponent), games, seed))
    lost, shared = int(counts[k.C_LOST]), int(counts[k.C_SHARED])
    scores = np.repeat([1.0, 0.5, 0.0], [games - lost, shared, lost - shared])
    return Evaluation(opponent, scores, seed)


class PolicyPlayer:
    """A batch policy as a ``py421.players.Player``: the engine's own loop asks it one state at a time."""

    def __init__(self, policy: Policy, features: Features, seat: int) -> None:
        self.policy, self.features, self.seat = policy, features, seat
        self.decisions = 0

    def choose(self, state: State) -> Action:
        self.decisions += 1
        obs = self.features.encoder.encode(state, self.seat)[None, :]
        mask = gym_mask(state).astype(bool)[None, :]
        return gym_move(state, int(self.policy(obs, mask)[0]))


def engine_game(
    rules: Ruleset, player: Player, seat: int, opponent: str, seed: int, env: int, game: int
) -> Game:
    """Game ``game`` of env ``env`` of the vector environment under ``seed``, played by the engine.

    ``player`` holds ``seat``, a bot of level ``opponent`` the other; seat 0 leads the first
    round; the dice are the kernel's counter-based ones, as the vector environment throws them.
    """
    players = [
        player if s == seat else make_bot(opponent, f"{seed}:{env}:{game}:{s}") for s in range(PLAYERS)
    ]
    return play_out(Game(rules, ["P0", "P1"]), players, CounterDice(batch_key(seed, env), game))


def score(game: Game, seat: int) -> float:
    """1 won, 1/2 a shared loss, 0 lost: the engine's outcome."""
    outcome = game.state.outcome
    assert outcome is not None
    return 1.0 if seat not in outcome.losers else 0.5 if len(outcome.losers) > 1 else 0.0


def evaluate_in_engine(
    policy: Policy, rules: str, opponent: str, games: int, seed: int, envs: int = 2048
) -> Evaluation:
    """The games of :func:`evaluate`, with the same arguments, played by the engine (``play_out``).

    Every move goes through the rules; a game in which the policy never decides is skipped, as
    the vector environment skips it, so the two give the same scores game by game.
    """
    ruleset = Ruleset.preset(rules)
    features = Features(ruleset)
    per_seat = -(-games // 2)
    envs = min(envs, per_seat)
    per_env = -(-per_seat // envs)
    scores: list[list[float]] = [[], []]
    passed_over: list[float] = []
    for seat in range(PLAYERS):
        for e in range(envs):
            g = 0
            while len(scores[seat]) < (e + 1) * per_env:
                player = PolicyPlayer(policy, features, seat)
                game = engine_game(ruleset, player, seat, opponent, seed, e, g)
                if player.decisions:
                    scores[seat].append(score(game, seat))
                else:
                    passed_over.append(score(game, seat))
                g += 1
    kept = scores[0][:per_seat] + scores[1][: games - per_seat]
    return Evaluation(opponent, np.array(kept), seed, np.array(passed_over))


# -- the run ------------------------------------------------------------------------


def plot_curve(curve: Sequence[Point], path: Path, title: str, optimal: float | None = None) -> None:
    """The greedy policy's rate (and the exploring games') against time; bot:optimal's rate as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [p.seconds / 60 for p in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.fill_between(minutes, [p.low for p in curve], [p.high for p in curve], alpha=0.25, color="C0")
    ax.plot(
        minutes,
        [p.rate for p in curve],
        "o-",
        ms=3,
        color="C0",
        label="learned policy (greedy), 95 % interval",
    )
    ax.plot(
        minutes, [p.training_rate for p in curve], ".", color="C1", label="games while learning (exploring)"
    )
    ax.axhline(0.5, color="k", ls="--", lw=1, label="bot:heuristic (0.5: against itself)")
    if optimal is not None:
        ax.axhline(optimal, color="C2", ls=":", lw=1.5, label=f"bot:optimal against it ({optimal:.3f})")
    ax.set_xlabel("minutes of training (one process)")
    ax.set_ylabel("not lost against bot:heuristic\n(a shared loss counts half)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def print_paired(name: str, mine: Evaluation, theirs: Evaluation) -> Comparison:
    """Print a policy's evaluation beside bot:heuristic's on the same games, and their difference."""
    diff = compare(mine, theirs)
    print(_describe(name, mine))
    print(_describe("bot:heuristic", theirs))
    print(
        f"  difference (paired, same dice): {diff.difference:+.4f} "
        f"(95 % {diff.low:+.4f} to {diff.high:+.4f}), z = {diff.z:.1f}, p = {diff.p:.1e}"
    )
    return diff


def _summary(e: Evaluation) -> dict[str, Any]:
    return {"rate": e.rate, "interval": e.interval, "games": e.games}


def _rate(e: Evaluation) -> str:
    low, high = e.interval
    return f"{e.rate:.4f} not lost (95 % {low:.4f}-{high:.4f}), {e.games:,} games"


def _describe(name: str, e: Evaluation) -> str:
    return f"{name} against bot:{e.opponent}: {_rate(e)}"


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="training time (default: 30)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the policy, curve and evaluation")
    parser.add_argument("--rules", default="classic-11", help="a two-player preset (default: classic-11)")
    parser.add_argument("--envs", type=int, default=4096, help="games stepped at once (default: 4096)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the training dice and exploration")
    parser.add_argument("--curve-every", type=float, default=60.0, help="seconds between curve points")
    parser.add_argument(
        "--steps", type=int, help="train for this many steps of all games at once instead of --minutes"
    )
    parser.add_argument("--curve-every-steps", type=int, default=1000, help="steps between points (--steps)")
    parser.add_argument("--curve-games", type=int, default=16_384, help="games per curve point")
    parser.add_argument("--eval-games", type=int, default=200_000, help="games of the final evaluation")
    parser.add_argument("--engine-games", type=int, default=20_000, help="games replayed by the engine")
    parser.add_argument("--no-optimal", action="store_true", help="skip the games against bot:optimal")
    parser.add_argument("--policy", type=Path, help="evaluate this saved policy.npz instead of learning")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"rules": args.rules}
    curve: list[Point] = []
    if args.policy:
        try:
            table, meta = QTable.load(args.policy)
        except ValueError as exc:  # not a table of this script, or not a policy at all (py421 says why)
            parser.error(str(exc))
        args.rules = report["rules"] = meta["rules"]["name"]
        print(f"evaluating {args.policy} ({args.rules}, two players)")
    else:
        settings = Settings(args.rules, envs=args.envs, seed=args.seed, curve_games=args.curve_games)
        settings.curve_every, settings.curve_every_steps = args.curve_every, args.curve_every_steps
        budget = f"{args.steps:,} steps" if args.steps is not None else f"{args.minutes:g} minutes"
        print(f"learning {args.rules}, two players, against bot:heuristic for {budget}")
        trained = train(settings, args.minutes * 60, steps=args.steps)
        table, curve = trained.table, trained.curve
        table.save(args.out / "policy.npz", Ruleset.preset(args.rules), {"settings": asdict(settings)})
        with open(args.out / "curve.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(asdict(curve[0])))
            writer.writeheader()
            writer.writerows(asdict(p) for p in curve)
        report.update(minutes=args.minutes, decisions=trained.decisions)

    seed = 2  # neither the training's dice nor the curve's
    optimal = None
    if not args.no_optimal:  # the reference: the solved game's bot against bot:heuristic
        optimal = simulated(args.rules, "optimal", "heuristic", args.eval_games, seed)
        print(_describe("bot:optimal (421 simulate)", optimal))
        report["optimal_against_heuristic"] = _summary(optimal)
    if curve:
        title = f"Q-learning against bot:heuristic, two-player {args.rules}"
        plot_curve(curve, args.out / "learning-curve.png", title, optimal.rate if optimal else None)

    features = Features(Ruleset.preset(args.rules))
    seen = Seen()
    learned = greedy_policy(features, table, seen)
    copy = heuristic_policy(features)
    for opponent in ("heuristic", *(() if args.no_optimal else ("optimal",))):
        mine = evaluate(learned, args.rules, opponent, args.eval_games, seed)
        theirs = evaluate(copy, args.rules, opponent, args.eval_games, seed)
        diff = print_paired("learned policy", mine, theirs)
        report[opponent] = {
            "learned": _summary(mine),
            "heuristic": _summary(theirs),
            "difference": asdict(diff),
        }
    report["decisions_evaluated"], report["unseen_decisions"] = seen.decisions, seen.unseen
    print(f"decisions in positions never met in training (stopped): {seen.unseen:,} of {seen.decisions:,}")
    if args.engine_games:  # the same games in the engine: every move checked by the rules
        envs = max(1, args.engine_games // 40)
        engine = evaluate_in_engine(learned, args.rules, "heuristic", args.engine_games, seed, envs)
        vector = evaluate(learned, args.rules, "heuristic", args.engine_games, seed, envs)
        same = bool(np.array_equal(engine.scores, vector.scores))
        print(
            _describe("in the engine: learned policy", engine) + f"; game by game as the vector env: {same}"
        )
        every = Evaluation("heuristic", np.concatenate([engine.scores, engine.passed_over]), seed)
        print(f"  with the {len(engine.passed_over):,} games passed over (it never decides): {_rate(every)}")
        # Those games score alike whatever the seat's policy, and over every game bot:heuristic scores
        # exactly 0.5 against itself (seats in turn), so the paired difference shrinks by their share.
        share = engine.games / every.games
        diff = report["heuristic"]["difference"]
        print(
            f"every game counted: learned policy {0.5 + share * diff['difference']:.4f} "
            f"(95 % {0.5 + share * diff['low']:.4f}-{0.5 + share * diff['high']:.4f}), bot:heuristic 0.5"
        )
        report["engine"] = {**_summary(engine), "same": same, "every_game": _summary(every)}
        report["every_game"] = {"share_decided": share, "learned": 0.5 + share * diff["difference"]}
    (args.out / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n")
    saved = "evaluation.json" if args.policy else "policy.npz, curve.csv, learning-curve.png, evaluation.json"
    print(f"saved in {args.out}: {saved}")
    return report


if __name__ == "__main__":
    main()
