"""The bot stream's messages, encoded by the quick path, are the messages the contract describes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import catalogue
from arena.games.lookup import get_game
from arena.grpc.convert import outgoing_to_wire
from arena.referee.seat import DecisionRequest
from arena.service.sessions import Relayed
from arena.v1 import bot_pb2
from arena.wire.common import duration_to_proto, timestamp_to_proto

GAME = get_game("5211")


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 40),
    deadline=st.floats(0, 4e9, allow_nan=False),
    bank=st.floats(0, 600, allow_nan=False),
    sequence=st.integers(1, 2**40),
)
def test_a_decision_request_is_the_action_request_of_the_contract(
    seed: int, turns: int, deadline: float, bank: float, sequence: int
) -> None:
    state = GAME.initial_state(3, seed)
    for _ in range(turns):
        if not (seats := GAME.to_move(state)):
            break
        state = GAME.apply(state, {s: GAME.legal_actions(state, s)[-1] for s in seats})
    seat = 1
    legal = [str(a) for a in GAME.legal_actions(state, seat)]
    request = DecisionRequest(
        "m-1", "5211", sequence, seat, GAME.observe(state, seat), legal, "lay a card", deadline, 2.5, bank
    )
    expected = bot_pb2.ConnectResponse(
        action_request=bot_pb2.ActionRequest(
            match_id="m-1",
            sequence=sequence,
            seat=seat,
            deadline=timestamp_to_proto(deadline),
            allowance=duration_to_proto(2.5),
            time_bank=duration_to_proto(bank),
            observation=catalogue.observation_to_proto(request.observation),
            legal_actions=legal,
            action_hint="lay a card",
        )
    )
    # Byte for byte what the library writes, not only the same message once parsed.
    assert outgoing_to_wire(request) == expected.SerializeToString()


def test_a_relayed_message_is_written_as_it_came() -> None:
    payload = bot_pb2.ConnectResponse(error=bot_pb2.ProtocolError(reason="x")).SerializeToString()
    assert outgoing_to_wire(Relayed(payload)) is payload
