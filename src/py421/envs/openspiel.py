"""421 as an OpenSpiel game: ``import py421.envs.openspiel`` registers ``python_421``.

The engine (:mod:`py421.core`) plays every step; this module only translates
its states, actions and dice into OpenSpiel's integers, chance outcomes and
returns. See docs/openspiel.md.

>>> import pyspiel
>>> game = pyspiel.load_game("python_421", {"options": "pot:3;manches:1"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 56)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from ..core.errors import IllegalAction, InvalidParameter, InvalidPlayers, InvalidRuleset, Message
from ..extras import install_command

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as exc:
    raise ImportError(
        str(Message("envs.openspiel.not_installed", {"install": install_command("openspiel")}))
    ) from exc

from ..core.actions import Action
from ..core.dice import ALL_RESULTS, DICE_PER_THROW, FACES, Result, throw_outcomes
from ..core.engine import check_players, new_game
from ..core.position import position_text
from ..core.rules import Ruleset
from ..core.state import ChanceRequest, Outcome, State
from .observation import (
    NUM_ACTIONS,
    FloatArray,
    ObservationEncoder,
    action_name,
    legal_indices,
    meaning,
)
from .play import SKIPPED_GAMES, nothing_to_decide

NAME = "python_421"
SKIP = "skip_no_decision"
PARAMETERS: dict[str, str | int | bool] = {"preset": "classic-11", "players": 2, "options": "", SKIP: False}
"""Every parameter with its default; ``options`` is ``OPTION:VALUE`` pairs joined by ``;``.

``skip_no_decision``: a game over before anyone decides starts again from the
beginning, within the same chance sequence, so every game has a decision
(see docs/openspiel.md: what that does to the games' distribution).
"""

# -- actions and chance outcomes ----------------------------------------------

# Decisions are the 17 indices every adapter shares (see observation.py); chance
# outcomes are the 56 results of three dice (kept dice included), then a lone die's faces.
RESULT_ID: dict[Result, int] = {r: i for i, r in enumerate(ALL_RESULTS)}
FACE_BASE = len(ALL_RESULTS)
CHANCE_OUTCOMES = FACE_BASE + len(FACES)

# A décharge has no bound on its rounds; like backgammon's, this is a length that games
# do not reach in practice (docs/openspiel.md measures the longest random games).
MAX_GAME_LENGTH = 10_000


def moves(state: State) -> dict[int, Action]:
    """The deciding seat's moves, each under the smallest index that names it.

    Two indices can name one move (with 4-4-2, throwing die 0 or die 1 again
    both keep 4-2); OpenSpiel lists each move once, numbered as ``observation.encode`` does.
    """
    found: dict[Action, int] = {}
    for index in legal_indices(state):
        action = meaning(state, index)
        if action is not None:
            found.setdefault(action, index)
    return {index: action for action, index in found.items()}


def outcome_text(outcome: int) -> str:
    """A chance outcome as players read it: a result (``421``) or a lone die (``5``)."""
    if 0 <= outcome < FACE_BASE:
        return str(ALL_RESULTS[outcome])
    if FACE_BASE <= outcome < CHANCE_OUTCOMES:
        return str(outcome - FACE_BASE + 1)
    raise IllegalAction(
        Message("envs.openspiel.no_outcome", {"outcome": outcome, "last": CHANCE_OUTCOMES - 1})
    )


@cache
def chance_distribution(kept: tuple[int, ...], count: int) -> tuple[tuple[int, Fraction], ...]:
    """Every outcome of throwing ``count`` dice beside ``kept``, with its exact probability.

    Outcomes are unordered results, never the 6**count ordered throws.

    >>> [(outcome_text(o), str(p)) for o, p in chance_distribution((4, 2), 1)][:2]
    [('642', '1/6'), ('542', '1/6')]
    """
    whole = len(kept) + count == DICE_PER_THROW
    found = [
        (RESULT_ID[Result.of(kept + faces)] if whole else FACE_BASE + faces[0] - 1, p)
        for faces, p in throw_outcomes(count)
    ]
    return tuple(sorted(found))


@cache
def _float_distribution(kept: tuple[int, ...], count: int) -> tuple[tuple[int, float], ...]:
    return tuple((o, float(p)) for o, p in chance_distribution(kept, count))


def faces_of(outcome: int, request: ChanceRequest) -> tuple[int, ...]:
    """The faces thrown for a chance outcome: the result without the kept dice."""
    legal = dict(chance_distribution(request.kept, request.count))
    if outcome not in legal:
        accepted = ", ".join(f"{o} ({outcome_text(o)})" for o in legal)
        raise IllegalAction(
            Message(
                "envs.openspiel.outcome_now",
                {"outcome": outcome, "text": _safe_text(outcome), "accepted": accepted},
            )
        )
    if outcome >= FACE_BASE:
        return (outcome - FACE_BASE + 1,)
    faces = list(ALL_RESULTS[outcome].dice)
    for die in request.kept:
        faces.remove(die)
    return tuple(faces)


def _safe_text(outcome: int) -> str | Message:
    try:
        return outcome_text(outcome)
    except IllegalAction:
        return Message("envs.openspiel.no_such_outcome")


# -- parameters --------------------------------------------------------------


def parse_options(text: str) -> dict[str, str]:
    """``pot:5;charge_throws:1`` as options for :meth:`Ruleset.with_options`.

    OpenSpiel's game strings split parameters on ``,`` and ``=``, hence ``;`` and ``:``.
    """
    found: dict[str, str] = {}
    if not text.strip():
        return found
    for part in text.split(";"):
        if not part.strip():  # as ``--set`` refuses ``pot=3,,le_bon=false``: an option may be lost there
            raise InvalidRuleset(Message("envs.openspiel.empty_option", {"options": repr(text.strip())}))
        key, sep, value = (p.strip() for p in part.partition(":"))
        if not sep or not key or not value or "=" in part or "," in part:
            raise InvalidRuleset(Message("envs.openspiel.options", {"part": repr(part.strip())}))
        if key in found:
            raise InvalidRuleset(Message("envs.openspiel.option_twice", {"key": repr(key)}))
        found[key] = value
    return found


def ruleset_of(params: Mapping[str, Any]) -> Ruleset:
    """The ruleset named by the game's parameters: a preset changed by ``options``."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise InvalidRuleset(
            Message("envs.openspiel.parameter", {"name": repr(unknown[0]), "accepted": ", ".join(PARAMETERS)})
        )
    preset = str(params.get("preset", PARAMETERS["preset"]))
    return Ruleset.preset(preset).with_options(**parse_options(str(params.get("options", ""))))


