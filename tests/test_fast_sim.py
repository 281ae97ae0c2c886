"""The fast simulator against the engine, and the simulation runs built on it."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import assume, given
from hypothesis import strategies as st

from py421.cli import main
from py421.core.errors import InvalidParameter, InvalidPlayers, InvalidRuleset, Py421Error
from py421.core.rules import Ruleset, option_fields, preset_names
from py421.sim.fast import kernel as k
from py421.sim.fast.bot_tables import build_tables
from py421.sim.fast.counter_dice import (
    CHOICE_STREAM,
    MIXED_COUNTERS,
    batch_key,
    dice_block,
    game_key,
    random_bits,
)
from py421.sim.fast.lineup import Lineup, parse_players
from py421.sim.fast.optimal_tables import OptimalPositions
from py421.sim.fast.policy import HEADER, ROUNDS_LEVEL
from py421.sim.fast.replay import Mismatch, entries, replay
from py421.sim.simulate import Simulation, Summary, count_game, engine_game, run

KEY = batch_key(2026, 0)


def lineups(rules: Ruleset) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = [("random", "heuristic")]
    if rules.seats(4):
        found.append(("heuristic", "random", "heuristic", "random"))
    if rules.name != "vache-41":  # its two-player solve is the slowest; lyonnaise-21 covers staked turns
        found.append(("optimal", "heuristic"))
    if rules.seats(3):  # round by round (max^n); the whole game: tests/test_solver_game_maxn.py
        found.append(("heuristic", ROUNDS_LEVEL, "random"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_plays_the_same_games_in_the_kernel_and_the_engine(preset):
    """Same dice, same decisions: the same tokens after every round and the same outcome.

    The heuristic and optimal seats are also asked in the engine: they must choose
    what the kernel chose for them.
    """
    rules = Ruleset.preset(preset)
    games = rounds = 0
    for levels in lineups(rules):
        lineup = Lineup(rules, levels)
        compared = 0
        for g in range(100 if "optimal" not in levels else 40 if len(levels) == 2 else 20):
            # a lineup's first 2 000 rounds pass every kind of round, tie, stake and end its games
            # reach: long games (vache-41's) stop sooner
            if compared >= 2_000:
                break
            compared += replay(lineup, KEY, g).rounds
            games += 1
        rounds += compared
    print(f"{preset}: {games} games, {rounds} rounds compared")
    assert rounds > games * 5


def _option_values(name: str) -> st.SearchStrategy[object]:
    f = next(f for f in option_fields() if f.name == name)
    if f.metadata["choices"]:
        return st.sampled_from(f.metadata["choices"])
    if f.type in ("bool", bool):
        return st.booleans()
    low = f.metadata["low"]
    return st.integers(low, min(f.metadata["high"], low + 4))


# Every declared option but the table's size (drawn apart): a new option cannot escape the test.
VARIED = [f.name for f in option_fields() if f.name not in ("min_players", "max_players")]


@given(
    preset=st.sampled_from(preset_names()),
    changes=st.dictionaries(st.sampled_from(VARIED), st.none(), max_size=6).flatmap(
        lambda d: st.fixed_dictionaries({name: _option_values(name) for name in d})
    ),
    players=st.integers(2, 5),
)
def test_any_options_play_the_same_games_in_the_kernel_and_the_engine(preset, changes, players):
    try:
        rules = Ruleset.preset(preset).with_options(**changes)
    except InvalidRuleset:
        assume(False)
    players = max(rules.min_players, min(players, rules.max_players or players))
    lineup = Lineup(rules, ("random", "heuristic", "random", "heuristic", "random")[:players])
    for g in range(4):
        replay(lineup, KEY, g)


_MASK = (1 << 64) - 1


def _splitmix(x: int) -> int:
    """splitmix64's finaliser on Python integers, written apart from the kernel's."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def test_the_dice_are_the_hash_of_the_games_key_and_the_throws_counter():
    """The counters' hashes looked up in a table give the dice the hash gives, past the table's end too.

    Were they to differ, a seed would no longer give the games it gave, nor the engine's
    (``simulate.engine_game`` takes its dice from the same functions).
    """
    key = batch_key(2026, 3)
    games, throws = 3, MIXED_COUNTERS.size + 40
    block = dice_block(key, 5, games, throws)  # the kernel's compiled path
    for g in range(games):
        gkey = _splitmix(int(key[0]) ^ _splitmix((int(key[1]) + (5 + g) * 0x9E3779B97F4A7C15) & _MASK))
        assert int(game_key(key, 5 + g)) == gkey
        for c in range(throws):
            code = ((_splitmix(gkey ^ _splitmix(c)) >> 11) * 216) >> 53
            assert tuple(block[g, c]) == (code // 36 + 1, code // 6 % 6 + 1, code % 6 + 1)
        for c in (0, MIXED_COUNTERS.size - 1, MIXED_COUNTERS.size, CHOICE_STREAM + 7):  # a bot's choices
            assert int(random_bits(np.uint64(gkey), c)) == _splitmix(gkey ^ _splitmix(c))


def test_a_difference_from_the_engine_is_reported(monkeypatch):
    """A kernel that forgot the nénette penalty is caught, with the step where it differs."""
    rules = Ruleset.preset("comptoir-21")
    lineup = Lineup(rules, ("random", "heuristic", "random"))
    lineup.rules_array[k.R_NENETTE_PENALTY] = 0

    def replay_many() -> None:
        for g in range(50):
            replay(lineup, KEY, g)

    with pytest.raises(Mismatch, match=r"game \d+, step \d+: after the round the engine has pot"):
        replay_many()


def test_the_kernel_counts_what_the_engine_counts():
    """Counts from the kernel equal counts taken from the engine's events for the same games."""
    for preset, levels in [("engranjeu-21", ("heuristic",) * 3), ("kytionnaire", ("heuristic",) * 4)]:
        rules = Ruleset.preset(preset)
        kernel = np.zeros(k.C_SIZE, dtype=np.int64)
        Lineup(rules, levels).play(KEY, 0, 60, kernel)
        engine = np.zeros(k.C_SIZE, dtype=np.int64)
        for g in range(60):
            count_game(engine_game(rules, levels, KEY, g, "unused"), engine)
        assert np.array_equal(kernel, engine)
        assert kernel[k.C_GAMES] == 60


def test_a_seed_gives_the_same_totals_whatever_the_workers():
    sim = Simulation(Ruleset.preset("classic-11"), ("optimal", "heuristic"), 6_000, seed=5, batch=1_000)
    alone = run(sim, workers=1)
    assert np.array_equal(alone, run(sim, workers=2))
    assert alone[k.C_GAMES] == 6_000
    other = run(Simulation(sim.rules, sim.levels, 6_000, seed=6, batch=1_000))
    assert not np.array_equal(alone, other)


def test_a_dask_cluster_of_two_workers_gives_the_local_totals():
    distributed = pytest.importorskip("distributed")
    sim = Simulation(
        Ruleset.preset("vache-41"), ("heuristic", "random", "heuristic"), 3_000, seed=9, batch=500
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        assert np.array_equal(run(sim, scheduler=c.scheduler_address), run(sim))


def test_an_unreachable_scheduler_is_a_clear_error():
    pytest.importorskip("distributed")
    from py421.sim.dask_cluster import run_on_dask

    sim = Simulation(Ruleset.preset("tim"), ("heuristic", "heuristic"), 10)
    with pytest.raises(Py421Error, match=r"cannot reach a Dask scheduler at 'tcp://127\.0\.0\.1:9'"):
        run_on_dask(sim, "tcp://127.0.0.1:9", timeout="2s")


def test_memory_stays_flat_as_games_grow():
    """Only finished batches' counts are kept: ten times the games, about the same peak."""
    rules = Ruleset.preset("classic-11")
    peaks = []
    for games in (2_000, 20_000):
        sim = Simulation(rules, ("heuristic", "heuristic"), games, batch=1_000)
        run(sim)  # compiled and warm
        tracemalloc.start()
        run(sim)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] + 200_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "options", "seats", "games"),
    [
        ("engranjeu-21", {}, (2, 3, 4), 1_000),
        # the two-player solver with a nénette penalty and starting tokens; on a pot of 9 it solves in a
        # sixth of the time, and three times the games find more « main chaude » than the full pot's
        (
            "engranjeu-21",
            {"pot": 9, "initial_tokens": 2, "nenette_penalty": 2, "nenette_last_wins": False},
            (2,),
            3_000,
        ),
        # « est » is the stake so far where every throw adds to it
        ("vache-41", {"pot": 12, "tie_break": "qui_barre_demarre", "nenette_penalty": 3}, (2, 3), 1_000),
    ],
)
def test_the_optimal_bots_main_chaude_is_the_engines(preset, options, seats, games):
    """« Main chaude » is rare: find games where optimal seats choose the stake, and replay them."""
    rules = Ruleset.preset(preset).with_options(**options)
    for count in seats:
        levels = ("optimal",) * count
        lineup = Lineup(rules, levels)
        chosen = []
        for g in range(games):
            trace, _ = lineup.trace(KEY, g, 1 << 16)
            # the entries are read only where a stake's code is in the trace at all: most games have none
            if np.isin(trace, (k.EST, k.VIENT)).any() and any(
                e[0] == k.T_ACTION and e[1] in (k.EST, k.VIENT) for e in entries(trace, len(levels))
            ):
                chosen.append(g)
        assert len(chosen) >= 5
        for g in chosen:
            replay(lineup, KEY, g)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "options", "levels", "games"),
    [
        ("classic-11", {"leader_limit": False}, (ROUNDS_LEVEL, "heuristic", ROUNDS_LEVEL), 20),
        ("comptoir-21", {"nenette_last_wins": True, "charge_throws": 2}, ("optimal",) * 4, 12),
        ("engranjeu-21", {"value_deduction": True}, ("optimal",) * 4, 12),
    ],
)
def test_the_optimal_round_tables_follow_the_options(preset, options, levels, games):
    """Options the presets do not combine, with optimal seats at three or four players."""
    lineup = Lineup(Ruleset.preset(preset).with_options(**options), levels)
    for g in range(games):
        replay(lineup, KEY, g)


