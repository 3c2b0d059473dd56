"""Client side of the match commands: ``arena matches``, ``arena match show|replay|watch`` and
``arena league export``. Each reads from MatchService and writes text, a table on a terminal, or
JSON (``--json``: one document, or one JSON line per event for a stream)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from arena import catalogue
from arena.store.match_index import league_of, scheduled_of
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.wire.common import options_from_proto
from arena.wire.record import turns

STATES = {
    "pending": match_pb2.MATCH_STATE_PENDING,
    "running": match_pb2.MATCH_STATE_RUNNING,
    "finished": match_pb2.MATCH_STATE_FINISHED,
}
"""``--state`` values."""
EXPORT_COLUMNS = (
    "match_id",
    "league_id",
    "game",
    "bots",
    "seats",
    "scores",
    "placings",
    "forfeited_seats",
    "termination",
)
"""The fields of a result export's rows, one row per match (CSV joins lists with spaces)."""


def as_dict(message: Message) -> dict[str, Any]:
    """A message as JSON-ready data, field names as in the proto."""
    return MessageToDict(message, preserving_proto_field_name=True)


def list_matches(
    channel: grpc.Channel, *, game: str, league: str, bot: str, state: str, limit: int, ladder: str = ""
) -> list[match_pb2.MatchSummary]:
    """Up to ``limit`` summaries fitting the filters, paging as the server says."""
    stub = match_pb2_grpc.MatchServiceStub(channel)
    found: list[match_pb2.MatchSummary] = []
    token = ""
    while len(found) < limit:
        request = match_pb2.ListMatchesRequest(
            game=game,
            league_id=league,
            ladder_id=ladder,
            bot_name=bot,
            state=STATES.get(state, match_pb2.MATCH_STATE_UNSPECIFIED),
            page_size=min(limit - len(found), 500),
            page_token=token,
        )
        response = stub.ListMatches(request, timeout=30)
        found += response.matches
        token = response.next_page_token
        if not token:
            break
    return found[:limit]


def state_name(state: int) -> str:
    """``running`` for MATCH_STATE_RUNNING."""
    return match_pb2.MatchState.Name(state).removeprefix("MATCH_STATE_").lower()  # type: ignore[arg-type]


def termination_name(outcome: common_pb2.Outcome) -> str:
    """``normal`` for TERMINATION_NORMAL."""
    return common_pb2.Termination.Name(outcome.termination).removeprefix("TERMINATION_").lower()


def summary_rows(summaries: Sequence[match_pb2.MatchSummary]) -> list[list[str]]:
    """One row of text per summary: id, game, state, bots, league, result."""
    rows = []
    for s in summaries:
        result = ""
        if s.HasField("outcome"):
            result = termination_name(s.outcome) + " " + " ".join(str(p) for p in s.outcome.placings)
        rows.append([s.match_id, s.game, state_name(s.state), ",".join(s.bot_names), s.league_id or "-", result])
    return rows


SUMMARY_HEADER = ["match", "game", "state", "bots", "league", "result (placings)"]


def show_text(summary: match_pb2.MatchSummary, out: TextIO) -> None:
    """A match's summary and result, readably."""
    print(f"match {summary.match_id}: {summary.game}, {state_name(summary.state)}", file=out)
    if summary.league_id:
        print(f"league {summary.league_id}", file=out)
    for label, stamp in (("queued", summary.created_at), ("started", summary.started_at), ("ended", summary.ended_at)):
        if stamp.seconds or stamp.nanos:
            print(f"{label:<8} {stamp.ToDatetime().isoformat(timespec='seconds')}Z", file=out)
    if summary.HasField("outcome"):
        outcome = summary.outcome
        print(f"result ({termination_name(outcome)}):", file=out)
        for seat in sorted(range(len(summary.bot_names)), key=lambda s: outcome.placings[s]):
            flag = "  forfeited" if seat in outcome.forfeited_seats else ""
            name = summary.bot_names[seat]
            print(
                f"  {outcome.placings[seat]}. seat {seat} {name:<20} {outcome.scores[seat]:>4} points{flag}", file=out
            )
    else:
        print("seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(summary.bot_names)), file=out)


def find_summary(channel: grpc.Channel, match_id: str) -> match_pb2.MatchSummary:
    """A match's summary: the first event of watching it (NOT_FOUND for an unknown id)."""
    stub = match_pb2_grpc.MatchServiceStub(channel)
    stream = stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), timeout=30)
    try:
        first = next(iter(stream))
    finally:
        stream.cancel()
    return first.summary


