"""Conversions between the arena's domain values and the wire messages (arena.v1)."""

from __future__ import annotations

import base64
import binascii
import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Literal, TypeVar

from google.protobuf.message import DecodeError, Message

from arena import catalogue
from arena.errors import ArenaError, StoredDataError
from arena.games.base import Outcome
from arena.league.schedule import LeagueFormat, LeagueSpec
from arena.league.table import LeagueTable
from arena.referee.match import EventKind, MatchEvent
from arena.referee.record import Fault, MatchRecord
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueInfo, LeagueState
from arena.service.limits import requested_time_control
from arena.service.relay import EventCodec
from arena.service.sessions import Outgoing, ProtocolNotice, Relayed
from arena.store.match_index import MatchSummary, Phase
from arena.v1 import bot_pb2, common_pb2, league_pb2, match_pb2, node_pb2, observation_pb2
from arena.wire import common as wire_common
from arena.wire import encode

FAULTS: dict[Fault | None, common_pb2.Fault.ValueType] = {
    None: common_pb2.FAULT_UNSPECIFIED,
    Fault.TIMEOUT: common_pb2.FAULT_TIMEOUT,
    Fault.INVALID: common_pb2.FAULT_INVALID_ACTION,
    Fault.ILLEGAL: common_pb2.FAULT_ILLEGAL_ACTION,
    Fault.DISCONNECTED: common_pb2.FAULT_DISCONNECTED,
    Fault.FORFEITED: common_pb2.FAULT_FORFEITED,
}
"""Every fault (None: the bot's own answer) on the wire."""


duration = wire_common.duration_to_proto
timestamp = wire_common.timestamp_to_proto


def time_control_to_proto(tc: TimeControl) -> common_pb2.TimeControl:
    """The referee's time control on the wire."""
    return common_pb2.TimeControl(
        decision_allowance=duration(tc.decision_allowance),
        time_bank=duration(tc.time_bank),
        strike_limit=tc.strike_limit,
        disconnect_grace=duration(tc.disconnect_grace),
    )


def time_control_from_proto(
    message: common_pb2.TimeControl, default: TimeControl, where: str = "time_control"
) -> TimeControl:
    """A time control a client sent (``where`` is its path in the request); unset fields take the
    defaults. Raises ``WireError`` for a Duration that is not one, ``TimeControlError`` for a value
    out of range (``arena.service.limits.requested_time_control``), each naming the field and the value."""

    def given(field: Literal["decision_allowance", "time_bank", "disconnect_grace"], fallback: float) -> int:
        if not message.HasField(field):
            return round(fallback * 1_000_000_000)
        return wire_common.checked_nanoseconds_from_proto(getattr(message, field), f"{where}.{field}")

    return requested_time_control(
        where,
        decision_allowance_ns=given("decision_allowance", default.decision_allowance),
        time_bank_ns=given("time_bank", default.time_bank),
        strike_limit=message.strike_limit or default.strike_limit,
        disconnect_grace_ns=given("disconnect_grace", default.disconnect_grace),
    )


def outcome_to_proto(outcome: Outcome | None) -> common_pb2.Outcome:
    """A result on the wire (empty while there is none)."""
    return common_pb2.Outcome() if outcome is None else wire_common.outcome_to_proto(outcome)


_REQUEST = bot_pb2.ActionRequest
_ACTION_REQUEST = encode.key_of(bot_pb2.ConnectResponse, "action_request")
_SEQUENCE, _SEAT = (encode.key_of(_REQUEST, name) for name in ("sequence", "seat"))
_DEADLINE, _ALLOWANCE, _TIME_BANK = (encode.key_of(_REQUEST, name) for name in ("deadline", "allowance", "time_bank"))
_OBSERVATION = encode.key_of(_REQUEST, "observation")
_MATCH_IDS = encode.Texts(encode.key_of(_REQUEST, "match_id"), limit=4_096)
_ACTIONS = encode.Texts(encode.key_of(_REQUEST, "legal_actions"))
_HINTS = encode.Texts(encode.key_of(_REQUEST, "action_hint"))
"""Match ids, legal actions and hints come again request after request: each is encoded once."""


