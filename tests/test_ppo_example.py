"""examples/learn_maskable_ppo.py: a tiny run trains, saves a policy py421 seats, and evaluates it."""

from __future__ import annotations

import csv
import json
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("numba")
pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from click.testing import CliRunner

from py421.cli import main

EXAMPLES = Path(__file__).parents[1] / "examples"


@pytest.fixture(scope="module")
def ppo():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import learn_maskable_ppo
    finally:
        sys.path.remove(str(EXAMPLES))
    return learn_maskable_ppo


def test_a_tiny_run_saves_a_policy_that_takes_a_seat_and_its_evaluation(ppo, tmp_path, monkeypatch):
    """The documented command on a budget of steps (the same run however busy the machine is); it
    writes in its run's folder only, nothing in the machine's temporary folder (stable-baselines3
    logs there by default)."""
    scratch = tmp_path / "machine-tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    argv = ["--steps", "16384", "--envs", "64", "--curve-every-steps", "8192", "--curve-games", "512"]
    report = ppo.main([*argv, "--eval-games", "2000", "--out", str(tmp_path)])
    assert report["steps"] >= 16_384 and report["learned"]["games"] == report["heuristic"]["games"] == 2000
    saved = json.loads((tmp_path / "evaluation.json").read_text())
    assert saved["difference"]["difference"] == pytest.approx(
        saved["learned"]["rate"] - saved["heuristic"]["rate"]
    )
    with open(tmp_path / "curve.csv") as f:
        curve = list(csv.DictReader(f))
    assert len(curve) >= 2 and all(float(p["low"]) <= float(p["rate"]) <= float(p["high"]) for p in curve)
    assert (tmp_path / "learning-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in scratch.iterdir() if p.name.startswith("SB3-")] == []
    with open(tmp_path / "progress.csv") as f:  # stable-baselines3's own log, a row a rollout
        assert int(next(csv.DictReader(f))["time/total_timesteps"]) > 0
    spec = f"bot:policy:{tmp_path / 'policy.npz'}"
    played = CliRunner().invoke(
        main, ["simulate", "--players", f"{spec},bot:heuristic", "--games", "50", "--json"]
    )
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["games"] == 50
