"""The LadderService servicer and its conversions (request → service call → response)."""

from __future__ import annotations

from typing import Any

import grpc

from arena.errors import LeaguesUnavailableError
from arena.grpc import convert
from arena.grpc.servicers import check_admin, translate_errors
from arena.ladder.standings import Standing
from arena.league.table import PROVISIONAL_MATCHES
from arena.node import ArenaNode
from arena.service.ladders import LadderInfo, LadderService, LadderState
from arena.v1 import ladder_pb2, ladder_pb2_grpc
from arena.wire import common as wire_common

_STATES = {LadderState.RUNNING: ladder_pb2.LADDER_STATE_RUNNING, LadderState.PAUSED: ladder_pb2.LADDER_STATE_PAUSED}


def ladder_to_proto(info: LadderInfo, rated: int = 0) -> ladder_pb2.Ladder:
    """A ladder on the wire."""
    return ladder_pb2.Ladder(
        ladder_id=info.ladder_id,
        spec=ladder_pb2.LadderSpec(
            name=info.name,
            game=info.game,
            players_per_match=info.players,
            duplicate_deals=info.duplicate,
            time_control=convert.time_control_to_proto(info.time_control),
            options=wire_common.options_to_proto(info.options),
        ),
        state=_STATES[info.state],
        status=ladder_pb2.LadderStatus(matches_done=info.done, matches_open=info.open, bots_rated=rated),
        created_at=convert.timestamp(info.created_at),
    )


def standing_to_proto(line: Standing, connected: bool) -> ladder_pb2.StandingsEntry:
    """One line of the standings on the wire."""
    lineage = line.lineage
    return ladder_pb2.StandingsEntry(
        rank=line.rank,
        bot_name=line.bot,
        base_name=lineage.base,
        version=lineage.version,
        rating=line.rating,
        rating_low=line.rating_low,
        rating_high=line.rating_high,
        provisional=line.provisional,
        games=line.games,
        wins=line.wins,
        faults=line.faults,
        retired=line.retired,
        connected=connected,
    )


class LadderServicer(ladder_pb2_grpc.LadderServiceServicer):
    """Ladders: create, pause, resume, follow; retire bots."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node

    def _ladders(self) -> LadderService:
        if self.node.ladders is None:
            raise LeaguesUnavailableError("this arena node runs without Redis: it has no ladders")
        return self.node.ladders

    @translate_errors
    async def CreateLadder(  # noqa: N802
        self, request: ladder_pb2.CreateLadderRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.CreateLadderResponse:
        """Create a ladder; it runs until paused."""
        check_admin(self.node, context)
        ladders = self._ladders()
        try:
            tc = convert.time_control_from_proto(
                request.spec.time_control, self.node.default_time_control, "spec.time_control"
            )
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        spec = request.spec
        info = await ladders.create(
            spec.game,
            spec.players_per_match,
            name=spec.name,
            duplicate=spec.duplicate_deals,
            time_control=tc,
            options=wire_common.options_from_proto(spec.options),
            request_id=request.request_id,
        )
        return ladder_pb2.CreateLadderResponse(ladder=ladder_to_proto(info))

    @translate_errors
    async def GetLadder(  # noqa: N802
        self, request: ladder_pb2.GetLadderRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.GetLadderResponse:
        """A ladder and its figures."""
        info, lines = await self._ladders().standings(request.ladder_id)
        return ladder_pb2.GetLadderResponse(ladder=ladder_to_proto(info, len(lines)))

    @translate_errors
    async def ListLadders(  # noqa: N802
        self, request: ladder_pb2.ListLaddersRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.ListLaddersResponse:
        """The most recent ladders."""
        infos = await self._ladders().recent(min(request.page_size or 50, 500))
        return ladder_pb2.ListLaddersResponse(ladders=[ladder_to_proto(info) for info in infos])

    @translate_errors
    async def PauseLadder(  # noqa: N802
        self, request: ladder_pb2.PauseLadderRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.PauseLadderResponse:
        """Stop a ladder scheduling new matches until ``ResumeLadder``; admin only. Raises
        ``AdminRequiredError`` without the admin token, ``LadderNotFoundError`` for an unknown id."""
        check_admin(self.node, context)
        return ladder_pb2.PauseLadderResponse(ladder=ladder_to_proto(await self._ladders().pause(request.ladder_id)))

    @translate_errors
    async def ResumeLadder(  # noqa: N802
        self, request: ladder_pb2.ResumeLadderRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.ResumeLadderResponse:
        """Resume a paused ladder."""
        check_admin(self.node, context)
        info = await self._ladders().pause(request.ladder_id, paused=False)
        return ladder_pb2.ResumeLadderResponse(ladder=ladder_to_proto(info))

    @translate_errors
    async def GetStandings(  # noqa: N802
        self, request: ladder_pb2.GetStandingsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.GetStandingsResponse:
        """The ladder's standings."""
        ladders = self._ladders()
        info, lines = await ladders.standings(request.ladder_id)
        # The ladder's bots only: what every bot online plays would cost the whole arena a call.
        plays = await ladders.store.plays([line.bot for line in lines])
        return ladder_pb2.GetStandingsResponse(
            ladder=ladder_to_proto(info, len(lines)),
            entries=[standing_to_proto(line, info.game in plays.get(line.bot, ())) for line in lines],
            provisional_games=PROVISIONAL_MATCHES,
        )

    @translate_errors
    async def GetRatingHistory(  # noqa: N802
        self, request: ladder_pb2.GetRatingHistoryRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.GetRatingHistoryResponse:
        """One bot's rating points, oldest first."""
        points = await self._ladders().history(request.ladder_id, request.bot_name, request.page_size or 500)
        return ladder_pb2.GetRatingHistoryResponse(
            points=[
                ladder_pb2.RatingPoint(
                    at=convert.timestamp(p["at"]),
                    games=int(p["games"]),
                    rating=p["rating"],
                    rating_low=p["low"],
                    rating_high=p["high"],
                )
                for p in points
            ]
        )

    @translate_errors
    async def RetireBot(  # noqa: N802
        self, request: ladder_pb2.RetireBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> ladder_pb2.RetireBotResponse:
        """Retire a bot from every ladder."""
        check_admin(self.node, context)
        await self.node.registry.check_registered(request.bot_name)
        await self._ladders().retire(request.bot_name)
        return ladder_pb2.RetireBotResponse()
