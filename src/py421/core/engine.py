"""The rules of 421, once: from a ruleset and a table of players to the outcome.

Every step is either a chance step (dice come up) or one player's decision.
Functions here take a frozen :class:`~py421.core.state.State` and return the
next one; an illegal action or impossible dice raise
:class:`~py421.core.errors.IllegalAction` and change nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeVar, cast

from .actions import Action, ChooseStake, ReportedTurn, Stop, Throw, offers_bon
from .combos import NENETTE
from .dice import DICE_PER_THROW, Result, contains, format_dice, parse_dice, sub_multisets
from .errors import IllegalAction, InvalidNotation, InvalidPlayers, Message, quoted
from .events import (
    AmountWhy,
    DebtOwed,
    DebtPaid,
    Event,
    GameOver,
    Gave,
    LeaderChosen,
    LimitSet,
    MancheLost,
    PhaseStarted,
    RoundDecided,
    StakeChosen,
    Thrown,
    ThrowPurpose,
    TieAbout,
    TieDeclared,
    Took,
    TurnEnded,
    WentOut,
)
from .rules import Ruleset, Winners
from .state import ChanceRequest, Draw, Outcome, OutcomeKind, Phase, Round, State, Tie, TurnResult

if TYPE_CHECKING:
    from dataclasses import replace as amend  # as for evolve: mypy checks the field names
    from dataclasses import replace as evolve  # what evolve does: mypy checks each call's field names
else:
    from .state import amend, evolve

Events = list[Event]
# A player's name at most, wherever it is given (the terminal, a server's or the page's tables):
# names sit side by side on a phone. Only a name given anew is held to it (check_name, not
# check_players): a game saved or recorded with a longer one before still loads.
MAX_NAME = 24


# -- starting --------------------------------------------------------------


def new_game(rules: Ruleset, players: Sequence[str], *, first_seat: int = 0) -> State:
    """The state before the first throw; ``first_seat`` starts or starts the draw."""
    names = check_players(rules, players)
    n = len(names)
    if not 0 <= first_seat < n:
        raise InvalidPlayers(
            Message(
                "players.no_first_seat",
                {"seat": first_seat, "last": n - 1},
            )
        )
    state = State(
        rules=rules,
        players=names,
        phase=Phase.FIRST_PLAYER,
        manche=1,
        pot=rules.pot,
        tokens=(rules.initial_tokens,) * n,
        debts=(0,) * n,
        active=(True,) * n,
        manche_losses=(0,) * n,
        leader=first_seat,
    )
    ev: Events = []
    if rules.first_player == "first_seat":
        ev.append(LeaderChosen(first_seat, "first_seat"))
        state = _start_charge(state, ev)
    else:
        dice = 1 if rules.first_player == "lowest_die" else DICE_PER_THROW
        state = evolve(state, draw=Draw("first_player", _clockwise(state, first_seat), dice))
    return evolve(state, events=tuple(ev))


def check_players(rules: Ruleset, players: Sequence[str]) -> tuple[str, ...]:
    """The names, checked: how many the rules allow, none empty, invisible or alike; of any length,
    since a game read back may hold a name longer than a new one may be (:data:`MAX_NAME`)."""
    if isinstance(players, str):
        raise InvalidPlayers(Message("players.one_text"))
    names = tuple(str(p).strip() for p in players)
    if not rules.seats(len(names)):
        raise InvalidPlayers(players_refused(rules, len(names)))
    for name in names:
        check_name(name, None)
    folded = [name_key(n) for n in names]
    for name in names:
        if folded.count(name_key(name)) > 1:
            raise InvalidPlayers(
                Message(
                    "players.repeated",
                    {"name": quoted(name)},
                )
            )
    return names


def players_refused(rules: Ruleset, n: int) -> Message:
    """Why ``rules`` cannot seat ``n`` players: how many may play."""
    return Message(
        "players.count",
        {"rules": rules.name, "range": players_range(rules), "n": n},
    )


def players_range(rules: Ruleset) -> Message:
    """How many may play, as :attr:`Ruleset.players_range` words it, in the reader's language."""
    low, high = rules.min_players, rules.max_players
    if not high:
        return Message("players.or_more", {"low": low})
    if low == high:
        return Message("players.exactly", {"low": low})
    return Message("players.between", {"low": low, "high": high})


