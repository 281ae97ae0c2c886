"""Whole games of 421 in one compiled loop, for every option of the rules.

This is the engine's procedure (``py421.core.engine``) written again as plain
loops over small integer arrays, so that numba compiles it: no objects and no
allocation inside a game. The engine stays the definition of the rules; the
differential tests replay games played here through the engine, with the same
dice and the same decisions, and compare every token movement.

Results are indices into ``py421.solver.tables.RESULTS``; keeps are indices
into ``KEEPS``. A decision is :data:`STOP`, a keep index, a keep index plus
:data:`BON` for « le bon », or :data:`EST` / :data:`VIENT` for the stake of a
« main chaude ».

Every array a game reads or writes is passed whole, with named rows or places
(``TB_*``, ``SE_*``, ``R_*``, ``S_*``, ``C_*``). numba counts the references
to an array each time a function is handed it, inlined or not: an atomic
increment and decrement, which with a dozen arrays handed down to every round
took most of a game's time. So the loop over a batch's games
(:func:`_play_games`, the one compiled call a batch makes) takes its arrays
without their owner (:mod:`.unowned`): nothing is counted below it. The
round, the draws and the game are inlined into it, and a game takes no view
of an array (rows are read and written in loops).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ...core.combos import NENETTE
from ...solver.tables import INDEX
from .counter_dice import CHOICE_STREAM, below, face, game_key, random_bits, throw_code
from .maxn import MODE_MAXN, maxn_choice
from .policy import (
    AMOUNTS,
    H_MISSING,
    H_MODE,
    MODE_ROUNDS,
    OPTIMAL,
    OPTIMAL_ROUNDS,
    RANDOM,
    next_summary,
    optimal_choice,
    optimal_stake,
    round_choice,
    round_stake,
)
from .unowned import unowned

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
NENETTE_INDEX = INDEX[NENETTE]

# -- decisions ----------------------------------------------------------------
STOP = -1
BON = 28  # added to a keep index: the throw is declared « le bon »
EST = 100
VIENT = 101

# -- the rules as numbers: places in the ``rules`` array ------------------------
(
    R_POT,
    R_INITIAL,
    R_CHARGE_THROWS,
    R_DECHARGE_THROWS,
    R_LEADER_LIMIT,
    R_LE_BON,
    R_ACCUMULATED,
    R_NENETTE_PENALTY,
    R_NENETTE_LAST_WINS,
    R_DEDUCTION,
    R_VACHE,
    R_TIE_BREAK,
    R_ALL_TAKE,
    R_FIRST_PLAYER,
    R_DECHARGE_LEADER,
    R_WITHDRAW,
    R_ESPAGNOLE_GAME,
    R_MANCHES,
    R_FICHES,
    R_ACE_HIGH,
    R_MUST_THROW_ON,
    R_SIZE,
) = range(22)

TIE_RAMPOT, TIE_LAST_FIRST, TIE_QUI_BARRE = 0, 1, 2
FIRST_SEAT, LOWEST_DIE, HIGHEST_THROW = 0, 1, 2
LEAD_ROUND_LOSER, LEAD_FEWEST, LEAD_WORST_COUP_SEC = 0, 1, 2

# -- tables by result or keep: rows of the ``tab`` array (216 wide) -------------
TB_STRENGTH = 0  # [result] 55 for the strongest down to 0
TB_VALUE = 1  # [result] tokens
TB_OF_FACES = 2  # [faces code] the result of three faces (see dice.faces_code)
TB_KEEP_DICE = 3  # rows 3, 4: [keep] its first and second die
TB_KEEP_LEN = 5  # [keep] dice kept
TB_KEEPS_OF = 6  # rows 6 to 12: [result] the keeps allowed holding it
TB_KEEPS_COUNT = 13  # [result]
TB_HEURISTIC_KEEP = 14  # [result] the heuristic bot's keep
TB_HEURISTIC_LEAD = 15  # [result] 1: the heuristic bot stops on it as leader
TB_HEURISTIC_ALWAYS = 16  # [result] 1: 421 and 111, where it always stops
TB_KEEP_CODE = 17  # [keep] the faces code of the dice kept, followed by faces of 1 (see dice.faces_code)
TB_ROWS = 18
TB_WIDTH = 216

# -- a game's running numbers: places in the ``st`` array -----------------------
(
    S_CHARGE,  # 1 in the charge, 0 in the décharge
    S_POT,
    S_LEADER,
    S_MANCHE,
    S_THROWS,  # dice throws so far: the dice's counter
    S_CHOICES,  # random choices so far: the random bots' counter
    S_ROUNDS,
    S_STAKE,
    S_TRACE,  # next free place in the trace
    S_OUT_GROUPS,  # groups of players out of tokens this manche
    S_FIRST_LEADER,
    S_COUNT,  # players in the round
    S_MANCHE_LEADER,  # who led the manche's first round
    S_SIZE,
) = range(14)

# -- by seat or by place in a round: rows of the ``se`` array --------------------
(
    SE_TOKENS,
    SE_DEBTS,
    SE_ACTIVE,
    SE_LOSSES,  # manches lost
    SE_OUT,  # the group (1, 2, ...) a seat got out with this manche, 0 while in
    SE_ORDER,  # the round's seats, leader first
    SE_FINALS,  # by place in the round: the final result
    SE_USED,  # by place: the throws used
    SE_BY_SEAT,  # by seat: the final result
    SE_KEYS,
    SE_SEATS,  # seats in a draw or a tie-break
    SE_DRAWN,
    SE_ONES,
    SE_ROWS,
) = range(14)

# -- what games add up: places in the ``counts`` array ---------------------------
# Seats are bits of an int64 (the worst, the best, the losers): at most 62 of them.
MAX_SEATS = 62
P = MAX_SEATS
C_GAMES = 0
C_UNFINISHED = 1  # games stopped after MAX_ROUNDS
C_SHARED = 2  # games lost by more than one
C_FIRST_LOST = 3  # games the first round's leader was among the losers
C_KINDS = 4  # 3 places: loser, grand perdant, shared
C_LOST = 8  # by seat: games lost
C_FIRST_LED = C_LOST + P  # by seat: games the seat led the first round
C_TAKEN = C_FIRST_LED + P  # by seat: tokens taken from the pot
C_GIVEN = C_TAKEN + P  # by seat: tokens given in the décharge
C_RECEIVED = C_GIVEN + P  # by seat: tokens received in the décharge
C_RESULTS = C_RECEIVED + P  # by result: every result of three dice thrown
C_MANCHES = C_RESULTS + 56  # histogram of manches played
MANCHE_BINS = 100
C_ROUNDS = C_MANCHES + MANCHE_BINS  # histogram of rounds; the last bin holds every longer game
ROUND_BINS = 1000
C_THROWS = C_ROUNDS + ROUND_BINS  # histogram of throws, the same
THROW_BINS = 5000
C_SIZE = C_THROWS + THROW_BINS

# -- what the trace holds ---------------------------------------------------------
T_THROW = 1  # T_THROW, count, face, face, face
T_ACTION = 2  # T_ACTION, decision
T_ROUND = 3  # T_ROUND, pot, then the tokens of each seat: right after a round is settled
T_MANCHE = 4  # T_MANCHE, loser
T_END = 5  # T_END, losers as a bit mask, kind (0 loser, 1 grand perdant, 2 shared)

MAX_ROUNDS = 100_000  # a game still going after this many rounds is stopped and counted


# -- writing the trace --------------------------------------------------------------


@njit(cache=True, inline="always")
def _trace(trace: I64, st: I64, size: int, a: int, b: int, c: int, d: int, e: int) -> None:
    pos = st[S_TRACE]
    if pos + size > trace.size:
        st[S_TRACE] = trace.size + 1  # full: the caller sees it ran out
        return
    trace[pos] = a
    trace[pos + 1] = b
    if size > 2:
        trace[pos + 2] = c
    if size > 3:
        trace[pos + 3] = d
        trace[pos + 4] = e
    st[S_TRACE] = pos + size


# -- dice ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _throw(gkey: np.uint64, st: I64, tab: I64, kept: int, trace: I64, counts: I64) -> int:
    """Throw the dice not in keep ``kept``: the result, counted (and traced).

    A throw code is the faces code of its three dice (see :func:`.dice.face`), so the dice
    thrown are its first ``3 - n`` faces, ``code // 6**n``, after the ``n`` dice kept: one
    look-up, with no face worked out and no branch on the dice kept.
    """
    code = int(np.int64(throw_code(gkey, st[S_THROWS])))  # 0 to 215, signed as the indices it joins
    st[S_THROWS] += 1
    n = tab[TB_KEEP_LEN, kept]
    thrown = code if n == 0 else (code // 6 if n == 1 else code // 36)
    if trace.size:
        f1 = face(code, 1) if n < 2 else 0
        f2 = face(code, 2) if n < 1 else 0
        _trace(trace, st, 5, T_THROW, 3 - n, face(code, 0), f1, f2)
    result = tab[TB_OF_FACES, tab[TB_KEEP_CODE, kept] + thrown]
    counts[C_RESULTS + result] += 1
    return int(result)


# -- decisions -------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _random_below(gkey: np.uint64, st: I64, n: int) -> int:
    bits = random_bits(gkey, CHOICE_STREAM + st[S_CHOICES])
    st[S_CHOICES] += 1
    return below(bits, n)


@njit(cache=True, inline="always")
def _choose(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    kind: int,
    result: int,
    throws: int,
    allowed: int,
    place: int,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
) -> int:
    """What the player at ``place`` in the round does holding ``result``."""
    count = tab[TB_KEEPS_COUNT, result]
    bon = rules[R_LE_BON] == 1 and throws + 1 < allowed
    may_stop = rules[R_MUST_THROW_ON] == 0 or place == 0 or _ahead(rules, tab, se, place, result, throws)
    if kind == RANDOM:  # as engine.legal_actions lists them: stop (if allowed), keeps, keeps with « le bon »
        first = 1 if may_stop else 0  # index 0 is stopping, when allowed
        j = _random_below(gkey, st, first + count * (2 if bon else 1)) - first
        if j < 0:
            return STOP
        return int(tab[TB_KEEPS_OF + j % count, result]) + (BON if j >= count else 0)
    choice = _bot_choice(
        gkey, st, rules, tab, se, kind, result, throws, allowed, place, index, actions, rindex, ractions
    )
    if choice == STOP and not may_stop:
        return int(tab[TB_HEURISTIC_KEEP, result])  # the heuristic bot throws on with its keep
    return choice


@njit(cache=True, inline="always")
def _ahead(rules: I64, tab: I64, se: I64, place: int, result: int, throws: int) -> bool:
    """Whether ``result`` in ``throws`` beats every earlier result of the round (engine._ahead)."""
    if rules[R_NENETTE_LAST_WINS] == 1 and result == NENETTE_INDEX:
        everyone = True
        for i in range(place):
            everyone = everyone and se[SE_FINALS, i] == NENETTE_INDEX
        if everyone:
            return True  # everyone on nénette: the last to throw it wins
    fewer = rules[R_TIE_BREAK] == TIE_QUI_BARRE
    mine = tab[TB_STRENGTH, result] * 8 + (4 - throws if fewer else 0)
    for i in range(place):
        if mine <= tab[TB_STRENGTH, se[SE_FINALS, i]] * 8 + (4 - se[SE_USED, i] if fewer else 0):
            return False
    return True


@njit(cache=True, inline="always")
def _bot_choice(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    kind: int,
    result: int,
    throws: int,
    allowed: int,
    place: int,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
) -> int:
    """The heuristic or the optimal bot's decision, before the rule that may forbid stopping."""
    if kind == OPTIMAL_ROUNDS:  # the optimal bot playing round by round, beside one playing the game
        index, actions, kind = rindex, ractions, OPTIMAL
    if kind == OPTIMAL and index[H_MODE] == MODE_MAXN:
        where = (st[S_MANCHE], st[S_MANCHE_LEADER], st[S_CHARGE], st[S_POT], st[S_COUNT])
        turn = (place, result, allowed, allowed - throws, st[S_STAKE])
        return maxn_choice(
            index,
            actions,
            where,
            se[SE_TOKENS],
            se[SE_ACTIVE],
            se[SE_LOSSES],
            se[SE_ORDER],
            se[SE_FINALS],
            turn,
        )
    if kind == OPTIMAL and index[H_MODE] == MODE_ROUNDS:
        row = 0  # the summary of the results before this place
        if place:
            row = se[SE_FINALS, 0]
            for i in range(1, place):
                row = next_summary(index, i, row, se[SE_FINALS, i])
        round_key = (st[S_COUNT], st[S_CHARGE], st[S_POT])
        return round_choice(index, actions, round_key, place, row, result, allowed, allowed - throws)
    if kind == OPTIMAL:
        position = (
            st[S_CHARGE],
            st[S_POT],
            se[SE_TOKENS, 0],
            se[SE_ORDER, 0],
            se[SE_LOSSES, 0],
            se[SE_LOSSES, 1],
        )
        leader_turn = (se[SE_FINALS, 0], se[SE_USED, 0])
        return optimal_choice(
            index, actions, position, place, leader_turn, result, throws, allowed, st[S_STAKE]
        )
    # HEURISTIC: players/heuristic.py
    if tab[TB_HEURISTIC_ALWAYS, result]:
        return STOP
    keep = int(tab[TB_HEURISTIC_KEEP, result])
    if place == 0:
        return STOP if tab[TB_HEURISTIC_LEAD, result] else keep
    low = 1 << 30
    high = -1
    for i in range(place):
        s = tab[TB_STRENGTH, se[SE_FINALS, i]]
        low = min(low, s)
        high = max(high, s)
    mine = tab[TB_STRENGTH, result]
    safe = mine > low
    if st[S_CHARGE] == 0:  # being the winner gives tokens away: safe only near the end
        return STOP if mine > high or (safe and allowed - throws <= 1) else keep
    return STOP if safe else keep


