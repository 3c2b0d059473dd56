"""Client-side helpers behind the admin commands (``arena register``, ``arena match``)."""

from __future__ import annotations

import dataclasses
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import grpc

from arena.catalogue import DEFAULT_GAME
from arena.v1 import (
    common_pb2,
    league_pb2,
    league_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
    registry_pb2,
    registry_pb2_grpc,
)
from arena.wire.common import duration_to_proto

if TYPE_CHECKING:  # rich is the server extra's: loaded only by the commands that draw with it
    from rich.console import Console
    from rich.table import Table
from arena.cli.wording import counted


@dataclasses.dataclass(frozen=True, slots=True)
class ClientTls:
    """How the admin commands reach an arena over TLS: the CA to trust, and for an arena that wants
    client certificates (``arena serve --tls-client-ca``) a certificate chain and its key (PEM files)."""

    ca: str
    cert: str | None = None
    key: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials these files make."""
        pair = (Path(self.key).read_bytes(), Path(self.cert).read_bytes()) if self.cert and self.key else (None, None)
        return grpc.ssl_channel_credentials(Path(self.ca).read_bytes(), *pair)


def channel(address: str, tls: ClientTls | None = None) -> grpc.Channel:
    """A blocking channel to an arena: TLS when given, else plain TCP."""
    if tls is not None:
        return grpc.secure_channel(address, tls.credentials())
    return grpc.insecure_channel(address)


def _metadata(admin_token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {admin_token}"),) if admin_token else ()


def register_bot(address: str, name: str, admin_token: str | None, tls: ClientTls | None = None) -> str:
    """Register a bot; returns its token."""
    with channel(address, tls) as ch:
        stub = registry_pb2_grpc.RegistryServiceStub(ch)
        response = stub.RegisterBot(registry_pb2.RegisterBotRequest(name=name), metadata=_metadata(admin_token))
        return str(response.token)


def revoke_token(address: str, name: str, admin_token: str | None, tls: ClientTls | None = None) -> None:
    """Revoke a bot's token: it can no longer connect, and its live connection is closed."""
    with channel(address, tls) as ch:
        stub = registry_pb2_grpc.RegistryServiceStub(ch)
        stub.RevokeToken(registry_pb2.RevokeTokenRequest(name=name), metadata=_metadata(admin_token))


def rotate_token(address: str, name: str, admin_token: str | None, tls: ClientTls | None = None) -> str:
    """Give a bot a new token (returned) in place of the old one, which stops working."""
    with channel(address, tls) as ch:
        stub = registry_pb2_grpc.RegistryServiceStub(ch)
        return str(stub.RotateToken(registry_pb2.RotateTokenRequest(name=name), metadata=_metadata(admin_token)).token)


def play_match(
    address: str,
    bots: Sequence[str],
    admin_token: str | None,
    *,
    game: str = DEFAULT_GAME,
    seed: int | None,
    options: Mapping[str, str],
    decision_seconds: float,
    bank_seconds: float,
    out: TextIO,
    tls: ClientTls | None = None,
) -> int:
    """Start a match, follow it live, print the result table; 0 if it ended normally."""
    with channel(address, tls) as ch:
        stub = match_pb2_grpc.MatchServiceStub(ch)
        request = match_pb2.StartMatchRequest(
            game=game,
            bot_names=list(bots),
            options=dict(options),
            time_control=common_pb2.TimeControl(
                decision_allowance=duration_to_proto(decision_seconds), time_bank=duration_to_proto(bank_seconds)
            ),
        )
        if seed is not None:
            request.seed = seed
        match_id = stub.StartMatch(request, metadata=_metadata(admin_token)).match_id
        print(f"match {match_id} started", file=out)
        outcome = None
        for event in stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id)):
            if event.WhichOneof("event") == "outcome":
                outcome = event.outcome
        if outcome is None:
            print(f"arena match: match {match_id} ended without an outcome", file=sys.stderr)
            return 1
        termination = common_pb2.Termination.Name(outcome.termination).removeprefix("TERMINATION_").lower()
        print(f"result ({termination}):", file=out)
        for seat in sorted(range(len(bots)), key=lambda s: outcome.placings[s]):
            flag = "  forfeited" if seat in outcome.forfeited_seats else ""
            print(f"  {outcome.placings[seat]}. {bots[seat]:<20} {outcome.scores[seat]:>4} points{flag}", file=out)
        return 0 if outcome.termination == common_pb2.TERMINATION_NORMAL else 1


