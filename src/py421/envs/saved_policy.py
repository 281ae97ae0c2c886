"""Trained policies saved as data, to seat as ``bot:policy:PATH``.

A policy file is a numpy ``.npz`` archive (read with ``allow_pickle=False``:
loading one runs no code) holding a ``meta`` JSON text and arrays:

- ``meta``: ``format`` (``"py421-policy"``), ``version`` (1), ``kind``
  (``"table"`` or ``"network"``), the ``rules`` it was trained on (as
  ``Ruleset.to_dict`` gives them), ``players``, ``observation`` (the
  :data:`~.observation.OBSERVATION_VERSION` of the vectors it read) and
  ``actions`` (``"gym"``: Game-v0's eight; ``"all"``: the 17 indices);
- a **table** (``examples/learn_vector.py``): ``keys``, ``q`` and
  ``visits``, one row per position of :class:`~.features.Features`; the
  policy plays the best action tried in training, and stops where it never
  was (two players, Game-v0's actions);
- a **network**: a multilayer perceptron, ``w0, b0, w1, b1, …`` (``w`` of
  shape inputs × outputs), ``activation`` (``tanh`` or ``relu``) between
  layers and none after the last, whose outputs are the actions' logits; the
  legal action of the largest logit is played. An observation normalised
  in training is given ``obs_mean`` and ``obs_var`` (and ``clip``,
  ``epsilon`` in ``meta``), as stable-baselines3's ``VecNormalize`` keeps
  them. :func:`save_network` writes one from arrays; a torch policy exports
  its linear layers' weights (``py421.envs.sb3.export_policy``).

A policy plays only the game it learned: :meth:`SavedPolicy.check` refuses
other rules, another number of players or another observation version, saying
which. Only numpy is needed.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..core.errors import InvalidParameter, InvalidPlayers, Message
from ..core.rules import Ruleset
from .features import Features
from .observation import GYM_ACTIONS, NUM_ACTIONS, OBSERVATION_VERSION, FloatArray, MaskArray

FORMAT = "py421-policy"
VERSION = 1
Kind = Literal["table", "network"]
ACTIVATIONS = ("tanh", "relu")
ActionSet = Literal["gym", "all"]
ACTION_COUNTS: dict[str, int] = {"gym": GYM_ACTIONS, "all": NUM_ACTIONS}


@dataclass
class SavedPolicy:
    """A policy read from a file: ``policy(observation, mask) -> action`` for one seat, or
    :meth:`batch` for many; with what it was trained on."""

    path: Path
    kind: Kind
    rules: Ruleset
    players: int
    observation: int
    actions: ActionSet
    meta: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]] = field(repr=False)

    def __post_init__(self) -> None:
        self._features = Features(self.rules) if self.kind == "table" else None
        if self.kind == "table":
            keys = self.arrays["keys"]
            self._order = np.argsort(keys, kind="stable")
            self._sorted = keys[self._order]

    def check(self, rules: Ruleset, players: int) -> None:
        """Refuse, saying what differs, a table other than the one the policy learned."""
        if rules.options() != self.rules.options() or players != self.players:
            raise InvalidPlayers(
                Message(
                    "envs.saved_policy.other_game",
                    {
                        "path": self.path.name,
                        "trained": _game_name(self.rules, self.players),
                        "asked": _game_name(rules, players),
                    },
                )
            )

    def __call__(self, observation: FloatArray, mask: MaskArray) -> int:
        return int(self.batch(observation[None, :], np.asarray(mask)[None, :])[0])

    def batch(self, observations: FloatArray, masks: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """One action per row of ``observations`` (N, size), legal under ``masks`` (N, actions)."""
        allowed = np.asarray(masks).astype(bool)
        if self.kind == "table":
            return self._table(np.asarray(observations, dtype=np.float32), allowed)
        logits = self._network(np.asarray(observations, dtype=np.float64))
        best: npt.NDArray[np.int64] = np.argmax(np.where(allowed, logits, -np.inf), axis=1).astype(np.int64)
        return best

    def _table(self, obs: FloatArray, allowed: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        features = self._features
        assert features is not None
        keys = features.keys(obs)
        rows = np.full(len(keys), -1, dtype=np.int64)
        if len(self._sorted):
            at = np.minimum(np.searchsorted(self._sorted, keys), len(self._sorted) - 1)
            rows = np.where(self._sorted[at] == keys, self._order[at], -1)
        return greedy(rows, features.choices(obs, allowed), self.arrays["q"], self.arrays["visits"])

    def _network(self, obs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        x = obs
        if "obs_mean" in self.arrays:
            epsilon = float(self.meta.get("epsilon", 1e-8))
            x = (x - self.arrays["obs_mean"]) / np.sqrt(self.arrays["obs_var"] + epsilon)
            clip = self.meta.get("clip")
            if clip is not None:
                x = np.clip(x, -float(clip), float(clip))
        layers = int(self.meta["layers"])
        for i in range(layers):
            x = x @ self.arrays[f"w{i}"] + self.arrays[f"b{i}"]
            if i < layers - 1:
                x = np.tanh(x) if self.meta["activation"] == "tanh" else np.maximum(x, 0.0)
        return x


def greedy(
    rows: npt.NDArray[np.int64],
    allowed: npt.NDArray[np.bool_],
    q: npt.NDArray[np.float64],
    visits: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """A table's play: in each row, the best action among the allowed ones tried in training; where
    none was (or the position was never met: row -1), the first allowed one (stop, when it is)."""
    if len(q) == 0:  # an empty table: never met anywhere
        first: npt.NDArray[np.int64] = np.argmax(allowed, axis=1).astype(np.int64)
        return first
    known: npt.NDArray[np.bool_] = np.asarray(rows >= 0)
    safe = np.maximum(rows, 0)
    tried: npt.NDArray[np.bool_] = np.asarray(allowed & known[:, None] & (visits[safe] > 0))
    some = np.asarray(tried.any(axis=1))[:, None]
    choose = np.where(some, tried, allowed)
    values = np.where(known[:, None], q[safe], 0.0)
    best: npt.NDArray[np.int64] = np.argmax(np.where(choose, values, -np.inf), axis=1).astype(np.int64)
    return best


def _game_name(rules: Ruleset, players: int) -> Message:
    changed = rules.changed_from_preset()
    options = "" if not changed else " (" + ", ".join(f"{k}={v}" for k, v in changed.items()) + ")"
    return Message("envs.saved_policy.game", {"rules": f"{rules.name}{options}", "players": players})


def _meta(kind: Kind, rules: Ruleset, players: int, actions: ActionSet, extra: Mapping[str, Any]) -> str:
    return json.dumps(
        {
            **extra,
            "format": FORMAT,
            "version": VERSION,
            "kind": kind,
            "rules": rules.to_dict(),
            "players": players,
            "observation": OBSERVATION_VERSION,
            "actions": actions,
        }
    )


def save_table(
    path: Path,
    keys: npt.ArrayLike,
    q: npt.ArrayLike,
    visits: npt.ArrayLike,
    rules: Ruleset,
    about: Mapping[str, Any] | None = None,
) -> None:
    """Save a table of action values over :class:`~.features.Features` positions (two players,
    Game-v0's actions); ``about``: anything else to keep in ``meta`` (the training's settings)."""
    meta = _meta("table", rules, 2, "gym", about or {})
    np.savez_compressed(path, meta=meta, keys=keys, q=q, visits=visits)


def save_network(
    path: Path,
    layers: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    rules: Ruleset,
    players: int,
    actions: ActionSet = "all",
    activation: str = "tanh",
    normalise: tuple[npt.ArrayLike, npt.ArrayLike, float | None, float] | None = None,
    about: Mapping[str, Any] | None = None,
) -> None:
    """Save a multilayer perceptron: ``layers`` of ``(w, b)``, ``w`` of shape inputs × outputs;
    ``normalise``: ``(mean, var, clip, epsilon)`` of the observations, as in training."""
    if activation not in ACTIVATIONS:
        raise InvalidParameter(
            Message(
                "envs.saved_policy.activation",
                {"value": repr(activation), "accepted": ", ".join(ACTIVATIONS)},
            )
        )
    arrays: dict[str, Any] = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, np.float64), np.asarray(b, np.float64)
    extra: dict[str, Any] = {**(about or {}), "layers": len(layers), "activation": activation}
    if normalise is not None:
        mean, var, clip, epsilon = normalise
        arrays["obs_mean"], arrays["obs_var"] = np.asarray(mean, np.float64), np.asarray(var, np.float64)
        extra.update(clip=clip, epsilon=epsilon)
    np.savez_compressed(path, meta=_meta("network", rules, players, actions, extra), **arrays)


def load_saved_policy(path: os.PathLike[str] | str) -> SavedPolicy:
    """The policy of a ``.npz`` file; refused, saying why, if it is not one py421 can play."""
    path = Path(path)
    if path.is_dir():
        raise InvalidParameter(Message("envs.saved_policy.folder", {"path": str(path)}))
    if not path.is_file():
        raise InvalidParameter(Message("envs.saved_policy.no_file", {"path": str(path)}))
    if not zipfile.is_zipfile(path):
        reason = "not a zip archive, as every .npz is"
        raise InvalidParameter(Message("envs.saved_policy.unreadable", {"path": str(path), "reason": reason}))
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InvalidParameter(
            Message("envs.saved_policy.unreadable", {"path": str(path), "reason": str(exc)})
        ) from exc
    try:
        meta = json.loads(str(arrays.pop("meta")))
        return _policy(path, meta, arrays)
    except _Malformed as exc:
        raise _refused(path, exc.reason) from exc
    except KeyError as exc:  # an array or an entry of meta the format has and the file lacks
        raise _refused(path, Message("envs.saved_policy.missing", {"name": repr(exc.args[0])})) from exc
    except (TypeError, ValueError) as exc:  # meta that is not JSON, or an entry of the wrong kind
        raise _refused(
            path, Message("envs.saved_policy.unusable", {"error": f"{type(exc).__name__}: {exc}"})
        ) from exc


class _Malformed(Exception):
    """What is wrong with a file's content: a catalog's reason, given in « … is not a py421 policy »."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key)
        self.reason = Message(key, fields)


