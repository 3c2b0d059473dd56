"""The hand-written wire format (``arena.wire.encode``) is protobuf's, byte for byte.

Each helper is checked against upb's ``SerializeToString`` of a message holding the same value, over
the values' whole ranges (varints of every length, negative int64s, empty strings and lists), and
the 5211 observation it writes against the library's message for every seat of random deals.
"""

from __future__ import annotations

import pytest
from google.protobuf import duration_pb2, timestamp_pb2, wrappers_pb2
from hypothesis import given
from hypothesis import strategies as st

from arena.games.lookup import get_game
from arena.v1 import bot_pb2, common_pb2, game_5211_pb2
from arena.wire import encode, g5211

UINT64 = st.integers(0, 2**64 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
# Timestamp's valid range: 0001-01-01 to 9999-12-31, in nanoseconds.
TIMESTAMP_NS = st.integers(-62_135_596_800 * 10**9, 253_402_300_799 * 10**9 + 999_999_999)


@given(value=UINT64)
def test_an_unsigned_field_is_protobufs(value: int) -> None:
    field = encode.key_of(wrappers_pb2.UInt64Value, "value")
    assert encode.uint(field, value) == wrappers_pb2.UInt64Value(value=value).SerializeToString()


@given(value=INT64)
def test_a_signed_field_is_protobufs_negative_ones_included(value: int) -> None:
    field = encode.key_of(wrappers_pb2.Int64Value, "value")
    assert encode.uint(field, value) == wrappers_pb2.Int64Value(value=value).SerializeToString()


@given(value=st.text(max_size=300), items=st.lists(st.text(max_size=200), max_size=8))
def test_strings_are_protobufs_an_empty_item_kept(value: str, items: list[str]) -> None:
    assert encode.text(encode.key_of(wrappers_pb2.StringValue, "value"), value) == (
        wrappers_pb2.StringValue(value=value).SerializeToString()
    )
    field = encode.key_of(game_5211_pb2.Game5211Cards, "cards")
    assert encode.texts(field, items) == game_5211_pb2.Game5211Cards(cards=items).SerializeToString()


@given(values=st.lists(st.one_of(st.integers(0, 0x7F), st.integers(0, 2**32 - 1)), max_size=40))
def test_a_repeated_number_is_packed_as_protobuf_packs_it(values: list[int]) -> None:
    """One-byte values (every value of a game's counts, packed as bytes at once) and longer ones, mixed."""
    field = encode.key_of(game_5211_pb2.Game5211Observation, "hand_sizes")
    expected = game_5211_pb2.Game5211Observation(hand_sizes=values).SerializeToString()
    assert encode.packed(field, values) == expected


@given(values=st.lists(st.integers(-(2**31), 2**31 - 1), max_size=40))
def test_negative_numbers_are_packed_as_protobuf_packs_them(values: list[int]) -> None:
    field = encode.key_of(common_pb2.Outcome, "scores")
    assert encode.packed(field, values) == common_pb2.Outcome(scores=values).SerializeToString()


@given(items=st.lists(st.sampled_from(["", "G3", "B1 B1", "pass", "é"]), max_size=12), value=st.text(max_size=30))
def test_values_encoded_once_are_the_same_bytes(items: list[str], value: str) -> None:
    """``Texts`` keeps each value's encoding (here with room for three, so it also starts over)."""
    field = encode.key_of(game_5211_pb2.Game5211Cards, "cards")
    texts = encode.Texts(field, limit=3)
    for _ in range(2):
        assert texts.items(items) == encode.texts(field, items)
        assert texts.one(value) == encode.text(field, value)
    assert len(texts.known) <= 3


@given(payload=st.binary(max_size=40_000), match_id=st.text(max_size=20_000))
def test_a_length_delimited_field_is_what_protobuf_reads(payload: bytes, match_id: str) -> None:
    """At every length of the length's varint (a payload of up to 40 KB takes three bytes)."""
    assert wrappers_pb2.BytesValue.FromString(encode.length_delimited(1, payload)).value == payload
    request = bot_pb2.ActionRequest(match_id=match_id, legal_actions=["a", "b"])
    field = bot_pb2.ConnectResponse.DESCRIPTOR.fields_by_name["action_request"].number
    encoded = encode.length_delimited(field, request.SerializeToString())
    assert encoded == bot_pb2.ConnectResponse(action_request=request).SerializeToString()


@given(nanoseconds=TIMESTAMP_NS)
def test_a_timestamp_is_what_from_nanoseconds_sets(nanoseconds: int) -> None:
    expected = timestamp_pb2.Timestamp()
    expected.FromNanoseconds(nanoseconds)
    assert encode.timestamp(nanoseconds) == expected.SerializeToString()


@given(nanoseconds=st.integers(-315_576_000_000 * 10**9, 315_576_000_000 * 10**9))
def test_a_duration_is_what_from_nanoseconds_sets_negative_ones_included(nanoseconds: int) -> None:
    expected = duration_pb2.Duration()
    expected.FromNanoseconds(nanoseconds)
    assert encode.duration(nanoseconds) == expected.SerializeToString()


def test_a_field_the_helpers_do_not_write_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"DoubleValue\.value"):
        encode.key_of(wrappers_pb2.DoubleValue, "value")
    assert encode.key_of(common_pb2.Outcome, "termination") == bytes([(1 << 3) | encode.VARINT])


GAME = get_game("5211")


@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 2**63 - 1),
    turns=st.integers(0, 60),
    long_game=st.booleans(),
    pick=st.integers(0, 2**16),
)
def test_a_5211_observation_is_the_librarys_message_byte_for_byte(
    players: int, seed: int, turns: int, long_game: bool, pick: int
) -> None:
    state = GAME.initial_state(players, seed, {"long_game": long_game})
    for turn in range(turns):
        if not (seats := GAME.to_move(state)):
            break
        state = GAME.apply(
            state, {s: (legal := GAME.legal_actions(state, s))[(pick + turn) % len(legal)] for s in seats}
        )
    views = [GAME.observe(state, seat) for seat in range(players)] + [GAME.public_view(state)]
    for view in views:
        assert g5211.observation_to_wire(view) == g5211.observation_to_proto(view).SerializeToString()
