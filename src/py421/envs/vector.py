"""Thousands of games at once on the compiled kernel, for learning at full speed.

Two ways in, both stepping N games per call in compiled code
(:mod:`py421.sim.fast.steps`):

- :class:`VectorGameEnv`, a ``gymnasium.vector.VectorEnv``: in each of N
  games one learning seat plays against the kernel's bots, as
  ``py421/Game-v0`` does;
- :class:`MultiAgentVector`: every seat's observation, mask and reward of
  N games at once, for self-play (seats may also be left to bots).

Observations are the vectors of :mod:`.observation`, rewards those of
:mod:`.play`. Actions are the 17 indices of :mod:`.observation`
(``actions="all"``: « le bon » at 8 to 14 where the rules play it, the stake
of a « main chaude » at 15 and 16) or Game-v0's eight (``actions="gym"``).
``action_masks()`` gives the legal ones, as sb3-contrib's MaskablePPO asks.

The dice and the random bot's choices come from the kernel's counter-based
streams: game ``g`` of env ``e`` under seed ``s`` throws what game ``g`` of
batch ``e`` throws in ``421 simulate --seed s`` (``py421.sim.fast.counter_dice``),
whatever the actions. Needs the ``sim`` and ``rl`` extras (numba, Gymnasium).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeGuard, get_args

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..core.dice import DICE_PER_THROW
from ..core.errors import IllegalAction, InvalidParameter, InvalidPlayers, InvalidRuleset, Message
from ..core.rules import Ruleset
from ..players.optimal import check_optimal
from ..sim.fast import bot_tables, shipped_kernel
from ..sim.fast import kernel as k
from ..sim.fast import steps as s
from ..sim.fast.arrays import rules_array, tables
from ..sim.fast.counter_dice import batch_key
from ..sim.fast.lineup import check_players
from ..sim.fast.optimal_tables import DecisionTables, MaxnTables, OptimalPositions, OptimalRounds
from ..sim.fast.policy import H_MISSING, KINDS, maxn_in_kernel, no_positions
from ..solver.strategy import played, two_player_game
from ..solver.tables import KEEP_INDEX, RESULTS
from .observation import GYM_ACTIONS, NUM_ACTIONS, FloatArray, MaskArray, ObservationEncoder, action_name
from .play import SKIPPED_GAMES, check_reward, make_rules, nothing_to_decide, offered_render_mode

ActionSet = Literal["all", "gym"]
ACTION_SETS: tuple[ActionSet, ...] = get_args(ActionSet)
AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
IntArray = npt.NDArray[np.int64]

assert s.SKIPPED_GAMES == SKIPPED_GAMES and s.NUM_ACTIONS == NUM_ACTIONS and s.GYM_ACTIONS == GYM_ACTIONS


def _moves() -> IntArray:
    """For each result: the keep each rethrow index leaves, and its faces (highest first)."""
    moves = np.zeros((s.M_ROWS, len(RESULTS)), dtype=np.int64)
    for r, result in enumerate(RESULTS):
        dice = result.dice
        for bits in range(1, 8):
            kept = tuple(face for i, face in enumerate(dice) if not bits >> i & 1)
            moves[s.M_KEEP + bits, r] = KEEP_INDEX[kept]
        moves[s.M_DICE : s.M_DICE + DICE_PER_THROW, r] = dice
    return moves


MOVES = _moves()
_NONE = no_positions()  # the tables of a lineup without the optimal bot


def _check_count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidParameter(Message("envs.vector.count", {"what": what, "value": repr(value)}))
    return int(value)


def _is_seed(seed: object) -> TypeGuard[int | np.integer[Any]]:
    return not isinstance(seed, bool) and isinstance(seed, int | np.integer) and bool(seed >= 0)


def _check_seed(seed: object) -> int | None:
    if seed is None:
        return None
    if not _is_seed(seed):
        raise InvalidParameter(Message("envs.vector.seed", {"value": repr(seed)}))
    return int(seed)


Seeds = int | Sequence[int | None] | None


def _check_seeds(seed: object, count: int) -> Seeds:
    """One seed for every env, or Gymnasium's list of one per env (None: a fresh one)."""
    if isinstance(seed, list | tuple):
        if len(seed) == count and all(x is None or _is_seed(x) for x in seed):
            return [None if x is None else int(x) for x in seed]
    elif seed is None or _is_seed(seed):
        return _check_seed(seed)
    raise InvalidParameter(Message("envs.vector.seeds", {"count": count, "value": _shown(seed)}))


