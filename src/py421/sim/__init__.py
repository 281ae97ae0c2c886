"""Many games between bots: the engine's play loop, the fast compiled kernel held equal to it, statistics."""
