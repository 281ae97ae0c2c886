"""What one seat sees of a game, as numbers, and the actions as indices.

Every adapter (PettingZoo, Gymnasium, OpenSpiel) encodes states and actions
here, so they all speak the same numbers. Only numpy is needed.

**Actions** are 17 indices whose meaning follows the dice in hand, read in
descending order (die 0 is the highest):

- ``0``: stop, keep the result;
- ``1`` to ``7``: throw again; bit ``i`` of the index set means die ``i`` is
  thrown again (``7`` throws all three);
- ``8`` to ``14``: the same with « le bon » declared (index ``7 + bits``);
- ``15``: « pour ce qui est », ``16``: « pour ce qui vient » (the stake of a
  « main chaude »).

With 4-4-2 in hand, ``1`` and ``2`` both keep 4-2: indices are positions,
so two may name the same move, and the mask marks both.

>>> from py421.core import Ruleset, new_game
>>> state = new_game(Ruleset.preset("lyonnaise-21"), ["A", "B"]).apply_dice("531")
>>> [str(decode(state, i)) for i in (0, 1, 4, 7)]
['stop', 'keep 31', 'keep 53', 'throw']
>>> encode(state, decode(state, 6))
6

**Observations** are one float32 vector per seat, made of the named
segments of :meth:`ObservationEncoder.segments` (documented one by one in
``docs/rl.md``). Entries about players are relative to the observer: entry
0 is the observer, then the next seats in playing order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.actions import Action, ChooseStake, Stop, Throw
from ..core.dice import DICE_PER_THROW
from ..core.engine import throws_allowed
from ..core.errors import IllegalAction, InvalidPlayers, Message
from ..core.rules import MAX_THROWS, Ruleset
from ..core.state import Phase, State

FloatArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

NUM_ACTIONS = 17
STOP = 0
BON = 7  # index of « le bon » with rethrow bits b: BON + b
EST = 15
VIENT = 16
GYM_ACTIONS = 8  # the Gymnasium environments offer 0 to 7: stop and the rethrows
# Raised whenever the observations' layout or meaning changes: a saved policy names the version it
# read (py421.envs.saved_policy) and is refused under another.
OBSERVATION_VERSION = 1
_NO_DECISION = Message("envs.observation.no_decision")  # what is accepted when nothing is

# Entries without an upper bound in the rules (an accumulated stake, a debt, tie replays).
UNBOUNDED = float(np.finfo(np.float32).max)
PHASES = (Phase.FIRST_PLAYER, Phase.CHARGE, Phase.DECHARGE, Phase.OVER)
PHASE_WORDS = {
    Phase.FIRST_PLAYER: "drawing the first player",
    Phase.CHARGE: "the charge",
    Phase.DECHARGE: "the décharge",
    Phase.OVER: "over",
}


# -- actions ------------------------------------------------------------------


def _kept(dice: tuple[int, ...], bits: int) -> tuple[int, ...]:
    return tuple(face for i, face in enumerate(dice) if not bits >> i & 1)


def action_name(index: int) -> str:
    """What an index means, in words that do not depend on the dice.

    >>> action_name(3), action_name(12), action_name(16)
    ('throw dice 0,1 again', 'le bon: throw dice 0,2 again', 'stake vient')
    """
    index = _check_index(index)
    if index == STOP:
        return "stop"
    if index in (EST, VIENT):
        return f"stake {'est' if index == EST else 'vient'}"
    bits = index - BON if index > BON else index
    dice = ",".join(str(i) for i in range(DICE_PER_THROW) if bits >> i & 1)
    text = f"throw {'die' if bits.bit_count() == 1 else 'dice'} {dice} again"
    return f"le bon: {text}" if index > BON else text


def _check_index(index: object) -> int:
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise IllegalAction(
            Message("envs.observation.index", {"last": NUM_ACTIONS - 1, "value": repr(index)})
        )
    if not 0 <= index < NUM_ACTIONS:
        raise IllegalAction(
            Message("envs.observation.no_action", {"index": str(index), "last": NUM_ACTIONS - 1})
        )
    return int(index)


def meaning(state: State, index: int) -> Action | None:
    """The engine's action an index stands for now (legal or not); None if it means nothing now."""
    if index in (EST, VIENT):
        return ChooseStake("est" if index == EST else "vient")
    r = state.round
    if r is None or len(r.dice) != DICE_PER_THROW:
        return None
    if index == STOP:
        return Stop()
    bon = index > BON
    return Throw(_kept(r.dice, index - BON if bon else index), bon=bon)


def legal_indices(state: State) -> tuple[int, ...]:
    """Every index that names a legal action now (none at chance steps and at the end)."""
    legal = set(state.legal_actions())
    return tuple(i for i in range(NUM_ACTIONS) if legal and meaning(state, i) in legal)