def _fresh_seed() -> int:
    return int(np.random.default_rng().integers(2**63))


def _check_actions(actions: object) -> ActionSet:
    for known in ACTION_SETS:
        if actions == known:
            return known
    raise InvalidParameter(Message("envs.vector.actions", {"value": repr(actions)}))


def _check_autoreset(mode: object) -> AutoresetMode:
    for known in AUTORESET_MODES:
        if mode == known or mode == known.value:
            return known
    accepted = " | ".join(f'AutoresetMode.{m.name} ("{m.value}")' for m in AUTORESET_MODES)
    raise InvalidParameter(Message("envs.vector.autoreset", {"value": repr(mode), "accepted": accepted}))


VECTOR_RENDER_MODES = ("ansi", "human")
VECTOR_RENDER_OFF = f"render() needs a render_mode ({' | '.join(VECTOR_RENDER_MODES)}) when the env is made"


def _check_render_mode(mode: object) -> str | None:
    """A mode of the vector env, or None after a warning, as the other environments take them."""
    return offered_render_mode(mode, VECTOR_RENDER_MODES, stacklevel=4)


def _check_bot(level: object) -> int:
    if isinstance(level, str) and level in KINDS:
        return KINDS[level]
    # the compiled ones: a step plays every seat in the kernel
    key = "envs.vector.bot" if isinstance(level, str) else "envs.vector.not_a_bot"
    raise InvalidPlayers(Message(key, {"value": repr(level), "accepted": " | ".join(KINDS)}))


class _OptimalTables:
    """The optimal bot's decision tables (as ``421 simulate`` builds them), for the seats it holds.

    Positions are built as games reach them: a step that asked for one not yet
    built is played again once it is (see :meth:`_Batch._advance`).
    """

    def __init__(self, rules: Ruleset, players: int) -> None:
        check_optimal(rules, players)
        self.tables: DecisionTables
        if two_player_game(rules, players):
            self.tables = OptimalPositions(rules)
            bot_tables.load(self.tables)  # every position, if they were built on this machine
        elif played(rules, players) == "game_maxn":  # as the engine's bot:optimal plays
            if not maxn_in_kernel(rules, players):
                raise InvalidRuleset(Message("envs.vector.engine_only", {"n": players}))
            self.tables = MaxnTables(rules, players)
        else:
            self.tables = OptimalRounds(rules, players)

    def build_missing(self) -> bool:
        """Build what the last step asked for; whether there was anything."""
        if self.tables.index[H_MISSING] < 0:
            return False
        self.tables.build_missing()
        return True


class Steps(NamedTuple):
    """What :class:`MultiAgentVector` shows after a reset or a step, N games by n seats."""

    observations: FloatArray  # (N, n, size): each seat's view
    masks: MaskArray  # (N, n, actions): the deciding seat's legal actions, zeros for the others
    rewards: npt.NDArray[np.float64]  # (N, n): earned since the last step (0 after a reset)
    terminated: npt.NDArray[np.bool_]  # (N,): the game ended in this step
    truncated: npt.NDArray[np.bool_]  # (N,): stopped after kernel.MAX_ROUNDS rounds
    to_move: IntArray  # (N,): the seat whose action the next step reads (-1: none, the game is over)
    # with same-step autoreset, (k, n, size): the last observations of the k games that ended, in the
    # order of np.flatnonzero(terminated | truncated); else None
    final_observations: FloatArray | None


