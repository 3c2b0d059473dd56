"""Client-side helpers behind the admin commands (``arena register``, ``arena match``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

import grpc

from arena.v1 import common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from arena.wire.common import duration_to_proto


def channel(address: str, tls_ca: str | None = None) -> grpc.Channel:
    """A blocking channel to an arena, TLS when a CA file is given."""
    if tls_ca:
        return grpc.secure_channel(address, grpc.ssl_channel_credentials(Path(tls_ca).read_bytes()))
    return grpc.insecure_channel(address)


def _metadata(admin_token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {admin_token}"),) if admin_token else ()


def register_bot(address: str, name: str, admin_token: str | None, tls_ca: str | None = None) -> str:
    """Register a bot; returns its token."""
    with channel(address, tls_ca) as ch:
        stub = registry_pb2_grpc.RegistryServiceStub(ch)
        response = stub.RegisterBot(registry_pb2.RegisterBotRequest(name=name), metadata=_metadata(admin_token))
        return str(response.token)


def play_match(
    address: str,
    bots: Sequence[str],
    admin_token: str | None,
    *,
    seed: int | None,
    options: Mapping[str, str],
    decision_seconds: float,
    bank_seconds: float,
    out: TextIO,
    tls_ca: str | None = None,
) -> int:
    """Start a match, follow it live, print the result table; 0 if it ended normally."""
    with channel(address, tls_ca) as ch:
        stub = match_pb2_grpc.MatchServiceStub(ch)
        request = match_pb2.StartMatchRequest(
            game="5211",
            bot_names=list(bots),
            options=dict(options),
            time_control=common_pb2.TimeControl(
                decision_allowance=duration_to_proto(decision_seconds), time_bank=duration_to_proto(bank_seconds)
            ),
        )
        if seed is not None:
            request.seed = seed
        try:
            match_id = stub.StartMatch(request, metadata=_metadata(admin_token)).match_id
        except grpc.RpcError as error:
            print(f"arena match: {error.details()}", file=out)  # type: ignore[attr-defined]
            return 1
        print(f"match {match_id} started", file=out)
        outcome = None
        for event in stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id)):
            if event.WhichOneof("event") == "outcome":
                outcome = event.outcome
        if outcome is None:
            print("the match ended without an outcome", file=out)
            return 1
        termination = common_pb2.Termination.Name(outcome.termination).removeprefix("TERMINATION_").lower()
        print(f"result ({termination}):", file=out)
        for seat in sorted(range(len(bots)), key=lambda s: outcome.placings[s]):
            flag = "  forfeited" if seat in outcome.forfeited_seats else ""
            print(f"  {outcome.placings[seat]}. {bots[seat]:<20} {outcome.scores[seat]:>4} points{flag}", file=out)
        return 0 if outcome.termination == common_pb2.TERMINATION_NORMAL else 1
