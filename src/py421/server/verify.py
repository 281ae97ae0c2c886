"""Checking an online game's dice after the fact: the seed against its hash, every throw against the seed."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..core.chance import faces_for
from ..core.dice import format_dice
from ..core.errors import Py421Error
from ..core.game import Game
from ..core.record import Record
from ..i18n import error_text, tr


@dataclass
class Verdict:
    """What :func:`verify` found: the hash it checked, and every problem (none: the dice were fair)."""

    seed_hash: str | None
    problems: list[str] = field(default_factory=list)
    throws: int = 0


def verify(record: Record, lang: str = "en") -> Verdict:
    """Check a record's seed against its hash and every throw against the seed.

    Steps are numbered from 1, as ``421 replay --log`` numbers them. The first
    throw that the seed does not give is named even when a later move no longer
    fits the changed dice (the replay stops there, and says so).
    """
    if record.meta.get("dice") == "reported":  # a real table's: typed, not drawn
        return Verdict(None, [tr(lang, "verify.reported")])
    seed = record.meta.get("seed")
    seed_hash = record.meta.get("seed_hash")
    if not isinstance(seed, str) or not isinstance(seed_hash, str):
        return Verdict(None, [tr(lang, "verify.no_seed")])
    if not re.fullmatch(r"[0-9a-f]{64}", seed_hash):  # printed to a terminal: nothing else of it is
        return Verdict(None, [tr(lang, "verify.hash_form", got=repr(seed_hash[:80]))])
    verdict = Verdict(seed_hash)
    if hashlib.sha256(seed.encode()).hexdigest() != seed_hash:
        verdict.problems.append(tr(lang, "verify.bad_hash"))
        return verdict  # not the seed published: its throws say nothing of the game's
    game = Game(record.rules, record.players, first_seat=record.first_seat)
    for number, step in enumerate(record.steps, start=1):
        if step.kind == "dice":
            request = game.state.chance
            if request is not None:
                expected = format_dice(faces_for(seed, request.step, request.count))
                verdict.throws += 1
                if step.text != expected:
                    said = tr(lang, "verify.wrong_throw", n=number, said=step.text, expected=expected)
                    verdict.problems.append(said)
        try:
            game.apply_step(step)
        except Py421Error as e:
            verdict.problems.append(tr(lang, "verify.stopped", n=number, reason=error_text(lang, e)))
            break
    return verdict
