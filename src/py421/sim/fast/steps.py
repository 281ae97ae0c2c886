"""Games played decision by decision: the kernel's rules, paused where a seat outside it decides.

:mod:`.kernel` plays whole games in nested loops (a game, its rounds, their
turns) and asks its bots at each decision. A learning agent cannot be asked
from inside a compiled loop, so here the same procedure is a state machine:
each game's place in it is kept in a row of numbers (``V_*``), and
:func:`step` advances many games at once, each to the next decision of an
*agent* seat (``kinds[seat] == AGENT``) or to its end. Seats of the kernel's
bots (random, heuristic, optimal) are played in between, by the kernel's own
functions; the dice, the results, the comparison keys, the settling of
rounds and the draws are the kernel's functions too. Only the flow of a
round and a manche (the kernel's ``_round`` and ``play_game``) is written
again here, step by step, cut where an agent decides; ``tests/test_vector_env.py``
holds these games to the engine's environments.

A game's dice and the random bot's choices come from the kernel's
counter-based streams (:mod:`.dice`): game ``g`` of env ``e`` draws from
``game_key(keys[e], g)``, whatever else is played.

Each step writes what the deciding seats see (observations in the layout of
``py421.envs.observation``), the legal-action masks (the 17 indices of that
module, or Game-v0's eight) and the rewards of ``py421.envs.play``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from . import kernel as k
from .counter_dice import game_key
from .kernel import (
    _ahead,
    _base_amount,
    _bits,
    _choose,
    _choose_stake,
    _decharge_leader,
    _draw,
    _first,
    _holder_of_all,
    _keys,
    _settle,
    _throw,
)
from .unowned import unowned

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
U64 = npt.NDArray[np.uint64]

AGENT = -1  # kinds[seat]: the seat's decisions come from outside, through step()
SKIPPED_GAMES = 200  # as py421.envs.play: this many games in a row without an agent's decision is an error
NUM_ACTIONS = 17  # py421.envs.observation's indices
GYM_ACTIONS = 8

# -- what a game waits for: vs[V_WAIT] ---------------------------------------
W_TURN, W_STAKE, W_OVER = 0, 1, 2

# -- where a game's procedure goes on: vs[V_AT] -------------------------------
(
    A_MANCHE,  # a manche starts: debts are paid
    A_ROUND,
    A_TURN,
    A_THROW,  # the current player throws (keeping V_KEPT)
    A_TURN_END,
    A_TURNS_OVER,  # every turn is played: the worst and the best
    A_TIE,  # settle, or start a tie-break throw (maybe asking for the stake first)
    A_TIE_THROW,
    A_CHARGE_END,
    A_WAITING,
    A_OVER,
) = range(11)

# -- a game's own numbers beside the kernel's: places in a row of ``vs`` -------
(
    V_WAIT,
    V_AT,
    V_GAME,  # the game's number in its env's stream
    V_SKIPPED,  # games in a row that ended without an agent's decision
    V_DECIDED,  # 1 once an agent decided in this game
    V_TRUNCATED,  # 1: stopped after kernel.MAX_ROUNDS rounds
    V_DECIDER,
    V_NEXT_LEADER,  # leader of the manche about to start
    V_PLACE,
    V_MOST,  # throws allowed in this phase
    V_LIMIT,  # throws allowed after the leader
    V_SHOWN_LIMIT,  # the leader's throws once they limit the others, else 0 (the engine's ``round.limit``)
    V_ALLOWED,
    V_THROWS,
    V_KEPT,
    V_LAST,  # « le bon » was declared: the next throw is final
    V_RESULT,
    V_WORST,  # bit masks over seats
    V_BEST,
    V_PREVIOUS,  # the seats of the last tie-break throw
    V_GROUP,
    V_MEMBERS,
    V_AMOUNT,  # set by a « pour ce qui vient » rethrow (-1: none)
    V_VIENT,
    V_REPLAYS,  # the engine's ``tie.replays``
    V_LOSERS,  # the seats that lost the game that ended last, a bit mask (0: stopped, no loser)
    V_ENDED_LOSERS,  # V_LOSERS of the game this step ended (the games skipped after it write V_LOSERS)
    V_SIZE,
) = range(28)

# -- the constants of a batch: places in ``conf`` ---------------------------------
(
    K_PLAYERS,
    K_FIRST_SEAT,
    K_TOKENS,  # the tokens of a manche: rewards are divided by it
    K_REWARD_GAME,  # 1: only the end of the game pays
    K_GYM,  # 1: Game-v0's eight actions; 0: the 17 indices
    K_SAME_STEP,  # 1: a finished game is followed at once by the next one, in the same step
    K_OBS_SIZE,
    K_LAYOUT,  # then the start of each observation segment, in SEGMENTS order
) = range(8)

SEGMENTS = (
    "phase",
    "deciding",
    "stake_choice",
    "manche",
    "manches_lost",
    "pot",
    "tokens",
    "debts",
    "in_manche",
    "leader",
    "current",
    "dice",
    "throws",
    "throws_allowed",
    "limit",
    "stake",
    "order",
    "done",
    "result_rank",
    "result_value",
    "result_throws",
    "tie",
    "tie_replays",
)
(
    O_PHASE,
    O_DECIDING,
    O_STAKE_CHOICE,
    O_MANCHE,
    O_MANCHES_LOST,
    O_POT,
    O_TOKENS,
    O_DEBTS,
    O_IN_MANCHE,
    O_LEADER,
    O_CURRENT,
    O_DICE,
    O_THROWS,
    O_THROWS_ALLOWED,
    O_LIMIT,
    O_STAKE,
    O_ORDER,
    O_DONE,
    O_RESULT_RANK,
    O_RESULT_VALUE,
    O_RESULT_THROWS,
    O_TIE,
    O_TIE_REPLAYS,
) = range(len(SEGMENTS))
K_SIZE = K_LAYOUT + len(SEGMENTS)

# -- tables of the action indices: rows of ``moves`` (56 results wide) ------------
M_KEEP = 0  # rows 0 to 7: [bits][result] the keep left after throwing the dice of ``bits`` again
M_DICE = 8  # rows 8 to 10: [result] its faces, highest first
M_ROWS = 11

# -- what step() reports: places in ``report`` -----------------------------------
E_ILLEGAL_GAME = 0  # the first game whose action is not allowed (-1: none)
E_ILLEGAL_ACTION = 1
E_NOTHING_GAME = 2  # a game that found SKIPPED_GAMES games in a row without a decision (-1: none)
E_SIZE = 3


# -- one game, until it waits ------------------------------------------------------


@njit(cache=True, inline="always")
def _start_game(
    keys: U64, gkeys: U64, e: int, st: I64, se: I64, v: I64, rules: I64, tab: I64, conf: I64, counts: I64
) -> None:
    """Game ``v[V_GAME]`` of env ``e``, up to the first manche (the draw for the first player included)."""
    gkeys[e] = game_key(keys[e], v[V_GAME])
    gkey = gkeys[e]
    n = se.shape[1]
    st[:] = 0
    st[k.S_MANCHE] = 1
    st[k.S_POT] = rules[k.R_POT]
    se[:] = 0
    se[k.SE_TOKENS] = rules[k.R_INITIAL]
    se[k.SE_ACTIVE] = 1
    leader = conf[K_FIRST_SEAT]
    if rules[k.R_FIRST_PLAYER] != k.FIRST_SEAT:
        for i in range(n):
            se[k.SE_SEATS, i] = (leader + i) % n
        purpose = 0 if rules[k.R_FIRST_PLAYER] == k.LOWEST_DIE else 1
        leader = _draw(gkey, st, rules, tab, se, n, purpose, counts[:0], counts)
    st[k.S_FIRST_LEADER] = leader
    v[V_NEXT_LEADER] = leader
    v[V_DECIDED] = 0
    v[V_TRUNCATED] = 0
    v[V_AT] = A_MANCHE


@njit(cache=True, inline="always")
def _end_manche(st: I64, se: I64, v: I64, rules: I64, holder: int, espagnole: bool, rew: F64) -> None:
    """Kernel ``play_game`` after a manche: the game is over, or the next manche starts."""
    n = se.shape[1]
    se[k.SE_LOSSES, holder] += 1
    losers = 0
    if espagnole and rules[k.R_ESPAGNOLE_GAME] == 1:
        losers = 1 << holder
    elif rules[k.R_FICHES]:
        if se[k.SE_LOSSES, holder] >= rules[k.R_FICHES]:
            losers = 1 << holder
    elif st[k.S_MANCHE] >= rules[k.R_MANCHES]:
        most = se[k.SE_LOSSES].max()
        for s in range(n):
            if se[k.SE_LOSSES, s] == most:
                losers |= 1 << s
    if losers:
        for s in range(n):
            if losers >> s & 1:
                rew[s] -= 1.0
        v[V_LOSERS] = losers
        v[V_AT] = A_OVER
        return
    st[k.S_MANCHE] += 1
    st[k.S_POT] = rules[k.R_POT]
    se[k.SE_TOKENS] = rules[k.R_INITIAL]
    se[k.SE_ACTIVE] = 1
    se[k.SE_OUT] = 0
    st[k.S_OUT_GROUPS] = 0
    v[V_NEXT_LEADER] = holder
    v[V_AT] = A_MANCHE


@njit(cache=True, inline="always")
def _pay(st: I64, se: I64, v: I64, conf: I64, before: I64, winner: int, losers: int, rew: F64) -> None:
    """The rewards of a settled round, term by term in the engine's order of events (exact floats)."""
    if conf[K_REWARD_GAME] == 1:
        return
    n = se.shape[1]
    total = conf[K_TOKENS]
    charge = st[k.S_CHARGE] == 1
    for i in range(st[k.S_COUNT]):
        s = se[k.SE_ORDER, i]
        if not losers >> s & 1:
            continue
        got = se[k.SE_TOKENS, s] - before[s]
        if charge:
            rew[s] -= got / total  # Took
            owed = se[k.SE_DEBTS, s] - before[n + s]
            if owed > 0:
                rew[s] -= owed / total  # DebtOwed
        else:
            rew[winner] += got / total  # Gave
            rew[s] -= got / total


