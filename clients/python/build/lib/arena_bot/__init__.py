"""The Python SDK for arena bots: subclass :class:`Bot`, implement ``act``, call ``run``.

::

    from arena_bot import Bot, Turn

    class MyBot(Bot):
        def act(self, turn: Turn) -> str:
            return turn.legal_actions[0]

    MyBot().run("localhost:50051", token="...")

The wire contract's generated code lives in ``arena.v1`` and its converters in ``arena.wire`` (both
in the ``arena`` package, whose base install is light); this package adds the connection handling.
"""

from arena_bot.bot import ArenaBotError, Bot, ConnectionRefusedByServerError, ConnectionReplacedError
from arena_bot.types import MatchInfo, MatchResult, TimeControl, Turn

__version__ = "0.1.0"

__all__ = [
    "ArenaBotError",
    "Bot",
    "ConnectionRefusedByServerError",
    "ConnectionReplacedError",
    "MatchInfo",
    "MatchResult",
    "TimeControl",
    "Turn",
]