# Control, format (invisible, or turning text around), surrogate, private-use, unassigned
# and line or paragraph separator characters: none of them reads as part of a name.
_NOT_IN_NAMES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Nor do the fillers that show nothing (Hangul's, and the blank braille pattern).
_SHOWING_NOTHING = frozenset({0x115F, 0x1160, 0x2800, 0x3164, 0xFFA0})
# Characters a reader ignores that are not refused (an emoji's variation selector: « ❤️ »): left out
# when names are compared, with the combining grapheme joiner and Mongolian and Khmer ones.
_IGNORED = dict.fromkeys(
    [0x034F, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]
)
_IGNORED[0x200D] = None  # the joiner of an emoji sequence (« 👩‍🦰 »): the same name joined or not
JOINER = "\u200d"
# Greek and Cyrillic letters (case folded) read as the Latin letter they look like, upper or lower
# case (« Сосо » in Cyrillic is « Coco », « ΤΟΜ » in Greek « Tom »): compared so, a name written
# wholly in one of those alphabets cannot pass for another's. Letters of their own stay apart.
_LOOKS_LATIN = str.maketrans(
    {
        **dict(zip("αβεζηικμνορτυχ", "abezhikmnoptyx", strict=True)),  # Greek
        **dict(zip("авекмнорстухіјѕһԁԛԝӏ", "abekmhopctyxijshdqwl", strict=True)),  # Cyrillic
    }
)


def _joins_emoji(name: str, i: int) -> bool:
    """Whether the zero-width joiner at ``name[i]`` joins a character to an emoji after it, as in
    « 👩‍🦰 » or « 🏳️‍🌈 »: there it shows as one picture; anywhere else it would only hide."""
    return (
        0 < i < len(name) - 1
        and unicodedata.category(name[i + 1]) == "So"
        and not name[i - 1].isspace()
        and name[i - 1] != JOINER
    )


def name_key(name: str) -> str:
    """What a name is the same as: its NFKC form (full-width or styled letters read as the letters)
    with case folded, the characters a reader ignores left out, and Greek and Cyrillic letters that
    look like Latin ones read as them. Two players' names must differ by it.

    >>> name_key("Ｚｏé") == name_key("ZOÉ") == name_key("Zo\u034fé\ufe0f")
    True
    """
    return unicodedata.normalize("NFKC", name).translate(_IGNORED).casefold().translate(_LOOKS_LATIN)


def check_name(name: str, most: int | None = MAX_NAME) -> str:
    """A player's name as typed, checked: 1 to ``most`` characters and at most :data:`MOST_MARKS`
    combining marks on a letter (None: a name read back, any length and marks), none invisible.

    >>> check_name("Zoé")
    'Zoé'
    >>> check_name("Bob\u202e")
    Traceback (most recent call last):
    ...
    py421.core.errors.InvalidPlayers: 'Bob\u202e': a name cannot hold U+202E (invisible or control characters)
    """
    if not name.strip():
        raise InvalidPlayers(Message("players.empty"))
    if most is not None and len(name) > most:
        raise InvalidPlayers(
            Message(
                "players.too_long",
                {"name": quoted(name), "most": most, "n": len(name)},
            )
        )
    for i, char in enumerate(name):
        if char == JOINER and _joins_emoji(name, i):
            continue
        if unicodedata.category(char) in _NOT_IN_NAMES or ord(char) in _SHOWING_NOTHING:
            raise InvalidPlayers(
                Message(
                    "players.invisible",
                    {"name": quoted(name), "char": f"U+{ord(char):04X}"},
                )
            )
    if unicodedata.category(name[0]).startswith("M"):  # an accent over nothing
        said = {"name": quoted(name), "char": f"U+{ord(name[0]):04X}"}
        raise InvalidPlayers(Message("players.mark_first", said))
    stacked = _most_marks(name)
    # marks piled on one letter draw over the lines around the name; held to new names only, as the
    # length: a game read back keeps the name it was made with
    if most is not None and stacked > MOST_MARKS:
        raise InvalidPlayers(
            Message("players.marks", {"name": quoted(name), "most": MOST_MARKS, "n": stacked})
        )
    if most is not None:
        _check_looks(name)
    return name


# Alphabets whose letters look alike (Latin « A », Greek « Α », Cyrillic « А »): not mixed in a word.
LOOKALIKE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")


def _check_looks(name: str) -> None:
    """Refuse a name that reads as another's: Latin, Greek or Cyrillic letters mixed in one word
    (« Аnn » with a Cyrillic А), or an accent after something other than a letter (a mark that
    hides on a digit or a space). Other alphabets may mix (Japanese writes kanji and kana)."""
    scripts: set[str] = set()
    base = ""  # the last character that is not a mark
    for char in name:
        category = unicodedata.category(char)
        if category == "Mn" and not (unicodedata.category(base).startswith("L") or _variation(char)):
            said = {"name": quoted(name), "char": f"U+{ord(char):04X}"}
            raise InvalidPlayers(Message("players.mark_alone", said))
        if category.startswith("M"):
            continue
        base = char
        if not category.startswith("L"):
            scripts.clear()  # a space, a hyphen, a digit: a new word
            continue
        script = unicodedata.name(char, "").split(" ")[0]
        if script in LOOKALIKE_SCRIPTS:
            scripts.add(script)
        if len(scripts) > 1:
            said = {"name": quoted(name), "char": f"{char} (U+{ord(char):04X})"}
            raise InvalidPlayers(Message("players.lookalike", said))


def _variation(char: str) -> bool:
    """A variation selector (an emoji's style, U+FE0F), which draws nothing of its own."""
    return 0xFE00 <= ord(char) <= 0xFE0F or 0xE0100 <= ord(char) <= 0xE01EF


MOST_MARKS = 4  # combining marks on one letter: a letter's own accents (« ễ » typed as e and two) fit


def _most_marks(name: str) -> int:
    """The most combining marks in a row in ``name``: those one letter carries."""
    most = run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char).startswith("M") else 0
        most = max(most, run)
    return most


# -- asking the state -----------------------------------------------------


A = TypeVar("A")


