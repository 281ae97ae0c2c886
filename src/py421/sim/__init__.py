"""Playing games: the single play loop every interface uses."""