@njit(cache=True, inline="always")
def _choose_stake(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    kind: int,
    taker: bool,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
) -> int:
    """« Main chaude »: the first to rethrow chooses « est » or « vient ».

    ``taker``: the chooser is among the worst.
    """
    if kind == RANDOM:
        return VIENT if _random_below(gkey, st, 2) else EST
    if kind == OPTIMAL_ROUNDS:
        index, actions, kind = rindex, ractions, OPTIMAL
    if kind != OPTIMAL:
        return EST  # the heuristic bot plays a known stake
    if index[H_MODE] == MODE_MAXN:
        return EST  # the game-level solver covers no rule with « main chaude »
    amount = _est_amount(st, rules, tab, se)
    if index[H_MODE] == MODE_ROUNDS:
        return VIENT if round_stake(index, min(amount, AMOUNTS - 1), taker) else EST
    lost = (se[SE_LOSSES, 0], se[SE_LOSSES, 1])
    vient = optimal_stake(
        index, actions, st[S_CHARGE], st[S_POT], se[SE_TOKENS, 0], se[SE_ORDER, 0], lost, amount
    )
    return VIENT if vient else EST


@njit(cache=True, inline="always")
def _est_amount(st: I64, rules: I64, tab: I64, se: I64) -> int:
    """« Pour ce qui est »: what the round settles for without « vient » (engine.est_amount)."""
    best = se[SE_FINALS, 0]
    worst = best
    for i in range(1, st[S_COUNT]):
        result = se[SE_FINALS, i]
        if tab[TB_STRENGTH, result] > tab[TB_STRENGTH, best]:
            best = result
        if tab[TB_STRENGTH, result] < tab[TB_STRENGTH, worst]:
            worst = result
    if rules[R_NENETTE_PENALTY] and worst == NENETTE_INDEX:
        return int(rules[R_NENETTE_PENALTY])
    if rules[R_ACCUMULATED] == 1 and st[S_CHARGE] == 1:
        return int(st[S_STAKE])
    if _all_tied(rules, se, st[S_COUNT]):
        return int(tab[TB_VALUE, best])
    return _base_amount(rules, tab, best, worst)


