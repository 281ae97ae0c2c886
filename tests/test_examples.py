"""The worked examples of the rules, played as scripted games with fixed dice."""

import pytest

from py421.core.actions import ChooseStake, Stop, Throw
from py421.core.dice import Result
from py421.core.errors import IllegalAction
from py421.core.events import (
    DebtOwed,
    DebtPaid,
    Gave,
    LeaderChosen,
    LimitSet,
    MancheLost,
    RoundDecided,
    TieDeclared,
    Took,
    TurnEnded,
    WentOut,
)
from py421.core.state import Phase
from py421.text import describe

from .helpers import of_type, run, table


def test_accumulated_stakes_b_takes_40():
    """Seed 001: A 123, 221, 421 (16); B 421, 432, 421 (22); rampot A 123 beats B 653."""
    game = table("vache-41")
    events = run(
        game,
        "123 | keep 1 | 22 | keep 21 | 4 "  # A: 2 + 4 + 10
        "| 421 | keep 42 | 3 | keep 42 | 1 "  # B: 10 + 2 + 10
        "| 123 | 653",  # rampot, coups secs
    )
    assert of_type(events, TieDeclared) == [TieDeclared((0, 1), "worst")]
    assert of_type(events, RoundDecided) == [RoundDecided((1,), 0, 40, "accumulated")]
    state = game.state
    assert state.tokens == (0, 40)
    assert state.pot == 1  # « il n'en restera plus qu'une seule »
    assert state.round is not None
    assert state.round.order == (1, 0)  # the loser leads the next round


def test_tim_nenette_takes_two_in_charge_and_decharge():
    game = table("tim")
    run(game, "2 | 5")  # first player: lowest single die
    assert game.state.leader == 0
    events = run(game, "221 | 665")
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 2, "nenette")]  # not 1
    run(game, "666 | 655 | 421 | 653")  # B takes 6, then A takes 8 capped to 3
    assert game.state.tokens == (5, 6)
    assert game.state.phase is Phase.DECHARGE
    events = run(game, "221 | stop | 421")
    assert of_type(events, Gave) == [Gave(1, 0, 2, 2)]  # 2 tokens, not 421's 8


def test_espagnole_ends_engranjeu_and_its_holder_loses():
    game = table("engranjeu-21")
    events = run(game, "421 | 221 | 221 | 421 | 221 | 111")
    took = [(e.seat, e.amount) for e in of_type(events, Took)]
    assert took == [(1, 10), (1, 10), (1, 1)]  # nénette is never deducted; capped by the pot
    assert of_type(events, WentOut) == [WentOut((0,))]
    assert of_type(events, MancheLost) == [MancheLost(1, 1, espagnole=True)]
    outcome = game.state.outcome
    assert outcome is not None
    assert outcome.losers == (1,)
    assert outcome.winners == ((0,),)


def test_espagnole_in_classic_loses_the_manche_and_the_game_goes_on():
    game = table("classic-11")
    run(game, "421 | 221 | 221 | 421")
    state = game.state
    assert state.manche_losers == (1,)
    assert state.manche == 2
    assert state.phase is Phase.CHARGE
    assert (state.pot, state.tokens) == (11, (0, 0))
    assert state.round is not None
    assert state.round.order == (1, 0)


def test_players_without_tokens_withdraw_and_fewest_tokens_leads_the_decharge():
    game = table("classic-11", "A", "B", "C")
    run(game, "421 | 653 | 221")  # C takes 8
    run(game, "654 | 665 | 653")  # C, A, B: B takes 2
    events = run(game, "111 | 652 | 654")  # B, C, A: C takes 7, capped to 1
    assert game.state.tokens == (0, 2, 9)
    assert of_type(events, WentOut) == [WentOut((0,))]
    assert of_type(events, LeaderChosen) == [LeaderChosen(1, "fewest_tokens")]
    state = game.state
    assert state.active == (False, True, True)
    assert state.round is not None
    assert state.round.order == (1, 2)


ENGRANJEU_CHARGE = "421 | 665 | 654 | 665 | 665 | 111 | 653 | 421"


