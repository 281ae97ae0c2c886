"""Words of the terminal UI, in English and French.

The game's own sentences (events, outcomes, limit calls) come from
:mod:`py421.i18n`; these are the labels only the screen needs. Both
catalogs hold the same keys so a missing translation fails in tests.

>>> ui("fr", "btn.throw")
'Lancer (t)'
>>> ui("xx", "throws", n=1, allowed=3)
'Throw 1 of 3'
"""

from __future__ import annotations

from collections.abc import Mapping

EN: dict[str, str] = {
    "title": "py421 — {rules} — {players}",
    # buttons
    "btn.throw": "Throw (t)",
    "btn.stop": "Stop (s)",
    "btn.bon": "« le bon » (b)",
    "btn.est": "pour ce qui est",
    "btn.vient": "pour ce qui vient",
    # dice
    "die.kept": "kept",
    "dice.of": "Dice of {who}",
    "dice.last": "Last throw: {who}",
    "dice.none": "No dice thrown yet",
    # the table
    "table.title": "Table",
    "col.player": "Player",
    "col.tokens": "Tokens",
    "col.lost": "Lost",
    "col.round": "Round",
    "out": "out",
    "debt": "owes {n}",
    "manche": "Manche {n}",
    "manche.of": "Manche {n} of {of}",
    "pot": "pot {n}",
    "leads": "Leads: {who}",
    "stake": "Stake so far: {n}",
    "phase.first_player": "draw for the first player",
    "phase.charge": "charge",
    "phase.decharge": "décharge",
    "phase.over": "game over",
    # the turn
    "throws": "Throw {n} of {allowed}",
    "limit": "limit {call}",
    "keeping": "keeping {dice}",
    "keeping.none": "throwing all three",
    "tie.info": "tie-break: {who}",
    "tie.replay": "tie-break: {who} (replay {n})",
    "banner.decide": "{who}: keep dice with 1 2 3 or a click, then throw or stop",
    "banner.stake": "{who}, « main chaude »: play « pour ce qui est » (e) or « pour ce qui vient » (v)?",
    "banner.throw": "{who}: throw the dice (t)",
    "banner.throw_kept": "{who}: throw, keeping {kept} (t)",
    "banner.throw_tie": "{who}: tie-break throw (t)",
    "banner.throw_draw": "{who}: draw throw (t)",
    "banner.bot": "{who} is playing…",
    "banner.over": "Game over — press q to quit",
    "illegal": "Not allowed: {reason}",
    "save_failed": "Could not save the game: {reason}",
    "keys": "1 2 3 keep/release · t throw · s stop · b le bon · e/v stake · ? help · q quit",
    "log.title": "Game log",
    # help
    "help.title": "Rules: {name}",
    "help.source": "Source: {source}",
    "help.basics": "Pot {pot} · throws: charge {charge}, décharge {decharge} · manches {manches}",
    "help.changed": "Options that differ from the common rule:",
    "help.none": "  none",
    "help.ranking": "Strongest results, with their value in tokens:",
    "help.keys": "Keys: 1 2 3 or a click keep/release a die · t or space throw · s stop · "
    "b « le bon » · e/v « pour ce qui est/vient » · ? help · q quit (the game is saved)",
    "help.close": "Escape, ? or q closes this page.",
    # the end
    "end.title": "Game over",
    "end.keys": "q or Enter: quit · Escape: look at the table",
}

FR: dict[str, str] = {
    "title": "py421 — {rules} — {players}",
    "btn.throw": "Lancer (t)",
    "btn.stop": "S'arrêter (s)",
    "btn.bon": "« le bon » (b)",
    "btn.est": "pour ce qui est",
    "btn.vient": "pour ce qui vient",
    "die.kept": "gardé",
    "dice.of": "Dés de {who}",
    "dice.last": "Dernier lancer : {who}",
    "dice.none": "Aucun dé lancé",
    "table.title": "Table",
    "col.player": "Joueur",
    "col.tokens": "Jetons",
    "col.lost": "Perdues",
    "col.round": "Tour",
    "out": "sorti",
    "debt": "doit {n}",
    "manche": "Manche {n}",
    "manche.of": "Manche {n} sur {of}",
    "pot": "pot {n}",
    "leads": "Entame : {who}",
    "stake": "Mise cumulée : {n}",
    "phase.first_player": "tirage du premier joueur",
    "phase.charge": "charge",
    "phase.decharge": "décharge",
    "phase.over": "partie finie",
    "throws": "Lancer {n} sur {allowed}",
    "limit": "limite {call}",
    "keeping": "garde {dice}",
    "keeping.none": "relance les trois",
    "tie.info": "départage : {who}",
    "tie.replay": "départage : {who} (rejeu {n})",
    "banner.decide": "{who} : gardez des dés (1 2 3 ou un clic), puis lancez ou arrêtez",
    "banner.stake": "{who}, « main chaude » : jouer « pour ce qui est » (e) ou « pour ce qui vient » (v) ?",
    "banner.throw": "{who} : lancez les dés (t)",
    "banner.throw_kept": "{who} : lancez, en gardant {kept} (t)",
    "banner.throw_tie": "{who} : lancer de départage (t)",
    "banner.throw_draw": "{who} : lancer du tirage (t)",
    "banner.bot": "{who} joue…",
    "banner.over": "Partie finie — q pour quitter",
    "illegal": "Refusé : {reason}",
    "save_failed": "Impossible de sauvegarder la partie : {reason}",
    "keys": "1 2 3 garder · t lancer · s stop · b le bon · e/v mise · ? aide · q quitter",
    "log.title": "Journal de la partie",
    "help.title": "Règles : {name}",
    "help.source": "Source : {source}",
    "help.basics": "Pot {pot} · lancers : charge {charge}, décharge {decharge} · manches {manches}",
    "help.changed": "Options qui diffèrent de la règle commune :",
    "help.none": "  aucune",
    "help.ranking": "Meilleures combinaisons, avec leur valeur en jetons :",
    "help.keys": "Touches : 1 2 3 ou un clic gardent/relâchent un dé · t ou espace lancer · s stop · "
    "b « le bon » · e/v « pour ce qui est/vient » · ? aide · q quitter (la partie est sauvegardée)",
    "help.close": "Échap, ? ou q ferme cette page.",
    "end.title": "Partie finie",
    "end.keys": "q ou Entrée : quitter · Échap : revoir la table",
}

CATALOGS: Mapping[str, Mapping[str, str]] = {"en": EN, "fr": FR}


def ui(lang: str, key: str, **fields: object) -> str:
    """The UI label ``key`` in ``lang`` (English for an unknown language)."""
    return CATALOGS.get(lang, EN)[key].format(**fields)