@njit(cache=True)
def _run(
    gkey: np.uint64,
    st: I64,
    se: I64,
    v: I64,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    conf: I64,
    counts: I64,
    before: I64,
    rew: F64,
) -> None:
    """Play on until an agent must decide (``V_AT`` is A_WAITING) or the game is over (A_OVER)."""
    n = se.shape[1]
    trace = counts[:0]  # no trace
    at = v[V_AT]
    while True:
        # the most frequent first
        if at == A_THROW:
            result = _throw(gkey, st, tab, v[V_KEPT], trace, counts)
            v[V_THROWS] += 1
            v[V_RESULT] = result
            if rules[k.R_ACCUMULATED] == 1 and st[k.S_CHARGE] == 1:
                st[k.S_STAKE] += tab[k.TB_VALUE, result]
            if v[V_LAST] or v[V_THROWS] >= v[V_ALLOWED]:
                at = A_TURN_END
                continue
            place = v[V_PLACE]
            seat = se[k.SE_ORDER, place]
            kind = kinds[seat]
            if kind == AGENT:
                v[V_WAIT] = W_TURN
                v[V_DECIDER] = seat
                v[V_DECIDED] = 1
                v[V_AT] = A_WAITING
                return
            choice = _choose(
                gkey,
                st,
                rules,
                tab,
                se,
                kind,
                result,
                v[V_THROWS],
                v[V_ALLOWED],
                place,
                index,
                actions,
                rindex,
                ractions,
            )
            at = _after_choice(v, choice)
        elif at == A_TURN_END:
            place = v[V_PLACE]
            se[k.SE_FINALS, place] = v[V_RESULT]
            se[k.SE_USED, place] = v[V_THROWS]
            se[k.SE_BY_SEAT, se[k.SE_ORDER, place]] = v[V_RESULT]
            if place == 0 and rules[k.R_LEADER_LIMIT] == 1 and v[V_MOST] > 1:
                v[V_LIMIT] = v[V_THROWS]
                v[V_SHOWN_LIMIT] = v[V_THROWS]
            v[V_PLACE] = place + 1
            at = A_TURN if place + 1 < st[k.S_COUNT] else A_TURNS_OVER
        elif at == A_TURN:
            v[V_KEPT] = 0
            v[V_THROWS] = 0
            v[V_LAST] = 0
            v[V_ALLOWED] = v[V_LIMIT] if v[V_PLACE] else v[V_MOST]
            at = A_THROW
        elif at == A_TIE:
            at = _tie(gkey, st, se, v, rules, tab, kinds, index, actions, rindex, ractions, conf, counts)
            if at == A_WAITING:
                return
            if at == A_ROUND:  # settled: the kernel's loops go on after the round
                at = _after_round(gkey, st, se, v, rules, tab, conf, counts, before, rew)
        elif at == A_TURNS_OVER:  # kernel _round after its turns: the worst and the best as bit masks
            count = st[k.S_COUNT]
            _keys(tab, rules, se, k.SE_FINALS, k.SE_USED, count)
            low = se[k.SE_KEYS, 0]
            high = low
            for i in range(1, count):
                low = min(low, se[k.SE_KEYS, i])
                high = max(high, se[k.SE_KEYS, i])
            worst = 0
            best = 0
            for i in range(count):
                if se[k.SE_KEYS, i] == low:
                    worst |= 1 << se[k.SE_ORDER, i]
                if se[k.SE_KEYS, i] == high:
                    best |= 1 << se[k.SE_ORDER, i]
            v[V_WORST] = worst
            v[V_BEST] = best
            v[V_PREVIOUS] = 0
            v[V_AMOUNT] = -1
            v[V_REPLAYS] = 0
            at = A_TIE
        elif at == A_ROUND:
            if st[k.S_ROUNDS] >= k.MAX_ROUNDS:
                v[V_TRUNCATED] = 1
                v[V_LOSERS] = 0
                at = A_OVER
                continue
            count = 0
            for i in range(n):
                s = (st[k.S_LEADER] + i) % n
                if se[k.SE_ACTIVE, s]:
                    se[k.SE_ORDER, count] = s
                    count += 1
            st[k.S_LEADER] = se[k.SE_ORDER, 0]
            st[k.S_COUNT] = count
            st[k.S_STAKE] = 0
            most = rules[k.R_CHARGE_THROWS] if st[k.S_CHARGE] == 1 else rules[k.R_DECHARGE_THROWS]
            v[V_MOST] = most
            v[V_LIMIT] = most
            v[V_SHOWN_LIMIT] = 0
            v[V_PLACE] = 0
            at = A_TURN
        elif at == A_TIE_THROW:
            _tie_throw(gkey, st, se, v, rules, tab, counts)
            at = A_TIE
        elif at == A_MANCHE:
            leader = v[V_NEXT_LEADER]
            st[k.S_CHARGE] = 1
            st[k.S_LEADER] = leader
            st[k.S_MANCHE_LEADER] = leader
            for i in range(n):  # debts from the last manche are paid first (queue de la vache)
                s = (leader + i) % n
                pay = min(se[k.SE_DEBTS, s], st[k.S_POT])
                st[k.S_POT] -= pay
                se[k.SE_TOKENS, s] += pay
                se[k.SE_DEBTS, s] -= pay
            at = A_ROUND if st[k.S_POT] > 0 else A_CHARGE_END
        elif at == A_CHARGE_END:  # kernel play_game after the charge
            if rules[k.R_WITHDRAW] == 1:  # those holding no token leave the manche, as one group
                out = False
                for s in range(n):
                    if se[k.SE_ACTIVE, s] and se[k.SE_TOKENS, s] == 0:
                        if not out:
                            st[k.S_OUT_GROUPS] += 1
                            out = True
                        se[k.SE_ACTIVE, s] = 0
                        se[k.SE_OUT, s] = st[k.S_OUT_GROUPS]
            holder = _holder_of_all(st, se)
            if holder >= 0:  # l'Espagnole
                _end_manche(st, se, v, rules, holder, True, rew)
                at = v[V_AT]
            else:
                st[k.S_CHARGE] = 0
                st[k.S_LEADER] = _decharge_leader(gkey, st, rules, tab, se, trace, counts)
                at = A_ROUND
        else:  # A_OVER
            v[V_WAIT] = W_OVER
            v[V_AT] = A_OVER
            return