@njit(cache=True, inline="always")
def _all_tied(rules: I64, se: I64, count: int) -> bool:
    """Whether every turn of the round tied: same result, and same throws where they count."""
    first = se[SE_FINALS, 0]
    if rules[R_NENETTE_LAST_WINS] == 1 and first == NENETTE_INDEX:
        return False  # everyone on nénette: the last to throw it wins
    fewer = rules[R_TIE_BREAK] == TIE_QUI_BARRE
    for i in range(1, count):
        if se[SE_FINALS, i] != first or (fewer and se[SE_USED, i] != se[SE_USED, 0]):
            return False
    return True


# -- a turn and a round ---------------------------------------------------------------


@njit(cache=True, inline="always")
def _turn(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    kind: int,
    allowed: int,
    place: int,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    trace: I64,
    counts: I64,
) -> None:
    """The turn of the player at ``place``: its final result and throws go into ``se``."""
    accumulate = rules[R_ACCUMULATED] == 1 and st[S_CHARGE] == 1
    kept = 0  # keep nothing: throw all three
    throws = 0
    last = False
    while True:
        result = _throw(gkey, st, tab, kept, trace, counts)
        throws += 1
        if accumulate:
            st[S_STAKE] += tab[TB_VALUE, result]
        if last or throws >= allowed:
            break
        choice = _choose(
            gkey, st, rules, tab, se, kind, result, throws, allowed, place, index, actions, rindex, ractions
        )
        if trace.size:
            _trace(trace, st, 2, T_ACTION, choice, 0, 0, 0)
        if choice == STOP:
            break
        last = choice >= BON
        kept = choice - BON if last else choice
    se[SE_FINALS, place] = result
    se[SE_USED, place] = throws