def seat_names(count: int) -> tuple[str, ...]:
    return tuple(f"P{seat}" for seat in range(count))


# -- returns -------------------------------------------------------------------


def returns_of(outcome: Outcome | None, players: int) -> list[float]:
    """Zero-sum returns: the losers share -1, the others share +1; all lose: a draw.

    >>> returns_of(Outcome((1,), "loser", (), (1,)), 3)
    [0.5, -1.0, 0.5]
    """
    if outcome is None:
        return [0.0] * players
    losers = set(outcome.losers)
    if len(losers) == players:
        return [0.0] * players
    return [-1 / len(losers) if s in losers else 1 / (players - len(losers)) for s in range(players)]


# -- OpenSpiel -------------------------------------------------------------------

# OpenSpiel's game type needs a most; the rules set none for most presets (the simulator's too).
MAX_PLAYERS = 62

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="421 (py421)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class Game421(pyspiel.Game):  # type: ignore[misc]
    """The game for fixed parameters; its states wrap the engine's."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        given = {**PARAMETERS, **(params or {})}
        rules = ruleset_of(given)
        players = given["players"]
        if not isinstance(players, int) or isinstance(players, bool):
            raise InvalidPlayers(Message("envs.openspiel.players", {"players": repr(players)}))
        names = check_players(rules, seat_names(players))
        if players > MAX_PLAYERS:
            raise InvalidPlayers(
                Message("envs.openspiel.most_players", {"most": MAX_PLAYERS, "players": players})
            )
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CHANCE_OUTCOMES,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(GAME_TYPE, info, given)
        self.rules = rules
        self.names = names
        self.skip_no_decision = given[SKIP]
        if not isinstance(self.skip_no_decision, bool):
            raise InvalidParameter(
                Message("envs.openspiel.skip", {"name": SKIP, "value": repr(self.skip_no_decision)})
            )
        self._initial = new_game(rules, names)

    def new_initial_state(self) -> State421:
        # OpenSpiel's clone starts from a new initial state: build the engine's once
        return State421(self, self._initial)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> TableObserver | IIGObserverForPublicInfoGame:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return TableObserver(self, params)
        # every die is public: a perfect-recall view is the history of the game
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class _Shared:
    """An engine state is frozen: OpenSpiel's clone (a deep copy) may share it, and its text."""

    __slots__ = ("_text", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = position_text(self.state)
        return self._text

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class State421(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state holding one frozen engine state (:attr:`state`)."""

    def __init__(self, game: Game421, state: State) -> None:
        super().__init__(game)
        self._held = _Shared(state)
        self._skip = game.skip_no_decision
        self._restart = state
        self._decided = False  # a seat has decided in this game
        self._skipped = 0

    @property
    def state(self) -> State:
        return self._held.state

    @state.setter
    def state(self, state: State) -> None:
        self._held = _Shared(state)

    @property
    def skipped_games(self) -> int:
        """Games over before any decision that ``skip_no_decision`` started again, so far."""
        return self._skipped

    def current_player(self) -> int:
        s = self.state
        if s.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = s.to_move
        return int(pyspiel.PlayerId.CHANCE) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(moves(self.state)) if player == self.state.to_move else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        request = self.state.chance
        if request is None:
            return []
        return list(_float_distribution(request.kept, request.count))

    def _apply_action(self, action: int) -> None:
        request = self.state.chance
        if request is not None:
            after = self.state.apply_dice(faces_of(action, request))
            if after.is_over and self._skip and not self._decided:
                self._skipped += 1
                if self._skipped == SKIPPED_GAMES:  # in a row: the rules leave no decision
                    raise nothing_to_decide(after.rules, Message("envs.play.anyone"))
                after = self._restart  # this throw starts the next game's chance sequence
            self.state = after
            return
        legal = moves(self.state)
        if action not in legal:
            if not legal:
                raise IllegalAction(Message("envs.openspiel.action_none", {"action": action}))
            accepted = ", ".join(f"{i} ({a})" for i, a in sorted(legal.items()))
            raise IllegalAction(Message("envs.openspiel.action", {"action": action, "accepted": accepted}))
        self.state = self.state.apply(legal[action])
        self._decided = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return outcome_text(action)
        # the move it names with the dice in hand (keep 42), else what it means in general
        named = meaning(self.state, action) if 0 <= action < NUM_ACTIONS else None
        return str(named) if named is not None else action_name(action)

    def is_terminal(self) -> bool:
        return self.state.is_over

    def returns(self) -> list[float]:
        return returns_of(self.state.outcome, len(self.state.players))

    def __str__(self) -> str:
        return self._held.text


class TableObserver:
    """What a seat sees: the whole table, since every die is thrown in the open.

    The tensor is the vector every adapter shares (:class:`ObservationEncoder`,
    segments in docs/rl.md), relative to the observing seat; the text is the state's.
    """

    def __init__(self, game: Game421, params: Mapping[str, Any] | None) -> None:
        if params:
            raise InvalidParameter(Message("envs.openspiel.observer_params", {"params": str(dict(params))}))
        self.encoder = ObservationEncoder(game.rules, game.num_players())
        self.tensor: FloatArray = np.zeros(self.encoder.size, np.float32)
        self.dict: dict[str, FloatArray] = self.encoder.split(self.tensor)

    def set_from(self, state: State421, player: int) -> None:
        self.tensor[:] = self.encoder.encode(state.state, player)

    def string_from(self, state: State421, player: int) -> str:
        return str(state)


pyspiel.register_game(GAME_TYPE, Game421)


def load(
    preset: str = "classic-11",
    players: int = 2,
    options: Sequence[str] | str = "",
    *,
    skip_no_decision: bool = False,
) -> Any:
    """The OpenSpiel game for a preset, a number of players and options.

    ``options`` is the parameter's text or a list of ``OPTION:VALUE``;
    ``skip_no_decision`` is the parameter of that name (see :data:`PARAMETERS`).
    """
    text = options if isinstance(options, str) else ";".join(options)
    return pyspiel.load_game(
        NAME, {"preset": preset, "players": players, "options": text, SKIP: skip_no_decision}
    )
