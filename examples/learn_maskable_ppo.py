"""Learning to beat bot:heuristic at two-player 421 with sb3-contrib's MaskablePPO.

The fast environment as stable-baselines3 reads it (``py421.envs.sb3.vec_env``):
thousands of games stepped at once in compiled code, one learning seat each
against bot:heuristic, the illegal actions masked. The observations are
normalised (``VecNormalize``), the reward is the environment's ``tokens``
(each round's tokens as a share of the manche, and -1 for losing the game).

Every ``--curve-every`` seconds the greedy policy (the most likely legal
action) plays ``--curve-games`` games against bot:heuristic; at the end the
policy is saved in py421's network format (``policy.npz``, seated as
``bot:policy:PATH``) and that file, read back with numpy alone, plays the
final evaluation: ``--eval-games`` games against bot:heuristic, paired game
by game with bot:heuristic's own play on the same dice (the difference and
its 95 % interval), as ``examples/learn_vector.py`` evaluates its table:

    python examples/learn_maskable_ppo.py --minutes 30 --out runs/ppo-classic-11
    421 play --players Ana,bot:policy:runs/ppo-classic-11/policy.npz
    421 ladder --players bot:heuristic,bot:policy:runs/ppo-classic-11/policy.npz

Needs the ``sb3`` and ``report`` extras (stable-baselines3, sb3-contrib, torch, matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import VecNormalize

from py421.core.rules import Ruleset
from py421.envs.features import Features
from py421.envs.saved_policy import load_saved_policy
from py421.envs.sb3 import export_policy, vec_env

sys.path.insert(0, str(Path(__file__).parent))  # the evaluation of examples/learn_vector.py
from learn_vector import (
    Point,
    _summary,
    evaluate,
    heuristic_policy,
    plot_curve,
    print_paired,
)


def greedy(model: Any, normalise: VecNormalize) -> Any:
    """The model's most likely legal action, for the raw observations of the evaluation's games."""

    def policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        chosen, _ = model.predict(
            normalise.normalize_obs(obs), action_masks=masks.astype(bool), deterministic=True
        )
        return np.asarray(chosen, dtype=np.int64)

    return policy


class Budget(BaseCallback):
    """Stops after ``seconds`` (or ``steps`` env steps) and takes a point of the curve every ``every``."""

    def __init__(self, args: argparse.Namespace, normalise: VecNormalize, log: Any = print) -> None:
        super().__init__()
        self.args, self.normalise, self.log = args, normalise, log
        self.started = time.perf_counter()
        self.curve: list[Point] = []
        self.next_point = 0.0
        self.wins: list[float] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "lost" in info:  # a game ended: 1 not lost, 1/2 a loss both players share, 0 lost
                self.wins.append(
                    0.0 if info["lost"] and len(info["losers"]) == 1 else 0.5 if info["lost"] else 1.0
                )
        return bool(self._spent() < (self.args.steps or self.args.minutes * 60))  # False ends learn()

    def _on_rollout_end(self) -> None:
        spent = self._spent()
        if spent >= self.next_point:
            self.point(spent)
            self.next_point = spent + (
                self.args.curve_every_steps if self.args.steps else self.args.curve_every
            )

    def _spent(self) -> float:
        return self.num_timesteps if self.args.steps else time.perf_counter() - self.started

    def point(self, spent: float) -> None:
        mine = evaluate(
            greedy(self.model, self.normalise), self.args.rules, "heuristic", self.args.curve_games, 1
        )
        low, high = mine.interval
        training = float(np.mean(self.wins)) if self.wins else float("nan")
        self.wins.clear()
        seconds = time.perf_counter() - self.started
        self.curve.append(Point(seconds, self.num_timesteps, 0, 0.0, training, mine.rate, low, high))
        self.log(
            f"  {seconds / 60:5.1f} min, {self.num_timesteps:>11,} steps: "
            f"greedy {mine.rate:.4f} ({low:.4f}-{high:.4f})"
        )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="training time (default: 30)")
    parser.add_argument("--steps", type=int, default=None, help="a budget in env steps instead of minutes")
    parser.add_argument("--rules", default="classic-11")
    parser.add_argument("--envs", type=int, default=512, help="games stepped at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo-classic-11"))
    parser.add_argument(
        "--curve-every", type=float, default=120.0, help="seconds between points of the curve"
    )
    parser.add_argument(
        "--curve-every-steps", type=int, default=200_000, help="steps between points (--steps)"
    )
    parser.add_argument("--curve-games", type=int, default=16_384, help="games per curve point")
    parser.add_argument("--eval-games", type=int, default=200_000, help="games of the final evaluation")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    budget = f"{args.steps:,} steps" if args.steps else f"{args.minutes:g} minutes"
    print(f"MaskablePPO on {args.rules}, two players, against bot:heuristic for {budget}")

    env = VecNormalize(vec_env(args.rules, n_envs=args.envs, actions="gym", threads=2), norm_reward=False)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=8192,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        gae_lambda=0.95,
        ent_coef=0.005,
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
        verbose=0,
    )
    # its log of the training, a row a rollout, in the run's folder (by default a new folder in /tmp)
    model.set_logger(configure(str(args.out), ["csv"]))
    budgeted = Budget(args, env)
    started = time.perf_counter()
    model.learn(total_timesteps=10**12, callback=budgeted)
    seconds = time.perf_counter() - started
    budgeted.point(budgeted._spent())
    steps = model.num_timesteps
    print(f"trained {seconds / 60:.1f} minutes, {steps:,} steps ({steps / seconds:,.0f} a second)")
    export_policy(model, args.out / "policy.npz", normalise=env)

    # the file as it is seated: numpy alone, the same games for it and for bot:heuristic's own play
    saved = load_saved_policy(args.out / "policy.npz")
    seed = 2
    mine = evaluate(saved.batch, args.rules, "heuristic", args.eval_games, seed)
    theirs = evaluate(
        heuristic_policy(Features(Ruleset.preset(args.rules))), args.rules, "heuristic", args.eval_games, seed
    )
    diff = print_paired("learned policy (policy.npz)", mine, theirs)
    report: dict[str, Any] = {
        "rules": args.rules,
        "minutes": seconds / 60,
        "steps": steps,
        "envs": args.envs,
        "learned": _summary(mine),
        "heuristic": _summary(theirs),
        "difference": asdict(diff),
    }
    with open(args.out / "curve.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(asdict(budgeted.curve[0])))
        writer.writeheader()
        writer.writerows(asdict(p) for p in budgeted.curve)
    title = f"MaskablePPO against bot:heuristic, two-player {args.rules}"
    plot_curve(budgeted.curve, args.out / "learning-curve.png", title)
    (args.out / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"saved in {args.out}: policy.npz, curve.csv, learning-curve.png, evaluation.json, progress.csv")
    return report


if __name__ == "__main__":
    main()