def test_engranjeu_charge_deducts_values():
    game = table("engranjeu-21")
    events = run(game, ENGRANJEU_CHARGE)
    assert [(e.seat, e.amount, e.wanted) for e in of_type(events, Took)] == [
        (1, 9, 9),  # 421 (10) - 665 (1)
        (0, 1, 1),  # 654 (2) - 665 (1)
        (0, 6, 6),  # 111 (7) - 665 (1)
        (0, 5, 9),  # 421 (10) - 653 (1), capped by the pot
    ]
    assert game.state.tokens == (12, 9)
    assert game.state.phase is Phase.DECHARGE


def test_main_chaude_pour_ce_qui_vient():
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    events = run(game, "654 | stop | 654")  # same result, same throws: « qui barre démarre »
    assert of_type(events, TieDeclared) == [TieDeclared((1, 0), "both")]
    events = run(game, "543 | 543")  # ties again: « main chaude »
    assert of_type(events, TieDeclared) == [TieDeclared((1, 0), "both", main_chaude=True)]
    assert game.state.to_move == 1  # the first to rethrow chooses the stake
    assert game.state.legal_actions() == (ChooseStake("est"), ChooseStake("vient"))
    events = run(game, "stake vient | 111 | 653")
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 6, "vient")]  # 7 - 1
    assert game.state.tokens == (18, 3)


def test_main_chaude_pour_ce_qui_est_is_the_value_of_the_result_that_tied():
    """Seed 004: « pour ce qui est », the value of the combination that gave the « main chaude »."""
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    events = run(game, "654 | stop | 654 | 532 | 532 | stake est | 421 | 532")
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 2, "est")]  # 654: 2, not 2 - 2
    assert game.state.tokens == (14, 7)


def test_a_tie_settled_by_one_replay_is_worth_the_tied_value():
    """Nothing is deducted between two players who tied: 654 against 654 is worth 654's 2."""
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    events = run(game, "654 | stop | 654 | 421 | 532")  # B rethrows first: B wins the replay
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 2, "tie")]


def test_an_all_tie_under_qui_barre_demarre_says_the_amount_is_the_tied_results_value():
    # B won the replay with 654, but the loser takes 211's value: not "the winner's" 654.
    game = table("engranjeu-21")
    events = run(game, "211 | 211 | 654 | 532")
    decided = of_type(events, RoundDecided)
    assert decided == [RoundDecided((0,), 1, game.state.rules.table.values[Result.parse("211")], "tie")]
    assert describe(decided[0], ["A", "B"], "en") == (
        "A lost the round to B: 2 tokens (the value of the result that tied)"
    )
    assert describe(decided[0], ["A", "B"], "fr") == (
        "A perd le tour contre B : 2 jetons (la valeur du résultat à égalité)"
    )


def test_all_tied_in_a_charge_names_the_winner_of_the_tie_break():
    game = table("classic-11")
    events = run(game, "421 | 421 | 653 | 654")  # rampot from the first seat: A loses it
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 8, "tie")]
    game = table("classic-11", "A", "B", "C")
    events = run(game, "654 | 654 | 654 | 532 | 421 | 532 | 653 | 652")
    assert of_type(events, RoundDecided) == [RoundDecided((2,), 1, 2, "tie")]


def test_fewer_throws_win_under_qui_barre_demarre():
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    events = run(game, "654 | throw | 654 | stop | 654 | stop")  # A: 654 in 2 throws, B: in 1
    assert of_type(events, TieDeclared) == []
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 0, "deduction")]


def test_le_bon_makes_the_next_throw_final_and_sets_the_limit():
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    run(game, "554")
    assert Throw((5, 5), bon=True) in game.state.legal_actions()
    events = run(game, "bon 55 | 5")
    assert of_type(events, TurnEnded) == [TurnEnded(0, Result.parse("555"), 2, True)]
    assert of_type(events, LimitSet) == [LimitSet(0, 2)]
    run(game, "652")
    legal = game.state.legal_actions()
    assert not any(isinstance(a, Throw) and a.bon for a in legal)  # throw 2 is already the last