def test_the_optimal_bot_at_a_table_of_four_beats_the_heuristic_bots():
    levels = (ROUNDS_LEVEL, "heuristic", "heuristic", "heuristic")  # round by round, on purpose
    sim = Simulation(Ruleset.preset("comptoir-21"), levels, 4_000)
    data = Summary(sim, run(sim, workers=2)).to_dict()
    assert data["games"] == 4_000
    optimal, *others = data["seats"]
    assert all(optimal["ci95"][1] < other["ci95"][0] for other in others)


def test_players_are_checked_with_what_is_accepted():
    assert parse_players("bot:optimal, heuristic") == ("optimal", "heuristic")
    with pytest.raises(InvalidPlayers, match="accepted: bot:random, bot:heuristic, bot:optimal"):
        parse_players("bot:optimal,me")
    with pytest.raises(InvalidPlayers, match="tim is played by 2 players, not 3"):
        Simulation(Ruleset.preset("tim"), ("heuristic",) * 3, 10)
    with pytest.raises(InvalidParameter, match="the number of games is a whole number from 1, not 0"):
        Simulation(Ruleset.preset("tim"), ("heuristic",) * 2, 0)


def test_simulate_on_the_command_line():
    runner = CliRunner()
    args = [
        "simulate",
        "--rules",
        "tim",
        "--players",
        "bot:optimal,bot:random",
        "--games",
        "3000",
        "--seed",
        "4",
    ]
    result = runner.invoke(main, [*args, "--json", "--workers", "2"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["games"] == 3000
    optimal, random = data["seats"]
    assert optimal["loss_rate"] < random["loss_rate"]
    assert optimal["ci95"][0] < optimal["loss_rate"] < optimal["ci95"][1]
    assert optimal["losses"] + random["losses"] == 3000  # tim: one loser per game
    assert sum(data["length"]["rounds"]["histogram"].values()) == 3000
    assert sum(data["results"].values()) == pytest.approx(1)
    assert list(data["results"])[:2] == ["421", "111"]  # strongest first
    text = runner.invoke(main, [*args, "--workers", "1"])
    assert text.exit_code == 0
    assert "seat 0  bot:optimal" in text.output
    assert "first round's leader lost" in text.output
    bad = runner.invoke(main, ["simulate", "--players", "bot:optimal,bot:nobody"])
    assert bad.exit_code == 2
    assert "'bot:nobody' cannot play in a simulation; accepted:" in bad.output


def test_the_two_player_tables_are_built_once_and_loaded_by_every_process(tmp_path, monkeypatch):
    """Built on two processes and saved; a lineup loads them and plays exactly as one that builds."""
    monkeypatch.setenv("PY421_HOME", str(tmp_path))
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=6)  # stakes add up, the solve stays small
    building = Lineup(rules, ("optimal", "heuristic"))
    ahead = np.zeros(k.C_SIZE, dtype=np.int64)
    building.play(KEY, 0, 400, ahead)
    path = build_tables(rules, workers=2)
    assert path.parent == tmp_path / "solver"
    loaded = Lineup(rules, ("optimal", "heuristic"))
    positions = OptimalPositions(rules)
    assert (loaded.index[HEADER : HEADER + positions.positions] >= 0).sum() == len(positions.codes())
    counts = np.zeros(k.C_SIZE, dtype=np.int64)
    loaded.play(KEY, 0, 400, counts)
    assert np.array_equal(counts, ahead)
    for g in range(40):
        replay(loaded, KEY, g)
    assert build_tables(rules, workers=2) == path  # nothing to do the second time


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        # « main chaude » on a stake the queue makes worth more than the pot; tables built on two
        # processes, each manche's charge apart
        {"pot": 6, "queue_de_la_vache": True, "tie_break": "qui_barre_demarre", "nenette_penalty": 3},
        {"pot": 6, "queue_de_la_vache": True, "espagnole": "loses_game", "fiches_de_manche": 2, "manches": 1},
    ],
)
def test_games_carried_over_play_the_same_in_the_kernel_and_the_engine(tmp_path, monkeypatch, options):
    """Two-player games solved manche by manche (heads_up_game): the optimal seats choose in the
    kernel what the engine's bot chooses, whose charge depends on the manches each seat lost."""
    monkeypatch.setenv("PY421_HOME", str(tmp_path))
    rules = Ruleset.preset("vache-41").with_options(**options)
    build_tables(rules, workers=2)
    rounds = 0
    for levels in (("optimal", "heuristic"), ("optimal", "optimal")):
        lineup = Lineup(rules, levels)
        for g in range(30):
            rounds += replay(lineup, KEY, g).rounds
    assert rounds > 100