def _remembering_the_last(answer: Callable[[State], A]) -> Callable[[State], A]:
    """``answer``, remembering the last state asked about and its answer: a step asks the same
    of its state several times, and a state never changes. One tuple holds both, replaced whole,
    so a thread reading it meanwhile sees a state with its own answer."""
    last: list[tuple[State | None, A | None]] = [(None, None)]

    def remembered(state: State) -> A:
        held = last[0]
        if held[0] is state:
            return cast(A, held[1])
        found = answer(state)
        last[0] = (state, found)
        return found

    return remembered


def chance_request(state: State) -> ChanceRequest | None:
    """The dice needed now, or None when a player decides or the game is over."""
    return _asked_request(state)


def _chance_request(state: State) -> ChanceRequest | None:
    needed = _dice_needed(state)
    return None if needed is None else ChanceRequest(*needed, state.steps)


# a player's device asks who waits and for which dice, then sends them
_asked_request = _remembering_the_last(_chance_request)


def _dice_needed(state: State) -> tuple[int, int, tuple[int, ...], ThrowPurpose] | None:
    """A chance request's seat, count, kept dice and purpose: all that a throw needs of it, as a plain
    tuple (a walk throws at many states nobody asked for their request)."""
    if state.phase is Phase.OVER:
        return None
    draw = state.draw
    if draw is not None:
        return draw.thrower, draw.dice, (), draw.purpose
    r = state.round
    assert r is not None, "a game that is not over has a round or a draw"
    tie = r.tie
    if tie is not None:
        if tie.awaiting_stake:
            return None
        return tie.draw.thrower, DICE_PER_THROW, (), "tie"
    seat = r.current
    assert seat is not None
    if r.throws == 0:
        return seat, DICE_PER_THROW, (), "turn"
    if r.pending is not None:
        return seat, DICE_PER_THROW - len(r.pending), r.pending, "turn"
    return None


def deciding_seat(state: State) -> int | None:
    """The seat that must choose an action now, if any."""
    if state.phase is Phase.OVER or state.draw is not None or state.round is None:
        return None
    r = state.round
    if r.tie is not None:
        return r.tie.draw.seats[0] if r.tie.awaiting_stake else None
    if r.throws > 0 and r.pending is None:
        return r.current
    return None


# « le bon » is said after a throw, of a next one that is not the last allowed: a turn allowing fewer
# throws never has it
BON_FEWEST_THROWS = 3


def stakes_accumulate(state: State) -> bool:
    """Whether every throw now adds its value to the round's stake (accumulated stakes, in the charge):
    a real table then tells every throw of a turn, not only its result."""
    return state.rules.accumulated_stakes and state.phase is Phase.CHARGE


def throws_allowed(state: State) -> int:
    """The most throws the current player may use in this turn."""
    r = state.round
    assert r is not None
    most = state.rules.throws_allowed(state.phase is Phase.CHARGE)
    if r.done and state.rules.leader_limit and r.limit is not None:
        return min(most, r.limit)
    return most


def legal_actions(state: State) -> tuple[Action, ...]:
    """Every action the deciding player may take; empty at chance steps and the end."""
    return _asked_actions(state)


def _legal_actions(state: State) -> tuple[Action, ...]:
    if deciding_seat(state) is None:
        return ()
    r = state.round
    assert r is not None
    if r.tie is not None:
        return _STAKES
    bon = state.rules.le_bon and r.throws + 1 < throws_allowed(state)
    return _choices(r.dice, may_stop(state), bon)


# a player (or a bot) is shown them, then applying the one chosen checks it among them
_asked_actions = _remembering_the_last(_legal_actions)

_STAKES: tuple[Action, ...] = (ChooseStake("est"), ChooseStake("vient"))


@cache  # a decision's choices depend on the dice and two answers only: built once each
def _choices(dice: tuple[int, ...], stop: bool, bon: bool) -> tuple[Action, ...]:
    keeps = sub_multisets(dice)
    actions: list[Action] = [Stop()] if stop else []
    actions += [Throw(k) for k in keeps]
    if bon:
        actions += [Throw(k, bon=True) for k in keeps]
    return tuple(actions)


def may_stop(state: State) -> bool:
    """Whether the player throwing now may stop (seed 004: who is behind throws on, without « le bon »)."""
    r = state.round
    assert r is not None
    if not state.rules.must_throw_on or not r.done:
        return True
    assert r.current is not None
    return _ahead(state, TurnResult(r.current, Result.of(r.dice), r.throws))


def _ahead(state: State, turn: TurnResult) -> bool:
    """Whether ``turn`` beats every turn played before it in the round."""
    r = state.round
    assert r is not None
    *before, mine = _keys(state, (*r.done, turn))
    return all(mine > k for k in before)


# -- applying --------------------------------------------------------------