def action_mask(state: State) -> MaskArray:
    """1 for each index that names a legal action of the deciding seat, else 0."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal_indices(state))] = 1
    return mask


def decode(state: State, index: object) -> Action:
    """The engine's action for an index; IllegalAction says which indices are accepted."""
    i = _check_index(index)
    action = meaning(state, i)
    if action is None or action not in state.legal_actions():
        legal = legal_indices(state)
        accepted = ", ".join(f"{j} ({meaning(state, j)})" for j in legal) or _NO_DECISION
        raise IllegalAction(
            Message(
                "envs.observation.index_not_allowed",
                {"index": i, "name": action_name(i), "accepted": accepted},
            )
        )
    return action


def encode(state: State, action: Action) -> int:
    """The smallest index that names ``action`` now; IllegalAction if none does."""
    for i in legal_indices(state):
        if meaning(state, i) == _normal(action):
            return i
    accepted = ", ".join(str(a) for a in state.legal_actions()) or _NO_DECISION
    raise IllegalAction(
        Message("envs.observation.not_allowed", {"action": str(action), "accepted": accepted})
    )


def _normal(action: Action) -> Action:
    if isinstance(action, Throw):
        return Throw(tuple(sorted(action.keep, reverse=True)), action.bon)
    return action


# -- observations ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Segment:
    """A named run of entries in the observation vector."""

    name: str
    start: int
    size: int
    low: float
    high: float
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationEncoder:
    """Encodes states of games with ``players`` seats under ``rules`` (a preset's name or a
    ruleset), from one seat's side."""

    def __init__(self, rules: str | Ruleset, players: int) -> None:
        self.rules = rules = Ruleset.preset(rules) if isinstance(rules, str) else rules
        self.players = n = players
        total = rules.pot + rules.initial_tokens * n
        fiches = rules.fiches_de_manche
        manches = n * (fiches - 1) + 1 if fiches else rules.manches
        top_value = max(rules.table.values.values())
        # (name, size, low, high, doc); "per seat" entries start with the observer.
        spec: list[tuple[str, int, float, float, str]] = [
            ("phase", 4, 0, 1, "one-hot: drawing the first player, charge, décharge, over"),
            ("deciding", n, 0, 1, "per seat: 1 for the seat that must decide now"),
            ("stake_choice", 1, 0, 1, "1 when the decision is the stake of a « main chaude »"),
            ("manche", 1, 0, manches, "the manche being played, from 1"),
            ("manches_lost", n, 0, max(rules.manches, fiches), "per seat: manches lost so far"),
            ("pot", 1, 0, rules.pot, "tokens left in the pot"),
            ("tokens", n, 0, total, "per seat: tokens held"),
            ("debts", n, 0, UNBOUNDED, "per seat: tokens owed to the next manche (« queue de la vache »)"),
            ("in_manche", n, 0, 1, "per seat: 1 while still in the manche (not out at zero)"),
            ("leader", n, 0, 1, "per seat: 1 for the leader of the round"),
            ("current", n, 0, 1, "per seat: 1 for the seat playing its turn"),
            ("dice", DICE_PER_THROW, 0, 6, "faces of the turn's dice, highest first; 0 before a throw"),
            ("throws", 1, 0, MAX_THROWS, "throws used in the current turn"),
            ("throws_allowed", 1, 0, MAX_THROWS, "most throws of the current turn (the limit included)"),
            ("limit", 1, 0, MAX_THROWS, "throws the leader used, once it finished; 0 before"),
            ("stake", 1, 0, UNBOUNDED, "the round's accumulated stake (0 unless stakes accumulate)"),
            ("order", n, 0, n, "per seat: place in the round's order, 1 for the leader; 0: not in it"),
            ("done", n, 0, 1, "per seat: 1 once its turn of this round is over"),
            ("result_rank", n, 0, 56, "per seat: its final result's strength, 1 (weakest) to 56; 0: none"),
            ("result_value", n, 0, top_value, "per seat: its final result's value in tokens; 0: none"),
            ("result_throws", n, 0, MAX_THROWS, "per seat: throws its final result took; 0: none"),
            ("tie", n, 0, 1, "per seat: 1 while in the current tie-break"),
            ("tie_replays", 1, 0, UNBOUNDED, "which replay of the tie-break this is (0: no tie)"),
        ]
        segments = []
        start = 0
        for name, size, low, high, doc in spec:
            segments.append(Segment(name, start, size, float(low), float(high), doc))
            start += size
        self.segments: tuple[Segment, ...] = tuple(segments)
        self.size = start
        self.low: FloatArray = np.concatenate([np.full(s.size, s.low, np.float32) for s in segments])
        self.high: FloatArray = np.concatenate([np.full(s.size, s.high, np.float32) for s in segments])

    def split(self, observation: FloatArray) -> dict[str, FloatArray]:
        """The observation cut into its named segments."""
        return {s.name: observation[s.start : s.stop] for s in self.segments}

    def text(self, observation: FloatArray, seat: int) -> str:
        """One line of what ``seat``'s observation shows, for a person: the manche, the phase,
        the pot, each seat's tokens, the dice in play and who decides."""
        seen = {name: [int(x) for x in part] for name, part in self.split(observation).items()}
        n = self.players
        seats = [(seat + k) % n for k in range(n)]  # per seat entries start with the observer

        def who(place: int) -> str:
            return f"seat {seats[place]}" + (" (you)" if place == 0 else "")

        phase = PHASE_WORDS[PHASES[seen["phase"].index(1)]] if 1 in seen["phase"] else "not started"
        tokens = ", ".join(f"{who(p)} {t}" for p, t in enumerate(seen["tokens"]))
        line = f"manche {seen['manche'][0]}, {phase}, pot {seen['pot'][0]}; tokens: {tokens}"
        dice = "".join(str(face) for face in seen["dice"] if face)
        if dice:
            line += f"; dice {dice}, throw {seen['throws'][0]} of {seen['throws_allowed'][0]}"
        if 1 in seen["deciding"]:
            line += f"; {who(seen['deciding'].index(1))} to decide"
        return line

    def encode(self, state: State, seat: int) -> FloatArray:
        """What ``seat`` sees of ``state``."""
        n = self.players
        if len(state.players) != n or not 0 <= seat < n:
            raise InvalidPlayers(Message("envs.observation.encoder_seats", {"players": n, "last": n - 1}))
        seats = [(seat + k) % n for k in range(n)]  # the observer, then the next seats
        place = {s: k for k, s in enumerate(seats)}
        out = np.zeros(self.size, dtype=np.float32)
        at = {s.name: s.start for s in self.segments}

        def one_hot(name: str, who: int | None) -> None:
            if who is not None:
                out[at[name] + place[who]] = 1

        def per_seat(name: str, values: tuple[int, ...] | tuple[bool, ...]) -> None:
            out[at[name] : at[name] + n] = [values[s] for s in seats]

        out[at["phase"] + PHASES.index(state.phase)] = 1
        one_hot("deciding", state.to_move)
        out[at["manche"]] = state.manche
        per_seat("manches_lost", state.manche_losses)
        out[at["pot"]] = state.pot
        per_seat("tokens", state.tokens)
        per_seat("debts", state.debts)
        per_seat("in_manche", state.active)
        one_hot("leader", state.leader)
        r = state.round
        if r is None:
            return out
        out[at["stake_choice"]] = r.tie is not None and r.tie.awaiting_stake
        one_hot("current", r.current)
        out[at["dice"] : at["dice"] + len(r.dice)] = r.dice
        out[at["throws"]] = r.throws
        out[at["throws_allowed"]] = throws_allowed(state) if r.current is not None else 0
        out[at["limit"]] = r.limit or 0
        out[at["stake"]] = r.stake
        table = self.rules.table
        for k, s in enumerate(r.order, start=1):
            out[at["order"] + place[s]] = k
        for turn in r.done:
            p = place[turn.seat]
            out[at["done"] + p] = 1
            out[at["result_rank"] + p] = table.strength(turn.result) + 1
            out[at["result_value"] + p] = table.values[turn.result]
            out[at["result_throws"] + p] = turn.throws
        if r.tie is not None:
            for s in r.tie.draw.seats:
                out[at["tie"] + place[s]] = 1
            out[at["tie_replays"]] = r.tie.replays
        return out


