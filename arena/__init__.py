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

__version__ = "0.1.0"
