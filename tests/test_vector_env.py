"""The vector environments against the engine's: same dice, same actions, the same games.

Game-v0 and the PettingZoo game throw their dice from numpy; here they are
given the kernel's counter-based dice instead (and the kernel's random bot's
choices), game by game, so that the engine's environments and the vector
environments play the same games. Every observation, mask, reward and end
must then be identical.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from py421.core.actions import Action
from py421.core.errors import IllegalAction, InvalidParameter, InvalidPlayers, InvalidRuleset
from py421.core.game import Game
from py421.core.rules import Ruleset, option_fields, preset_names
from py421.core.state import ChanceRequest, State
from py421.envs import aec, gym_game
from py421.envs.observation import ObservationEncoder, encode
from py421.envs.play import rewards
from py421.envs.vector import MultiAgentVector, VectorGameEnv, random_actions
from py421.players import make_bot
from py421.sim.fast.counter_dice import (
    CHOICE_STREAM,
    batch_key,
    below,
    face,
    game_key,
    random_bits,
    throw_code,
)

SEED = 2026


@dataclass
class Stream:
    """The kernel's dice and random choices for the games of env ``env``, in the order they are asked."""

    seed: int
    env: int
    game: int = -1
    key: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.key = batch_key(self.seed, self.env)

    def new_game(self) -> None:
        self.game += 1
        self.gkey = np.uint64(game_key(self.key, self.game))
        self.dice = self.choices = 0

    def throw(self, count: int) -> tuple[int, ...]:
        code = throw_code(self.gkey, self.dice)
        self.dice += 1
        return tuple(face(code, i) for i in range(count))

    def random_choice(self, state: State) -> Action:
        """The kernel's random bot: uniform over the engine's legal actions, in their order."""
        legal = state.legal_actions()
        bits = np.uint64(random_bits(self.gkey, CHOICE_STREAM + self.choices))
        self.choices += 1
        return legal[below(bits, len(legal))]


class Streams:
    """The engine's environments take their dice and new games from the stream of the env being played."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Any, seed: int, envs: int) -> None:
        self.all = [Stream(seed, e) for e in range(envs)]
        self.current = self.all[0]

        def new_game(*args: Any, **kwargs: Any) -> Game:
            self.current.new_game()
            return Game(*args, **kwargs)

        def throw(rng: np.random.Generator, request: ChanceRequest) -> tuple[int, ...]:
            return self.current.throw(request.count)

        monkeypatch.setattr(module, "Game", new_game)
        monkeypatch.setattr(module, "throw", throw)

    def use(self, env: int) -> None:
        self.current = self.all[env]

    def restart(self) -> None:
        """Game 0 next: Game-v0 makes a game as it is built, before its first reset."""
        for stream in self.all:
            stream.game = -1


class StreamBot:
    """Game-v0's opponent that plays as the kernel's random bot."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams

    def choose(self, state: State) -> Action:
        return self.streams.current.random_choice(state)


def pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action for each game."""
    return np.asarray(np.argmax(masks * rng.random(masks.shape), axis=1), dtype=np.int64)


def same(a: np.ndarray, b: np.ndarray, what: str, encoder: ObservationEncoder | None = None) -> None:
    """Equal arrays; observations that differ are shown by segment."""
    if encoder is not None and not np.array_equal(a, b):
        parts = zip(encoder.split(a).items(), encoder.split(b).values(), strict=True)
        what += ": " + "; ".join(f"{name} {x} != {y}" for (name, x), y in parts if not np.array_equal(x, y))
    assert np.array_equal(a, b), f"{what}: {a} != {b}"


# -- one learning seat: Game-v0 --------------------------------------------------


class Played(NamedTuple):
    ended: int  # games that ended
    stakes: int  # stakes of a « main chaude » asked of the learning seat


def play_like_game_v0(
    monkeypatch: pytest.MonkeyPatch,
    rules: Ruleset,
    players: int,
    seat: int,
    opponents: list[str],
    *,
    envs: int = 3,
    steps: int = 60,
    reward: str = "tokens",
    autoreset: AutoresetMode = AutoresetMode.SAME_STEP,
) -> Played:
    """Play the vector env and one Game-v0 per env side by side."""
    streams = Streams(monkeypatch, gym_game, SEED, envs)
    vec = VectorGameEnv(
        envs, rules, players, opponents, seat, reward, actions="gym", autoreset_mode=autoreset, seed=SEED
    )
    others = [StreamBot(streams) if o == "random" else o for o in opponents]
    singles = [gym_game.GameEnv(rules, players, others, seat, reward) for _ in range(envs)]
    streams.restart()
    try:
        obs, _ = vec.reset()
    except InvalidRuleset:
        # one of the games went SKIPPED_GAMES in a row without a decision: so does its Game-v0
        refused = []
        for e, single in enumerate(singles):
            streams.use(e)
            with contextlib.suppress(InvalidRuleset):
                single.reset(seed=e)
                continue
            refused.append(e)
        assert refused, "the vector env found nothing to decide, none of the Game-v0 did"
        return Played(0, 0)

    def undecided(e: int, single: gym_game.GameEnv, action: int) -> bool:
        """Whether game ``e``, after ``action``, goes SKIPPED_GAMES games in a row with no decision."""
        streams.use(e)
        if waiting[e]:
            done = True
        else:
            _, _, done, _, _ = single.step(np.int64(action))
        return bool(done) and finds_nothing_to_decide(single.reset)

    for e, single in enumerate(singles):
        streams.use(e)
        same(single.reset(seed=e)[0], obs[e], f"env {e}: first observation", vec.encoder)
        same(single.action_masks(), vec.action_masks()[e], f"env {e}: first mask")
    rng = np.random.default_rng(SEED)
    ended = stakes = 0
    stake_choice = vec.encoder.segments[
        [seg.name for seg in vec.encoder.segments].index("stake_choice")
    ].start
    waiting = np.zeros(envs, dtype=bool)  # next-step autoreset: the game ended and the next starts now
    for t in range(steps):
        chosen = pick(vec.action_masks(), rng)
        stepped = None
        with contextlib.suppress(InvalidRuleset):  # rules where the seat decides once in hundreds of games
            stepped = vec.step(chosen)
        if stepped is None:  # then a Game-v0, on the same dice, finds nothing to decide either
            assert any(undecided(e, single, int(chosen[e])) for e, single in enumerate(singles)), t
            return Played(ended, stakes)
        obs, earned, terminated, truncated, info = stepped
        assert not truncated.any()
        for e, single in enumerate(singles):
            streams.use(e)
            where = f"step {t}, env {e}"
            if waiting[e]:
                got, _ = single.reset()
                assert earned[e] == 0.0 and not terminated[e]
            else:
                got, r, done, cut, told = single.step(chosen[e])
                assert (r, done, cut) == (earned[e], terminated[e], False), where
                if done:
                    ended += 1
                    # Game-v0's last info: at once, or beside the next game's start
                    last = info["final_info"] if autoreset == AutoresetMode.SAME_STEP else info
                    assert (last["losers"][e], last["lost"][e]) == (told["losers"], told["lost"]), where
                    if autoreset == AutoresetMode.SAME_STEP:
                        same(info["final_obs"][e], got, f"{where}: final observation", vec.encoder)
                        got, _ = single.reset()
            same(obs[e], got, f"{where}: observation", vec.encoder)
            same(vec.action_masks()[e], single.action_masks(), f"{where}: mask")
            stakes += int(got[stake_choice])
        waiting = terminated.copy() if autoreset == AutoresetMode.NEXT_STEP else waiting
    return Played(ended, stakes)


def finds_nothing_to_decide(reset: Callable[[], object]) -> bool:
    """Whether a new game's start skips SKIPPED_GAMES games without a decision and gives up."""
    try:
        reset()
    except InvalidRuleset:
        return True
    return False


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_plays_as_game_v0(monkeypatch, preset):
    rules = Ruleset.preset(preset)
    players = 3 if rules.seats(3) else 2
    opponents = ["heuristic", "random"][: players - 1]
    assert play_like_game_v0(monkeypatch, rules, players, players - 1, opponents, steps=150).ended > 0