def apply_action(state: State, action: Action) -> State:
    """The next state after the deciding player's action."""
    seat = deciding_seat(state)
    if seat is None:
        expected = _expected_step(state)
        raise IllegalAction(_refusal("not_now", action=action, expected=expected))
    if isinstance(action, Throw):
        keep = tuple(sorted(action.keep, reverse=True))
        if type(action.keep) is not tuple or keep != action.keep:  # a new one only if not in order
            action = Throw(keep, action.bon)
    if action not in legal_actions(state):
        raise IllegalAction(_why_illegal(state, seat, action))
    r = state.round
    assert r is not None
    before = state
    ev: Events = []
    if isinstance(action, ChooseStake):
        assert r.tie is not None
        ev.append(StakeChosen(seat, action.stake))
        tie = evolve(r.tie, awaiting_stake=False, vient=action.stake == "vient", amount=None)
        state = evolve(state, round=evolve(r, tie=tie))
    elif isinstance(action, Stop):
        assert r.current is not None
        state = _end_turn(state, r.current, Result.of(r.dice), r.throws, r.bon, r.stake, ev)
    else:
        state = evolve(state, round=evolve(r, pending=action.keep, bon=action.bon))
    return _stepped(before, state, ev)


def apply_dice(state: State, faces: tuple[int, ...] | str) -> State:
    """The next state after the requested dice came up (faces in any order)."""
    needed = _dice_needed(state)  # a plain tuple: a walk throws at many states nobody asked about
    if needed is None:
        expected = _expected_step(state)
        raise IllegalAction(_refusal("no_dice_now", expected=expected))
    seat, count = needed[:2]
    if isinstance(faces, str):
        if _told_as_a_turn(faces, count):
            example = "4" if count == 1 else "654"[:count]
            raise IllegalAction(
                _refusal("one_throw", text=quoted(faces), who=state.players[seat], example=example)
            )
        got = parse_faces(faces)
    else:
        got = tuple(sorted(faces, reverse=True))
        for f in got:
            if not isinstance(f, int) or not 1 <= f <= 6:
                raise IllegalAction(_refusal("bad_face", faces=repr(faces)))
    if len(got) != count:
        who = state.players[seat]
        shown = format_dice(got) or _refusal("none")
        raise IllegalAction(
            _refusal(
                "count_one" if count == 1 else "count",
                who=who,
                count=count,
                got=len(got),
                dice=shown,
            )
        )
    ev: Events = []
    if state.draw is not None:
        after = _draw_thrown(state, got, ev)
    else:
        r = state.round
        assert r is not None
        after = _tie_thrown(state, got, ev) if r.tie is not None else _turn_thrown(state, got, ev)
    return _stepped(state, after, ev)


# -- turns reported whole (a real table) -----------------------------------


def apply_turn(state: State, turn: ReportedTurn) -> State:
    """A whole turn at once, as told by the players of a real table.

    Allowed where the turn's first throw is awaited. Without every throw's
    result, only the final result and the number of throws are known; that is
    refused where each throw adds to the stake (accumulated stakes).
    """
    request = chance_request(state)
    r = state.round
    if request is None or request.purpose != "turn" or r is None or r.throws:
        expected = _expected_step(state)
        raise IllegalAction(_refusal("no_turn_now", expected=expected))
    rules = state.rules
    name = state.players[request.seat]
    allowed = throws_allowed(state)
    if not 1 <= turn.throws <= allowed:
        raise IllegalAction(
            _refusal(
                "throws_one" if allowed == 1 else "throws",
                who=name,
                allowed=allowed,
                n=turn.throws,
            )
        )
    accumulating = stakes_accumulate(state)
    if accumulating and turn.throws > 1 and len(turn.earlier) != turn.throws - 1:
        raise IllegalAction(
            _refusal(
                "each_throw",
                who=name,
                n=turn.throws,
            )
        )
    if turn.bon and not (rules.le_bon and 2 <= turn.throws < allowed):
        if not rules.le_bon:
            raise IllegalAction(_refusal("reason.no_bon"))
        if allowed < BON_FEWEST_THROWS:
            raise IllegalAction(_refusal("bon_few", who=name, allowed=allowed))
        raise IllegalAction(
            _refusal(
                "bon_two" if allowed == BON_FEWEST_THROWS else "bon_before",
                most=allowed - 1,
                who=name,
                n=turn.throws,
            )
        )
    if (
        rules.must_throw_on
        and r.done
        and turn.throws < allowed
        and not turn.bon
        and not _ahead(state, TurnResult(request.seat, turn.result, turn.throws))
    ):
        raise IllegalAction(
            _refusal(
                "throw_on",
                who=name,
                n=turn.throws,
                allowed=allowed,
            )
        )
    ev: Events = []
    known = (*turn.earlier, turn.result)
    first = turn.throws - len(known) + 1
    for n, result in enumerate(known, start=first):
        ev.append(Thrown(request.seat, (), result.dice, result, n, "turn"))
    stake = r.stake + sum(rules.table.values[x] for x in known) if accumulating else r.stake
    after = _end_turn(state, request.seat, Result.of(turn.result.dice), turn.throws, turn.bon, stake, ev)
    return _stepped(state, after, ev)


def _stepped(before: State, after: State, ev: Events) -> State:
    """``after``, the state one step made from ``before``, given the step's events and number.

    The step's helpers copied ``before`` (evolve) into ``after``, which nobody has seen yet:
    its last two fields are set in place rather than the whole state copied once more.
    """
    if after is before:  # every helper copies today; were one not to, before would stay untouched
        return evolve(before, events=tuple(ev), steps=before.steps + 1)
    fields = after.__dict__
    fields["events"] = tuple(ev)
    fields["steps"] = before.steps + 1
    return after


