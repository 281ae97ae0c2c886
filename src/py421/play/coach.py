"""What a game is worth while it is played and after: hints, the analysis, the solve before them.

The values are those of :mod:`py421.analysis`; here is what every interface
shares around them: whether hints are on at a table, and solving what they
need first, saying how far it is (a two-player ruleset is solved once per
machine in about a second; the whole game of three players in about half a
minute).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.errors import Py421Error
from ..core.rules import Ruleset
from ..core.state import State
from ..i18n import error_text, num, tr
from .session import Session

if TYPE_CHECKING:  # numpy and the solvers load when a hint or an analysis is asked for
    from ..analysis import Adviser
    from ..solver.game_maxn import Progress, Sweep
    from ..solver.strategy import Method

# How far a solve is: ``say(text, stage)``, each stage's text said as it changes (cli.common.stages).
Say = Callable[[str, str], None]

# A whole game of this many décharge positions or more says so before making them, and each manche's
# first pass as it begins: four-player vache-41 (52,976) makes them for minutes, and its first pass
# takes minutes more; a game of three players of classic-11 (a few hundred) takes seconds in all.
TOLD_POSITIONS = 5_000


def hints_on(session: Session, asked: bool = False) -> bool:
    """Hints help the one person playing against bots; between several people only when asked for
    (``421 play --hints``): each sees the ranking of the others' choices too."""
    return asked or len(session.humans) <= 1


def solving(rules: Ruleset, stage: str, step: int, lang: str = "en") -> str:
    """How far the two-player solver is: the décharge's passes, then the charge pot by pot."""
    if stage == "charge":
        return tr(lang, "cli.solving.charge", step=step, pot=rules.pot)
    most = decharge_passes(rules)
    if step > most:  # past what was foretold (never seen): the pass alone
        return tr(lang, "cli.solving.decharge", step=step)
    return tr(lang, "cli.solving.decharge.most", step=step, most=most)


def decharge_passes(rules: Ruleset) -> int:
    """The passes the two-player décharge takes at most, as its model foretells them (4 to 32 % more
    than it takes, in every ruleset measured: :func:`py421.solver.cost.decharge_sweeps`)."""
    from ..solver.cost import decharge_sweeps

    return decharge_sweeps(rules)


def game_solving(say: Say, lang: str = "en", worded: Callable[[str], str] = str) -> Progress:
    """How far the whole game of three to five players is solved, told to ``say``.

    The solver's ``progress`` (:data:`py421.solver.game_maxn.Progress`): for a large game, its
    positions as they are made and each manche's first pass as it begins; each manche's décharge
    pass by pass, with how far its last pass was from settling and the passes foretold to remain,
    then its charge pot by pot; ``worded`` says whose solve it is.
    """
    manches = [1, 1]  # the manche being solved, of how many
    passes = [0]  # the décharge's passes done in the manche being solved
    large = False  # told the game is large (:data:`TOLD_POSITIONS`)
    started: set[int] = set()  # the manches whose first pass was said (the deviation counts them again)

    def progress(stage: str, step: int, total: int, sweep: Sweep | None = None, /) -> None:
        nonlocal large
        if stage == "positions":  # ``step`` décharge positions about to be made
            if step >= TOLD_POSITIONS:
                large = True
                say(worded(tr(lang, "cli.solving.game.positions", positions=num(lang, step, ","))), stage)
            return
        if stage == "resumed":  # a solve stopped part way, taken up: ``step`` of ``total`` manches kept
            started.update(range(1, step + 1))  # read back: never a first pass here (the first solved)
            say(worded(tr(lang, "cli.solving.game.resumed", done=step, manches=total)), stage)
            return
        if stage == "underway":  # manche ``step`` taken up where it stopped: not at its first pass
            started.add(step)
            say(worded(tr(lang, "cli.solving.game.underway", manche=step, manches=total)), stage)
            return
        if stage == "manche":
            manches[:], passes[0] = [step, total], 0
            if large and step not in started:  # its first pass takes minutes: said as it begins
                started.add(step)
                text = tr(lang, "cli.solving.game.started", manche=step, manches=total)
                say(worded(text), f"{step}-started")
            return
        number, of = manches
        if stage == "rounds":  # a large game's pass takes minutes: how far it is (in a log, each minute)
            if large:
                text = tr(
                    lang, "cli.solving.game.rounds", manche=number, manches=of, step=passes[0] + 1,
                    done=num(lang, step, ","), total=num(lang, total, ","),
                )  # fmt: skip
                say(worded(text), f"{number}-started")  # the stage of the line that said the pass began
            return
        if stage == "decharge":
            passes[0] = step
        text = tr(lang, f"cli.solving.game.{stage}", manche=number, manches=of, step=step, pot=total)
        if sweep is not None:
            text = sweep_text(text, sweep, step, lang)
        say(worded(text), f"{number}-{stage}")

    return progress


