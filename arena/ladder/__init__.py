"""Ladders, pure: bot versions, the matchmaker's choice of tables, and the standings.

- :mod:`~arena.ladder.versions`: ``name@version`` bot names and their lineage.
- :mod:`~arena.ladder.matchmaker`: which connected bots meet next, in which seats.
- :mod:`~arena.ladder.standings`: the ranked table (ratings with intervals, provisional marks).

No I/O here: the store and the service (``arena.store.ladders``, ``arena.service.ladders``) feed
it what is connected and what was played.
"""