# -- turns -----------------------------------------------------------------


def _turn_thrown(state: State, faces: tuple[int, ...], ev: Events) -> State:
    r = state.round
    assert r is not None
    seat = r.current
    assert seat is not None
    kept = r.pending or ()
    result = Result.of(kept + faces)
    throws = r.throws + 1
    ev.append(Thrown(seat, kept, faces, result, throws, "turn"))
    rules = state.rules
    stake = r.stake
    if stakes_accumulate(state):
        stake += rules.table.dice_values[result.dice]
    if throws >= throws_allowed(state) or r.bon:
        return _end_turn(state, seat, result, throws, r.bon, stake, ev)  # the round copied once, not twice
    return evolve(state, round=evolve(r, dice=result.dice, throws=throws, pending=None, stake=stake))


def _end_turn(
    state: State, seat: int, result: Result, throws: int, bon: bool, stake: int, ev: Events
) -> State:
    """``seat``'s turn ends on ``result`` after ``throws`` throws (``bon``: « le bon » declared), the
    round's stake now ``stake``."""
    r = state.round
    assert r is not None
    ev.append(TurnEnded(seat, result, throws, bon))
    limit = r.limit
    rules = state.rules
    if not r.done and rules.leader_limit and rules.throws_allowed(state.phase is Phase.CHARGE) > 1:
        limit = throws
        ev.append(LimitSet(seat, throws))
    done = (*r.done, TurnResult(seat, result, throws))
    r = evolve(r, done=done, dice=(), throws=0, pending=None, bon=False, limit=limit, stake=stake)
    state = evolve(state, round=r)
    if len(done) < len(r.order):  # another seat plays (Round.current)
        return state
    return _turns_over(state, ev)


def _turns_over(state: State, ev: Events) -> State:
    """Every turn is played: find the loser (and winner), or start a tie-break."""
    r = state.round
    assert r is not None
    keys = _keys(state, r.done)  # the turns were played in the round's order
    low, high = min(keys), max(keys)
    worst = tuple(s for s, k in zip(r.order, keys, strict=True) if k == low)
    best = tuple(s for s, k in zip(r.order, keys, strict=True) if k == high)
    return _next_tie_step(state, worst, best, ev, previous=None)


def _keys(state: State, turns: Sequence[TurnResult]) -> list[tuple[int, int, int]]:
    """Comparison keys, larger is better, in the order the turns were played."""
    return _result_keys(state.rules, [t.result for t in turns], [t.throws for t in turns])


def _result_keys(
    rules: Ruleset, results: Sequence[Result], throws: Sequence[int]
) -> list[tuple[int, int, int]]:
    """:func:`_keys` of turns given as their results and throws (a tie-break's replay makes no turns)."""
    strength = rules.table.dice_strengths
    # seed 004: if everyone threw nénette, the last to throw it wins (throw counts aside)
    if rules.nenette_last_wins and all(r.dice == _NENETTE for r in results):
        return [(strength[r.dice], 0, i) for i, r in enumerate(results)]
    if rules.tie_break == "qui_barre_demarre":  # fewer throws win
        return [(strength[r.dice], -n, 0) for r, n in zip(results, throws, strict=True)]
    return [(strength[r.dice], 0, 0) for r in results]


_NENETTE = NENETTE.dice


# -- ties ------------------------------------------------------------------


def tie_order(rules: Ruleset, round_order: tuple[int, ...], group: Sequence[int]) -> tuple[int, ...]:
    """Who throws first in a tie-break, by the ruleset's tie rule."""
    g = [s for s in round_order if s in group]
    if rules.tie_break == "last_player_first":
        return (g[-1], *g[:-1])  # seed 003: from the last who played, then clockwise
    if rules.tie_break == "qui_barre_demarre":
        return tuple(reversed(g))  # seed 004: from the last tied player, counter-clockwise
    return tuple(g)


def _next_tie_step(
    state: State,
    worst: tuple[int, ...],
    best: tuple[int, ...],
    ev: Events,
    previous: Tie | None,
) -> State:
    rules = state.rules
    r = state.round
    assert r is not None
    need_worst = len(worst) > 1 and not rules.tied_losers_all_take
    # only the loser matters in the charge: a tie for best is never replayed there
    need_best = len(best) > 1 and state.phase is Phase.DECHARGE
    if not need_worst and not need_best:
        amount = previous.amount if previous is not None else None
        main_chaude = previous is not None and previous.replays > 1 and rules.main_chaude
        est = main_chaude and previous is not None and not previous.vient
        if state.phase is Phase.DECHARGE:
            worst = tuple(s for s in worst if s != best[0])  # all tied: the winner gives
        # the winner is the best who did not lose a tie-break (everyone, if every tied loser takes)
        winner = next((s for s in best if s not in worst), best[0])
        return _settle(state, worst, winner, amount, ev, est=est)
    about: TieAbout
    if need_worst and need_best and set(worst) == set(best):
        group, about = worst, "both"
    elif need_worst:
        group, about = worst, "worst"
    else:
        group, about = best, "best"
    seats = tie_order(rules, r.order, group)
    again = previous is not None and set(group) <= set(previous.draw.seats)
    ev.append(TieDeclared(seats, about, main_chaude=again and rules.main_chaude))
    tie = Tie(
        worst=worst,
        best=best,
        draw=Draw("tie", seats, DICE_PER_THROW),
        replays=previous.replays + 1 if again and previous else 1,
        # seed 004 « main chaude »: the first to rethrow chooses the stake
        awaiting_stake=again and rules.main_chaude,
        vient=False,
        amount=previous.amount if previous is not None else None,
    )
    return amend(state, round=evolve(r, tie=tie))