def sweep_text(text: str, sweep: Sweep, step: int, lang: str = "en") -> str:
    """``text`` (which pass it is) with how far the pass was from settling: its largest change
    against the tolerance, and the passes foretold to remain (none foretold after the first pass,
    nor while the change does not shrink)."""
    change, tolerance = num(lang, sweep.change, ".2g"), num(lang, sweep.tolerance, ".0e")
    text = tr(lang, "cli.solving.sweep", text=text, change=change, tolerance=tolerance)
    if sweep.left is not None and sweep.left > 0:
        return tr(
            lang, "cli.solving.sweep.left" + (".one" if sweep.left == 1 else ""), text=text, left=sweep.left
        )
    if sweep.left is None and step > 1:
        return tr(lang, "cli.solving.sweep.unknown", text=text)
    return text


def progress_told(
    rules: Ruleset, players: int, say: Say, lang: str = "en", worded: Callable[[str], str] = str
) -> Progress:
    """How far the solve of a table's strategy is (:func:`py421.solver.strategy.strategy_for`), told to
    ``say``: the two-player manche with its passes foretold (:func:`solving`), a whole game manche by
    manche (:func:`game_solving`); ``worded`` says whose solve it is."""
    from ..solver.strategy import covering

    if covering(rules, players) != "heads_up":
        return game_solving(say, lang, worded)

    def progress(stage: str, step: int, total: int, sweep: Sweep | None = None, /) -> None:
        say(worded(solving(rules, stage, step, lang)), stage)

    return progress


def prepare(rules: Ruleset, players: int, lang: str, say: Say, worded: Callable[[str], str] = str) -> Method:
    """Solve what valuing the decisions of this table needs, telling ``say`` how far it is (nothing
    is said when it is on the disk already), and return how they are valued.

    Refuses a table no solver covers, with the reason (:func:`py421.analysis.method_for`). The
    ``rounds`` method solves each round as the game reaches it: nothing to do here.
    """
    from ..analysis import method_for
    from ..solver.strategy import strategy_for

    method = method_for(rules, players)
    strategy_for(rules, players, progress=progress_told(rules, players, say, lang, worded))
    return method


def said_once(out: Callable[[str], None]) -> Say:
    """A :data:`Say` for text lines: each stage in one line, as it begins."""
    begun: set[str] = set()

    def say(text: str, stage: str) -> None:
        if stage not in begun:
            begun.add(stage)
            out(f"  {text}")

    return say


class Coach:
    """Hints during a session's game and its analysis after, in words; solved on the first asked for.

    Safe to ask from a thread (the full-screen game asks from one, so that the
    screen goes on while the solve runs): one solve at a time, made once.
    A table no solver covers gets the reason instead of the values.
    """

    def __init__(self, session: Session, lang: str) -> None:
        self.session = session
        self.lang = lang
        self._lock = threading.Lock()
        self._adviser: Adviser | None = None
        self._analysis: tuple[int, str] | None = None  # after how many steps, the text

    def _prepared(self, say: Say) -> Adviser:
        with self._lock:
            if self._adviser is None:
                from ..analysis import Adviser

                rules, players = self.session.rules, len(self.session.seats)
                prepare(rules, players, self.lang, say, lambda text: tr(self.lang, "cli.once", what=text))
                self._adviser = Adviser(rules, players)
            return self._adviser

    def hint(self, state: State, say: Say) -> str:
        """The choices of the decision awaited at ``state``, ranked, with their values."""
        from ..analysis import hint_text

        try:
            adviser = self._prepared(say)
            if adviser.method == "rounds":
                say(tr(self.lang, "cli.solving.rounds"), "rounds")
            return hint_text(adviser.hint(state), adviser.method, adviser.players, self.lang)
        except Py421Error as exc:
            return _sentence(error_text(self.lang, exc))

    def analysis(self, say: Say) -> str:
        """The finished game's analysis (the people's decisions; everyone's at a table of bots)."""
        from ..analysis import analyse, review_text

        steps = len(self.session.game.steps)
        if self._analysis is None or self._analysis[0] != steps:
            try:
                adviser = self._prepared(say)
                if adviser.method == "rounds":
                    say(tr(self.lang, "cli.solving.rounds"), "rounds")
                session = self.session
                seats = session.humans or range(len(session.seats))
                found = analyse(session.game.record(), seats=seats)
            except Py421Error as exc:
                return _sentence(error_text(self.lang, exc))
            self._analysis = steps, review_text(found, self.lang)
        return self._analysis[1]


def _sentence(text: str) -> str:
    """A refusal worded to follow « Error: », as a sentence of its own."""
    return text[:1].upper() + text[1:]