def test_without_le_bon_a_player_behind_throws_on():
    """Seed 004: « un joueur qui ne dit pas « le bon » doit continuer de lancer si nécessaire »."""
    game = table("engranjeu-21", settings=("must_throw_on=true",))
    run(game, ENGRANJEU_CHARGE)
    run(game, "321 | throw | 321 | throw | 432")  # A leads: 432 in three throws
    run(game, "554")  # B: behind 432 (a suite beats a simple) with two throws left
    legal = game.state.legal_actions()
    assert Stop() not in legal
    assert Throw((5, 5), bon=True) in legal and Throw((5, 5)) in legal
    with pytest.raises(IllegalAction, match="not yet ahead of every earlier result"):
        game.act("stop")
    events = run(game, "keep 55 | 3")  # 553: still behind, one throw left
    assert Stop() not in game.state.legal_actions()
    events = run(game, "keep 55 | 2")  # the third throw ends the turn whatever it gives
    assert of_type(events, TurnEnded) == [TurnEnded(1, Result.parse("552"), 3, False)]


def test_le_bon_lets_a_player_behind_stop_after_the_next_throw():
    game = table("engranjeu-21", settings=("must_throw_on=true",))
    run(game, ENGRANJEU_CHARGE)
    run(game, "321 | throw | 321 | throw | 432 | 554")
    events = run(game, "bon 55 | 3")  # « le bon »: 553 is final though still behind
    assert of_type(events, TurnEnded) == [TurnEnded(1, Result.parse("553"), 2, True)]
    game = table("engranjeu-21", settings=("must_throw_on=true",))
    run(game, ENGRANJEU_CHARGE)
    run(game, "321 | throw | 321 | throw | 432 | 421")  # ahead: B may stop
    assert Stop() in game.state.legal_actions()
    game = table("engranjeu-21")  # the option is off in the preset: stopping behind is allowed
    run(game, ENGRANJEU_CHARGE)
    run(game, "321 | throw | 321 | throw | 432 | 554")
    assert Stop() in game.state.legal_actions()


def test_the_leader_is_never_made_to_throw_on():
    game = table("engranjeu-21", settings=("must_throw_on=true",))
    run(game, ENGRANJEU_CHARGE)
    run(game, "221")
    assert Stop() in game.state.legal_actions()


def test_queue_de_la_vache_debt_is_taken_first_in_manche_two():
    """Seed 001: a stake of 55 with 41 in the pot leaves 14 to take in the next manche."""
    game = table("vache-41", settings=("queue_de_la_vache=true",))
    events = run(
        game,
        "421 | keep 42 | 1 | keep 42 | 1 "  # A: 30
        "| 421 | keep 42 | 3 | keep 42 | 1 "  # B: 22
        "| 333 | 653",  # rampot: A's 333 adds 3
    )
    assert of_type(events, RoundDecided) == [RoundDecided((1,), 0, 55, "accumulated")]
    assert of_type(events, Took) == [Took(1, 41, 55)]
    assert of_type(events, DebtOwed) == [DebtOwed(1, 14)]
    assert of_type(events, MancheLost) == [MancheLost(1, 1, espagnole=True)]
    assert of_type(events, DebtPaid) == [DebtPaid(1, 14)]
    state = game.state
    assert (state.manche, state.pot, state.tokens, state.debts) == (2, 27, (0, 14), (0, 0))


def test_deduction_never_deducts_nenette_and_never_goes_below_zero():
    game = table("engranjeu-21")
    events = run(game, "111 | 221 | 653 | 111 | 666 | 211")
    amounts = [(e.losers, e.amount, e.why) for e in of_type(events, RoundDecided)]
    assert amounts == [
        ((1,), 7, "value"),  # 111 against 221 gives 7
        ((1,), 6, "deduction"),  # 7 - 1
        ((1,), 0, "deduction"),  # 211 (2) beats 666 (6): never below 0
    ]


def test_when_everyone_throws_nenette_the_last_wins():
    game = table("engranjeu-21")
    events = run(game, "221 | 221")
    assert of_type(events, TieDeclared) == []
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 4, "value")]


def test_tim_ties_are_replayed_from_the_last_player():
    game = table("tim")
    events = run(game, "2 | 5 | 654 | 654")
    assert of_type(events, TieDeclared) == [TieDeclared((1, 0), "worst")]
    events = run(game, "653 | 654")
    assert of_type(events, Took) == [Took(1, 2, 2)]  # the round's value: a suite, 2


