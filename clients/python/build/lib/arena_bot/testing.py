"""Test a bot offline: against one recorded turn (an ``ActionRequest``, as your bot logged it or as
``arena.wire.turns.action_request`` builds it), or against every turn of a finished match's record
(``GetMatchRecord``, ``arena match replay ID --json``). No server: your ``act`` is called directly.

    from arena_bot.testing import check_record
    for check in check_record(MyBot(), record, seat=0):
        assert check.legal, check
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import Any

from arena.v1 import bot_pb2, match_pb2
from arena.wire.turns import recorded_requests
from arena_bot.bot import Bot
from arena_bot.types import Turn


@dataclasses.dataclass(frozen=True, slots=True)
class TurnCheck:
    """What the bot answered to one recorded turn, beside what the record holds."""

    turn_index: int
    """The turn's position among the checked seat's requests (0-based)."""
    seat: int
    recorded: str
    """The action the record holds (what the bot, or the referee's fallback, played then)."""
    chosen: str
    """What the bot answers now ('' when ``act`` raised)."""
    legal: bool
    """Whether ``chosen`` is one of the turn's legal actions."""
    error: str = ""
    """``act``'s exception, if it raised."""

    @property
    def same(self) -> bool:
        """Whether the bot plays what the record holds."""
        return self.chosen == self.recorded


def decide(bot: Bot, request: bot_pb2.ActionRequest) -> str:
    """The bot's answer to one request, as the SDK would send it (``str`` of what ``act`` returns;
    an ``async def act`` is awaited). Raises what ``act`` raises; checks nothing."""
    answer: Any = bot.act(Turn.from_proto(request))
    if inspect.isawaitable(answer):
        answer = asyncio.run(_awaited(answer))
    return str(answer)


async def _awaited(value: Any) -> Any:
    return await value


def check_turn(bot: Bot, request: bot_pb2.ActionRequest, recorded: str = "", index: int = 0) -> TurnCheck:
    """Ask the bot about one recorded turn: its answer, and whether it is legal."""
    try:
        chosen, error = decide(bot, request), ""
    except Exception as raised:  # the bot's own code
        chosen, error = "", f"{type(raised).__name__}: {raised}"
    return TurnCheck(index, request.seat, recorded, chosen, chosen in request.legal_actions, error)


def check_record(bot: Bot, record: match_pb2.MatchRecord, seat: int | None = None) -> list[TurnCheck]:
    """Replay a finished match's record and ask the bot at every turn of ``seat`` (every seat when
    None), with exactly what that seat was shown; one ``TurnCheck`` a turn."""
    return [
        check_turn(bot, request, recorded, index)
        for index, (request, recorded) in enumerate(recorded_requests(record, seat))
    ]