def _tie_thrown(state: State, faces: tuple[int, ...], ev: Events) -> State:
    r = state.round
    assert r is not None and r.tie is not None
    tie = r.tie
    draw = tie.draw
    result = Result.of(faces)
    ev.append(Thrown(draw.thrower, (), faces, result, 1, "tie"))
    draw = evolve(draw, thrown=(*draw.thrown, faces))
    if not draw.complete:
        return evolve(state, round=evolve(r, tie=evolve(tie, draw=draw)))
    rules = state.rules
    results = [Result.of(f) for f in draw.thrown]  # in the order of draw.seats
    thrown_keys = _result_keys(rules, results, [1] * len(results))
    keys = dict(zip(draw.seats, thrown_keys, strict=True))
    low, high = min(thrown_keys), max(thrown_keys)
    in_group = set(draw.seats)
    worst, best = tie.worst, tie.best
    if in_group == set(worst) and len(worst) > 1 and not rules.tied_losers_all_take:
        worst = tuple(s for s in r.order if s in in_group and keys[s] == low)
    if in_group == set(best) and len(best) > 1:
        best = tuple(s for s in r.order if s in in_group and keys[s] == high)
    top = results[thrown_keys.index(high)]  # the first thrown of the best, and of the worst
    bottom = results[thrown_keys.index(low)]
    stake = r.stake
    if stakes_accumulate(state):
        stake += rules.table.dice_values[top.dice]  # each rampot adds its winning value
    amount = tie.amount
    if tie.vient:
        amount = _base_amount(rules, top, bottom)[0]
    tie = evolve(tie, draw=draw, amount=amount)
    state = evolve(state, round=evolve(r, stake=stake, tie=tie))
    return _next_tie_step(state, worst, best, ev, previous=tie)


# -- settling a round -----------------------------------------------------

# From here on (and in _next_tie_step), every helper is given a state that the current step has
# already copied from the one it was applied to: each writes its changes in (amend) rather than
# copying the whole state again.


def _base_amount(rules: Ruleset, best: Result, worst: Result) -> tuple[int, AmountWhy]:
    values = rules.table.dice_values
    value = values[best.dice]
    if rules.value_deduction and worst != NENETTE:  # seed 004: nénette is never deducted
        return max(0, value - values[worst.dice]), "deduction"
    return value, "value"


def _settle(
    state: State, losers: tuple[int, ...], winner: int, vient: int | None, ev: Events, *, est: bool = False
) -> State:
    rules = state.rules
    r = state.round
    assert r is not None
    final = {t.seat: t.result for t in r.done}
    why: AmountWhy
    if vient is not None:
        amount, why = vient, "vient"
    elif stakes_accumulate(state):
        amount, why = r.stake, "accumulated"
    elif _all_tied(state):
        # a result is never deducted from itself: a tie is worth the value of the result that tied,
        # whoever won the tie-break and whatever the replay's dice showed
        amount, why = rules.table.dice_values[final[winner].dice], "est" if est else "tie"
    else:
        amount, why = _base_amount(rules, final[winner], final[losers[0]])
    if rules.nenette_penalty and final[losers[0]] == NENETTE:
        amount, why = rules.nenette_penalty, "nenette"
    ev.append(RoundDecided(losers, winner, amount, why))
    tokens, debts, pot = list(state.tokens), list(state.debts), state.pot
    for loser in losers:
        if state.phase is Phase.CHARGE:
            take = min(amount, pot)
            pot -= take
            tokens[loser] += take
            ev.append(Took(loser, take, amount))
            if rules.queue_de_la_vache and amount > take:
                debts[loser] += amount - take
                ev.append(DebtOwed(loser, amount - take))
        else:
            give = min(amount, tokens[winner])
            tokens[winner] -= give
            tokens[loser] += give
            ev.append(Gave(winner, loser, give, amount))
    state = amend(state, pot=pot, tokens=tuple(tokens), debts=tuple(debts), leader=losers[0], round=None)
    if state.phase is Phase.CHARGE:
        return _end_charge(state, ev) if pot == 0 else _start_round(state, ev)
    state = _withdraw(state, (winner,), ev)  # only giving can empty a hand in the décharge
    holder = _holder_of_all(state)
    if holder is not None:
        return _manche_lost(state, holder, espagnole=False, ev=ev)
    return _start_round(state, ev)


def _all_tied(state: State) -> bool:
    """Whether every turn of the round tied (same result, and throws where they count)."""
    r = state.round
    assert r is not None
    return len(set(_keys(state, r.done))) == 1