@njit(cache=True, inline="always")
def _keys(tab: I64, rules: I64, se: I64, results_row: int, throws_row: int, count: int) -> None:
    """Comparison keys of ``count`` turns, larger is better, into the keys row (engine._keys)."""
    all_nenette = rules[R_NENETTE_LAST_WINS] == 1
    for i in range(count):
        all_nenette = all_nenette and se[results_row, i] == NENETTE_INDEX
    fewer = rules[R_TIE_BREAK] == TIE_QUI_BARRE
    for i in range(count):
        strength = tab[TB_STRENGTH, se[results_row, i]]
        if all_nenette:  # the last to throw it wins
            se[SE_KEYS, i] = strength * 128 + i
        elif fewer:  # qui barre démarre: fewer throws is better
            se[SE_KEYS, i] = (strength * 8 + 4 - se[throws_row, i]) * 16
        else:
            se[SE_KEYS, i] = strength * 128


@njit(cache=True, inline="always")
def _base_amount(rules: I64, tab: I64, best: int, worst: int) -> int:
    value = tab[TB_VALUE, best]
    if rules[R_DEDUCTION] == 1 and worst != NENETTE_INDEX:  # nénette is never deducted
        return int(max(0, value - tab[TB_VALUE, worst]))
    return int(value)


@njit(cache=True, inline="always")
def _bits(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _first(se: I64, count: int, mask: int) -> int:
    """The first seat of ``mask`` in the round's order."""
    for i in range(count):
        if mask >> se[SE_ORDER, i] & 1:
            return int(se[SE_ORDER, i])
    return -1


@njit(cache=True, inline="always")
def _round(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    trace: I64,
    counts: I64,
) -> int:
    """Play a round from the leader and settle it; returns the winner."""
    n = kinds.size
    charge = st[S_CHARGE] == 1
    count = 0
    s = st[S_LEADER]
    for _ in range(n):  # from the leader, clockwise (no modulo: a division is the slowest instruction here)
        if se[SE_ACTIVE, s]:
            se[SE_ORDER, count] = s
            count += 1
        s = s + 1 if s + 1 < n else 0
    st[S_LEADER] = se[SE_ORDER, 0]
    st[S_COUNT] = count
    st[S_STAKE] = 0
    most = rules[R_CHARGE_THROWS] if charge else rules[R_DECHARGE_THROWS]
    limit = most
    for place in range(count):
        seat = se[SE_ORDER, place]
        _turn(
            gkey,
            st,
            rules,
            tab,
            se,
            kinds[seat],
            limit if place else most,
            place,
            index,
            actions,
            rindex,
            ractions,
            trace,
            counts,
        )
        se[SE_BY_SEAT, seat] = se[SE_FINALS, place]
        if place == 0 and rules[R_LEADER_LIMIT] == 1 and most > 1:
            limit = se[SE_USED, 0]
    # the worst and the best as bit masks over seats
    _keys(tab, rules, se, SE_FINALS, SE_USED, count)
    low = se[SE_KEYS, 0]
    high = low
    for i in range(1, count):
        low = min(low, se[SE_KEYS, i])
        high = max(high, se[SE_KEYS, i])
    worst = 0
    best = 0
    for i in range(count):
        if se[SE_KEYS, i] == low:
            worst |= 1 << se[SE_ORDER, i]
        if se[SE_KEYS, i] == high:
            best |= 1 << se[SE_ORDER, i]
    all_take = rules[R_ALL_TAKE] == 1
    tie_rule = rules[R_TIE_BREAK]
    previous = 0  # the seats of the last tie-break throw
    amount = -1  # set by a « pour ce qui vient » rethrow
    while True:
        need_worst = _bits(worst) > 1 and not all_take
        need_best = _bits(best) > 1 and not charge  # only the loser matters in the charge
        if not need_worst and not need_best:
            # the best who did not lose a tie-break (everyone, if every tied loser takes)
            winner = _first(se, count, best & ~worst if best & ~worst else best)
            if not charge:
                worst &= ~(1 << winner)  # all tied: the winner gives
            _settle(st, rules, tab, se, count, worst, winner, amount, trace, counts)
            return winner
        group = worst if need_worst else best
        # who rethrows, in which order
        members = 0
        for i in range(count):
            if group >> se[SE_ORDER, i] & 1:
                se[SE_SEATS, members] = se[SE_ORDER, i]
                members += 1
        if tie_rule == TIE_LAST_FIRST:  # from the last who played, then clockwise
            last = se[SE_SEATS, members - 1]
            for i in range(members - 1, 0, -1):
                se[SE_SEATS, i] = se[SE_SEATS, i - 1]
            se[SE_SEATS, 0] = last
        elif tie_rule == TIE_QUI_BARRE:  # from the last tied player, counter-clockwise
            for i in range(members // 2):
                a = se[SE_SEATS, i]
                se[SE_SEATS, i] = se[SE_SEATS, members - 1 - i]
                se[SE_SEATS, members - 1 - i] = a
        vient = False
        if previous and (group & ~previous) == 0 and tie_rule == TIE_QUI_BARRE:
            # « main chaude »: the first to rethrow chooses the stake
            chooser = se[SE_SEATS, 0]
            taker = (worst >> chooser & 1) == 1
            stake = _choose_stake(
                gkey, st, rules, tab, se, kinds[chooser], taker, index, actions, rindex, ractions
            )
            if trace.size:
                _trace(trace, st, 2, T_ACTION, stake, 0, 0, 0)
            vient = stake == VIENT
            amount = -1
        for i in range(members):
            se[SE_DRAWN, i] = _throw(gkey, st, tab, 0, trace, counts)
            se[SE_ONES, i] = 1
        _keys(tab, rules, se, SE_DRAWN, SE_ONES, members)
        low = se[SE_KEYS, 0]
        high = se[SE_KEYS, 0]
        top = 0
        bottom = 0
        for i in range(members):
            if se[SE_KEYS, i] > high:
                high = se[SE_KEYS, i]
                top = i
            if se[SE_KEYS, i] < low:
                low = se[SE_KEYS, i]
                bottom = i
        if group == worst and need_worst:
            worst = 0
            for i in range(members):
                if se[SE_KEYS, i] == low:
                    worst |= 1 << se[SE_SEATS, i]
        if group == best and _bits(best) > 1:
            best = 0
            for i in range(members):
                if se[SE_KEYS, i] == high:
                    best |= 1 << se[SE_SEATS, i]
        if rules[R_ACCUMULATED] == 1 and charge:
            st[S_STAKE] += tab[TB_VALUE, se[SE_DRAWN, top]]  # each rampot adds its winning value
        if vient:
            amount = _base_amount(rules, tab, se[SE_DRAWN, top], se[SE_DRAWN, bottom])
        previous = group


@njit(cache=True, inline="always")
def _settle(
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    count: int,
    losers: int,
    winner: int,
    vient: int,
    trace: I64,
    counts: I64,
) -> None:
    charge = st[S_CHARGE] == 1
    first = _first(se, count, losers)
    if vient >= 0:
        amount = vient
    elif rules[R_ACCUMULATED] == 1 and charge:
        amount = st[S_STAKE]
    elif _all_tied(rules, se, count):  # never deducted from itself: the value of the result that tied
        amount = tab[TB_VALUE, se[SE_BY_SEAT, winner]]
    else:
        amount = _base_amount(rules, tab, se[SE_BY_SEAT, winner], se[SE_BY_SEAT, first])
    if rules[R_NENETTE_PENALTY] and se[SE_BY_SEAT, first] == NENETTE_INDEX:
        amount = rules[R_NENETTE_PENALTY]
    for i in range(count):
        loser = se[SE_ORDER, i]
        if not losers >> loser & 1:
            continue
        if charge:
            take = min(amount, st[S_POT])
            st[S_POT] -= take
            se[SE_TOKENS, loser] += take
            counts[C_TAKEN + loser] += take
            if rules[R_VACHE] == 1 and amount > take:
                se[SE_DEBTS, loser] += amount - take
        else:
            give = min(amount, se[SE_TOKENS, winner])
            se[SE_TOKENS, winner] -= give
            se[SE_TOKENS, loser] += give
            counts[C_GIVEN + winner] += give
            counts[C_RECEIVED + loser] += give
    st[S_ROUNDS] += 1
    st[S_LEADER] = first
    if trace.size:
        n = se.shape[1]
        pos = st[S_TRACE]
        if pos + 2 + n <= trace.size:
            trace[pos] = T_ROUND
            trace[pos + 1] = st[S_POT]
            trace[pos + 2 : pos + 2 + n] = se[SE_TOKENS]
            st[S_TRACE] = pos + 2 + n
        else:
            st[S_TRACE] = trace.size + 1


# -- draws, manches, the game --------------------------------------------------------


@njit(cache=True, inline="always")
def _draw(
    gkey: np.uint64,
    st: I64,
    rules: I64,
    tab: I64,
    se: I64,
    members: int,
    purpose: int,
    trace: I64,
    counts: I64,
) -> int:
    """The seats in the seats row throw once each until one stands out.

    ``purpose`` 0: the lowest die leads; 1: the best throw leads; 2: the worst throw leads.
    """
    while True:
        for i in range(members):
            if purpose == 0:
                code = throw_code(gkey, st[S_THROWS])
                st[S_THROWS] += 1
                f = face(code, 0)
                if trace.size:
                    _trace(trace, st, 5, T_THROW, 1, f, 0, 0)
                se[SE_KEYS, i] = -(7 if rules[R_ACE_HIGH] == 1 and f == 1 else f)
            else:
                strength = tab[TB_STRENGTH, _throw(gkey, st, tab, 0, trace, counts)]
                se[SE_KEYS, i] = strength if purpose == 1 else -strength
        top = se[SE_KEYS, 0]
        for i in range(1, members):
            top = max(top, se[SE_KEYS, i])
        kept = 0
        for i in range(members):
            if se[SE_KEYS, i] == top:
                se[SE_SEATS, kept] = se[SE_SEATS, i]
                kept += 1
        if kept == 1:
            return int(se[SE_SEATS, 0])
        members = kept


@njit(cache=True, inline="always")
def _holder_of_all(st: I64, se: I64) -> int:
    total = st[S_POT]
    for s in range(se.shape[1]):
        total += se[SE_TOKENS, s]
    for s in range(se.shape[1]):
        if se[SE_TOKENS, s] == total:
            return s
    return -1


@njit(cache=True, inline="always")
def _decharge_leader(gkey: np.uint64, st: I64, rules: I64, tab: I64, se: I64, trace: I64, counts: I64) -> int:
    n = se.shape[1]
    count = 0
    s = st[S_LEADER]
    for _ in range(n):  # from the last round's loser (or the next seat still in)
        if se[SE_ACTIVE, s]:
            se[SE_SEATS, count] = s
            count += 1
        s = s + 1 if s + 1 < n else 0
    rule = rules[R_DECHARGE_LEADER]
    if rule == LEAD_WORST_COUP_SEC:
        return _draw(gkey, st, rules, tab, se, count, 2, trace, counts)
    if rule == LEAD_FEWEST:
        fewest = se[SE_SEATS, 0]
        for i in range(count):
            if se[SE_TOKENS, se[SE_SEATS, i]] < se[SE_TOKENS, fewest]:
                fewest = se[SE_SEATS, i]
        return int(fewest)
    return int(se[SE_SEATS, 0])


@njit(cache=True, inline="always")
def play_game(
    key: npt.NDArray[np.uint64],
    game: int,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    st: I64,
    se: I64,
    trace: I64,
    gc: I64,
    counts: I64,
) -> None:
    """One whole game, seat ``game % players`` first; adds what happened to ``counts``.

    ``gc`` gathers what happens during the game; it joins ``counts`` only if
    the game ends without asking for an optimal bot's position not yet built.
    """
    n = kinds.size
    gkey = game_key(key, game)
    for s in range(n):  # only these places of gc are written during a game
        gc[C_TAKEN + s] = 0
        gc[C_GIVEN + s] = 0
        gc[C_RECEIVED + s] = 0
    for r in range(C_MANCHES - C_RESULTS):
        gc[C_RESULTS + r] = 0
    for i in range(S_SIZE):
        st[i] = 0
    st[S_MANCHE] = 1
    st[S_POT] = rules[R_POT]
    for row in range(SE_ROWS):
        for s in range(n):
            se[row, s] = 0
    for s in range(n):
        se[SE_TOKENS, s] = rules[R_INITIAL]
        se[SE_ACTIVE, s] = 1
    leader = game % n
    if rules[R_FIRST_PLAYER] != FIRST_SEAT:
        for i in range(n):
            s = leader + i
            se[SE_SEATS, i] = s if s < n else s - n
        purpose = 0 if rules[R_FIRST_PLAYER] == LOWEST_DIE else 1
        leader = _draw(gkey, st, rules, tab, se, n, purpose, trace, gc)
    st[S_FIRST_LEADER] = leader
    while True:  # a manche
        st[S_CHARGE] = 1
        st[S_LEADER] = leader
        st[S_MANCHE_LEADER] = leader
        s = leader
        for _ in range(n):  # debts from the last manche are paid first (queue de la vache)
            pay = min(se[SE_DEBTS, s], st[S_POT])
            st[S_POT] -= pay
            se[SE_TOKENS, s] += pay
            se[SE_DEBTS, s] -= pay
            s = s + 1 if s + 1 < n else 0
        espagnole = False
        holder = -1
        # The charge's rounds, then the décharge's, with one place that plays a round: the
        # round is inlined, and a second copy would double the time numba takes to compile.
        while True:
            if st[S_CHARGE] == 1 and (st[S_POT] <= 0 or st[S_ROUNDS] >= MAX_ROUNDS):  # the charge is over
                if rules[R_WITHDRAW] == 1:  # those holding no token leave the manche, as one group
                    out = False
                    for s in range(n):
                        if se[SE_ACTIVE, s] and se[SE_TOKENS, s] == 0:
                            if not out:
                                st[S_OUT_GROUPS] += 1
                                out = True
                            se[SE_ACTIVE, s] = 0
                            se[SE_OUT, s] = st[S_OUT_GROUPS]
                holder = _holder_of_all(st, se)
                espagnole = holder >= 0
                if espagnole:
                    break
                st[S_CHARGE] = 0
                st[S_LEADER] = _decharge_leader(gkey, st, rules, tab, se, trace, gc)
                if st[S_ROUNDS] >= MAX_ROUNDS:
                    break
            winner = _round(gkey, st, rules, tab, se, kinds, index, actions, rindex, ractions, trace, gc)
            if st[S_CHARGE] == 0:
                if se[SE_ACTIVE, winner] and se[SE_TOKENS, winner] == 0:  # only giving empties a hand here
                    se[SE_ACTIVE, winner] = 0
                    st[S_OUT_GROUPS] += 1
                    se[SE_OUT, winner] = st[S_OUT_GROUPS]
                holder = _holder_of_all(st, se)
                if holder >= 0 or st[S_ROUNDS] >= MAX_ROUNDS:
                    break
        if st[S_ROUNDS] >= MAX_ROUNDS:
            if index[H_MISSING] < 0 and rindex[H_MISSING] < 0:
                counts[C_UNFINISHED] += 1
            return
        se[SE_LOSSES, holder] += 1
        if trace.size:
            _trace(trace, st, 2, T_MANCHE, holder, 0, 0, 0)
        losers = 0
        if espagnole and rules[R_ESPAGNOLE_GAME] == 1:
            losers = 1 << holder
        elif rules[R_FICHES]:
            if se[SE_LOSSES, holder] >= rules[R_FICHES]:
                losers = 1 << holder
        elif st[S_MANCHE] >= rules[R_MANCHES]:
            most = se[SE_LOSSES, 0]
            for s in range(1, n):
                most = max(most, se[SE_LOSSES, s])
            for s in range(n):
                if se[SE_LOSSES, s] == most:
                    losers |= 1 << s
        if losers:
            break
        st[S_MANCHE] += 1
        st[S_POT] = rules[R_POT]
        for s in range(n):
            se[SE_TOKENS, s] = rules[R_INITIAL]
            se[SE_ACTIVE, s] = 1
            se[SE_OUT, s] = 0
        st[S_OUT_GROUPS] = 0
        leader = holder
    if index[H_MISSING] >= 0 or rindex[H_MISSING] >= 0:
        return
    for s in range(n):
        counts[C_TAKEN + s] += gc[C_TAKEN + s]
        counts[C_GIVEN + s] += gc[C_GIVEN + s]
        counts[C_RECEIVED + s] += gc[C_RECEIVED + s]
    for r in range(C_MANCHES - C_RESULTS):
        counts[C_RESULTS + r] += gc[C_RESULTS + r]
    kind = 0
    if _bits(losers) > 1:
        kind = 2
    elif rules[R_MANCHES] > 1 and rules[R_FICHES] == 0 and se[SE_LOSSES, holder] == rules[R_MANCHES]:
        kind = 1
    counts[C_GAMES] += 1
    counts[C_KINDS + kind] += 1
    for s in range(n):
        if losers >> s & 1:
            counts[C_LOST + s] += 1
    counts[C_FIRST_LED + st[S_FIRST_LEADER]] += 1
    counts[C_SHARED] += kind == 2
    counts[C_FIRST_LOST] += losers >> st[S_FIRST_LEADER] & 1
    counts[C_MANCHES + min(st[S_MANCHE], MANCHE_BINS - 1)] += 1
    counts[C_ROUNDS + min(st[S_ROUNDS], ROUND_BINS - 1)] += 1
    counts[C_THROWS + min(st[S_THROWS], THROW_BINS - 1)] += 1
    if trace.size:
        _trace(trace, st, 3, T_END, losers, kind, 0, 0)


@njit(cache=True)
def _play_games(
    key: npt.NDArray[np.uint64],
    first_game: int,
    games: int,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    st: I64,
    se: I64,
    trace: I64,
    gc: I64,
    counts: I64,
) -> int:
    """Games ``first_game`` onwards, one after the other: the only compiled call, whole games inlined.

    The caller holds every array for the whole call: no reference counts below (see :mod:`.unowned`).
    """
    key = unowned(key)
    rules = unowned(rules)
    tab = unowned(tab)
    kinds = unowned(kinds)
    index = unowned(index)
    actions = unowned(actions)
    rindex = unowned(rindex)
    ractions = unowned(ractions)
    st = unowned(st)
    se = unowned(se)
    trace = unowned(trace)
    gc = unowned(gc)
    counts = unowned(counts)
    for g in range(first_game, first_game + games):
        play_game(key, g, rules, tab, kinds, index, actions, rindex, ractions, st, se, trace, gc, counts)
        if index[H_MISSING] >= 0 or rindex[H_MISSING] >= 0:
            return g - first_game
    return games


@njit(cache=True)
def _game_arrays(players: int, trace_size: int) -> tuple[I64, I64, I64, I64]:
    """A game's running numbers, its rows by seat, a trace (empty: none) and its own counts."""
    st = np.zeros(S_SIZE, dtype=np.int64)
    se = np.zeros((SE_ROWS, players), dtype=np.int64)
    # the trace is read only up to what was written: zeroing its 32 MB took longer than the game
    return st, se, np.empty(trace_size, dtype=np.int64), np.zeros(C_MANCHES, dtype=np.int64)


@njit(cache=True)
def play_batch(
    key: npt.NDArray[np.uint64],
    first_game: int,
    games: int,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    counts: I64,
) -> int:
    """Games ``first_game`` to ``first_game + games - 1`` of a batch, added to ``counts``.

    Returns how many were played: fewer when a game needs an optimal bot's
    position that is not built yet (its code is then in ``index`` or ``rindex``).
    """
    st, se, trace, gc = _game_arrays(kinds.size, int(np.int64(0)))  # not a literal: one copy compiled
    return _play_games(
        key, first_game, games, rules, tab, kinds, index, actions, rindex, ractions, st, se, trace, gc, counts
    )


@njit(cache=True)
def trace_game(
    key: npt.NDArray[np.uint64],
    game: int,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    size: int,
) -> tuple[I64, I64]:
    """One game written down (read by :mod:`.replay`), and the group each seat got out with."""
    st, se, trace, gc = _game_arrays(kinds.size, size)
    counts = np.zeros(C_SIZE, dtype=np.int64)
    # not the constant 1: a literal argument compiles a second copy of the whole kernel
    one = int(np.int64(1))
    _play_games(
        key, game, one, rules, tab, kinds, index, actions, rindex, ractions, st, se, trace, gc, counts
    )
    if st[S_TRACE] > size:
        raise AssertionError("trace too small")  # the caller sizes it for the longest game
    return trace[: st[S_TRACE]].copy(), se[SE_OUT].copy()
