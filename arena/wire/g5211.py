"""5211 on the wire: engine observations and round results <-> ``Game5211Observation`` messages.

Cards travel as strings in notation ("G3"). The conversion is lossless both ways: for every engine
``Observation`` ``obs``, ``observation_from_proto(observation_to_proto(obs)) == obs``. It adds
nothing either: the message holds exactly the fields of the observation, which the engine already
limits to what the seat may know.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Final

from arena.errors import WireError
from arena.games.g5211.cards import CARDS, Card, Colour
from arena.games.g5211.scoring import RoundResult, ScoringKind
from arena.games.g5211.state import Observation
from arena.v1 import game_5211_pb2 as pb
from arena.wire import encode
from arena.wire.common import Notation
from arena.wire.encode import length_delimited

_RESULT = pb.Game5211RoundResult

_KIND_TO_PROTO: Final = {
    ScoringKind.KODODO: _RESULT.SCORING_KIND_KODODO,
    ScoringKind.COLOUR: _RESULT.SCORING_KIND_COLOUR,
    ScoringKind.NOTHING: _RESULT.SCORING_KIND_NOTHING,
}
_KIND_FROM_PROTO: Final = {value: key for key, value in _KIND_TO_PROTO.items()}

_COLOUR_TO_PROTO: Final = {
    Colour.BLUE: _RESULT.COLOUR_BLUE,
    Colour.GREEN: _RESULT.COLOUR_GREEN,
    Colour.ORANGE: _RESULT.COLOUR_ORANGE,
    Colour.VIOLET: _RESULT.COLOUR_VIOLET,
    Colour.YELLOW: _RESULT.COLOUR_YELLOW,
}
_COLOUR_FROM_PROTO: Final = {value: key for key, value in _COLOUR_TO_PROTO.items()}


_NOTATION: Final = Notation(CARDS, "card", "notation like 'G3'")
card_from_text = _NOTATION.read
"""The card written as text (exact notation); raises ``WireError``."""
cards_to_proto = _NOTATION.write_all
cards_from_proto = _NOTATION.read_all


def _per_seat(cards: Sequence[Sequence[Card]]) -> list[pb.Game5211Cards]:
    return [pb.Game5211Cards(cards=cards_to_proto(seat_cards)) for seat_cards in cards]


def _per_seat_from(messages: Iterable[pb.Game5211Cards]) -> tuple[tuple[Card, ...], ...]:
    return tuple(cards_from_proto(message.cards) for message in messages)


def round_result_to_proto(result: RoundResult) -> pb.Game5211RoundResult:
    """The wire form of one scored round (a new message the caller may change)."""
    message = pb.Game5211RoundResult()
    message.CopyFrom(_round_result_message(result))
    return message


@functools.lru_cache(maxsize=16_384)
def _round_result_message(result: RoundResult) -> pb.Game5211RoundResult:
    """Shared, never to be changed: every later observation of a match repeats its earlier rounds,
    so each round is converted once (the message is copied into each observation)."""
    return pb.Game5211RoundResult(
        laid_cards=_per_seat(result.laid),
        scored_cards=_per_seat(result.scored),
        kind=_KIND_TO_PROTO[result.kind],
        colour=_RESULT.COLOUR_UNSPECIFIED if result.colour is None else _COLOUR_TO_PROTO[result.colour],
        points=list(result.points),
    )


def round_result_from_proto(message: pb.Game5211RoundResult) -> RoundResult:
    """One scored round from its wire form (``points`` is derived, so it is not read).

    Raises ``WireError`` naming an unset or unknown scoring kind or colour.
    """
    kind = _KIND_FROM_PROTO.get(message.kind)
    if kind is None:
        raise WireError(f"5211 round result has an unset or unknown scoring kind {message.kind!r}")
    colour = None
    if message.colour != _RESULT.COLOUR_UNSPECIFIED:
        colour = _COLOUR_FROM_PROTO.get(message.colour)
        if colour is None:
            raise WireError(f"5211 round result has an unknown colour {message.colour!r}")
    return RoundResult(
        laid=_per_seat_from(message.laid_cards),
        scored=_per_seat_from(message.scored_cards),
        kind=kind,
        colour=colour,
    )


def observation_to_proto(observation: Observation) -> pb.Game5211Observation:
    """The wire form of what one seat (or a spectator, with no seat) may know."""
    message = _without_history(observation)
    message.round_results.extend(_round_result_message(result) for result in observation.history)
    return message


def observation_to_wire(observation: Observation) -> bytes:
    """``observation_to_proto(observation)``, encoded: the fields written directly (``arena.wire.encode``,
    the library's bytes at a fraction of the cost), each earlier round encoded once (a request late in
    a match repeats ten rounds). Byte for byte what upb writes (``tests/wire/test_encode.py``)."""
    o = observation
    laid = b"".join([encode.delimited(_LAID, b"".join([_CARD_ITEM[card] for card in cards])) for cards in o.laid])
    return b"".join(
        (
            b"" if o.seat is None else _SEAT + encode.varint(o.seat),
            encode.uint(_NUM_PLAYERS, o.num_players),
            encode.uint(_LONG_GAME, o.long_game),
            encode.uint(_DECK_NUMBER, o.deck_number),
            encode.uint(_ROUND, o.round),
            encode.uint(_ROUNDS_PER_DECK, o.rounds_per_deck),
            encode.uint(_TURN, o.turn),
            encode.uint(_CARDS_TO_LAY, o.cards_to_lay),
            b"".join([_HAND_ITEM[card] for card in o.hand]),
            encode.packed(_HAND_SIZES, o.hand_sizes),
            laid,
            _history_field(o.history),
            encode.packed(_POINTS, o.points),
            encode.packed(_SCORE_PILE_CARDS, o.score_pile_cards),
            encode.uint(_DRAW_PILE_SIZE, o.draw_pile_size),
            encode.uint(_REMOVED_COUNT, o.removed_count),
            encode.uint(_FINISHED, o.finished),
        )
    )


_OBS = pb.Game5211Observation
_SEAT, _NUM_PLAYERS, _LONG_GAME, _DECK_NUMBER = (
    encode.key_of(_OBS, n) for n in ("seat", "num_players", "long_game", "deck_number")
)
_ROUND, _ROUNDS_PER_DECK, _TURN = (encode.key_of(_OBS, n) for n in ("round", "rounds_per_deck", "turn"))
_CARDS_TO_LAY, _HAND_SIZES, _LAID = (encode.key_of(_OBS, n) for n in ("cards_to_lay", "hand_sizes", "laid_cards"))
_POINTS, _SCORE_PILE_CARDS = (encode.key_of(_OBS, n) for n in ("points", "score_pile_cards"))
_DRAW_PILE_SIZE, _REMOVED_COUNT, _FINISHED = (
    encode.key_of(_OBS, n) for n in ("draw_pile_size", "removed_count", "finished")
)
_HAND_ITEM: Final = {card: encode.text(encode.key_of(_OBS, "hand_cards"), str(card)) for card in CARDS}
"""Each card as an item of ``hand_cards``, encoded once."""
_CARD_ITEM: Final = {card: encode.text(encode.key_of(pb.Game5211Cards, "cards"), str(card)) for card in CARDS}
"""Each card as an item of ``Game5211Cards.cards``, encoded once."""


_ROUND_RESULTS_FIELD: Final = pb.Game5211Observation.DESCRIPTOR.fields_by_name["round_results"].number
_HISTORIES: dict[int, tuple[tuple[RoundResult, ...], bytes]] = {}
"""Encoded histories by the identity of their tuple, which the rules share between every state of a
round (the tuple is kept, so its identity is not reused while it is here)."""
_MAX_HISTORIES: Final = 8_192


def _history_field(history: tuple[RoundResult, ...]) -> bytes:
    found = _HISTORIES.get(id(history))
    if found is not None and found[0] is history:
        return found[1]
    encoded = b"".join(map(_round_result_field, history))
    if len(_HISTORIES) >= _MAX_HISTORIES:
        _HISTORIES.clear()
    _HISTORIES[id(history)] = (history, encoded)
    return encoded


@functools.lru_cache(maxsize=16_384)
def _round_result_field(result: RoundResult) -> bytes:
    return length_delimited(_ROUND_RESULTS_FIELD, _round_result_message(result).SerializeToString())


def _without_history(observation: Observation) -> pb.Game5211Observation:
    message = pb.Game5211Observation(
        num_players=observation.num_players,
        long_game=observation.long_game,
        deck_number=observation.deck_number,
        round=observation.round,
        rounds_per_deck=observation.rounds_per_deck,
        turn=observation.turn,
        cards_to_lay=observation.cards_to_lay,
        hand_cards=cards_to_proto(observation.hand),
        hand_sizes=list(observation.hand_sizes),
        laid_cards=_per_seat(observation.laid),
        points=list(observation.points),
        score_pile_cards=list(observation.score_pile_cards),
        draw_pile_size=observation.draw_pile_size,
        removed_count=observation.removed_count,
        finished=observation.finished,
    )
    if observation.seat is not None:
        message.seat = observation.seat
    return message


def observation_from_proto(message: pb.Game5211Observation) -> Observation:
    """The engine's Observation from its wire form (what the starter bots reason over)."""
    return Observation(
        seat=message.seat if message.HasField("seat") else None,
        num_players=message.num_players,
        long_game=message.long_game,
        deck_number=message.deck_number,
        round=message.round,
        rounds_per_deck=message.rounds_per_deck,
        turn=message.turn,
        cards_to_lay=message.cards_to_lay,
        hand=cards_from_proto(message.hand_cards),
        hand_sizes=tuple(message.hand_sizes),
        laid=_per_seat_from(message.laid_cards),
        history=tuple(round_result_from_proto(result) for result in message.round_results),
        points=tuple(message.points),
        score_pile_cards=tuple(message.score_pile_cards),
        draw_pile_size=message.draw_pile_size,
        removed_count=message.removed_count,
        finished=message.finished,
    )