@njit(cache=True, inline="always")
def _after_choice(v: I64, choice: int) -> int:
    """Where a turn goes after a decision (kernel ``_turn``)."""
    if choice == k.STOP:
        return A_TURN_END
    last = choice >= k.BON
    v[V_LAST] = 1 if last else 0
    v[V_KEPT] = choice - k.BON if last else choice
    return A_THROW


@njit(cache=True, inline="always")
def _tie(
    gkey: np.uint64,
    st: I64,
    se: I64,
    v: I64,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    conf: I64,
    counts: I64,
) -> int:
    """Kernel ``_round``'s tie-break loop, one pass: A_ROUND once settled (by the caller), else a throw."""
    count = st[k.S_COUNT]
    charge = st[k.S_CHARGE] == 1
    worst = v[V_WORST]
    best = v[V_BEST]
    need_worst = _bits(worst) > 1 and rules[k.R_ALL_TAKE] != 1
    need_best = _bits(best) > 1 and not charge  # only the loser matters in the charge
    if not need_worst and not need_best:
        return A_ROUND
    group = worst if need_worst else best
    members = 0
    for i in range(count):
        if group >> se[k.SE_ORDER, i] & 1:
            se[k.SE_SEATS, members] = se[k.SE_ORDER, i]
            members += 1
    tie_rule = rules[k.R_TIE_BREAK]
    if tie_rule == k.TIE_LAST_FIRST:  # from the last who played, then clockwise
        last = se[k.SE_SEATS, members - 1]
        for i in range(members - 1, 0, -1):
            se[k.SE_SEATS, i] = se[k.SE_SEATS, i - 1]
        se[k.SE_SEATS, 0] = last
    elif tie_rule == k.TIE_QUI_BARRE:  # from the last tied player, counter-clockwise
        for i in range(members // 2):
            a = se[k.SE_SEATS, i]
            se[k.SE_SEATS, i] = se[k.SE_SEATS, members - 1 - i]
            se[k.SE_SEATS, members - 1 - i] = a
    previous = v[V_PREVIOUS]
    again = previous != 0 and (group & ~previous) == 0
    v[V_REPLAYS] = v[V_REPLAYS] + 1 if again else 1
    v[V_GROUP] = group
    v[V_MEMBERS] = members
    v[V_VIENT] = 0
    if again and tie_rule == k.TIE_QUI_BARRE:  # « main chaude »: the first to rethrow chooses the stake
        chooser = se[k.SE_SEATS, 0]
        if kinds[chooser] == AGENT:
            v[V_WAIT] = W_STAKE
            v[V_DECIDER] = chooser
            v[V_DECIDED] = 1
            v[V_AT] = A_WAITING
            return A_WAITING
        taker = (worst >> chooser & 1) == 1
        stake = _choose_stake(
            gkey, st, rules, tab, se, kinds[chooser], taker, index, actions, rindex, ractions
        )
        v[V_VIENT] = 1 if stake == k.VIENT else 0
        v[V_AMOUNT] = -1
    return A_TIE_THROW


@njit(cache=True, inline="always")
def _tie_throw(gkey: np.uint64, st: I64, se: I64, v: I64, rules: I64, tab: I64, counts: I64) -> None:
    """The tie-break throw of the seats in the seats row (kernel ``_round``)."""
    trace = counts[:0]
    members = v[V_MEMBERS]
    group = v[V_GROUP]
    worst = v[V_WORST]
    best = v[V_BEST]
    need_worst = _bits(worst) > 1 and rules[k.R_ALL_TAKE] != 1
    for i in range(members):
        se[k.SE_DRAWN, i] = _throw(gkey, st, tab, 0, trace, counts)
        se[k.SE_ONES, i] = 1
    _keys(tab, rules, se, k.SE_DRAWN, k.SE_ONES, members)
    low = se[k.SE_KEYS, 0]
    high = se[k.SE_KEYS, 0]
    top = 0
    bottom = 0
    for i in range(members):
        if se[k.SE_KEYS, i] > high:
            high = se[k.SE_KEYS, i]
            top = i
        if se[k.SE_KEYS, i] < low:
            low = se[k.SE_KEYS, i]
            bottom = i
    if group == worst and need_worst:
        worst = 0
        for i in range(members):
            if se[k.SE_KEYS, i] == low:
                worst |= 1 << se[k.SE_SEATS, i]
    if group == best and _bits(best) > 1:
        best = 0
        for i in range(members):
            if se[k.SE_KEYS, i] == high:
                best |= 1 << se[k.SE_SEATS, i]
    if rules[k.R_ACCUMULATED] == 1 and st[k.S_CHARGE] == 1:
        st[k.S_STAKE] += tab[k.TB_VALUE, se[k.SE_DRAWN, top]]  # each rampot adds its winning value
    if v[V_VIENT]:
        v[V_AMOUNT] = _base_amount(rules, tab, se[k.SE_DRAWN, top], se[k.SE_DRAWN, bottom])
    v[V_WORST] = worst
    v[V_BEST] = best
    v[V_PREVIOUS] = group


@njit(cache=True, inline="always")
def _after_round(
    gkey: np.uint64,
    st: I64,
    se: I64,
    v: I64,
    rules: I64,
    tab: I64,
    conf: I64,
    counts: I64,
    before: I64,
    rew: F64,
) -> int:
    """Settle the round (kernel ``_settle``), pay its rewards, and go where the kernel's loops go."""
    n = se.shape[1]
    count = st[k.S_COUNT]
    charge = st[k.S_CHARGE] == 1
    worst = v[V_WORST]
    best = v[V_BEST]
    # the best who did not lose a tie-break (everyone, if every tied loser takes)
    winner = _first(se, count, best & ~worst if best & ~worst else best)
    if not charge:
        worst &= ~(1 << winner)  # all tied: the winner gives
    for s in range(n):
        before[s] = se[k.SE_TOKENS, s]
        before[n + s] = se[k.SE_DEBTS, s]
    _settle(st, rules, tab, se, count, worst, winner, v[V_AMOUNT], counts[:0], counts)
    _pay(st, se, v, conf, before, winner, worst, rew)
    if charge:
        return A_ROUND if st[k.S_POT] > 0 else A_CHARGE_END
    if se[k.SE_ACTIVE, winner] and se[k.SE_TOKENS, winner] == 0:  # only giving empties a hand here
        se[k.SE_ACTIVE, winner] = 0
        st[k.S_OUT_GROUPS] += 1
        se[k.SE_OUT, winner] = st[k.S_OUT_GROUPS]
    holder = _holder_of_all(st, se)
    if holder >= 0:
        _end_manche(st, se, v, rules, holder, False, rew)
        return int(v[V_AT])
    return A_ROUND


# -- actions and what a seat sees -------------------------------------------------------


@njit(cache=True, inline="always")
def _may_stop(st: I64, se: I64, v: I64, rules: I64, tab: I64) -> bool:
    place = v[V_PLACE]
    return (
        rules[k.R_MUST_THROW_ON] == 0 or place == 0 or _ahead(rules, tab, se, place, v[V_RESULT], v[V_THROWS])
    )


@njit(cache=True, inline="always")
def _bon_allowed(v: I64, rules: I64) -> bool:
    return bool(rules[k.R_LE_BON] == 1 and v[V_THROWS] + 1 < v[V_ALLOWED])


@njit(cache=True, inline="always")
def _mask(st: I64, se: I64, v: I64, rules: I64, tab: I64, conf: I64, out: I8) -> None:
    """The deciding seat's legal actions (``out`` is zero on entry)."""
    if v[V_WAIT] == W_STAKE:
        if conf[K_GYM]:
            out[:] = 1  # Game-v0: 0 « est », any other « vient »
        else:
            out[15] = 1
            out[16] = 1
        return
    if v[V_WAIT] != W_TURN:
        return
    if _may_stop(st, se, v, rules, tab):
        out[0] = 1
    out[1:8] = 1
    if not conf[K_GYM] and _bon_allowed(v, rules):
        out[8:15] = 1


@njit(cache=True, inline="always")
def _legal(st: I64, se: I64, v: I64, rules: I64, tab: I64, conf: I64, action: int) -> bool:
    if v[V_WAIT] == W_STAKE:
        return 0 <= action < GYM_ACTIONS if conf[K_GYM] else action == 15 or action == 16
    if action == 0:
        return _may_stop(st, se, v, rules, tab)
    if 1 <= action < 8:
        return True
    return not conf[K_GYM] and 8 <= action < 15 and _bon_allowed(v, rules)


@njit(cache=True, inline="always")
def _apply(v: I64, moves: I64, conf: I64, action: int) -> None:
    """The agent's (legal) action: where the game goes on."""
    if v[V_WAIT] == W_STAKE:
        vient = action != 0 if conf[K_GYM] else action == 16
        v[V_VIENT] = 1 if vient else 0
        v[V_AMOUNT] = -1
        v[V_AT] = A_TIE_THROW
        return
    if action == 0:
        v[V_AT] = A_TURN_END
        return
    bon = action >= 8
    keep = moves[M_KEEP + (action - 7 if bon else action), v[V_RESULT]]
    v[V_AT] = _after_choice(v, keep + (k.BON if bon else 0))


@njit(cache=True, inline="always")
def _place(who: int, seat: int, n: int) -> int:
    """Where ``who`` is in what ``seat`` sees: 0 for itself, then the next seats in playing order."""
    return who - seat + n if who < seat else who - seat


@njit(cache=True, inline="always")
def _observe(st: I64, se: I64, v: I64, tab: I64, moves: I64, conf: I64, seat: int, out: F32) -> None:
    """What ``seat`` sees (py421.envs.observation.ObservationEncoder.encode); ``out`` is zero on entry."""
    n = se.shape[1]
    lay = conf[K_LAYOUT:]
    over = v[V_WAIT] == W_OVER
    if over and not v[V_TRUNCATED]:
        out[lay[O_PHASE] + 3] = 1
    else:
        out[lay[O_PHASE] + (1 if st[k.S_CHARGE] == 1 else 2)] = 1
    waiting = not over
    if waiting:
        out[lay[O_DECIDING] + _place(v[V_DECIDER], seat, n)] = 1
    out[lay[O_MANCHE]] = st[k.S_MANCHE]
    out[lay[O_POT]] = st[k.S_POT]
    for p in range(n):
        s = seat + p - n if seat + p >= n else seat + p
        out[lay[O_MANCHES_LOST] + p] = se[k.SE_LOSSES, s]
        out[lay[O_TOKENS] + p] = se[k.SE_TOKENS, s]
        out[lay[O_DEBTS] + p] = se[k.SE_DEBTS, s]
        out[lay[O_IN_MANCHE] + p] = se[k.SE_ACTIVE, s]
    out[lay[O_LEADER] + _place(st[k.S_LEADER], seat, n)] = 1
    if not waiting:
        return  # over: no round
    stake_choice = v[V_WAIT] == W_STAKE
    place = v[V_PLACE]
    if not stake_choice:
        out[lay[O_CURRENT] + _place(se[k.SE_ORDER, place], seat, n)] = 1
        for j in range(3):
            out[lay[O_DICE] + j] = moves[M_DICE + j, v[V_RESULT]]
        out[lay[O_THROWS]] = v[V_THROWS]
        out[lay[O_THROWS_ALLOWED]] = v[V_ALLOWED]
    else:
        out[lay[O_STAKE_CHOICE]] = 1
        place = st[k.S_COUNT]  # every turn is over
        for i in range(v[V_MEMBERS]):
            out[lay[O_TIE] + _place(se[k.SE_SEATS, i], seat, n)] = 1
        out[lay[O_TIE_REPLAYS]] = v[V_REPLAYS]
    out[lay[O_LIMIT]] = v[V_SHOWN_LIMIT]
    out[lay[O_STAKE]] = st[k.S_STAKE]
    for i in range(st[k.S_COUNT]):
        p = _place(se[k.SE_ORDER, i], seat, n)
        out[lay[O_ORDER] + p] = i + 1
        if i < place:
            result = se[k.SE_FINALS, i]
            out[lay[O_DONE] + p] = 1
            out[lay[O_RESULT_RANK] + p] = tab[k.TB_STRENGTH, result] + 1
            out[lay[O_RESULT_VALUE] + p] = tab[k.TB_VALUE, result]
            out[lay[O_RESULT_THROWS] + p] = se[k.SE_USED, i]


# -- many games at once ------------------------------------------------------------------


@njit(cache=True, inline="always")
def _to_decision(
    keys: U64,
    gkeys: U64,
    e: int,
    st: I64,
    se: I64,
    v: I64,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    conf: I64,
    counts: I64,
    before: I64,
    rew: F64,
) -> bool:
    """Play game ``e`` on to an agent's decision or its end; games ended before any are skipped.

    False when SKIPPED_GAMES games in a row ended so.
    """
    while True:
        _run(
            gkeys[e],
            st,
            se,
            v,
            rules,
            tab,
            kinds,
            index,
            actions,
            rindex,
            ractions,
            conf,
            counts,
            before,
            rew,
        )
        if v[V_WAIT] != W_OVER or v[V_DECIDED]:
            if v[V_WAIT] != W_OVER:
                v[V_SKIPPED] = 0
            return True
        v[V_SKIPPED] += 1  # nobody decided: as the engine's environments, the next game starts
        if v[V_SKIPPED] >= SKIPPED_GAMES:
            return False
        rew[:] = 0.0
        v[V_GAME] += 1
        _start_game(keys, gkeys, e, st, se, v, rules, tab, conf, counts)


@njit(cache=True, inline="always")
def _write(
    st: I64,
    se: I64,
    v: I64,
    rules: I64,
    tab: I64,
    moves: I64,
    conf: I64,
    viewers: I64,
    obs: F32,
    masks: I8,
) -> None:
    """Observations of each viewer into ``obs`` (viewers × size), their masks into ``masks``."""
    obs[:] = 0
    masks[:] = 0
    for j in range(viewers.size):
        _observe(st, se, v, tab, moves, conf, viewers[j], obs[j])
        if v[V_WAIT] != W_OVER and v[V_DECIDER] == viewers[j]:
            _mask(st, se, v, rules, tab, conf, masks[j])


@njit(cache=True)
def check_actions(
    st: I64, se: I64, vs: I64, rules: I64, tab: I64, conf: I64, chosen: I64, report: I64
) -> bool:
    """Whether every waiting game's action is legal; else the first game that is not, in ``report``."""
    report[:] = -1
    for e in range(st.shape[0]):
        v = vs[e]
        if v[V_WAIT] == W_OVER:
            continue
        if not _legal(st[e], se[e], v, rules, tab, conf, chosen[e]):
            report[E_ILLEGAL_GAME] = e
            report[E_ILLEGAL_ACTION] = chosen[e]
            return False
    return True


@njit(cache=True, inline="always")
def _step_game(
    e: int,
    keys: U64,
    gkeys: U64,
    st: I64,
    se: I64,
    vs: I64,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    moves: I64,
    conf: I64,
    viewers: I64,
    chosen: I64,
    acc: F64,
    obs: F32,
    masks: I8,
    rewards: F64,
    ended: I8,
    final_obs: F32,
    counts: I64,
    before: I64,
) -> bool:
    """One game's step (see :func:`step`); False when it found no decision in SKIPPED_GAMES games."""
    v = vs[e]
    game_st = st[e]  # views made once: each costs a reference count
    game_se = se[e]
    earned = acc[e]
    ended[e] = 0
    fresh = v[V_WAIT] == W_OVER
    if fresh:  # the last step ended this game: the next one starts, this action unread
        rewards[e] = 0.0
        v[V_GAME] += 1
        _start_game(keys, gkeys, e, game_st, game_se, v, rules, tab, conf, counts)
    else:
        _apply(v, moves, conf, chosen[e])
    while True:  # one pass, or two when a game ends and the next starts in the same step
        if not _to_decision(
            keys, gkeys, e, game_st, game_se, v, rules, tab, kinds, index, actions, rindex, ractions, conf,
            counts, before, earned,
        ):  # fmt: skip
            return False
        if not fresh:
            rewards[e] = earned
            earned[:] = 0.0  # what the next game earns before its first decision is paid with that decision
            if v[V_WAIT] == W_OVER:
                ended[e] = 2 if v[V_TRUNCATED] else 1
                v[V_ENDED_LOSERS] = v[V_LOSERS]
        start_next = not fresh and v[V_WAIT] == W_OVER and conf[K_SAME_STEP] == 1
        shown = final_obs if start_next else obs
        _write(game_st, game_se, v, rules, tab, moves, conf, viewers, shown[e], masks[e])
        if not start_next:
            return True
        v[V_GAME] += 1
        _start_game(keys, gkeys, e, game_st, game_se, v, rules, tab, conf, counts)
        fresh = True


@njit(cache=True, nogil=True)
def step(
    first: int,
    last: int,
    keys: U64,
    gkeys: U64,
    st: I64,
    se: I64,
    vs: I64,
    rules: I64,
    tab: I64,
    kinds: I64,
    index: I64,
    actions: I8,
    rindex: I64,
    ractions: I8,
    moves: I64,
    conf: I64,
    viewers: I64,
    chosen: I64,
    acc: F64,
    obs: F32,
    masks: I8,
    rewards: F64,
    ended: I8,
    final_obs: F32,
    report: I64,
    counts: I64,
    before: I64,
) -> None:
    """Apply the actions of games ``first`` to ``last - 1`` and play each on to its next decision.

    The actions were checked by :func:`check_actions`. ``ended[e]``: 1 when
    game ``e`` ended in this step, 2 when it was cut short (kernel.MAX_ROUNDS
    rounds); 0 otherwise. With ``conf[K_SAME_STEP]`` the next game starts at
    once: ``obs`` shows it and ``final_obs`` the end of the last. Otherwise a
    game that ended waits, and the next step starts the next game (its action
    is not read; its reward is 0). ``rewards`` are those earned since the seat
    last saw the table, in the engine's order of events. Threads may step
    separate ranges of games at once (the GIL is released), each with its own
    ``counts`` (kernel.C_SIZE: what the kernel counts as it plays, unread) and
    ``before`` (twice the seats: the tokens and debts before a round is settled).
    """
    # the caller holds every array for the whole call: no reference counts below (see .unowned)
    keys = unowned(keys)
    gkeys = unowned(gkeys)
    st = unowned(st)
    se = unowned(se)
    vs = unowned(vs)
    rules = unowned(rules)
    tab = unowned(tab)
    kinds = unowned(kinds)
    index = unowned(index)
    actions = unowned(actions)
    rindex = unowned(rindex)
    ractions = unowned(ractions)
    moves = unowned(moves)
    conf = unowned(conf)
    viewers = unowned(viewers)
    chosen = unowned(chosen)
    acc = unowned(acc)
    obs = unowned(obs)
    masks = unowned(masks)
    rewards = unowned(rewards)
    ended = unowned(ended)
    final_obs = unowned(final_obs)
    report = unowned(report)
    counts = unowned(counts)
    before = unowned(before)
    for e in range(first, last):
        if not _step_game(
            e, keys, gkeys, st, se, vs, rules, tab, kinds, index, actions, rindex, ractions, moves, conf,
            viewers, chosen, acc, obs, masks, rewards, ended, final_obs, counts, before,
        ):  # fmt: skip
            report[E_NOTHING_GAME] = e
            return


def prepare_reset(vs: I64, acc: F64, first_games: I64) -> None:
    """Make the next :func:`step` start game ``first_games[e]`` in each env ``e``, its action unread."""
    vs[:] = 0
    vs[:, V_WAIT] = W_OVER  # as if the last games had just ended
    vs[:, V_GAME] = first_games - 1
    acc[:] = 0.0


@njit(cache=True, nogil=True)
def pick_legal(masks: I8, uniform: F64, out: I64) -> None:
    """For each row of ``masks``, the legal index that ``uniform`` (one number in [0, 1) a row) falls on."""
    for e in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[e, a] != 0
        j = int(uniform[e] * count)
        out[e] = 0
        for a in range(masks.shape[1]):
            if masks[e, a] != 0:
                if j == 0:
                    out[e] = a
                    break
                j -= 1