def create_league(
    address: str,
    admin_token: str | None,
    *,
    bots: Sequence[str],
    game: str = DEFAULT_GAME,
    players: int,
    games: int,
    seed: int | None = None,
    duplicate: bool = False,
    candidate: str | None = None,
    name: str = "",
    decision_seconds: float = 1.0,
    bank_seconds: float = 10.0,
    options: Mapping[str, str] | None = None,
    tls: ClientTls | None = None,
) -> league_pb2.League:
    """Schedule a league and queue its matches (``options``: the game's rules options, each value a
    JSON literal or plain text, as ``arena match --option`` takes them)."""
    spec = league_pb2.LeagueSpec(
        name=name,
        game=game,
        players_per_match=players,
        bot_names=list(bots),
        games_per_pairing=games,
        format=league_pb2.LEAGUE_FORMAT_GAUNTLET if candidate else league_pb2.LEAGUE_FORMAT_ROUND_ROBIN,
        candidate=candidate or "",
        duplicate_deals=duplicate,
        options=dict(options or {}),
        time_control=common_pb2.TimeControl(
            decision_allowance=duration_to_proto(decision_seconds), time_bank=duration_to_proto(bank_seconds)
        ),
    )
    if seed is not None:
        spec.seed = seed
    request = league_pb2.CreateLeagueRequest(spec=spec, request_id=uuid.uuid4().hex)
    with channel(address, tls) as ch:
        stub = league_pb2_grpc.LeagueServiceStub(ch)
        for attempt in range(CREATE_ATTEMPTS):
            try:  # the same request id each time: a retry returns the league, never a second one
                return stub.CreateLeague(request, metadata=_metadata(admin_token), timeout=60).league
            except grpc.RpcError as error:
                if error.code() is not grpc.StatusCode.UNAVAILABLE or attempt == CREATE_ATTEMPTS - 1:
                    raise
                time.sleep(min(0.25 * 2**attempt, 4.0))
    raise AssertionError("unreachable")


CREATE_ATTEMPTS = 6
"""How often ``create_league`` sends its request when the arena is unavailable."""


def cancel_league(
    address: str, league_id: str, admin_token: str | None, tls: ClientTls | None = None
) -> league_pb2.League:
    """Cancel a league (its queued matches are dropped unplayed); returns it."""
    with channel(address, tls) as ch:
        stub = league_pb2_grpc.LeagueServiceStub(ch)
        request = league_pb2.CancelLeagueRequest(league_id=league_id)
        return stub.CancelLeague(request, metadata=_metadata(admin_token)).league


def league_detail(progress: league_pb2.LeagueProgress) -> str:
    """What a league's progress line says beside its count of results."""
    if progress.total and progress.done >= progress.total:
        return "done"
    detail = f"running {progress.running}, queued {progress.queued}"
    if progress.waiting_for:  # matches parked until a bot that is not connected connects
        detail += ", waiting for " + ", ".join(f"{b} ({n})" for b, n in sorted(progress.waiting_for.items()))
    return detail