@pytest.mark.parametrize(
    ("preset", "players", "opponents"),
    [("tim", 2, ["optimal"]), ("classic-11", 2, ["optimal"]), ("engranjeu-21", 2, ["optimal"])],
)
def test_the_optimal_bot_plays_as_in_game_v0(monkeypatch, preset, players, opponents):
    """Its tables are built as games reach new positions: steps that reach one are played again."""
    rules = Ruleset.preset(preset)
    assert play_like_game_v0(monkeypatch, rules, players, 0, opponents, steps=60).ended > 0


@pytest.mark.parametrize(
    ("preset", "options"),
    [("engranjeu-21", {"pot": 4}), ("classic-11", {"pot": 4, "must_throw_on": True})],
    ids=["qui-barre", "throw-on"],
)
def test_optimal_opponents_of_a_whole_game_the_kernel_does_not_hold_are_refused_with_the_way_out(
    preset, options
):
    """Three players under « qui barre démarre » (throw counts and « main chaude »), or where players
    behind must throw on: bot:optimal plays the whole game through the engine only, so the vector env
    says to use Game-v0."""
    said = "bot:optimal's whole game of 3 players under these rules is not in the compiled kernel"
    with pytest.raises(InvalidRuleset, match=said) as refused:
        VectorGameEnv(2, preset, 3, opponents="optimal", **options)
    assert "py421/Game-v0" in str(refused.value)
    game = gymnasium.make("py421/Game-v0", rules=preset, num_players=3, opponents="optimal", **options)
    game.reset(seed=1)  # the engine plays it


def test_next_step_autoreset_and_game_rewards_play_as_game_v0(monkeypatch):
    rules = Ruleset.preset("classic-11")
    played = play_like_game_v0(
        monkeypatch, rules, 2, 0, ["random"], reward="game", autoreset=AutoresetMode.NEXT_STEP, steps=80
    )
    assert played.ended > 0


def test_game_v0s_stake_actions_play_as_game_v0(monkeypatch):
    """« Main chaude » in Game-v0's eight actions: 0 « est », the others « vient »."""
    rules = Ruleset.preset("engranjeu-21")
    assert play_like_game_v0(monkeypatch, rules, 2, 0, ["random"], envs=24, steps=150).stakes > 0


# -- every seat, and « le bon » and « main chaude »: the PettingZoo game ------------------


