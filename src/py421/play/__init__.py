"""A game at a table of people and bots: the session every interface drives, line mode, the scorekeeper.

Games in progress are kept in ``saves`` so Ctrl-C or a closed terminal never loses one.
"""
