"""The fast simulator: whole games in compiled loops, many at once.

The engine (``py421.core``) stays the definition of the rules; this package
plays the same games faster, and the differential tests hold it to the
engine's outcomes for the same dice and decisions.
"""