def est_amount(state: State) -> int:
    """« Pour ce qui est »: what a tie being replayed settles for if nobody plays « vient ».

    The round's amount as its results set it; between players who all tied, the
    value of the result that tied. The nénette penalty and accumulated stakes
    apply as in any round.
    """
    r = state.round
    assert r is not None and r.tie is not None
    rules = state.rules
    final = {t.seat: t.result for t in r.done}
    loser = final[r.tie.worst[0]]
    if rules.nenette_penalty and loser == NENETTE:
        return rules.nenette_penalty
    if stakes_accumulate(state):
        return r.stake
    best = final[r.tie.best[0]]
    if _all_tied(state):
        return rules.table.values[best]
    return _base_amount(rules, best, loser)[0]


def _withdraw(state: State, seats: Sequence[int], ev: Events) -> State:
    """Those of ``seats`` who hold no token leave the manche: they can no longer lose it."""
    out = tuple(s for s in seats if state.active[s] and not state.tokens[s])
    if not out:
        return state
    ev.append(WentOut(out))
    active = tuple(a and s not in out for s, a in enumerate(state.active))
    return amend(state, active=active, out_order=(*state.out_order, out))


def _holder_of_all(state: State) -> int | None:
    total = state.pot + sum(state.tokens)
    return next((s for s, t in enumerate(state.tokens) if t == total), None)


# -- phases, manches, the end ----------------------------------------------


def _clockwise(state: State, start: int) -> tuple[int, ...]:
    """Active seats in playing order from ``start`` (or the next active seat)."""
    n = len(state.players)
    return tuple(s % n for s in range(start, start + n) if state.active[s % n])


def _start_round(state: State, ev: Events) -> State:
    order = _clockwise(state, state.leader)
    return amend(state, round=evolve(_NEW_ROUND, order=order), leader=order[0])


# A round before its first throw but for its order, copied by each new round: evolve copies its
# fields at once, where Round(order=...) would set its nine fields one by one, each a call.
_NEW_ROUND = Round(order=())


def _start_charge(state: State, ev: Events) -> State:
    state = amend(state, phase=Phase.CHARGE)
    ev.append(PhaseStarted("charge", state.manche))
    pot, tokens, debts = state.pot, list(state.tokens), list(state.debts)
    for seat in _clockwise(state, state.leader):
        pay = min(debts[seat], pot)
        if pay:
            pot -= pay
            tokens[seat] += pay
            debts[seat] -= pay
            ev.append(DebtPaid(seat, pay))
    state = amend(state, pot=pot, tokens=tuple(tokens), debts=tuple(debts))
    return _end_charge(state, ev) if pot == 0 else _start_round(state, ev)


def _end_charge(state: State, ev: Events) -> State:
    if state.rules.withdraw_at_zero:
        state = _withdraw(state, range(len(state.players)), ev)
    holder = _holder_of_all(state)
    if holder is not None:  # l'Espagnole: no décharge
        return _manche_lost(state, holder, espagnole=True, ev=ev)
    state = amend(state, phase=Phase.DECHARGE)
    ev.append(PhaseStarted("decharge", state.manche))
    rule = state.rules.decharge_leader
    candidates = _clockwise(state, state.leader)
    if rule == "worst_coup_sec":
        return amend(state, draw=Draw("decharge_leader", candidates, DICE_PER_THROW))
    if rule == "fewest_tokens":
        leader = min(candidates, key=lambda s: state.tokens[s])  # ties: first from the last loser
        ev.append(LeaderChosen(leader, "fewest_tokens"))
    else:
        leader = candidates[0]
        ev.append(LeaderChosen(leader, "round_loser" if leader == state.leader else "next_seat"))
    return _start_round(amend(state, leader=leader), ev)


def _draw_thrown(state: State, faces: tuple[int, ...], ev: Events) -> State:
    """A throw in a draw for the first player or the décharge leader."""
    draw = state.draw
    assert draw is not None
    ev.append(Thrown(draw.thrower, (), faces, Result.of(faces) if len(faces) == 3 else None, 1, draw.purpose))
    draw = evolve(draw, thrown=(*draw.thrown, faces))
    if not draw.complete:
        return evolve(state, draw=draw)
    rules = state.rules

    def key(f: tuple[int, ...]) -> int:
        if draw.purpose == "decharge_leader":
            return -rules.table.strength(Result.of(f))  # the worst throw leads
        if len(f) == 1:
            return -(7 if rules.ace_high and f[0] == 1 else f[0])  # the lowest die leads
        return rules.table.strength(Result.of(f))  # the best throw leads

    keys = [key(f) for f in draw.thrown]
    top = max(keys)
    leaders = tuple(s for s, k in zip(draw.seats, keys, strict=True) if k == top)
    if len(leaders) > 1:
        about: TieAbout = "decharge_leader" if draw.purpose == "decharge_leader" else "first_player"
        ev.append(TieDeclared(leaders, about))
        return evolve(state, draw=Draw(draw.purpose, leaders, draw.dice))
    leader = leaders[0]
    if draw.purpose == "decharge_leader":
        ev.append(LeaderChosen(leader, "worst_coup_sec"))
        return _start_round(evolve(state, draw=None, leader=leader), ev)
    ev.append(LeaderChosen(leader, "first_player"))
    return _start_charge(evolve(state, draw=None, leader=leader), ev)