def play_like_pettingzoo(
    monkeypatch: pytest.MonkeyPatch,
    rules: Ruleset,
    players: int,
    bots: dict[int, str],
    *,
    envs: int = 3,
    steps: int = 60,
    first_seat: int = 0,
) -> int:
    """The multi-agent vector env beside one PettingZoo game per env; the test plays ``bots`` there.

    Rewards of the PettingZoo game are summed over the bots' steps from the
    engine's events, in their order, as the vector env sums them.
    """
    streams = Streams(monkeypatch, aec, SEED, envs)
    vec = MultiAgentVector(envs, rules, players, bots=bots, first_seat=first_seat, seed=SEED)
    games = [aec.Py421Env(rules, players, first_seat=first_seat) for _ in range(envs)]
    engine_bots = {seat: make_bot(level, "") for seat, level in bots.items() if level != "random"}
    total = rules.pot + rules.initial_tokens * players
    paid_from = [1] * envs  # the engine's states whose events the next step pays

    def bots_play(e: int) -> bool:
        """Play the bots' seats of game ``e``; False if the game ended before an agent decided."""
        env = games[e]
        while not env.game.state.is_over and env.game.state.to_move in bots:
            state = env.game.state
            seat = state.to_move
            assert seat is not None
            move = (
                streams.current.random_choice(state)
                if bots[seat] == "random"
                else engine_bots[seat].choose(state)
            )
            env.step(encode(state, move))
        return not env.game.state.is_over

    def undecided(e: int, action: int) -> bool:
        """Whether game ``e``, after ``action``, goes SKIPPED_GAMES games in a row with no decision."""
        streams.use(e)
        env = games[e]
        env.step(action)
        return not bots_play(e) and finds_nothing_to_decide(env.reset)

    def start(e: int) -> None:
        """A new game in which an agent decides (the vector env skips the others)."""
        env = games[e]
        env.reset(seed=e)
        while not bots_play(e):
            env.reset()
        paid_from[e] = 1

    def check(e: int, got: Any, where: str) -> None:
        env = games[e]
        for seat, agent in enumerate(env.possible_agents):
            seen = env.observe(agent)
            same(
                got.observations[e, seat], seen["observation"], f"{where}: {agent}'s observation", vec.encoder
            )
            same(got.masks[e, seat], seen["action_mask"], f"{where}: {agent}'s mask")
        assert got.to_move[e] == (-1 if env.game.state.is_over else env.game.state.to_move), where

    try:
        got = vec.reset()
    except InvalidRuleset:
        return 0
    for e in range(envs):
        streams.use(e)
        start(e)
        check(e, got, f"env {e}, reset")
    rng = np.random.default_rng(SEED)
    ended = 0
    for t in range(steps):
        chosen = pick(vec.action_masks(), rng)
        stepped = None
        with contextlib.suppress(InvalidRuleset):  # rules where an agent decides once in hundreds of games
            stepped = vec.step(chosen)
        if stepped is None:  # then a PettingZoo game, on the same dice, finds nothing to decide either
            assert any(undecided(e, int(chosen[e])) for e in range(envs)), f"step {t}"
            return ended
        got = stepped
        for e in range(envs):
            streams.use(e)
            env = games[e]
            where = f"step {t}, env {e}"
            env.step(int(chosen[e]))
            bots_play(e)
            states = env.game.states
            events = [event for state in states[paid_from[e] :] for event in state.events]
            paid_from[e] = len(states)
            expected = rewards(events, players=players, manche_tokens=total, reward="tokens")
            same(got.rewards[e], np.array(expected), f"{where}: rewards")
            if not bots:
                same(got.rewards[e], np.array([env.rewards[a] for a in env.possible_agents]), where)
            assert got.terminated[e] == env.game.state.is_over, where
            if got.terminated[e]:
                ended += 1
                assert got.final_observations is not None
                row = int(np.flatnonzero(np.flatnonzero(got.terminated | got.truncated) == e)[0])
                for seat, agent in enumerate(env.possible_agents):
                    seen = env.observe(agent)["observation"]
                    same(got.final_observations[row, seat], seen, where, vec.encoder)
                start(e)
            check(e, got, where)
    return ended


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_plays_as_the_pettingzoo_game(monkeypatch, preset):
    rules = Ruleset.preset(preset)
    players = 3 if rules.seats(3) else 2
    steps = 400 if rules.pot > 21 else 150  # games of 41 tokens are long
    assert play_like_pettingzoo(monkeypatch, rules, players, {}, steps=steps) > 0


@pytest.mark.parametrize("preset", ["engranjeu-21", "classic-11", "kytionnaire"])
def test_agents_beside_bots_play_as_the_pettingzoo_game(monkeypatch, preset):
    rules = Ruleset.preset(preset)
    bots = {1: "heuristic", 2: "random"}
    assert play_like_pettingzoo(monkeypatch, rules, 4, bots, steps=60, first_seat=2) > 0


def test_the_stake_of_a_main_chaude_is_an_action(monkeypatch):
    """« Main chaude » is rare: many games of engranjeu-21 until some agent chooses a stake."""
    rules = Ruleset.preset("engranjeu-21").with_options(tie_break="qui_barre_demarre")
    vec = MultiAgentVector(256, rules, 2, seed=3)
    rng = np.random.default_rng(0)
    got = vec.reset()
    for _ in range(400):
        masks = vec.action_masks()
        if masks[:, 15:].any():
            break
        got = vec.step(pick(masks, rng))
    e = int(np.flatnonzero(vec.action_masks()[:, 15])[0])
    assert vec.action_masks()[e].tolist() == [0] * 15 + [1, 1]
    seat = got.to_move[e]
    split = vec.encoder.split(got.observations[e, seat])
    assert split["stake_choice"][0] == 1 and split["tie_replays"][0] >= 2


# -- any options ---------------------------------------------------------------------


