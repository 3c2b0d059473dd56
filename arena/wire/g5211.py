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
from arena.wire.common import Notation, length_delimited

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
    """``observation_to_proto(observation)``, encoded, each earlier round encoded once: a request
    late in a match repeats ten rounds, which made most of the cost of building its message."""
    return _without_history(observation).SerializeToString() + _history_field(observation.history)


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
