"""The referee workers that drain the match queue (the queue itself is in ``arena.store.match_queue``)."""
