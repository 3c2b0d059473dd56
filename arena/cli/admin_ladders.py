"""Client-side helpers behind ``arena ladder ...`` and ``arena bot retire``."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping

import grpc
from rich import box
from rich.table import Table

from arena.cli.admin import CREATE_ATTEMPTS, ClientTls, channel
from arena.v1 import common_pb2, ladder_pb2, ladder_pb2_grpc
from arena.wire.common import duration_to_proto


def _metadata(admin_token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {admin_token}"),) if admin_token else ()


def _stub(ch: grpc.Channel) -> ladder_pb2_grpc.LadderServiceStub:
    return ladder_pb2_grpc.LadderServiceStub(ch)


def create_ladder(
    address: str,
    admin_token: str | None,
    *,
    game: str,
    players: int,
    name: str = "",
    duplicate: bool = False,
    options: Mapping[str, str] | None = None,
    decision_seconds: float = 1.0,
    bank_seconds: float = 10.0,
    tls: ClientTls | None = None,
) -> ladder_pb2.Ladder:
    """Create a ladder (retried with one request id while the arena is unavailable)."""
    spec = ladder_pb2.LadderSpec(
        name=name,
        game=game,
        players_per_match=players,
        duplicate_deals=duplicate,
        options=dict(options or {}),
        time_control=common_pb2.TimeControl(
            decision_allowance=duration_to_proto(decision_seconds), time_bank=duration_to_proto(bank_seconds)
        ),
    )
    request = ladder_pb2.CreateLadderRequest(spec=spec, request_id=uuid.uuid4().hex)
    with channel(address, tls) as ch:
        for attempt in range(CREATE_ATTEMPTS):
            try:
                return _stub(ch).CreateLadder(request, metadata=_metadata(admin_token), timeout=30).ladder
            except grpc.RpcError as error:
                if error.code() is not grpc.StatusCode.UNAVAILABLE or attempt == CREATE_ATTEMPTS - 1:
                    raise
                time.sleep(min(0.25 * 2**attempt, 4.0))
    raise AssertionError("unreachable")


def list_ladders(address: str, tls: ClientTls | None = None) -> list[ladder_pb2.Ladder]:
    """The most recent ladders."""
    with channel(address, tls) as ch:
        return list(_stub(ch).ListLadders(ladder_pb2.ListLaddersRequest()).ladders)


def pause_ladder(
    address: str, ladder_id: str, admin_token: str | None, resume: bool = False, tls: ClientTls | None = None
) -> ladder_pb2.Ladder:
    """Pause (or resume) a ladder; returns it."""
    with channel(address, tls) as ch:
        stub = _stub(ch)
        if resume:
            return stub.ResumeLadder(
                ladder_pb2.ResumeLadderRequest(ladder_id=ladder_id), metadata=_metadata(admin_token)
            ).ladder
        return stub.PauseLadder(
            ladder_pb2.PauseLadderRequest(ladder_id=ladder_id), metadata=_metadata(admin_token)
        ).ladder


def get_standings(address: str, ladder_id: str, tls: ClientTls | None = None) -> ladder_pb2.GetStandingsResponse:
    """A ladder's standings."""
    with channel(address, tls) as ch:
        return _stub(ch).GetStandings(ladder_pb2.GetStandingsRequest(ladder_id=ladder_id))


def retire_bot(address: str, bot: str, admin_token: str | None, tls: ClientTls | None = None) -> None:
    """Retire a bot from every ladder."""
    with channel(address, tls) as ch:
        _stub(ch).RetireBot(ladder_pb2.RetireBotRequest(bot_name=bot), metadata=_metadata(admin_token))


def state_name(ladder: ladder_pb2.Ladder) -> str:
    """ "running" or "paused"."""
    return ladder_pb2.LadderState.Name(ladder.state).removeprefix("LADDER_STATE_").lower()


def ladder_line(ladder: ladder_pb2.Ladder) -> str:
    """One line about a ladder."""
    s = ladder.spec
    duplicate = ", duplicate deals" if s.duplicate_deals else ""
    options = "".join(f", {name}={value}" for name, value in sorted(s.options.items()))
    return (
        f"{ladder.ladder_id}  {s.name:<24} {s.game} for {s.players_per_match}{duplicate}{options}: "
        f"{state_name(ladder)}, "
        f"{ladder.status.matches_done} played, {ladder.status.matches_open} queued or playing"
    )


def standings_table(response: ladder_pb2.GetStandingsResponse) -> Table:
    """The standings, readable; versions of one bot are listed with their lineage."""
    table = Table(
        title=ladder_line(response.ladder),
        caption=f"rating: maximum likelihood (Bradley-Terry), Elo scale, with its 95% interval; "
        f"? = provisional (fewer than {response.provisional_games} games); faults: forfeits + timeouts",
        box=box.SIMPLE_HEAD,
    )
    for column, justify in (
        ("#", "right"), ("bot", "left"), ("lineage", "left"), ("rating", "right"), ("95% interval", "center"),
        ("games", "right"), ("wins", "right"), ("faults", "right"), ("", "left"),
    ):  # fmt: skip
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for e in response.entries:
        flags = ", ".join(f for f, on in (("connected", e.connected), ("retired", e.retired)) if on)
        table.add_row(
            str(e.rank),
            e.bot_name,
            f"{e.base_name} {e.version}" if e.version else e.base_name,
            f"{e.rating:.0f}{'?' if e.provisional else ''}",
            f"{e.rating_low:.0f} - {e.rating_high:.0f}",
            str(e.games),
            str(e.wins),
            str(e.faults),
            flags,
        )
    return table