def record_of(channel: grpc.Channel, match_id: str) -> match_pb2.MatchRecord:
    """The full record of a finished match."""
    stub = match_pb2_grpc.MatchServiceStub(channel)
    return stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id), timeout=60).record


def replay_lines(record: match_pb2.MatchRecord) -> Iterator[str]:
    """The record turn by turn, as ``arena demo`` prints a match, with the game's own printer."""
    entry = catalogue.entry(record.game)
    rules, printer = entry.rules, entry.printer
    names = ", ".join(f"seat {seat}: {name}" for seat, name in enumerate(record.bot_names))
    yield f"match {record.match_id} ({record.game}); {names}; seed {record.seed}"
    state = rules.initial_state(
        len(record.bot_names), record.seed, options_from_proto(record.options), list(record.deck) or None
    )
    yield from printer.describe_start(state)
    for texts in turns(record):
        actions = {seat: rules.parse_action(text) for seat, text in texts.items()}
        after = rules.apply(state, actions)
        yield from printer.describe_turn(state, actions, after)
        state = after
    yield from printer.describe_end(state)
    yield f"result ({termination_name(record.outcome)}): scores {list(record.outcome.scores)}"


def watch_events(channel: grpc.Channel, match_id: str) -> Iterator[match_pb2.WatchMatchResponse]:
    """The public events of a match, live, until it ends."""
    stub = match_pb2_grpc.MatchServiceStub(channel)
    yield from stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id))


def event_line(event: match_pb2.WatchMatchResponse) -> str | None:
    """A watch event as one line of text (None for a view: the next reveal says what changed)."""
    kind = event.WhichOneof("event")
    if kind == "summary":
        s = event.summary
        return f"match {s.match_id} ({s.game}, {state_name(s.state)}): " + ", ".join(
            f"seat {seat} {name}" for seat, name in enumerate(s.bot_names)
        )
    if kind == "turn_revealed":
        t = event.turn_revealed
        return f"turn {t.turn_index}: " + "  ".join(f"{seat}:{a}" for seat, a in enumerate(t.actions) if a)
    if kind == "round_scored":
        return f"round {event.round_scored.round} scored"
    if kind == "outcome":
        o = event.outcome
        return f"result ({termination_name(o)}): scores {list(o.scores)}, placings {list(o.placings)}"
    return None


def one_run_each(records: Sequence[match_pb2.MatchRecord]) -> list[match_pb2.MatchRecord]:
    """One record per scheduled match of a league, in the order given: a match run again (its run
    aborted by a node's shutdown, or stopped when another node took it over) has a record for each
    run, and only its played one (else the first given) is its result."""
    chosen: dict[str, match_pb2.MatchRecord] = {}
    for record in records:
        scheduled = scheduled_of(record.match_id)
        kept = chosen.get(scheduled)
        aborted = record.outcome.termination == common_pb2.TERMINATION_ABORTED
        if kept is None or (kept.outcome.termination == common_pb2.TERMINATION_ABORTED and not aborted):
            chosen[scheduled] = record
    return list(chosen.values())


def match_rows(records: Sequence[match_pb2.MatchRecord]) -> Iterator[dict[str, Any]]:
    """One row per match: its bots, seats, scores, placings and termination."""
    for record in records:
        outcome = record.outcome
        yield {
            "match_id": record.match_id,
            "league_id": league_of(record.match_id),
            "game": record.game,
            "bots": list(record.bot_names),
            "seats": list(range(len(record.bot_names))),
            "scores": list(outcome.scores),
            "placings": list(outcome.placings),
            "forfeited_seats": list(outcome.forfeited_seats),
            "termination": termination_name(outcome),
        }


def write_export(rows: Iterator[dict[str, Any]], fmt: str, out: TextIO) -> int:
    """The rows as JSON lines, or CSV (lists joined by spaces); returns how many."""
    count = 0
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    if fmt == "csv":
        writer.writeheader()
    for row in rows:
        if fmt == "jsonl":
            print(json.dumps(row), file=out)
        else:
            writer.writerow({k: " ".join(str(x) for x in v) if isinstance(v, list) else v for k, v in row.items()})
        count += 1
    return count