# -- the eight actions of the Gymnasium environments, as a seat's policy sees them ------------


def gym_mask(state: State) -> MaskArray:
    """1 for each of the eight Game-v0 actions legal for the deciding seat now."""
    mask = np.zeros(GYM_ACTIONS, dtype=np.int8)
    r = state.round
    if state.to_move is None:
        return mask
    if r is not None and r.tie is not None:  # « main chaude »: 0 est, the others vient
        mask[:] = 1
    else:
        mask[[i for i in legal_indices(state) if i < GYM_ACTIONS]] = 1
    return mask


def gym_move(state: State, index: int) -> Action:
    """The engine's move for a Game-v0 action of the deciding seat."""
    r = state.round
    if r is not None and r.tie is not None:  # « main chaude »: the only other decision
        return ChooseStake("est" if index == 0 else "vient")
    return decode(state, index)


def policy_action(answer: object, who: str | Message, count: int = GYM_ACTIONS) -> int:
    """What a policy returned, as an action 0 to ``count - 1`` (Game-v0's eight by default).

    Model libraries answer with numpy: a scalar, or an array of one action
    (stable-baselines3's ``predict`` gives an array of shape ``()``).
    """
    if isinstance(answer, np.ndarray) and answer.size == 1 and answer.dtype.kind in "iu":
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer) or not 0 <= answer < count:
        raise IllegalAction(
            Message("envs.observation.policy", {"who": who, "value": repr(answer), "last": count - 1})
        )
    return int(answer)