def _manche_lost(state: State, loser: int, *, espagnole: bool, ev: Events) -> State:
    rules = state.rules
    losses = list(state.manche_losses)
    losses[loser] += 1
    ev.append(MancheLost(loser, state.manche, espagnole))
    state = amend(
        state,
        manche_losses=tuple(losses),
        manche_losers=(*state.manche_losers, loser),
        round=None,
        draw=None,
    )
    if espagnole and rules.espagnole == "loses_game":
        return _game_over(state, (loser,), ev)
    if rules.fiches_de_manche:
        if losses[loser] >= rules.fiches_de_manche:
            return _game_over(state, (loser,), ev)
    elif state.manche >= rules.manches:
        most = max(losses)
        return _game_over(state, tuple(s for s, n in enumerate(losses) if n == most), ev)
    n = len(state.players)
    state = amend(
        state,
        manche=state.manche + 1,
        pot=rules.pot,
        tokens=(rules.initial_tokens,) * n,
        active=(True,) * n,
        out_order=(),
        leader=loser,
    )
    ev.append(LeaderChosen(loser, "manche_loser"))
    return _start_charge(state, ev)


def _game_over(state: State, losers: tuple[int, ...], ev: Events) -> State:
    rules = state.rules
    kind: OutcomeKind
    if len(losers) > 1:
        kind = "shared"
    elif rules.manches > 1 and not rules.fiches_de_manche and state.manche_losses[losers[0]] == rules.manches:
        kind = "grand_perdant"
    else:
        kind = "loser"
    named: dict[Winners, tuple[tuple[int, ...], ...]] = {
        "none": (),
        "first_out": state.out_order[:1],
        "in_order": state.out_order,
    }
    winners = named[rules.winners]
    outcome = Outcome(losers, kind, winners, state.manche_losers)
    ev.append(GameOver(losers))
    return amend(state, phase=Phase.OVER, outcome=outcome, round=None, draw=None)


# -- messages for illegal steps -------------------------------------------


def _refusal(key: str, **fields: object) -> Message:
    """A refusal: its catalog key (``refusal.<key>``) and fields, for interfaces to word."""
    return Message("refusal." + key, fields)


def _expected_step(state: State) -> Message:
    if state.phase is Phase.OVER:
        return _refusal("over")
    request = chance_request(state)
    if request is not None:
        who = state.players[request.seat]
        if request.count == 1:
            return _refusal("must_throw_one", who=who)
        return _refusal("must_throw", who=who, n=request.count)
    seat = deciding_seat(state)
    assert seat is not None
    return _refusal("must_decide", who=state.players[seat])


def _why_illegal(state: State, seat: int, action: Action) -> Message:
    name = state.players[seat]
    r = state.round
    assert r is not None
    legal = tuple(legal_actions(state))
    if r.tie is not None:
        return _refusal(
            "choose_stake",
            who=name,
            accepted=legal,
        )
    if isinstance(action, ChooseStake):
        reason = _refusal("reason.no_stake")
    elif isinstance(action, Throw) and not contains(r.dice, action.keep):
        # before « keeping all is stopping »: three dice that are not those showing are no stop either
        kept, dice = format_dice(action.keep), format_dice(r.dice)
        reason = _refusal("reason.not_among", kept=kept, dice=dice)
    elif isinstance(action, Throw) and len(action.keep) >= DICE_PER_THROW:
        reason = _refusal("reason.keep_all")
    elif isinstance(action, Throw) and action.bon and not state.rules.le_bon:
        reason = _refusal("reason.no_bon")
    elif isinstance(action, Throw) and action.bon:
        reason = _refusal("reason.bon_last")
    elif isinstance(action, Stop):  # « le bon » is offered only where it may still be said
        reason = _refusal("reason.not_ahead" if offers_bon(legal) else "reason.not_ahead_last")
    else:
        reason = _refusal("reason.not_allowed")
    return _refusal(
        "cannot",
        who=name,
        action=action,
        reason=reason,
        accepted=legal,
    )


def _as_verb(action: Action) -> str:
    """An action as the verb of a sentence: ``call « bon 42 »``, ``play « pour ce qui est »``, ``keep 4``."""
    if isinstance(action, ChooseStake):
        return f"play « pour ce qui {action.stake} »"
    if isinstance(action, Throw) and action.bon:
        return f"call « {action} »"
    return str(action)


def _told_as_a_turn(text: str, count: int) -> bool:
    """Whether ``text``, given where ``count`` dice are thrown once, is a turn's notation (``555/1``,
    ``123;421``, ``555/2 bon``) rather than dice: the throws used after the dice, throws in order or
    « le bon ». (``4/2/1`` is dice, and so is ``42/1`` where three are thrown.)"""
    lowered = text.lower()
    if ";" in lowered or "bon" in lowered:
        return True
    dice, slash, used = lowered.partition("/")
    return bool(slash) and used.strip().isdigit() and sum(c.isdigit() for c in dice) >= count


def parse_faces(text: str) -> tuple[int, ...]:
    """Dice typed by a person, for :func:`apply_dice`."""
    try:
        return parse_dice(text)
    except InvalidNotation as exc:
        raise IllegalAction(exc.message or str(exc)) from None