def watch_league(
    address: str,
    league_id: str,
    console: Console,
    tls: ClientTls | None = None,
    poll_seconds: float = 0.5,
    check: Callable[[league_pb2.League], None] | None = None,
) -> league_pb2.League:
    """Show a live progress bar until every match of the league has its result, or it is cancelled
    (off a terminal, a line at each change instead); ``check`` is called with the league at every
    poll and may raise to stop watching."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with channel(address, tls) as ch:
        stub = league_pb2_grpc.LeagueServiceStub(ch)
        league = stub.GetLeague(league_pb2.GetLeagueRequest(league_id=league_id)).league
        name = league.spec.name or league_id
        columns = (
            TextColumn(f"[bold]{name}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
        live = console.is_terminal
        last = ""
        with Progress(*columns, console=console, disable=not live) as progress:
            task = progress.add_task("league", total=league.progress.total, detail="")
            while True:
                p = league.progress
                detail = league_detail(p)
                if league.state == league_pb2.LEAGUE_STATE_CANCELLED and not (p.total and p.done >= p.total):
                    detail = f"cancelled: {counted(p.cancelled, 'match')} not played, running {p.running}"
                progress.update(task, total=p.total, completed=p.done, detail=detail)
                line = f"{name}: {p.done}/{p.total} {detail}"
                if not live and line != last:
                    console.print(line, highlight=False, markup=False, soft_wrap=True)
                    last = line
                if (p.total and p.done >= p.total) or league.state == league_pb2.LEAGUE_STATE_CANCELLED:
                    return league
                if check is not None:
                    check(league)
                time.sleep(poll_seconds)
                league = stub.GetLeague(league_pb2.GetLeagueRequest(league_id=league_id)).league


def follow_league(
    address: str, league_id: str, tls: ClientTls | None = None, poll_seconds: float = 0.5
) -> Iterator[league_pb2.League]:
    """The league at every poll, until every match has its result or it is cancelled."""
    with channel(address, tls) as ch:
        stub = league_pb2_grpc.LeagueServiceStub(ch)
        while True:
            league = stub.GetLeague(league_pb2.GetLeagueRequest(league_id=league_id)).league
            yield league
            p = league.progress
            if (p.total and p.done >= p.total) or league.state == league_pb2.LEAGUE_STATE_CANCELLED:
                return
            time.sleep(poll_seconds)


LEADERBOARD_COLUMNS = (
    ("#", "right"), ("bot", "left"), ("rating", "right"), ("95% interval", "center"),
    ("matches", "right"), ("wins", "right"), ("points", "right"), ("avg score", "right"),
    ("timeouts", "right"), ("forfeits", "right"),
)  # fmt: skip


def leaderboard_title(response: league_pb2.GetLeaderboardResponse) -> str:
    """The league table's title: its name, progress and players a match."""
    league = response.league
    p = league.progress
    cancelled = (
        f", cancelled ({counted(p.cancelled, 'match')} not played)"
        if league.state == league_pb2.LEAGUE_STATE_CANCELLED
        else ""
    )
    return (
        f"{league.spec.name or league.league_id}: {p.done} of {counted(p.total, 'match')}{cancelled}, "
        f"{league.spec.players_per_match} players a match"
    )


def leaderboard_rows(response: league_pb2.GetLeaderboardResponse) -> list[list[str]]:
    """The league table's rows, as text, in the order of ``LEADERBOARD_COLUMNS``."""
    rows = []
    for e in response.entries:
        mark = "?" if e.provisional else ""
        rows.append(
            [
                str(e.rank) if e.rated else "-",
                e.bot_name,
                f"{e.rating:.0f}{mark}" if e.rated else "unrated",
                f"{e.rating_low:.0f} - {e.rating_high:.0f}" if e.rated else "",
                str(e.matches),
                str(e.wins),
                f"{e.points:.1f}",
                f"{e.average_score:.1f}",
                str(e.timeouts),
                str(e.forfeits),
            ]
        )
    return rows


def leaderboard_table(response: league_pb2.GetLeaderboardResponse) -> Table:
    """The league table, readable."""
    from rich import box
    from rich.table import Table

    table = Table(
        title=leaderboard_title(response),
        caption="rating: maximum likelihood (Bradley-Terry), Elo scale (rated bots average 1500), with its "
        "95% interval; ? provisional (under 20 matches); points: pairwise wins (draws 1/2)",
        box=box.SIMPLE_HEAD,
    )
    for column, justify in LEADERBOARD_COLUMNS:
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in leaderboard_rows(response):
        table.add_row(*row)
    return table


def get_leaderboard(address: str, league_id: str, tls: ClientTls | None = None) -> league_pb2.GetLeaderboardResponse:
    """The league table from the server."""
    with channel(address, tls) as ch:
        stub = league_pb2_grpc.LeagueServiceStub(ch)
        return stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=league_id))