def _option_values(name: str) -> st.SearchStrategy[object]:
    f = next(f for f in option_fields() if f.name == name)
    if f.metadata["choices"]:
        return st.sampled_from(f.metadata["choices"])
    if f.type in ("bool", bool):
        return st.booleans()
    low = f.metadata["low"]
    return st.integers(low, min(f.metadata["high"], low + 4))


VARIED = [f.name for f in option_fields() if f.name not in ("min_players", "max_players")]


@settings(max_examples=40)
@given(
    preset=st.sampled_from(preset_names()),
    changes=st.dictionaries(st.sampled_from(VARIED), st.none(), max_size=6).flatmap(
        lambda d: st.fixed_dictionaries({name: _option_values(name) for name in d})
    ),
    players=st.integers(2, 4),
    self_play=st.booleans(),
)
def test_any_options_play_as_the_engines_environments(preset, changes, players, self_play):
    try:
        rules = Ruleset.preset(preset).with_options(**changes)
    except InvalidRuleset:
        assume(False)
    players = max(rules.min_players, min(players, rules.max_players or players))
    with pytest.MonkeyPatch.context() as monkeypatch:
        if self_play:
            ended = play_like_pettingzoo(monkeypatch, rules, players, {}, envs=2, steps=40)
        else:
            opponents = ["random", "heuristic", "random"][: players - 1]
            ended = play_like_game_v0(monkeypatch, rules, players, 0, opponents, envs=2, steps=40).ended
    event(f"games ended: {min(ended, 3)}{'+' if ended >= 3 else ''}")


def test_random_actions_draw_every_legal_action_and_only_those():
    masks = np.zeros((3000, 17), dtype=bool)
    masks[:, [0, 4, 16]] = True
    masks[-1] = False
    drawn = random_actions(masks, np.random.default_rng(5))
    assert sorted(set(drawn[:-1].tolist())) == [0, 4, 16] and drawn[-1] == 0
    assert min(np.bincount(drawn[:-1])[[0, 4, 16]]) > 900  # about 1,000 each
    with pytest.raises(
        InvalidParameter, match=r"masks are one row of actions per game, not an array of shape \(17,\)"
    ):
        random_actions(masks[0], np.random.default_rng(5))


# -- threads, and Gymnasium's tools ---------------------------------------------------