def _refused(path: Path, reason: Message) -> InvalidParameter:
    return InvalidParameter(Message("envs.saved_policy.not_a_policy", {"path": str(path), "reason": reason}))


def _policy(path: Path, meta: Any, arrays: dict[str, npt.NDArray[Any]]) -> SavedPolicy:
    if not isinstance(meta, dict):
        raise _Malformed("envs.saved_policy.meta")
    if "format" not in meta and isinstance(meta.get("rules"), str) and "keys" in arrays:
        # a table saved by examples/learn_vector.py before the format had a name: its preset's, 2 players
        meta = {**meta, "kind": "table", "rules": Ruleset.preset(meta["rules"]).to_dict(), "players": 2}
        meta.update(format=FORMAT, version=VERSION, observation=1, actions="gym")
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        found = f"{meta.get('format')!r} {meta.get('version')!r}"
        raise _Malformed("envs.saved_policy.format", found=found, expected=f"{FORMAT!r} {VERSION}")
    if meta["observation"] != OBSERVATION_VERSION:
        raise InvalidParameter(
            Message(
                "envs.saved_policy.observation",
                {"path": str(path), "version": repr(meta["observation"]), "current": OBSERVATION_VERSION},
            )
        )
    kind, actions = meta["kind"], meta["actions"]
    if kind not in ("table", "network") or actions not in ACTION_COUNTS:
        raise _Malformed("envs.saved_policy.kind", kind=repr(kind), actions=repr(actions))
    policy = SavedPolicy(
        path,
        kind,
        Ruleset.from_mapping(meta["rules"]),
        int(meta["players"]),
        meta["observation"],
        actions,
        meta,
        arrays,
    )
    _check_shapes(policy)
    return policy