@dataclass
class _Batch:
    """N games in the kernel's arrays, with the seats that decide from outside."""

    rules: Ruleset
    kinds: IntArray  # per seat: a kernel bot kind, or steps.AGENT
    viewers: IntArray  # the seats whose observations are written
    games: int
    reward: str
    actions: ActionSet
    autoreset: AutoresetMode
    first_seat: int
    threads: int

    def __post_init__(self) -> None:
        shipped_kernel.install_missing()  # the step kernel py421 ships, rather than a minute compiling it
        n = self.kinds.size
        self.encoder = ObservationEncoder(self.rules, n)
        layout = {seg.name: seg.start for seg in self.encoder.segments}
        if tuple(layout) != s.SEGMENTS:
            raise AssertionError(f"the step kernel writes {s.SEGMENTS}, the encoder has {tuple(layout)}")
        self.conf = np.zeros(s.K_SIZE, dtype=np.int64)
        self.conf[s.K_PLAYERS] = n
        self.conf[s.K_FIRST_SEAT] = self.first_seat
        self.conf[s.K_TOKENS] = self.rules.pot + self.rules.initial_tokens * n
        self.conf[s.K_REWARD_GAME] = self.reward == "game"
        self.conf[s.K_GYM] = self.actions == "gym"
        self.conf[s.K_SAME_STEP] = self.autoreset == AutoresetMode.SAME_STEP
        self.conf[s.K_OBS_SIZE] = self.encoder.size
        self.conf[s.K_LAYOUT :] = list(layout.values())
        self.rules_array = rules_array(self.rules)
        self.tab = tables(self.rules)
        self.rindex, self.rindex_actions = _NONE  # the optimal bot round by round: not seated here
        self.optimal = _OptimalTables(self.rules, n) if KINDS["optimal"] in self.kinds else None
        self.action_count = GYM_ACTIONS if self.actions == "gym" else NUM_ACTIONS
        g = self.games
        self.keys = np.zeros((g, 2), dtype=np.uint64)
        self.gkeys = np.zeros(g, dtype=np.uint64)
        self.st = np.zeros((g, k.S_SIZE), dtype=np.int64)
        self.se = np.zeros((g, k.SE_ROWS, n), dtype=np.int64)
        self.vs = np.zeros((g, s.V_SIZE), dtype=np.int64)
        self.acc = np.zeros((g, n), dtype=np.float64)
        self.report = np.zeros(s.E_SIZE, dtype=np.int64)
        self.masks = np.zeros((g, self.viewers.size, self.action_count), dtype=np.int8)
        self.keyed = False  # whether the games' dice streams are set (by the first reset)
        self.started = False
        self._pool: ThreadPoolExecutor | None = None
        self._final = np.zeros((g, self.viewers.size, self.encoder.size), dtype=np.float32)
        # per thread: what the kernel counts as it plays (unread), the tokens before a round is settled
        self._scratch = [
            (np.zeros(k.C_SIZE, dtype=np.int64), np.zeros(2 * n, dtype=np.int64)) for _ in range(self.threads)
        ]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _tables(self) -> tuple[Any, ...]:
        index, actions = (self.optimal.tables.index, self.optimal.tables.actions) if self.optimal else _NONE
        return (self.rules_array, self.tab, self.kinds, index, actions, self.rindex, self.rindex_actions)

    def reset(self, seed: Seeds) -> FloatArray:
        """Start new games: under a seed, game 0 of each env (env ``e`` of seed ``s`` plays batch ``e``
        of ``421 simulate --seed s``; with a list, env ``e`` plays batch 0 of its own seed); else each
        env's next game."""
        if seed is not None or not self.keyed:
            if isinstance(seed, Sequence):
                self.keys[:] = [batch_key(_fresh_seed() if x is None else x, 0) for x in seed]
            else:
                base = _fresh_seed() if seed is None else seed
                self.keys[:] = [batch_key(base, e) for e in range(self.games)]
            self.keyed = True
            first = np.zeros(self.games, dtype=np.int64)
        else:
            first = self.vs[:, s.V_GAME] + 1
        s.prepare_reset(self.vs, self.acc, first)
        obs, _, _, _ = self._advance(np.zeros(self.games, dtype=np.int64))
        self.started = True
        return obs

    def step(
        self, chosen: object
    ) -> tuple[FloatArray, npt.NDArray[np.float64], npt.NDArray[np.int8], FloatArray | None]:
        if not self.started:
            raise gymnasium.error.ResetNeeded(str(Message("envs.vector.reset_needed")))
        picked = self._check_chosen(chosen)
        if not s.check_actions(
            self.st, self.se, self.vs, self.rules_array, self.tab, self.conf, picked, self.report
        ):
            self._illegal()
        return self._advance(picked)

    def _advance(
        self, picked: IntArray
    ) -> tuple[FloatArray, npt.NDArray[np.float64], npt.NDArray[np.int8], FloatArray | None]:
        """Every game on to its next decision, on ``threads`` threads (a slice of the games each)."""
        g, n = self.games, self.kinds.size
        obs = np.empty((g, self.viewers.size, self.encoder.size), dtype=np.float32)
        same_step = self.autoreset == AutoresetMode.SAME_STEP
        final = self._final if same_step else obs[:0]  # the rows of games that end are written
        rewards = np.empty((g, n), dtype=np.float64)
        ended = np.empty(g, dtype=np.int8)
        state: tuple[npt.NDArray[Any], ...] = (self.st, self.se, self.vs, self.gkeys, self.acc, self.masks)
        saved = [a.copy() for a in state] if self.optimal else []
        while True:
            self.report[:] = -1
            arrays = (
                self.keys, self.gkeys, self.st, self.se, self.vs, *self._tables(), MOVES, self.conf,
                self.viewers, picked, self.acc, obs, self.masks, rewards, ended, final, self.report,
            )  # fmt: skip
            step: Any = s.step  # a numba dispatcher
            if self.threads == 1 or g < 2 * self.threads:
                step(0, g, *arrays, *self._scratch[0])
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="py421-vector")
                cuts = [g * t // self.threads for t in range(self.threads + 1)]
                slices = zip(itertools.pairwise(cuts), self._scratch, strict=True)
                for done in [self._pool.submit(step, a, b, *arrays, *scratch) for (a, b), scratch in slices]:
                    done.result()
            if self.optimal is None or not self.optimal.build_missing():
                break
            for array, kept in zip(state, saved, strict=True):  # played again with the position built
                array[:] = kept
        self._check_report()
        return obs, rewards, ended, (final[ended > 0] if final.size else None)

    def _check_chosen(self, chosen: object) -> IntArray:
        try:
            picked = np.asarray(chosen)
        except Exception:
            picked = np.asarray(None)
        if picked.shape != (self.games,) or picked.dtype.kind not in "iu":
            raise IllegalAction(
                Message(
                    "envs.vector.chosen",
                    {"games": self.games, "last": self.action_count - 1, "value": _shown(chosen)},
                )
            )
        return picked.astype(np.int64, copy=False)

    def _illegal(self) -> None:
        e, action = int(self.report[s.E_ILLEGAL_GAME]), int(self.report[s.E_ILLEGAL_ACTION])
        seat = int(self.vs[e, s.V_DECIDER])
        legal = np.flatnonzero(self.masks[e].max(axis=0))
        names = [
            f"{i} ({action_name(int(i)) if self.actions == 'all' else _gym_name(self, e, int(i))})"
            for i in legal
        ]
        what = f"{action} ({action_name(action)})" if 0 <= action < NUM_ACTIONS else str(action)
        raise IllegalAction(
            Message(
                "envs.vector.illegal",
                {"game": e, "seat": seat, "action": what, "accepted": ", ".join(names)},
            )
        )

    def _check_report(self) -> None:
        if self.report[s.E_NOTHING_GAME] >= 0:
            raise nothing_to_decide(
                self.rules,
                Message("envs.play.learning_seat" if self.viewers.size == 1 else "envs.play.any_agent"),
            )

    def losers(self, game: int) -> tuple[int, ...]:
        """The seats that lost game ``game``, which just ended (none for a game cut short)."""
        bits = int(self.vs[game, s.V_ENDED_LOSERS])
        return tuple(p for p in range(self.kinds.size) if bits >> p & 1)

    @property
    def deciding(self) -> IntArray:
        """Per game: the seat that must decide (-1 once the game is over)."""
        return np.where(self.vs[:, s.V_WAIT] == s.W_OVER, -1, self.vs[:, s.V_DECIDER])


def random_actions(masks: npt.ArrayLike, rng: np.random.Generator) -> IntArray:
    """A legal action drawn uniformly for each row of ``masks`` (0 where a row marks none).

    One number of ``rng`` a row, in compiled code: much faster than
    ``action_space.sample(mask=...)`` game by game.
    """
    marked = np.asarray(masks)
    if marked.ndim != 2:
        raise InvalidParameter(Message("envs.vector.masks", {"shape": str(marked.shape)}))
    out = np.empty(marked.shape[0], dtype=np.int64)
    s.pick_legal(
        marked.view(np.int8) if marked.dtype == np.bool_ else marked.astype(np.int8),
        rng.random(len(out)),
        out,
    )
    return out


def _gym_name(batch: _Batch, e: int, index: int) -> str:
    if batch.vs[e, s.V_WAIT] == s.W_STAKE:
        return "stake est" if index == 0 else "stake vient"
    return action_name(index)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _rules_and_players(
    rules: str | Ruleset, num_players: object, options: Mapping[str, Any]
) -> tuple[Ruleset, int]:
    ruleset = make_rules(rules, options)
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise InvalidPlayers(Message("envs.num_players", {"value": repr(num_players)}))
    return ruleset, num_players


def _check_table(rules: Ruleset, players: int) -> None:
    """The engine's check of the player count, and the kernel's most seats."""
    check_players(rules, ["random"] * players)


# -- Gymnasium ----------------------------------------------------------------------


class LegalActions(spaces.MultiDiscrete):
    """One action per env, where ``sample()`` draws a legal one for each (the masks of the moment);
    given a ``mask`` or a ``probability``, it samples as Gymnasium's ``MultiDiscrete`` does."""

    def __init__(self, count: int, envs: int, masks: Callable[[], npt.NDArray[np.bool_]]) -> None:
        super().__init__(np.full(envs, count, dtype=np.int64))
        self._masks = masks

    def sample(self, mask: Any = None, probability: Any = None) -> IntArray:
        if mask is not None or probability is not None:
            picked: IntArray = super().sample(mask, probability)
            return picked
        return random_actions(self._masks(), self.np_random)


class VectorGameEnv(gymnasium.vector.VectorEnv[FloatArray, IntArray, npt.NDArray[Any]]):
    """``num_envs`` games, in each one learning ``seat`` against bots; ``options`` are the ruleset's."""

    # Gymnasium's own default, which its wrappers (NormalizeObservation…) take
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 - VectorEnv declares it so

    def __init__(
        self,
        num_envs: int = 64,
        rules: str | Ruleset = "classic-11",
        num_players: int = 2,
        opponents: str | Sequence[str] = "heuristic",
        seat: int = 0,
        reward: str = "tokens",
        actions: str = "all",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seed: int | None = None,
        threads: int = 1,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        ruleset, n = _rules_and_players(rules, num_players, options)
        _check_table(ruleset, n)
        self.render_mode = _check_render_mode(render_mode)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise InvalidPlayers(Message("envs.vector.seat", {"value": repr(seat), "last": n - 1}))
        one = isinstance(opponents, str) or not isinstance(opponents, Sequence)  # a Player, a policy
        others = [opponents] * (n - 1) if one else list(opponents)
        if len(others) != n - 1:
            raise InvalidPlayers(Message("envs.vector.opponents", {"others": n - 1, "got": len(others)}))
        bots = iter(_check_bot(level) for level in others)
        kinds = np.array([s.AGENT if p == seat else next(bots) for p in range(n)], dtype=np.int64)
        mode = _check_autoreset(autoreset_mode)
        self.num_envs = _check_count(num_envs, "num_envs")
        self.seat = seat
        self.opponents = tuple(others)
        self.metadata = {"autoreset_mode": mode}
        self._batch = _Batch(
            ruleset,
            kinds,
            np.array([seat]),
            self.num_envs,
            check_reward(reward),
            _check_actions(actions),
            mode,
            0,
            _check_count(threads, "threads"),
        )
        self._seed = _check_seed(seed)
        self.rules = ruleset
        self.encoder = self._batch.encoder
        self.single_observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self._batch.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = LegalActions(self._batch.action_count, self.num_envs, self.action_masks)
        self._shown: FloatArray | None = None  # the last observations, which render() draws

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        """New games; ``seed`` (one for all, or a list of one per env) restarts every env's dice
        (game 0), else each env plays its next game."""
        first = _check_seeds(seed if seed is not None else self._seed, self.num_envs)
        self._seed = None
        obs = self._batch.reset(first)
        self._seen(obs[:, 0])
        return obs[:, 0], {}

    def step(
        self, actions: IntArray
    ) -> tuple[
        FloatArray, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        obs, rewards, ended, final = self._batch.step(actions)
        infos: dict[str, Any] = {}
        if ended.any():
            # as Gymnasium's vector environments give them: Game-v0's last info of each game that
            # ended, and with same-step autoreset its last observation, both beside the next game's
            outcome = self._outcomes(ended > 0)
            if final is None:
                infos = outcome
            else:
                last = np.full(self.num_envs, None, dtype=object)
                for e, seen in zip(np.flatnonzero(ended), final[:, 0], strict=True):
                    last[e] = seen
                infos["final_obs"], infos["_final_obs"] = last, ended > 0
                infos["final_info"], infos["_final_info"] = outcome, ended > 0
        self._seen(obs[:, 0])
        return obs[:, 0], np.ascontiguousarray(rewards[:, self.seat]), ended == 1, ended == 2, infos

    def _seen(self, obs: FloatArray) -> None:
        self._shown = obs
        if self.render_mode == "human":
            print("\n".join(self.render() or ()))

    def render(self) -> tuple[str, ...] | None:
        """A line for each env (``render()[e]`` for env ``e``): what the learning seat sees now."""
        if self.render_mode is None:
            gymnasium.logger.warn(VECTOR_RENDER_OFF)
            return None
        if self._shown is None:
            return tuple(f"env {e}: not started, reset() first" for e in range(self.num_envs))
        return tuple(f"env {e}: {self.encoder.text(seen, self.seat)}" for e, seen in enumerate(self._shown))

    def _outcomes(self, ended: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """Game-v0's info at the end, ``losers`` and ``lost``, for the games that ended, batched."""
        losers = np.full(self.num_envs, None, dtype=object)
        lost = np.zeros(self.num_envs, dtype=bool)
        for e in np.flatnonzero(ended):
            losers[e] = self._batch.losers(int(e))
            lost[e] = self.seat in losers[e]
        return {"losers": losers, "_losers": ended, "lost": lost, "_lost": ended}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, actions): the learning seat's legal actions now (MaskablePPO's ``action_masks``)."""
        return self._batch.masks[:, 0].astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self._batch.close()


def game_v0_vector(num_envs: int = 64, **kwargs: Any) -> VectorGameEnv:
    """``py421/Game-v0`` as ``gymnasium.make_vec`` makes it from its vector entry point: this
    module's fast environment, with Game-v0's eight actions unless ``actions`` says otherwise."""
    kwargs.setdefault("actions", "gym")
    return VectorGameEnv(num_envs, **kwargs)


# -- self-play --------------------------------------------------------------------


class MultiAgentVector:
    """``num_games`` games in which every seat (but those of ``bots``) is played from outside.

    ``reset()`` and ``step(actions)`` return :class:`Steps`. ``actions`` holds
    one index per game, for the seat in ``to_move``; a game that ended waits
    for one more step before the next starts (``autoreset_mode`` next step),
    or the next starts at once (same step, the default), its end shown in
    ``final_observations``.
    """

    def __init__(
        self,
        num_games: int = 64,
        rules: str | Ruleset = "classic-11",
        num_players: int = 2,
        *,
        bots: Mapping[int, str] | None = None,
        reward: str = "tokens",
        actions: str = "all",
        first_seat: int = 0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        seed: int | None = None,
        threads: int = 1,
        **options: Any,
    ) -> None:
        ruleset, n = _rules_and_players(rules, num_players, options)
        _check_table(ruleset, n)
        kinds = np.full(n, s.AGENT, dtype=np.int64)
        for seat, level in (bots or {}).items():
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise InvalidPlayers(Message("envs.vector.bots_seat", {"seat": repr(seat), "last": n - 1}))
            kinds[seat] = _check_bot(level)
        if s.AGENT not in kinds:
            raise InvalidPlayers(Message("envs.vector.no_agent"))
        if isinstance(first_seat, bool) or not isinstance(first_seat, int) or not 0 <= first_seat < n:
            raise InvalidPlayers(Message("players.no_first_seat", {"seat": repr(first_seat), "last": n - 1}))
        self.num_games = _check_count(num_games, "num_games")
        self.num_players = n
        self.rules = ruleset
        self._batch = _Batch(
            ruleset,
            kinds,
            np.arange(n),
            self.num_games,
            check_reward(reward),
            _check_actions(actions),
            _check_autoreset(autoreset_mode),
            first_seat,
            _check_count(threads, "threads"),
        )
        self._seed = _check_seed(seed)
        self.encoder = self._batch.encoder
        self.observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(self._batch.action_count)

    def reset(self, seed: int | Sequence[int | None] | None = None) -> Steps:
        """New games; ``seed`` (one for all, or a list of one per game) restarts every game's dice, as
        :meth:`VectorGameEnv.reset` does; else each plays its next game."""
        first = _check_seeds(seed if seed is not None else self._seed, self.num_games)
        self._seed = None
        obs = self._batch.reset(first)
        g, n = self.num_games, self.num_players
        nothing = np.zeros(g, dtype=bool)
        return Steps(
            obs,
            self._batch.masks.copy(),
            np.zeros((g, n)),
            nothing,
            nothing.copy(),
            self._batch.deciding,
            None,
        )

    def step(self, actions: IntArray) -> Steps:
        obs, rewards, ended, final = self._batch.step(actions)
        return Steps(
            obs, self._batch.masks.copy(), rewards, ended == 1, ended == 2, self._batch.deciding, final
        )

    def action_masks(self) -> MaskArray:
        """(num_games, actions): the legal actions of the seat each game waits for."""
        masks: MaskArray = self._batch.masks.max(axis=1)
        return masks

    def close(self) -> None:
        """Stop the threads, if any."""
        self._batch.close()

    def seat_vector(self) -> SeatVectorEnv:
        """These games as a Gymnasium vector env of one env per seat of each game (below)."""
        return SeatVectorEnv(self)


class SeatVectorEnv(gymnasium.vector.VectorEnv[FloatArray, IntArray, npt.NDArray[Any]]):
    """The games of a :class:`MultiAgentVector` as a ``gymnasium.vector.VectorEnv`` of one env per
    seat of each game: env ``g * n + s`` is seat ``s`` of game ``g``, as SuperSuit's vector
    environments of PettingZoo games make each agent an env (self-play with one shared policy).

    Every env gets its seat's observation and reward at each step; only the seat to move is read:
    ``info["to_move"]`` marks it, ``action_masks()`` gives it its legal actions and every other env
    action 0 alone (whatever it sends is not read). A game that ends ends its ``n`` envs together;
    with same-step autoreset ``info["final_obs"]`` and ``info["final_info"]`` hold each env's
    last observation and Game-v0's ``losers`` and ``lost`` (that seat among them), as
    :class:`VectorGameEnv` gives them.
    """

    def __init__(self, games: MultiAgentVector) -> None:
        self.games = games
        self.rules, self.encoder = games.rules, games.encoder
        n = self.players = games.num_players
        self.num_envs = games.num_games * n
        self.metadata = {"autoreset_mode": games._batch.autoreset}
        self.render_mode = None
        self.single_observation_space = games.observation_space
        self.single_action_space = games.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(
            np.full(self.num_envs, games._batch.action_count, dtype=np.int64)
        )
        self._to_move = np.full(games.num_games, -1, dtype=np.int64)

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        """New games; ``seed``: one for all, or Gymnasium's list of one per env (each game takes its
        first seat's), as :meth:`MultiAgentVector.reset` takes them."""
        if isinstance(seed, list | tuple) and len(seed) == self.num_envs:
            seed = list(seed[:: self.players])
        got = self.games.reset(seed)
        self._to_move = got.to_move
        return self._rows(got.observations), {"to_move": self._moving()}

    def step(
        self, actions: IntArray
    ) -> tuple[
        FloatArray, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or chosen.dtype.kind not in "iu":
            raise IllegalAction(
                Message(
                    "envs.vector.chosen",
                    {
                        "games": self.num_envs,
                        "last": self.games._batch.action_count - 1,
                        "value": _shown(actions),
                    },
                )
            )
        g, n = self.games.num_games, self.players
        read = chosen.reshape(g, n)[np.arange(g), np.maximum(self._to_move, 0)]
        got = self.games.step(np.where(self._to_move >= 0, read, 0))
        self._to_move = got.to_move
        terminated, truncated = np.repeat(got.terminated, n), np.repeat(got.truncated, n)
        info: dict[str, Any] = {"to_move": self._moving()}
        ended = got.terminated | got.truncated
        if ended.any():
            rows = np.repeat(ended, n)
            outcome = self._outcomes(ended)
            if got.final_observations is None:
                info |= outcome
            else:
                last = np.full(self.num_envs, None, dtype=object)
                for k, game in enumerate(np.flatnonzero(ended)):
                    for seat in range(n):
                        last[game * n + seat] = got.final_observations[k, seat]
                info["final_obs"], info["_final_obs"] = last, rows
                info["final_info"], info["_final_info"] = outcome, rows
        return self._rows(got.observations), got.rewards.reshape(-1), terminated, truncated, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, actions): the seat to move its legal actions, every other env action 0 alone."""
        masks = self.games._batch.masks.astype(bool).reshape(self.num_envs, -1)
        idle = ~masks.any(axis=1)
        masks[idle, 0] = True
        return masks

    def render(self) -> tuple[str, ...] | None:
        return None  # each game is drawn by MultiAgentVector's observations; nothing more here

    def close_extras(self, **kwargs: Any) -> None:
        self.games.close()

    def _rows(self, per_seat: FloatArray) -> FloatArray:
        return per_seat.reshape(self.num_envs, -1)

    def _moving(self) -> npt.NDArray[np.bool_]:
        moving = np.zeros((self.games.num_games, self.players), dtype=bool)
        playing = self._to_move >= 0
        moving[np.flatnonzero(playing), self._to_move[playing]] = True
        return moving.reshape(-1)

    def _outcomes(self, ended: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """Game-v0's info at the end for each env of the games that ended: who lost, and that seat."""
        n = self.players
        losers = np.full(self.num_envs, None, dtype=object)
        lost = np.zeros(self.num_envs, dtype=bool)
        for game in np.flatnonzero(ended):
            who = self.games._batch.losers(int(game))
            for seat in range(n):
                losers[game * n + seat] = who
                lost[game * n + seat] = seat in who
        rows = np.repeat(ended, n)
        return {"losers": losers, "_losers": rows, "lost": lost, "_lost": rows}
