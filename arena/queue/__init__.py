"""The match queue on Redis Streams, and the referee workers that drain it."""
