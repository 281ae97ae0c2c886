"""Exact strategy: turn, round and game solvers over the 56 results.

Chance is enumerated exactly from :func:`py421.core.dice.throw_outcomes`,
never sampled. The solvers read the ranking and values from the ruleset's
table, so the rules exist once, in the core.
"""
