"""Messages in English and French, and the choice of language.

Every sentence an interface shows lives here, once per language, as a
format string with named fields. French is the default where the system
locale is French.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGS = ("en", "fr")

EN: dict[str, str] = {
    # events
    "thrown": "{who}{keep} throws {dice}{where}",
    "thrown.keep": " keeping {kept},",
    "thrown.turn": " (throw {n})",
    "thrown.tie": " (tie-break)",
    "thrown.draw": " (draw)",
    "turn_ended": "{who} ends on {result} in {n} throw{s}{bon}",
    "turn_ended.bon": " after « le bon »",
    "limit": "{who} sets the limit: {call}",
    "tie": "tie {about}: {who} throw again, in that order",
    "main_chaude": "« main chaude » {about}: {who} throw again, in that order",
    "tie.worst": "for the worst result",
    "tie.best": "for the best result",
    "tie.both": "for best and worst",
    "tie.first_player": "in the draw for the first player",
    "tie.decharge_leader": "in the draw for the décharge leader",
    "stake": "{who} plays « pour ce qui {stake} »",
    "decided": "{losers} lost the round to {winner}: {n} token{s} ({why})",
    "why.value": "the winner's value",
    "why.deduction": "the winner's value minus the loser's",
    "why.accumulated": "every throw of the round added up",
    "why.nenette": "nénette's fixed penalty",
    "why.vient": "« pour ce qui vient »: the replay's value",
    "took": "{who} takes {n} from the pot{capped}",
    "took.capped": " (the pot held only {n} of {wanted})",
    "gave": "{giver} gives {n} to {receiver}{capped}",
    "gave.capped": " (all {giver} had, of {wanted})",
    "debt_owed": "« queue de la vache »: {who} owes {n} to the next manche",
    "debt_paid": "{who} takes the {n} owed from the new pot",
    "leader": "{who} leads: {why}",
    "leader.first_seat": "sits first",
    "leader.first_player": "won the draw for the first player",
    "leader.round_loser": "lost the last round",
    "leader.manche_loser": "lost the last manche",
    "leader.fewest_tokens": "holds the fewest tokens",
    "leader.worst_coup_sec": "threw the worst coup sec",
    "leader.next_seat": "is next after the last loser",
    "phase.charge": "— manche {manche}: the charge —",
    "phase.decharge": "— manche {manche}: the décharge —",
    "went_out.one": "{who} holds no token and leaves the manche",
    "went_out.many": "{who} hold no token and leave the manche",
    "manche_lost": "{who} loses manche {manche}{how}",
    "manche_lost.espagnole": " (l'Espagnole: every token after the charge)",
    "game_over": "game over: {who} lose{s}",
    # outcomes
    "outcome.grand_perdant": "{who} lost every manche: « grand perdant »",
    "outcome.shared": "shared loss: {who} each lost as many manches",
    "outcome.loser": "{who} loses the game",
    "outcome.winners": "winners, in order: {who}",
    "outcome.manches": "manches lost: {who}",
    "outcome.manche": "manche {n}: {who}",
    "outcome.not_over": "the game is not over",
    # limit calls
    "call.1": "« sec ! »",
    "call.2": "« en 2 ! »",
    "call.3": "« à fond ! »",
    # play
    "table": "{rules}: {players}",
    "prompt.turn": "{who}: {dice}, throw {n} of {allowed}. Keep (e.g. 42), 0 all again, Enter stop, ? help: ",
    "prompt.stake": "{who}, « main chaude »: play for « est » or « vient »? ",
    "prompt.help": "  digits keep those dice and throw the rest (e.g. 42), 0 throws all three, Enter stops; « bon 42 » declares le bon. Allowed now: {legal}",
    "your_turn": "— {who}, your turn —",
    "input_ended": "input ended before the game did; the game is saved: 421 play --resume",
    "interrupted": "game saved; continue it with: 421 play --resume",
    "saved_none": "no saved game to resume",
    "resumed": "resuming the saved game ({rules}: {players}, step {step})",
    "recorded": "record saved to {path}",
    # the scorekeeper of a real table
    "sk.turn": "{who}, your result{limit}? (e.g. 421, or 654/2 for two throws; u undo, ? help) ",
    "sk.turn_all": "{who}, the result of each throw, in order{limit}? (e.g. 123;221;421; u undo, ? help) ",
    "sk.limit": " in at most {n} throw{s}",
    "sk.tie": "{who}, your tie-break coup sec? (e.g. 653; u undo) ",
    "sk.draw_die": "{who}, one die for the first player? (1 to 6; u undo) ",
    "sk.draw_throw": "{who}, your three dice for the first player? (e.g. 653; u undo) ",
    "sk.draw_leader": "{who}, your coup sec for the décharge leader? (e.g. 653; u undo) ",
    "sk.stake": "{who}, « main chaude »: « est » or « vient »? (u undo) ",
    "sk.undone": "  undone: {step}",
    "sk.help": "  type what the dice show: 421 or 4-2-1; add /2 or /3 for the throws used, « bon » after it if « le bon » was declared (555/2 bon); u takes back the last entry; h gives a hint",
    "sk.standings": "  pot {pot} · {players} · manche {manche}, {phase}",
    "sk.out": "out",
    "sk.hint.lead": "  hint: {who} leads; the throws used will be the others' limit. 421 in up to {n} throw{s}: {p}",
    "sk.hint.worst": "  hint: not to lose, beat {result}: {p} in up to {n} throw{s}, playing for it",
    "sk.hint.best": "  hint: to win the round, beat {result}: {p}",
    "sk.hint.none": "  no hint now: the hint helps before a turn",
    "sk.hint.optimal": "  hint: if everyone plays the solved round (max^n), {who} is not its loser {p} of the time",
    "phase.name.charge": "charge",
    "phase.name.decharge": "décharge",
    "phase.name.first_player": "choosing the first player",
    "phase.name.over": "over",
}

FR: dict[str, str] = {
    "thrown": "{who}{keep} lance {dice}{where}",
    "thrown.keep": " garde {kept} et",
    "thrown.turn": " (lancer {n})",
    "thrown.tie": " (départage)",
    "thrown.draw": " (tirage)",
    "turn_ended": "{who} finit sur {result} en {n} lancer{s}{bon}",
    "turn_ended.bon": " après « le bon »",
    "limit": "{who} fixe la limite : {call}",
    "tie": "égalité {about} : {who} relancent, dans cet ordre",
    "main_chaude": "« main chaude » {about} : {who} relancent, dans cet ordre",
    "tie.worst": "pour le plus mauvais",
    "tie.best": "pour le meilleur",
    "tie.both": "pour le meilleur et le plus mauvais",
    "tie.first_player": "au tirage du premier joueur",
    "tie.decharge_leader": "au tirage de l'entame de la décharge",
    "stake": "{who} joue « pour ce qui {stake} »",
    "decided": "{losers} perd le tour contre {winner} : {n} jeton{s} ({why})",
    "why.value": "la valeur du gagnant",
    "why.deduction": "la valeur du gagnant moins celle du perdant",
    "why.accumulated": "tous les lancers du tour additionnés",
    "why.nenette": "la pénalité fixe de la nénette",
    "why.vient": "« pour ce qui vient » : la valeur du nouveau lancer",
    "took": "{who} prend {n} au pot{capped}",
    "took.capped": " (il n'en restait que {n} sur {wanted})",
    "gave": "{giver} donne {n} à {receiver}{capped}",
    "gave.capped": " (tout ce qu'avait {giver}, sur {wanted})",
    "debt_owed": "« queue de la vache » : {who} devra {n} à la manche suivante",
    "debt_paid": "{who} prend d'abord les {n} dus dans le nouveau pot",
    "leader": "{who} entame : {why}",
    "leader.first_seat": "premier à la table",
    "leader.first_player": "a gagné le tirage du premier joueur",
    "leader.round_loser": "a perdu le dernier tour",
    "leader.manche_loser": "a perdu la dernière manche",
    "leader.fewest_tokens": "a le moins de jetons",
    "leader.worst_coup_sec": "a fait le plus mauvais coup sec",
    "leader.next_seat": "suit le dernier perdant",
    "phase.charge": "— manche {manche} : la charge —",
    "phase.decharge": "— manche {manche} : la décharge —",
    "went_out.one": "{who} n'a aucun jeton et sort de la manche",
    "went_out.many": "{who} n'ont aucun jeton et sortent de la manche",
    "manche_lost": "{who} perd la manche {manche}{how}",
    "manche_lost.espagnole": " (l'Espagnole : tous les jetons après la charge)",
    "game_over": "fin de la partie : {who} perd{s}",
    "outcome.grand_perdant": "{who} a perdu toutes les manches : « grand perdant »",
    "outcome.shared": "perte partagée : {who} ont perdu autant de manches",
    "outcome.loser": "{who} perd la partie",
    "outcome.winners": "gagnants, dans l'ordre : {who}",
    "outcome.manches": "manches perdues : {who}",
    "outcome.manche": "manche {n} : {who}",
    "outcome.not_over": "la partie n'est pas finie",
    "call.1": "« sec ! »",
    "call.2": "« en 2 ! »",
    "call.3": "« à fond ! »",
    "table": "{rules} : {players}",
    "prompt.turn": "{who} : {dice}, lancer {n} sur {allowed}. Garder (ex. 42), 0 tout relancer, Entrée stop, ? aide : ",
    "prompt.stake": "{who}, « main chaude » : jouer « est » ou « vient » ? ",
    "prompt.help": "  des chiffres gardent ces dés et relancent les autres (ex. 42), 0 relance les trois, Entrée s'arrête ; « bon 42 » annonce le bon. Possible : {legal}",
    "your_turn": "— {who}, à vous —",
    "input_ended": "l'entrée s'est terminée avant la partie ; elle est sauvegardée : 421 play --resume",
    "interrupted": "partie sauvegardée ; pour la reprendre : 421 play --resume",
    "saved_none": "aucune partie sauvegardée à reprendre",
    "resumed": "reprise de la partie sauvegardée ({rules} : {players}, étape {step})",
    "recorded": "partie enregistrée dans {path}",
    "sk.turn": "{who}, votre résultat{limit} ? (ex. 421, ou 654/2 en deux lancers ; u annuler, ? aide) ",
    "sk.turn_all": "{who}, le résultat de chaque lancer, dans l'ordre{limit} ? (ex. 123;221;421 ; u annuler, ? aide) ",
    "sk.limit": " en {n} lancer{s} au plus",
    "sk.tie": "{who}, votre coup sec de départage ? (ex. 653 ; u annuler) ",
    "sk.draw_die": "{who}, un dé pour le premier joueur ? (1 à 6 ; u annuler) ",
    "sk.draw_throw": "{who}, vos trois dés pour le premier joueur ? (ex. 653 ; u annuler) ",
    "sk.draw_leader": "{who}, votre coup sec pour l'entame de la décharge ? (ex. 653 ; u annuler) ",
    "sk.stake": "{who}, « main chaude » : « est » ou « vient » ? (u annuler) ",
    "sk.undone": "  annulé : {step}",
    "sk.help": "  tapez ce que montrent les dés : 421 ou 4-2-1 ; ajoutez /2 ou /3 pour les lancers utilisés, « bon » après si « le bon » a été annoncé (555/2 bon) ; u reprend la dernière saisie ; h donne un conseil",
    "sk.standings": "  pot {pot} · {players} · manche {manche}, {phase}",
    "sk.out": "sorti",
    "sk.hint.lead": "  conseil : {who} entame ; ses lancers seront la limite des autres. 421 en {n} lancer{s} au plus : {p}",
    "sk.hint.worst": "  conseil : pour ne pas perdre, battre {result} : {p} en {n} lancer{s} au plus, en jouant pour",
    "sk.hint.best": "  conseil : pour gagner le tour, battre {result} : {p}",
    "sk.hint.none": "  pas de conseil maintenant : le conseil aide avant un tour",
    "sk.hint.optimal": "  conseil : si chacun joue le tour résolu (max^n), {who} n'en est pas le perdant {p} du temps",
    "phase.name.charge": "charge",
    "phase.name.decharge": "décharge",
    "phase.name.first_player": "tirage du premier joueur",
    "phase.name.over": "terminée",
}

CATALOGS: Mapping[str, Mapping[str, str]] = {"en": EN, "fr": FR}


def tr(lang: str, key: str, **fields: object) -> str:
    """The message ``key`` in ``lang``, with its fields filled in."""
    return CATALOGS.get(lang, EN)[key].format(**fields)


def detect_lang(environ: Mapping[str, str] | None = None) -> str:
    """French where the system locale is French, English elsewhere."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"
