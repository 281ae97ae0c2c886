"""Tabular Q-learning on ``py421/Turn-v0``, measured against the exact optimum.

One turn of up to three throws against a target result: the reward is 1 when
the turn ends strictly better than the target. The solver knows the best
possible chance exactly (``py421.solver.turn.odds``); this script learns a
policy from episodes alone, then prints the chance its greedy policy wins
(computed exactly from the dice's probabilities, not sampled), the optimum
and the gap.

    python examples/q_learning_turn.py
    python examples/q_learning_turn.py --target 666 --episodes 100000 --seed 3

Needs the ``rl`` extra: ``pip install '.[rl]' (in the py421 folder)``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence

import gymnasium
import numpy as np
import numpy.typing as npt

import py421.envs  # noqa: F401 - registers py421/Turn-v0
from py421.core.dice import Result
from py421.core.rules import Ruleset
from py421.envs.gym_turn import optimal_value, policy_value

Key = tuple[int, ...]
QTable = dict[Key, npt.NDArray[np.float64]]
ACTIONS = 8  # 0 stops; bit i throws die i (highest first) again


def train(env: gymnasium.Env[npt.NDArray[np.int64], np.int64], episodes: int, seed: int) -> QTable:
    """Q-learning with ε-greedy exploration and step sizes 1/visits (the mean of the returns seen)."""
    rng = np.random.default_rng(seed)
    q: QTable = defaultdict(lambda: np.zeros(ACTIONS))
    visits: QTable = defaultdict(lambda: np.zeros(ACTIONS))
    obs, _ = env.reset(seed=seed)
    for episode in range(episodes):
        epsilon = max(0.1, 1.0 - episode / (episodes / 2))  # explore widely first
        done = False
        while not done:
            key = tuple(int(x) for x in obs)
            action = int(rng.integers(ACTIONS)) if rng.random() < epsilon else int(np.argmax(q[key]))
            obs, reward, done, _, _ = env.step(np.int64(action))
            follow = float(reward) if done else float(q[tuple(int(x) for x in obs)].max())
            visits[key][action] += 1
            q[key][action] += (follow - q[key][action]) / visits[key][action]
        obs, _ = env.reset()
    return dict(q)


def greedy_value(q: QTable, rules: Ruleset, target: Result | None, throws: int) -> float:
    """The exact chance that the greedy policy of ``q`` beats the target (states never seen: stop)."""

    def greedy(observation: npt.NDArray[np.int64]) -> int:
        scores = q.get(tuple(int(x) for x in observation))
        return int(np.argmax(scores)) if scores is not None else 0

    return policy_value(greedy, rules, target, throws)


def main(argv: Sequence[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="classic-11", help="a preset (default: classic-11)")
    parser.add_argument("--target", default="311", help="the result to beat (default: 311)")
    parser.add_argument("--throws", type=int, default=3, help="most throws in the turn: 2 or 3 (default: 3)")
    parser.add_argument("--episodes", type=int, default=60_000, help="training episodes (default: 60000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dice and the exploration")
    args = parser.parse_args(argv)
    env = gymnasium.make("py421/Turn-v0", rules=args.rules, target=args.target, throws=args.throws)
    q = train(env, args.episodes, args.seed)
    rules = Ruleset.preset(args.rules)
    target = Result.parse(args.target)
    learned = greedy_value(q, rules, target, args.throws)
    best = optimal_value(rules, target, args.throws)
    print(f"target {target}, {args.throws} throws, {args.rules}, {args.episodes} episodes, seed {args.seed}")
    print(f"learned policy: P(win) = {learned:.4f}")
    print(f"optimal (solver): P(win) = {best:.4f}")
    print(f"gap: {best - learned:.4f}")
    return best - learned


if __name__ == "__main__":
    main()
