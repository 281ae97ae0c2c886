"""examples/learn_vector.py: a tiny run learns, saves what it says, plays legally, and scores games right."""

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("numba")
pytest.importorskip("gymnasium")
pytest.importorskip("matplotlib")

from py421.cli import main
from py421.core.rules import Ruleset
from py421.envs.observation import ObservationEncoder
from py421.envs.policy_seat import PolicyPlayer
from py421.envs.saved_policy import load_saved_policy, save_network
from py421.players.heuristic import HeuristicBot

EXAMPLE = Path(__file__).parents[1] / "examples" / "learn_vector.py"
RULES = "classic-11"


def _load_example():
    spec = importlib.util.spec_from_file_location("learn_vector", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["learn_vector"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


lv = _load_example()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The documented command on a tiny budget counted in steps (the same run however busy the
    machine is): 60 steps of 256 games, a point of the curve every 20, small evaluations."""
    out = tmp_path_factory.mktemp("run")
    argv = ["--steps", "60", "--curve-every-steps", "20", "--out", str(out), "--envs", "256"]
    argv += ["--curve-games", "512", "--eval-games", "2000", "--engine-games", "240", "--no-optimal"]
    report = lv.main(argv)
    return out, report


def test_a_tiny_run_saves_the_policy_the_curve_and_the_evaluation(run):
    out, report = run
    table, meta = lv.QTable.load(out / "policy.npz")
    assert meta["format"] == "py421-policy" and meta["kind"] == "table"
    assert meta["rules"]["name"] == RULES and meta["players"] == 2 and meta["settings"]["envs"] == 256
    # what was trained is what is saved: every decision counted once
    assert table.visits.sum() == report["decisions"] == 60 * 256
    assert table.size > 100  # positions met
    with open(out / "curve.csv") as f:
        curve = list(csv.DictReader(f))
    assert [int(p["decisions"]) for p in curve] == [0, 20 * 256, 40 * 256, 60 * 256]
    assert [float(p["seconds"]) for p in curve] == sorted(float(p["seconds"]) for p in curve)
    assert all(float(p["low"]) <= float(p["rate"]) <= float(p["high"]) for p in curve)
    assert (out / "learning-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((out / "evaluation.json").read_text())
    assert saved["heuristic"]["learned"]["games"] == 2000
    assert saved["heuristic"]["learned"]["rate"] == pytest.approx(report["heuristic"]["learned"]["rate"])
    assert saved["engine"]["same"] is True  # the engine replayed the vector env's games, every move legal
    assert saved["engine"]["every_game"]["games"] >= saved["engine"]["games"] == 240


def test_the_saved_policy_plays_legal_moves_in_the_engine_and_as_many_games_as_the_vector_env(run):
    out, _ = run
    table, _ = lv.QTable.load(out / "policy.npz")
    features = lv.Features(Ruleset.preset(RULES))
    seen = lv.Seen()
    policy = lv.greedy_policy(features, table, seen)
    # the engine raises IllegalAction on any move the rules refuse
    engine = lv.evaluate_in_engine(policy, RULES, "heuristic", 200, seed=7, envs=10)
    vector = lv.evaluate(policy, RULES, "heuristic", 200, seed=7, envs=10)
    assert engine.games == vector.games == 200
    np.testing.assert_array_equal(engine.scores, vector.scores)
    assert set(np.unique(engine.scores)) <= {0.0, 0.5, 1.0}
    assert seen.decisions > 0 and 0 <= seen.unseen <= seen.decisions


def test_the_saved_table_is_the_trained_one(tmp_path):
    settings = lv.Settings(RULES, envs=128, curve_games=256, curve_every_steps=10)
    trained = lv.train(settings, 0, log=lambda line: None, steps=20)  # the same run on any machine
    trained.table.save(tmp_path / "policy.npz", Ruleset.preset(RULES), {"note": "kept"})
    table, meta = lv.QTable.load(tmp_path / "policy.npz")
    assert meta["note"] == "kept" and Ruleset.from_mapping(meta["rules"]) == Ruleset.preset(RULES)
    keys = np.random.default_rng(0).choice(trained.table.sorted_keys, 500)
    np.testing.assert_array_equal(table.q[table.find(keys)], trained.table.q[trained.table.find(keys)])
    assert table.q[table.find(keys)].any()  # values were learned, not left at zero
    np.testing.assert_array_equal(table.find(np.array([-5])), [-1])


def test_the_heuristic_policy_plays_every_move_as_bot_heuristic():
    rules = Ruleset.preset(RULES)
    features = lv.Features(rules)
    copy = lv.heuristic_policy(features)
    for game in range(40):
        for seat in (0, 1):
            ours = lv.engine_game(rules, lv.PolicyPlayer(copy, features, seat), seat, "heuristic", 3, 0, game)
            bots = lv.engine_game(rules, HeuristicBot(), seat, "heuristic", 3, 0, game)
            assert ours.states == bots.states


def test_the_evaluation_gives_the_heuristic_its_own_rates():
    features = lv.Features(Ruleset.preset(RULES))
    copy = lv.heuristic_policy(features)
    # against itself, seats taken in turn: 0.5 over every game; the ~2 % of games passed over (the seat
    # never deciding, mostly losing) lift it a little on the games counted
    itself = lv.evaluate(copy, RULES, "heuristic", 16_384, seed=11)
    low, high = itself.interval
    assert 0.5 <= itself.rate < 0.51
    assert high - low < 0.02
    # against bot:optimal: 1 - 56.87 % (docs/strategy.md, 20,000 games of the fast simulator)
    beaten = lv.evaluate(copy, RULES, "optimal", 16_384, seed=11)
    se = (beaten.interval[1] - beaten.interval[0]) / (2 * lv.Z95)
    assert abs(beaten.rate - (1 - 0.5687)) < 4 * se + 0.005
    # the paired difference: a policy against itself differs by nothing, two differ by their rates
    assert lv.compare(itself, itself).difference == 0
    stop = lv.evaluate(lambda obs, masks: np.zeros(len(obs), dtype=np.int64), RULES, "heuristic", 16_384, 11)
    diff = lv.compare(stop, itself)
    assert diff.difference == pytest.approx(stop.rate - itself.rate)
    assert diff.high < 0 and diff.p < 1e-6  # stopping at once loses far more often


def test_the_saved_policy_evaluated_again_scores_as_the_run_said(run, tmp_path):
    out, report = run
    argv = ["--policy", str(out / "policy.npz"), "--out", str(tmp_path), "--eval-games", "2000"]
    again = lv.main([*argv, "--engine-games", "0", "--no-optimal"])
    assert again["heuristic"] == report["heuristic"]  # the same games, the same moves
    assert not (tmp_path / "policy.npz").exists() and (tmp_path / "evaluation.json").exists()


def test_the_saved_policy_takes_a_seat_and_plays_as_the_evaluation_played_it(run):
    """policy.npz seats as ``bot:policy:PATH``: through it the engine plays the moves the example's
    own evaluation plays, and ``421 simulate`` plays it (through the engine, as it says)."""
    out, _ = run
    seated = PolicyPlayer(load_saved_policy(out / "policy.npz"))
    rules = Ruleset.preset(RULES)
    table, _ = lv.QTable.load(out / "policy.npz")
    features = lv.Features(rules)
    for game in range(20):
        ours = lv.engine_game(rules, seated, game % 2, "heuristic", 5, 0, game)
        example = lv.PolicyPlayer(lv.greedy_policy(features, table), features, game % 2)
        assert ours.states == lv.engine_game(rules, example, game % 2, "heuristic", 5, 0, game).states
    spec = f"bot:policy:{out / 'policy.npz'}"
    result = CliRunner().invoke(main, ["simulate", "--players", f"{spec},bot:heuristic", "--games", "100"])
    assert result.exit_code == 0, result.output
    assert f"{spec}: no compiled twin in the fast simulator" in result.stderr


def test_policy_takes_a_table_saved_by_this_script_and_refuses_a_network_saying_so(tmp_path, capsys):
    """A network (learn_maskable_ppo.py's, export_policy's) is refused before anything runs."""
    rules = Ruleset.preset(RULES)
    size = ObservationEncoder(rules, 2).size
    save_network(tmp_path / "ppo.npz", [(np.zeros((size, 8)), np.zeros(8))], rules, 2, "gym")
    (tmp_path / "junk.npz").write_text("junk")
    for name, said in (
        ("ppo.npz", "ppo.npz is a network; --policy takes a table saved by this script (its policy.npz)"),
        ("junk.npz", "junk.npz is not a numpy .npz archive py421 can read"),
    ):
        with pytest.raises(SystemExit) as exited:
            lv.main(["--policy", str(tmp_path / name), "--out", str(tmp_path / "out"), "--no-optimal"])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err
    assert not (tmp_path / "out" / "evaluation.json").exists()
