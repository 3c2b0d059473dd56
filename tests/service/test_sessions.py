"""Bot sessions (arena.service.sessions), driven without a transport: connections replace each other,
seats count against the bot's capacity, answers are routed to their seat, ends are told exactly once."""

from __future__ import annotations

import pytest

from arena.errors import TooManyErrorsError
from arena.games.base import Outcome, Termination
from arena.referee.seat import MatchEnd
from arena.service.sessions import IDLE_SESSION_SECONDS, MAX_PROTOCOL_ERRORS, CloseReason, ProtocolNotice, SessionHub
from tests.referee.doubles import ManualClock


def drain(connection: object) -> list[object]:
    outbox = connection.outbox  # type: ignore[attr-defined]
    found = []
    while len(outbox):
        found.append(outbox.get_nowait())
    return found


def test_a_new_connection_replaces_the_old_and_the_hub_is_told_of_both_ends() -> None:
    hub = SessionHub(ManualClock())
    told: list[str] = []
    hub.on_connect = lambda name: told.append(f"+{name}")
    hub.on_disconnect = lambda name: told.append(f"-{name}")
    first = hub.connect("ann", ["5211"], capacity=0)
    assert hub.sessions["ann"].capacity == 1  # a bot plays at least one match at once
    second = hub.connect("ann", ["5211", "azul"], capacity=3)
    assert (first.closed, first.close_reason, second.closed) == (True, CloseReason.REPLACED, False)
    hub.disconnect(first)  # the old stream ending changes nothing for the live one
    assert hub.sessions["ann"].connection is second and told == ["+ann", "+ann"]
    assert [s.name for s in hub.connected()] == ["ann"]
    hub.disconnect(second)
    assert hub.connected() == [] and told[-1] == "-ann"
    assert hub.sessions["ann"].last_close_reason is CloseReason.DISCONNECTED


def test_seats_count_against_the_capacity_the_bot_asked_for() -> None:
    hub = SessionHub(ManualClock())
    hub.connect("ann", ["5211"], capacity=2)
    session = hub.sessions["ann"]
    one = hub.seat_for("ann", "m1", 0, grace_seconds=5)
    hub.seat_for("ann", "m1", 1, grace_seconds=5)
    assert session.free_slots == 0
    one.release()
    assert session.free_slots == 1
    assert [s.seat for s in session.all_seats()] == [1]


def test_answers_that_fit_no_seat_get_a_notice_and_a_flood_of_them_ends_the_stream() -> None:
    hub = SessionHub(ManualClock())
    connection = hub.connect("ann", ["5211"], capacity=4)
    session = hub.sessions["ann"]
    hub.seat_for("ann", "m1", 0, grace_seconds=5)
    hub.seat_for("ann", "m1", 1, grace_seconds=5)
    session.on_action(connection, "nope", 0, 1, "G1")
    session.on_action(connection, "m1", None, 1, "G1")
    session.on_action(connection, "m1", 7, 1, "G1")
    reasons = [n.reason for n in drain(connection) if isinstance(n, ProtocolNotice)]
    assert reasons == [
        "unknown match 'nope': this bot holds no seat in it",
        "this bot holds 2 seats in match 'm1': say which one in Action.seat",
        "this bot holds no seat 7 in match 'm1' (it holds [0, 1])",
    ]
    for _ in range(MAX_PROTOCOL_ERRORS - len(reasons)):
        session.on_protocol_error(connection, "not an action")
    with pytest.raises(TooManyErrorsError, match=f"more than {MAX_PROTOCOL_ERRORS} unusable messages"):
        session.on_protocol_error(connection, "not an action")


def test_an_end_that_did_not_reach_the_bot_is_told_on_its_next_connection_exactly_once() -> None:
    hub = SessionHub(ManualClock())
    connection = hub.connect("ann", ["5211"], capacity=1)
    end = MatchEnd("m1", 0, Outcome(Termination.NORMAL, (1, 0), (1, 2)))
    hub.sessions["ann"].send_end(end)
    assert drain(connection) == [end]  # queued, but the transport never confirmed it wrote it
    hub.disconnect(connection)
    again = hub.connect("ann", ["5211"], capacity=1)
    assert drain(again) == [end]
    again.written(end)
    hub.disconnect(again)
    assert drain(hub.connect("ann", ["5211"], capacity=1)) == []


async def test_a_session_without_a_connection_or_a_seat_for_a_while_is_forgotten() -> None:
    clock = ManualClock()
    hub = SessionHub(clock)
    for name in ("ann", "bob", "cy"):
        hub.connect(name, ["5211"], capacity=1)
    hub.seat_for("bob", "m1", 0, grace_seconds=5)
    for name in ("ann", "bob"):
        hub.disconnect(hub.sessions[name].connection)  # type: ignore[arg-type]
    await clock.advance(IDLE_SESSION_SECONDS - 1)
    assert hub.forget_idle() == 0
    await clock.advance(1)
    assert hub.forget_idle() == 1  # ann; bob still holds a seat, cy is connected
    assert set(hub.sessions) == {"bob", "cy"}
    hub.sessions["bob"].all_seats()[0].release()
    assert hub.forget_idle() == 0  # bob is looked at again IDLE_SESSION_SECONDS later
    await clock.advance(IDLE_SESSION_SECONDS)
    assert hub.forget_idle() == 1 and set(hub.sessions) == {"cy"}
    hub.connect("ann", ["5211"], capacity=1)  # a bot that comes back gets a new session
    assert hub.sessions["ann"].connection is not None