@pytest.mark.slow
def test_throwing_on_without_le_bon_plays_the_same_games_in_the_kernel_and_the_engine():
    """Seed 004's option: players behind throw on. Random and heuristic seats, two to four."""
    rules = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True)
    rounds = 0
    for levels in (("random", "heuristic"), ("heuristic", "random", "heuristic", "random")):
        lineup = Lineup(rules, levels)
        for g in range(150):
            rounds += replay(lineup, KEY, g).rounds
    assert rounds > 1_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "options", "levels", "games"),
    [
        # two players: the manche solved whole (« qui barre démarre »); on a pot of 9 it solves in a
        # fourth of the time, and three times the games compare more rounds, with every kind of
        # decision behind
        ("engranjeu-21", {"pot": 9}, ("optimal", "heuristic"), 120),
        # three: round by round
        ("engranjeu-21", {}, ("optimal", "random", "optimal"), 40),
        # every throw adds to the stake: « le bon » is played
        ("lyonnaise-21", {}, ("optimal", "optimal"), 40),
    ],
)
def test_the_optimal_bot_throws_on_in_the_kernel_as_in_the_engine(
    private_home, preset, options, levels, games
):
    """Players behind must throw on: bot:optimal stops only ahead, or says « le bon »; the kernel's
    seats choose what the engine's choose."""
    rules = Ruleset.preset(preset).with_options(must_throw_on=True, **options)
    lineup = Lineup(rules, levels)
    rounds = 0
    for g in range(games):
        rounds += replay(lineup, KEY, g).rounds
    assert rounds > 300