def test_comptoir_every_tied_loser_takes():
    game = table("comptoir-21", "A", "B", "C")
    events = run(game, "421 | 653 | 652")  # highest three-dice throw starts
    assert of_type(events, LeaderChosen) == [LeaderChosen(0, "first_player")]
    events = run(game, "654 | 653 | 653")
    assert of_type(events, Took) == [Took(1, 2, 2), Took(2, 2, 2)]
    assert game.state.round is not None
    assert game.state.round.order == (1, 2, 0)


def test_grand_perdant_loses_both_manches():
    game = table("classic-11")
    run(game, "421 | 221 | 221 | 421 | 221 | 421 | 221 | 421")
    outcome = game.state.outcome
    assert outcome is not None
    assert (outcome.losers, outcome.kind, outcome.manche_losers) == ((1,), "grand_perdant", (1, 1))


def test_two_manche_losers_share_the_loss():
    game = table("classic-11")
    run(game, "421 | 221 | 221 | 421 | 421 | 221 | 221 | 421")
    outcome = game.state.outcome
    assert outcome is not None
    assert (outcome.losers, outcome.kind) == ((0, 1), "shared")


def test_kytionnaire_worst_coup_sec_leads_and_first_out_wins():
    game = table("kytionnaire", "A", "B", "C")
    run(game, "421 | 653 | 652 | 654 | 665 | 653 | 111 | 655 | 652")
    assert game.state.tokens == (1, 2, 8)
    assert game.state.draw is not None  # every player throws a coup sec
    events = run(game, "654 | 653 | 652")
    assert of_type(events, LeaderChosen) == [LeaderChosen(2, "worst_coup_sec")]
    events = run(game, "421 | stop | 653 | 652")  # C gives its 8 and is out first
    assert of_type(events, WentOut) == [WentOut((2,))]
    run(game, "653 | stop | 654")  # A wins and gives its last token
    outcome = game.state.outcome
    assert outcome is not None
    assert outcome.losers == (1,)
    assert outcome.winners == ((2,),)


def test_everyone_on_nenette_the_last_wins_whatever_the_throws():
    game = table("engranjeu-21")
    run(game, ENGRANJEU_CHARGE)
    events = run(game, "221 | stop | 221")  # A in 1 throw, B in 1 throw (the limit)
    assert of_type(events, RoundDecided) == [RoundDecided((0,), 1, 4, "value")]
    game = table("engranjeu-21", "A", "B", "C", settings=("pot=1", "initial_tokens=1"))
    run(game, "421 | 665 | 653")  # C takes the last token and leads the décharge
    events = run(
        game,
        "653 | throw | 654 | throw | 221 "  # C: nénette in 3 throws
        "| 221 | stop "  # A: in 1
        "| 653 | throw | 221 | stop",  # B: in 2
    )
    # the first to throw it loses; the last wins, though A took fewer throws
    assert of_type(events, RoundDecided) == [RoundDecided((2,), 1, 4, "value")]


def test_without_withdrawal_players_at_zero_play_the_decharge():
    game = table("classic-11", "A", "B", "C", settings=("withdraw_at_zero=false",))
    run(game, "421 | 653 | 221 | 654 | 665 | 653 | 111 | 652 | 654")
    state = game.state
    assert state.tokens == (0, 2, 9)
    assert state.active == (True, True, True)
    assert state.round is not None
    assert state.round.order == (0, 1, 2)  # A holds the fewest tokens: none
    events = run(game, "421 | stop | 653 | 652")  # A wins holding nothing: A leaves
    assert of_type(events, Gave) == [Gave(0, 2, 0, 8)]
    assert of_type(events, WentOut) == [WentOut((0,))]


def test_a_tie_replayed_again_is_no_main_chaude_where_the_rules_have_none():
    game = table("classic-11")
    run(game, "221 | 221")  # a rampot
    events = run(game, "543 | 543")  # tied again: a rampot again, not « main chaude »
    assert of_type(events, TieDeclared) == [TieDeclared((0, 1), "worst")]
    assert "main chaude" not in describe(events[-1], game.players, "en")