def _check_shapes(policy: SavedPolicy) -> None:
    """The arrays fit together, and the output is one number per action: else a clear refusal now
    rather than a numpy error at the table."""
    a, count = policy.arrays, ACTION_COUNTS[policy.actions]
    if policy.kind == "table":
        rows = len(a["keys"])
        if a["keys"].ndim != 1 or a["q"].shape != (rows, count) or a["visits"].shape != (rows, count):
            shapes = f"{a['keys'].shape}, {a['q'].shape}, {a['visits'].shape}"
            raise _Malformed("envs.saved_policy.table_shapes", shapes=shapes, count=count)
        if policy.players != 2 or policy.actions != "gym":
            raise _Malformed("envs.saved_policy.table_game")
        return
    from .observation import ObservationEncoder

    width = ObservationEncoder(policy.rules, policy.players).size
    if policy.meta.get("activation") not in ACTIVATIONS:
        accepted = ", ".join(ACTIVATIONS)
        raise _Malformed(
            "envs.saved_policy.activation", value=repr(policy.meta.get("activation")), accepted=accepted
        )
    for i in range(int(policy.meta["layers"])):
        w, b = a[f"w{i}"], a[f"b{i}"]
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise _Malformed("envs.saved_policy.layer", layer=i, w=str(w.shape), b=str(b.shape), width=width)
        width = w.shape[1]
    if width != count:
        raise _Malformed("envs.saved_policy.outputs", width=width, count=count, actions=policy.actions)
    inputs = a["w0"].shape[0]
    if "obs_mean" in a and (a["obs_mean"].shape != (inputs,) or a["obs_var"].shape != (inputs,)):
        raise _Malformed("envs.saved_policy.normalise", shape=str(a["obs_mean"].shape), inputs=inputs)
