"""A ruleset as the kernel reads it: one array of option numbers and the tables."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TypeVar

import numpy as np

from ...core.rules import (
    DECHARGE_LEADERS,
    FIRST_PLAYERS,
    TIE_BREAKS,
    DechargeLeader,
    FirstPlayer,
    Ruleset,
    TieBreak,
)
from ...solver.tables import KEEPS, KEEPS_OF, RESULTS
from . import kernel as k
from .counter_dice import RESULT_OF_FACES, faces_code
from .policy import heuristic_tables

C = TypeVar("C", bound=str)


def _codes(choices: tuple[C, ...], codes: Mapping[C, int]) -> Mapping[C, int]:
    """The kernel's number of each choice of an option; a choice the kernel lacks fails at import."""
    if tuple(codes) != choices:
        raise AssertionError(f"the kernel numbers {tuple(codes)}, the option offers {choices}")
    return codes


TIE_BREAK_CODES: Mapping[TieBreak, int] = _codes(
    TIE_BREAKS,
    {"rampot": k.TIE_RAMPOT, "last_player_first": k.TIE_LAST_FIRST, "qui_barre_demarre": k.TIE_QUI_BARRE},
)
FIRST_PLAYER_CODES: Mapping[FirstPlayer, int] = _codes(
    FIRST_PLAYERS,
    {"first_seat": k.FIRST_SEAT, "lowest_die": k.LOWEST_DIE, "highest_throw": k.HIGHEST_THROW},
)
DECHARGE_LEADER_CODES: Mapping[DechargeLeader, int] = _codes(
    DECHARGE_LEADERS,
    {
        "round_loser": k.LEAD_ROUND_LOSER,
        "fewest_tokens": k.LEAD_FEWEST,
        "worst_coup_sec": k.LEAD_WORST_COUP_SEC,
    },
)


def rules_array(rules: Ruleset) -> k.I64:
    """The options the kernel reads, at the kernel's ``R_*`` places."""
    out = np.zeros(k.R_SIZE, dtype=np.int64)
    out[k.R_POT] = rules.pot
    out[k.R_INITIAL] = rules.initial_tokens
    out[k.R_CHARGE_THROWS] = rules.charge_throws
    out[k.R_DECHARGE_THROWS] = rules.decharge_throws
    out[k.R_LEADER_LIMIT] = rules.leader_limit
    out[k.R_LE_BON] = rules.le_bon
    out[k.R_ACCUMULATED] = rules.accumulated_stakes
    out[k.R_NENETTE_PENALTY] = rules.nenette_penalty
    out[k.R_NENETTE_LAST_WINS] = rules.nenette_last_wins
    out[k.R_DEDUCTION] = rules.value_deduction
    out[k.R_VACHE] = rules.queue_de_la_vache
    out[k.R_TIE_BREAK] = TIE_BREAK_CODES[rules.tie_break]
    out[k.R_ALL_TAKE] = rules.tied_losers_all_take
    out[k.R_FIRST_PLAYER] = FIRST_PLAYER_CODES[rules.first_player]
    out[k.R_DECHARGE_LEADER] = DECHARGE_LEADER_CODES[rules.decharge_leader]
    out[k.R_WITHDRAW] = rules.withdraw_at_zero
    out[k.R_ESPAGNOLE_GAME] = rules.espagnole == "loses_game"
    out[k.R_MANCHES] = rules.manches
    out[k.R_FICHES] = rules.fiches_de_manche
    out[k.R_ACE_HIGH] = rules.ace_high
    out[k.R_MUST_THROW_ON] = rules.must_throw_on
    return out


@cache
def tables(rules: Ruleset) -> k.I64:
    """The ranking, the keeps and the heuristic bot's tables of a ruleset: the kernel's ``tab``."""
    table = rules.table
    tab = np.zeros((k.TB_ROWS, k.TB_WIDTH), dtype=np.int64)
    for i, result in enumerate(RESULTS):
        tab[k.TB_STRENGTH, i] = table.strength(result)
        tab[k.TB_VALUE, i] = table.values[result]
        for j, keep in enumerate(KEEPS_OF[i]):
            tab[k.TB_KEEPS_OF + j, i] = keep
        tab[k.TB_KEEPS_COUNT, i] = len(KEEPS_OF[i])
    tab[k.TB_OF_FACES] = RESULT_OF_FACES
    for i, kept in enumerate(KEEPS):
        tab[k.TB_KEEP_LEN, i] = len(kept)
        for j, die in enumerate(kept):
            tab[k.TB_KEEP_DICE + j, i] = die
        tab[k.TB_KEEP_CODE, i] = faces_code(*kept, *(1,) * (3 - len(kept)))
    heuristic = heuristic_tables(rules)
    for row, values in zip(
        (k.TB_HEURISTIC_KEEP, k.TB_HEURISTIC_LEAD, k.TB_HEURISTIC_ALWAYS), heuristic, strict=True
    ):
        tab[row, : len(RESULTS)] = values
    return tab