def encoded(message: bytes | Message) -> bytes:
    """A bot stream message on the wire: the servicer writes the hot path's messages already encoded."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def outgoing_to_wire(message: Outgoing) -> bytes:
    """A session message for a bot, as the bot stream's encoded ``ConnectResponse``.

    A decision request is encoded in parts, its observation by the catalogue's quicker encoder (the
    same message once parsed); a relayed message is already encoded. Raises ``TypeError`` for a
    message with no wire form (a ``KeepAlive`` is the servicer's to send).
    """
    if isinstance(message, DecisionRequest):
        request = (
            _MATCH_IDS.one(message.match_id),
            encode.uint(_SEQUENCE, message.sequence),
            encode.uint(_SEAT, message.seat),
            encode.delimited(_DEADLINE, encode.timestamp(round(message.deadline * 1_000_000_000))),
            encode.delimited(_ALLOWANCE, encode.duration(round(message.allowance * 1_000_000_000))),
            encode.delimited(_TIME_BANK, encode.duration(round(message.time_bank * 1_000_000_000))),
            encode.delimited(_OBSERVATION, catalogue.observation_to_wire(message.observation)),
            _ACTIONS.items(message.legal_actions),
            _HINTS.one(message.action_hint),
        )
        return encode.delimited(_ACTION_REQUEST, b"".join(request))
    if isinstance(message, Relayed):
        return message.payload
    return _outgoing_message(message).SerializeToString()


def _outgoing_message(message: Outgoing) -> bot_pb2.ConnectResponse:
    if isinstance(message, MatchStart):
        return bot_pb2.ConnectResponse(
            match_started=bot_pb2.MatchStarted(
                match_id=message.match_id,
                game=message.game,
                seat=message.seat,
                num_players=len(message.players),
                bot_names=list(message.players),
                time_control=time_control_to_proto(message.time_control),
                options=wire_common.options_to_proto(message.options),
            )
        )
    if isinstance(message, Rejection):
        return bot_pb2.ConnectResponse(
            action_rejected=bot_pb2.ActionRejected(
                match_id=message.match_id,
                sequence=message.sequence,
                fault=FAULTS[message.fault],
                reason=message.reason,
                fallback_action=message.fallback_action,
                strikes=message.strikes,
                strike_limit=message.strike_limit,
            )
        )
    if isinstance(message, MatchEnd):
        return bot_pb2.ConnectResponse(
            match_ended=bot_pb2.MatchEnded(
                match_id=message.match_id, outcome=outcome_to_proto(message.outcome), seat=message.seat
            )
        )
    if isinstance(message, ProtocolNotice):
        return bot_pb2.ConnectResponse(
            error=bot_pb2.ProtocolError(match_id=message.match_id, sequence=message.sequence, reason=message.reason)
        )
    raise TypeError(f"no wire form for {type(message).__name__}")  # KeepAlive is the servicer's


def record_to_proto(record: MatchRecord, arena_version: str) -> match_pb2.MatchRecord:
    """A full match record on the wire."""
    decisions = []
    for turn in record.turns:
        for d in turn:
            decisions.append(
                match_pb2.Decision(
                    turn_index=d.turn,
                    seat=d.seat,
                    action=d.action,
                    elapsed=duration(d.elapsed),
                    is_fallback=d.fallback is not None,
                    fault=FAULTS[d.fallback],
                    sequence=d.sequence,
                )
            )
    return match_pb2.MatchRecord(
        match_id=record.match_id,
        game=record.game,
        options=wire_common.options_to_proto(record.options),
        seed=record.seed,
        deck=list(record.deck or ()),
        bot_names=list(record.bot_names),
        time_control=time_control_to_proto(record.time_control),
        decisions=decisions,
        rejections=[
            match_pb2.Rejection(
                turn_index=r.turn,
                seat=r.seat,
                sequence=r.sequence,
                fault=FAULTS[r.fault],
                reason=r.reason,
                received_action=r.answer,
                fallback_action=r.fallback,
                strikes=r.strikes,
            )
            for r in record.rejections
        ],
        outcome=outcome_to_proto(record.outcome),
        started_at=timestamp(record.started_at),
        ended_at=timestamp(record.ended_at),
        arena_version=arena_version,
    )


SUMMARY_STATES = {
    Phase.PENDING: match_pb2.MATCH_STATE_PENDING,
    Phase.RUNNING: match_pb2.MATCH_STATE_RUNNING,
    Phase.FINISHED: match_pb2.MATCH_STATE_FINISHED,
}


def summary_to_proto(info: MatchSummary) -> match_pb2.MatchSummary:
    """One line of a match list."""
    summary = match_pb2.MatchSummary(
        match_id=info.match_id,
        game=info.game,
        state=SUMMARY_STATES[info.phase],
        bot_names=info.bot_names,
        options=wire_common.options_to_proto(info.options),
        time_control=time_control_to_proto(info.time_control),
        created_at=timestamp(info.queued_at),
        league_id=info.league_id,
        ladder_id=info.ladder_id,
    )
    if info.started_at:
        summary.started_at.CopyFrom(timestamp(info.started_at))
    if info.outcome is not None:
        summary.outcome.CopyFrom(outcome_to_proto(info.outcome))
    if info.ended_at:
        summary.ended_at.CopyFrom(timestamp(info.ended_at))
    return summary


def event_to_proto(event: MatchEvent) -> list[match_pb2.WatchMatchResponse]:
    """A referee event as spectator messages: the reveal, the round result, the view, the outcome."""
    messages: list[match_pb2.WatchMatchResponse] = []
    view = event.view
    if event.kind is EventKind.TURN:
        actions = [event.actions[seat] for seat in sorted(event.actions)]
        messages.append(
            match_pb2.WatchMatchResponse(
                turn_revealed=match_pb2.TurnRevealed(turn_index=event.turn - 1, actions=actions)
            )
        )
        if event.round_result is not None:
            round_number, result = event.round_result
            messages.append(
                match_pb2.WatchMatchResponse(round_scored=catalogue.round_result_to_proto(result, round_number))
            )
    messages.append(match_pb2.WatchMatchResponse(view=catalogue.observation_to_proto(view)))
    if event.kind is EventKind.ENDED and event.outcome is not None:
        messages.append(match_pb2.WatchMatchResponse(outcome=outcome_to_proto(event.outcome)))
    return messages


def event_to_fields(event: MatchEvent) -> dict[str, str]:
    """A spectator event as the fields of a relay message, its view, round result and outcome in their
    wire form (``event_from_fields`` reads it back: a node relays its matches' events to spectators
    on other nodes)."""
    fields = {
        "match": event.match_id,
        "kind": event.kind.value,
        "turn": str(event.turn),
        "game": event.game,
        "actions": json.dumps({str(seat): action for seat, action in event.actions.items()}),
        "view": _b64(catalogue.observation_to_proto(event.view)),
    }
    if event.round_result is not None:
        fields["result"] = _b64(catalogue.round_result_to_proto(event.round_result[1], event.round_result[0]))
    if event.outcome is not None:
        fields["outcome"] = _b64(wire_common.outcome_to_proto(event.outcome))
    return fields


def event_from_fields(fields: Mapping[str, str]) -> MatchEvent:
    """The event ``event_to_fields`` made; ``StoredDataError`` naming what does not read back."""
    try:
        view = catalogue.observation_from_proto(_parsed(observation_pb2.Observation(), fields["view"]))
        round_result = None
        if "result" in fields:
            result = _parsed(observation_pb2.RoundResult(), fields["result"])
            round_result = (result.round, catalogue.round_result_from_proto(result))
        outcome = None
        if "outcome" in fields:
            outcome = wire_common.outcome_from_proto(_parsed(common_pb2.Outcome(), fields["outcome"]))
        actions = {int(seat): str(action) for seat, action in json.loads(fields["actions"]).items()}
        kind = EventKind(fields["kind"])
        return MatchEvent(
            fields["match"], kind, int(fields["turn"]), view, fields["game"], actions, outcome, round_result
        )
    except (ArenaError, KeyError, ValueError, TypeError, AttributeError, DecodeError, binascii.Error) as error:
        raise StoredDataError(f"a relayed spectator event does not read back: {error!r}"[:300]) from None


RELAYED_EVENTS = EventCodec(event_to_fields, event_from_fields)
"""How a node's relay sends its matches' events to spectators on other nodes."""


def _b64(message: Message) -> str:
    return base64.b64encode(message.SerializeToString()).decode()


_M = TypeVar("_M", bound=Message)


def _parsed(message: _M, text: str) -> _M:
    message.ParseFromString(base64.b64decode(text, validate=True))
    return message


class EventMessages:
    """``event_to_proto`` once an event, however many spectator streams send it: a match's events
    reach each of its WatchMatch streams as one object. The last ``size`` events are kept."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._kept: OrderedDict[int, tuple[MatchEvent, list[match_pb2.WatchMatchResponse]]] = OrderedDict()

    def of(self, event: MatchEvent) -> list[match_pb2.WatchMatchResponse]:
        """The event's spectator messages (shared: not to be changed)."""
        kept = self._kept.get(id(event))
        if kept is not None and kept[0] is event:
            return kept[1]
        messages = event_to_proto(event)
        self._kept[id(event)] = (event, messages)
        if len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return messages


def league_to_proto(info: LeagueInfo, *, for_admin: bool) -> league_pb2.League:
    """A league, its spec and progress on the wire; its seed only for the admin."""
    spec = info.spec
    league = league_pb2.League(
        league_id=info.league_id,
        spec=league_pb2.LeagueSpec(
            name=info.name,
            game=spec.game,
            players_per_match=spec.players_per_match,
            bot_names=list(spec.bots),
            games_per_pairing=spec.games_per_pairing,
            time_control=time_control_to_proto(info.time_control),
            format=_FORMATS[spec.format],
            candidate=spec.candidate or "",
            duplicate_deals=spec.duplicate,
            options=wire_common.options_to_proto(spec.options),
        ),
        progress=league_pb2.LeagueProgress(
            total=info.progress.total,
            done=info.progress.done,
            running=info.progress.running,
            queued=info.progress.queued,
            cancelled=info.progress.dropped,
            waiting_for=info.progress.waiting_for,
        ),
        created_at=timestamp(info.created_at),
        state=_STATES[info.progress.state],
    )
    if for_admin:
        league.spec.seed = spec.seed
    return league


_STATES = {
    LeagueState.RUNNING: league_pb2.LEAGUE_STATE_RUNNING,
    LeagueState.FINISHED: league_pb2.LEAGUE_STATE_FINISHED,
    LeagueState.CANCELLED: league_pb2.LEAGUE_STATE_CANCELLED,
}


_FORMATS = {
    LeagueFormat.ROUND_ROBIN: league_pb2.LEAGUE_FORMAT_ROUND_ROBIN,
    LeagueFormat.GAUNTLET: league_pb2.LEAGUE_FORMAT_GAUNTLET,
}


def league_spec_from_proto(message: league_pb2.LeagueSpec, league_id: str, seed: int) -> LeagueSpec:
    """A league spec from the wire (the server picks the id, and the seed when unset)."""
    return LeagueSpec(
        league_id=league_id,
        game=message.game or catalogue.DEFAULT_GAME,
        players_per_match=message.players_per_match or 2,
        bots=tuple(message.bot_names),
        games_per_pairing=message.games_per_pairing or 1,
        seed=message.seed if message.HasField("seed") else seed,
        format=LeagueFormat.GAUNTLET
        if message.format == league_pb2.LEAGUE_FORMAT_GAUNTLET
        else LeagueFormat.ROUND_ROBIN,
        candidate=message.candidate or None,
        duplicate=message.duplicate_deals,
        options=wire_common.options_from_proto(message.options),
    )


def leaderboard_to_proto(info: LeagueInfo, table: LeagueTable, *, for_admin: bool) -> league_pb2.GetLeaderboardResponse:
    """A league table on the wire."""
    return league_pb2.GetLeaderboardResponse(
        league=league_to_proto(info, for_admin=for_admin),
        entries=[
            league_pb2.LeaderboardEntry(
                rank=row.rank,
                bot_name=row.bot,
                rating=row.rating,
                rating_low=row.rating_low,
                rating_high=row.rating_high,
                elo=row.rating,  # deprecated: the live Elo is retired
                matches=row.matches,
                wins=row.wins,
                points=row.points,
                average_score=row.average_score,
                timeouts=row.timeouts,
                forfeits=row.forfeits,
                rated=row.rated,
                provisional=row.provisional,
            )
            for row in table.rows
        ],
    )


def node_to_proto(fields: dict[str, str]) -> node_pb2.Node:
    """A node's heartbeat hash on the wire."""

    def number(name: str) -> int:
        return int(float(fields.get(name, "0") or 0))

    return node_pb2.Node(
        node_id=fields.get("node_id", ""),
        address=fields.get("address", ""),
        started_at=timestamp(float(fields.get("started_at", "0") or 0)),
        heartbeat_at=timestamp(float(fields.get("heartbeat_at", "0") or 0)),
        connected_bots=number("connected_bots"),
        active_matches=number("active_matches"),
        held_matches=number("held_matches"),
        results_stored=number("results_stored"),
        reclaimed=number("reclaimed"),
    )
