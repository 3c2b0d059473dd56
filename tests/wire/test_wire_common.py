"""Game-agnostic wire values: termination, outcome, durations, timestamps, options."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena import wire
from arena.games.base import Outcome, Termination
from arena.v1 import common_pb2


@pytest.mark.parametrize("termination", list(Termination))
def test_termination_round_trips(termination: Termination) -> None:
    value = wire.termination_to_proto(termination)
    assert common_pb2.Termination.Name(value) == f"TERMINATION_{termination.name}"
    assert wire.termination_from_proto(value) is termination


def test_unset_termination_is_an_error() -> None:
    with pytest.raises(wire.WireError, match="unset or unknown"):
        wire.termination_from_proto(common_pb2.TERMINATION_UNSPECIFIED)


@st.composite
def outcomes(draw: st.DrawFn) -> Outcome:
    n = draw(st.integers(2, 5))
    scores = draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))
    cards = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    forfeited = frozenset(draw(st.sets(st.integers(0, n - 1), max_size=n - 1)))
    termination = draw(st.sampled_from(Termination))
    return Outcome.from_keys(termination, scores, list(zip(scores, cards, strict=True)), forfeited)


@given(outcome=outcomes())
def test_outcome_round_trips(outcome: Outcome) -> None:
    message = wire.outcome_to_proto(outcome)
    parsed = common_pb2.Outcome.FromString(message.SerializeToString())
    assert list(parsed.winners) == sorted(outcome.winners)
    assert list(parsed.forfeited_seats) == sorted(outcome.forfeited)
    assert wire.outcome_from_proto(parsed) == outcome


def test_malformed_outcomes() -> None:
    with pytest.raises(wire.WireError, match="2 scores but 1 placings"):
        wire.outcome_from_proto(
            common_pb2.Outcome(termination=common_pb2.TERMINATION_NORMAL, scores=[1, 2], placings=[1])
        )
    with pytest.raises(wire.WireError, match="forfeits"):
        wire.outcome_from_proto(
            common_pb2.Outcome(
                termination=common_pb2.TERMINATION_TIMEOUT, scores=[1, 2], placings=[1, 2], forfeited_seats=[2]
            )
        )


@given(nanos=st.integers(-(10**15), 10**15))
def test_durations_and_timestamps_keep_nanoseconds(nanos: int) -> None:
    seconds = nanos / 1e9
    assert wire.duration_to_proto(seconds).ToNanoseconds() == round(seconds * 1e9)
    assert wire.duration_from_proto(wire.duration_to_proto(seconds)) == pytest.approx(seconds, abs=1e-9)
    stamp = abs(seconds) + 1.7e9
    assert wire.timestamp_from_proto(wire.timestamp_to_proto(stamp)) == pytest.approx(stamp, abs=1e-6)


def test_options_are_json_literals() -> None:
    options = {"long_game": True, "target": 50, "name": "x", "quoted": "true"}
    text = wire.options_to_proto(options)
    assert text == {"long_game": "true", "target": "50", "name": '"x"', "quoted": '"true"'}
    assert wire.options_from_proto(text) == options
    # A hand-written value that is not JSON is a plain string.
    assert wire.options_from_proto({"mode": "fast", "long_game": "false"}) == {"mode": "fast", "long_game": False}
