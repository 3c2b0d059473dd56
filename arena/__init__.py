"""The arena: a bot-arena platform that referees card games between bots over gRPC.

Where things are, from the inside out (``docs/architecture.md`` draws the layers as the import
contracts check them):

- ``games``: the rules of every game behind one interface; ``referee``: the async referee;
  ``league``, ``ladder``: pure scheduling, results and ratings.
- ``store``: everything on Redis; ``service``: bots, sessions, matches, leagues, ladders, the relay;
  ``queue``: the referee workers draining the match queue; ``node``: one node's services wired together.
- ``catalogue``, ``wire``, ``v1``, ``bots``: the list of games, the engine↔wire converters, the
  generated wire contract, the built-in bots; ``grpc``, ``web``: the transports.
- ``serve``: ``arena serve``, one node as a process; ``cli``: the ``arena`` command and the operator tools.
- ``errors``, ``logs``, ``metrics``: the error tree, the log format and the node's metrics, used across them.
"""

import os

# gRPC core's filter fusion (an experiment of grpcio 1.85, pinned): one call object for the server's
# filter stack instead of one a filter, about 3 KiB less a bot stream with 10,000 idle bots connected
# (`bench_memory`, BENCHMARKS.md); every test runs with it. gRPC reads the variable once, at its
# first import, so it is set here, before any module of the arena imports grpc. An operator's own
# ``GRPC_EXPERIMENTS`` is left as it is.
os.environ.setdefault("GRPC_EXPERIMENTS", "fuse_filters")

__version__ = "0.1.0"