def test_threads_play_the_same_games():
    def run(threads: int) -> list[np.ndarray[Any, Any]]:
        vec = MultiAgentVector(50, "engranjeu-21", 3, bots={2: "random"}, seed=4, threads=threads)
        rng = np.random.default_rng(0)
        seen: list[np.ndarray[Any, Any]] = [vec.reset().observations]
        for _ in range(30):
            got = vec.step(pick(vec.action_masks(), rng))
            seen += [got.observations, got.rewards, got.masks]
        vec.close()
        return seen

    one, two = run(1), run(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_gymnasiums_episode_statistics_count_the_games():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    vec = VectorGameEnv(16, "classic-11", opponents="random", seed=2)
    env = RecordEpisodeStatistics(vec)
    env.reset()
    rng = np.random.default_rng(0)
    lengths = []
    for _ in range(60):
        _, _, terminated, _, info = env.step(pick(vec.action_masks(), rng))
        if terminated.any():
            lengths += list(info["episode"]["l"][info["_episode"]])
    assert lengths and min(lengths) >= 1
    assert vec.action_masks().shape == (16, 17) and env.observation_space.shape == (16, vec.encoder.size)


def test_a_seed_gives_the_same_games_and_none_plays_on():
    first = VectorGameEnv(8, "lyonnaise-21", seed=11)
    again = VectorGameEnv(8, "lyonnaise-21")
    same(first.reset()[0], again.reset(seed=11)[0], "same seed")
    assert not np.array_equal(first.reset()[0], again.reset(seed=12)[0])


def test_rules_that_leave_nothing_to_decide_are_refused():
    rules = Ruleset.preset("classic-11").with_options(decharge_throws=1, le_bon=False)
    with pytest.raises(InvalidRuleset, match="games in a row ended before the learning seat had a decision"):
        VectorGameEnv(4, rules, seed=0).reset()


# -- bad input -------------------------------------------------------------------------


def test_bad_arguments_say_what_is_accepted():
    with pytest.raises(
        InvalidPlayers, match=r"bot 'clever' is not accepted; .* random \| heuristic \| optimal"
    ):
        VectorGameEnv(2, "classic-11", 2, opponents="clever")
    with pytest.raises(InvalidPlayers, match="one opponent for each of the 2 other seats"):
        VectorGameEnv(2, "classic-11", 3, opponents=["random"])
    with pytest.raises(InvalidPlayers, match="tim is played by 2 players, not 3"):
        VectorGameEnv(2, "tim", 3)
    with pytest.raises(InvalidParameter, match=r"actions='some' is not accepted; actions takes all"):
        VectorGameEnv(2, actions="some")
    with pytest.raises(InvalidParameter, match=r"num_envs is a whole number from 1, not 0"):
        VectorGameEnv(0)
    with pytest.raises(InvalidParameter, match=r"autoreset_mode=.* is not offered; accepted: AutoresetMode"):
        VectorGameEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    # the text forms the docs show are named too
    with pytest.raises(InvalidParameter, match=r"autoreset_mode='whenever' .*\"SameStep\".*\"NextStep\""):
        VectorGameEnv(2, autoreset_mode="whenever")
    with pytest.raises(InvalidRuleset, match="unknown option 'pots'"):
        MultiAgentVector(2, pots=3)
    with pytest.raises(InvalidPlayers, match="bots hold every seat"):
        MultiAgentVector(2, bots={0: "random", 1: "heuristic"})


def test_an_illegal_action_names_the_game_and_the_accepted_ones():
    vec = VectorGameEnv(4, "classic-11", seed=1)
    vec.reset()
    chosen = np.argmax(vec.action_masks(), axis=1)
    chosen[2] = 15
    with pytest.raises(
        IllegalAction, match=r"game 2, seat 0: action 15 \(stake est\) is not allowed now; accepted: "
    ):
        vec.step(chosen)
    with pytest.raises(IllegalAction, match="step\\(\\) takes one action per game: 4 whole numbers 0 to 16"):
        vec.step(np.array([0, 1]))


# -- Gymnasium's conventions -----------------------------------------------------------


def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.asarray(np.argmax(masks, axis=1), dtype=np.int64)


def test_a_list_of_seeds_gives_each_env_the_games_of_a_lone_env_under_its_seed():
    seeds = [5, 7, 5]
    vec = VectorGameEnv(3, "vache-41", autoreset_mode="SameStep")
    alone = {seed: VectorGameEnv(1, "vache-41", autoreset_mode="SameStep") for seed in set(seeds)}
    obs, _ = vec.reset(seed=seeds)
    seen = {seed: env.reset(seed=seed)[0] for seed, env in alone.items()}
    for _ in range(40):
        for e, seed in enumerate(seeds):
            same(obs[e], seen[seed][0], f"env {e} under seed {seed}", vec.encoder)
        obs, *_ = vec.step(first_legal(vec.action_masks()))
        seen = {seed: env.step(first_legal(env.action_masks()))[0] for seed, env in alone.items()}
    with pytest.raises(InvalidParameter, match=r"seed is a whole number from 0 .* or a list of 3 of them"):
        vec.reset(seed=[1, 2])
    games = MultiAgentVector(3, "vache-41", seed=0)  # self-play takes a seed per game too
    lone = MultiAgentVector(1, "vache-41").reset(seed=7).observations
    same(games.reset(seed=seeds).observations[1], lone[0], "game 1 under seed 7")
    with pytest.raises(InvalidParameter, match=r"or a list of 3 of them .*; not \[1, -2, 3\]"):
        vec.reset(seed=[1, -2, 3])
    vec.reset(seed=[1, None, 3])  # None: that env's dice from a fresh seed


def test_a_game_that_ends_leaves_its_last_info_as_gymnasium_does():
    """Batched as Gymnasium batches infos: a value per env, and a mask of the envs that have one
    (each value is checked against Game-v0's in play_like_game_v0)."""
    vec = VectorGameEnv(8, "classic-11", opponents="random", seed=3, autoreset_mode=AutoresetMode.SAME_STEP)
    vec.reset()
    for _ in range(100):
        _, _, terminated, truncated, info = vec.step(first_legal(vec.action_masks()))
        ended = terminated | truncated
        if ended.any():
            final = info["final_info"]
            for mask in (info["_final_info"], info["_final_obs"], final["_losers"], final["_lost"]):
                assert np.array_equal(mask, ended)
            for e in np.flatnonzero(ended):
                losers = final["losers"][e]  # two when the rules share the loss
                assert losers in ((0,), (1,), (0, 1)) and final["lost"][e] == (0 in losers)
            return
        assert "final_info" not in info and "losers" not in info
    raise AssertionError("no game ended in 100 steps")


def test_by_default_a_game_restarts_at_the_next_step_which_gymnasiums_wrappers_take():
    from gymnasium.wrappers.vector import NormalizeObservation, NormalizeReward

    vec = VectorGameEnv(8, "classic-11", opponents="random", seed=3)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    env = NormalizeReward(NormalizeObservation(vec))
    obs, _ = env.reset(seed=1)
    for _ in range(30):
        obs, *_ = env.step(first_legal(vec.action_masks()))
    assert obs.shape == (8, vec.encoder.size) and np.isfinite(obs).all()


def test_game_v0_made_as_a_vector_is_the_fast_env_with_game_v0s_actions():
    import gymnasium
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    import py421.envs  # noqa: F401 - registers the ids

    env = gymnasium.make_vec(
        "py421/Game-v0", num_envs=16, vectorization_mode="vector_entry_point", rules="tim", opponents="random"
    )
    assert isinstance(env, VectorGameEnv) and env.rules.name == "tim"
    assert env.single_action_space == gymnasium.spaces.Discrete(8) and env.action_masks().shape == (16, 8)
    stats = RecordEpisodeStatistics(env)
    stats.reset(seed=2)
    ended = 0
    for _ in range(60):
        *_, terminated, _, info = stats.step(first_legal(env.action_masks()))
        if terminated.any():  # the wrapper counts each game as it ends
            assert np.array_equal(info["_episode"], terminated)
        ended += int(terminated.sum())
    assert ended > 0


def test_the_action_space_samples_only_legal_actions():
    vec = VectorGameEnv(32, "engranjeu-21", 3, opponents="random", seed=4)
    vec.action_space.seed(5)
    vec.reset()
    for _ in range(60):
        actions = vec.action_space.sample()
        assert vec.action_space.contains(actions)
        vec.step(actions)  # an illegal one would raise IllegalAction
    masks = tuple(np.ones(17, dtype=np.int8) for _ in range(32))
    assert vec.action_space.sample(mask=masks).shape == (32,)  # a mask given is Gymnasium's


def test_render_shows_every_env_in_a_line_of_what_its_seat_sees():
    vec = VectorGameEnv(3, "classic-11", 2, seat=1, seed=6, render_mode="ansi")
    obs, _ = vec.reset()
    lines = vec.render()
    assert isinstance(lines, tuple) and len(lines) == 3
    for e, line in enumerate(lines):
        seen = vec.encoder.split(obs[e])
        dice = "".join(str(int(f)) for f in seen["dice"] if f)
        assert line.startswith(f"env {e}: manche 1, ")
        assert f"pot {int(seen['pot'][0])}" in line and f"dice {dice}" in line
        assert "seat 1 (you) to decide" in line  # Game-v0's observations: the learning seat's turn
    vec.step(first_legal(vec.action_masks()))
    assert vec.render() != lines  # drawn from the last observations
    with pytest.warns(UserWarning, match=r"render\(\) needs a render_mode \(ansi \| human\)"):
        assert VectorGameEnv(2, seed=1).render() is None  # made without a render mode: nothing drawn


@pytest.mark.parametrize("mode", ["rgb_array", "depth_array"])
def test_a_render_mode_not_offered_warns_and_renders_nothing_as_rl_md_says(mode):
    """Tools ask every environment for modes of their own: the vector env warns, as the single one does."""
    said = f"render_mode='{mode}' is not offered, so nothing is rendered; render_mode takes ansi \\| human"
    with pytest.warns(UserWarning, match=said):
        vec = VectorGameEnv(2, seed=1, render_mode=mode)
    assert vec.render_mode is None
    vec.reset()
    with pytest.warns(UserWarning, match=r"render\(\) needs a render_mode"):
        assert vec.render() is None
    with pytest.warns(UserWarning, match=said):
        made = gymnasium.make_vec("py421/Game-v0", num_envs=2, render_mode=mode)
    assert made.render_mode is None
    made.reset(seed=0)
    made.step(np.zeros(2, dtype=np.int64))  # stop: legal at every decision of Game-v0's actions


@pytest.mark.parametrize("players", [2, 3])
def test_a_player_or_policy_opponent_is_refused_saying_the_kernel_seats_bots_and_sync_plays_them(players):
    def policy(observation, mask):
        return 0

    said = r"the compiled kernel seats only bots \(random \| heuristic \| optimal\)"
    sync = 'vectorization_mode="sync"'
    mixed = ["heuristic", policy][3 - players :]  # a bot level beside the policy at three players
    kinds: list[Any] = [policy, [policy] * (players - 1), mixed, make_bot("random", "0")]
    for opponents in kinds:
        with pytest.raises(InvalidPlayers, match=said) as caught:
            VectorGameEnv(4, num_players=players, opponents=opponents)
        assert sync in str(caught.value)
    with pytest.raises(InvalidPlayers, match=said) as caught:
        gymnasium.make_vec("py421/Game-v0", num_envs=2, num_players=players, opponents=policy)
    assert sync in str(caught.value)
    bots: Any = {1: policy}
    with pytest.raises(InvalidPlayers, match=said):
        MultiAgentVector(4, num_players=players, bots=bots)
    sync_env = gymnasium.make_vec(  # where the documented way out plays it
        "py421/Game-v0", num_envs=2, vectorization_mode="sync", num_players=players, opponents=policy
    )
    sync_env.reset(seed=0)
    sync_env.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_self_play_as_a_gymnasium_vector_env_of_one_env_per_seat_is_the_multi_agent_vector(mode):
    """Env ``g * n + s`` is seat ``s`` of game ``g``: the observations, rewards and ends of the games,
    only the seat to move read (what the others send changes nothing)."""
    games, twin = (MultiAgentVector(40, "engranjeu-21", 3, seed=2, autoreset_mode=mode) for _ in range(2))
    seats = games.seat_vector()
    assert isinstance(seats, gymnasium.vector.VectorEnv) and seats.num_envs == 120
    obs, info = seats.reset(seed=[100 + e // 3 for e in range(120)])  # a game takes its first seat's
    got = twin.reset(seed=[100 + g for g in range(40)])
    np.testing.assert_array_equal(obs, got.observations.reshape(120, -1))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = seats.action_masks()
        assert masks.any(axis=1).all() and not masks[~info["to_move"], 1:].any()
        np.testing.assert_array_equal(
            info["to_move"].reshape(40, 3).argmax(axis=1)[got.to_move >= 0], got.to_move[got.to_move >= 0]
        )
        chosen = random_actions(masks, rng)
        noise = rng.integers(0, masks.shape[1], 120)
        obs, rewards, terminated, truncated, info = seats.step(np.where(info["to_move"], chosen, noise))
        got = twin.step(chosen.reshape(40, 3).max(axis=1))  # the mover's action; the others' are 0
        np.testing.assert_array_equal(obs, got.observations.reshape(120, -1))
        np.testing.assert_array_equal(rewards, got.rewards.reshape(-1))
        np.testing.assert_array_equal(terminated, np.repeat(got.terminated, 3))
        np.testing.assert_array_equal(truncated, np.repeat(got.truncated, 3))
        if got.terminated.any():
            ended += int(got.terminated.sum())
            where = np.flatnonzero(np.repeat(got.terminated, 3))
            outcome = info["final_info"] if mode == AutoresetMode.SAME_STEP else info
            assert all((e % 3 in outcome["losers"][e]) == outcome["lost"][e] for e in where)
            if mode == AutoresetMode.SAME_STEP:
                last = np.stack(info["final_obs"][where])
                assert got.final_observations is not None
                np.testing.assert_array_equal(last, got.final_observations.reshape(-1, last.shape[1]))
    assert ended > 20
