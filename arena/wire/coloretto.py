"""Coloretto on the wire: engine observations and round results <-> ``ColorettoObservation`` messages.

Cards travel as strings in notation ("A", "J", "+2", "LR"); a collection as its cards, sorted. The
conversion is lossless both ways: for every engine ``Observation`` ``obs``,
``observation_from_proto(observation_to_proto(obs)) == obs``. It adds nothing either: the message
holds exactly the fields of the observation, which the engine already limits to the public view.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from arena.errors import WireError
from arena.games.coloretto.cards import CARDS, COLLECTABLE, Collection
from arena.games.coloretto.scoring import Scoring, SeatScore
from arena.games.coloretto.state import GameResult, Observation, RoundRecord, Take
from arena.v1 import game_coloretto_pb2 as pb
from arena.wire.common import Notation

_OBSERVATION = pb.ColorettoObservation
_SCORING_TO_PROTO: Final = {Scoring.BROWN: _OBSERVATION.SCORING_BROWN, Scoring.GREY: _OBSERVATION.SCORING_GREY}
_SCORING_FROM_PROTO: Final = {value: key for key, value in _SCORING_TO_PROTO.items()}


_NOTATION: Final = Notation(CARDS, "Coloretto card", "A-G, J, +2 or LR")
card_from_text = _NOTATION.read
"""The card written as text (exact notation); raises ``WireError``."""
cards_to_proto = _NOTATION.write_all
cards_from_proto = _NOTATION.read_all


def collection_to_proto(collection: Collection) -> pb.ColorettoCards:
    """A collection as its cards, sorted by kind."""
    return pb.ColorettoCards(cards=[str(card) for card in collection for _ in range(collection[card])])


def collection_from_proto(message: pb.ColorettoCards) -> Collection:
    """A collection from its cards; raises ``WireError`` on a card a collection cannot hold."""
    cards = cards_from_proto(message.cards)
    for card in cards:
        if card not in COLLECTABLE:
            raise WireError(f"a Coloretto collection cannot hold {card}")
    return Collection.of(cards)


def _take_to_proto(take: Take) -> pb.ColorettoTake:
    return pb.ColorettoTake(seat=take.seat, row=take.row, cards=cards_to_proto(take.cards))


def _take_from_proto(message: pb.ColorettoTake) -> Take:
    return Take(seat=message.seat, row=message.row, cards=cards_from_proto(message.cards))


def round_result_to_proto(record: RoundRecord) -> pb.ColorettoRoundResult:
    """The wire form of one finished round (a new message the caller may change)."""
    message = pb.ColorettoRoundResult()
    message.CopyFrom(_round_message(record))
    return message


@functools.lru_cache(maxsize=16_384)
def _round_message(record: RoundRecord) -> pb.ColorettoRoundResult:
    """Shared, never to be changed: every later observation repeats the match's earlier rounds."""
    return pb.ColorettoRoundResult(
        game=record.game,
        round=record.round,
        starter=record.starter,
        takes=[_take_to_proto(take) for take in record.takes],
        removed_cards=cards_to_proto(record.removed),
        last_round=record.last_round,
        pile_left=record.pile_left,
        collections=[collection_to_proto(collection) for collection in record.collections],
    )


def round_result_from_proto(message: pb.ColorettoRoundResult) -> RoundRecord:
    """One finished round from its wire form."""
    return RoundRecord(
        game=message.game,
        round=message.round,
        starter=message.starter,
        takes=tuple(_take_from_proto(take) for take in message.takes),
        removed=cards_from_proto(message.removed_cards),
        last_round=message.last_round,
        pile_left=message.pile_left,
        collections=tuple(collection_from_proto(collection) for collection in message.collections),
    )


def _score_to_proto(score: SeatScore) -> pb.ColorettoSeatScore:
    return pb.ColorettoSeatScore(
        score=score.score,
        jokers=cards_to_proto(score.jokers),
        positive=cards_to_proto(score.positive),
        negative=cards_to_proto(score.negative),
        counts=[pb.ColorettoColourCount(colour=str(colour), count=count) for colour, count in score.counts],
        plus_twos=score.plus_twos,
    )


def _score_from_proto(message: pb.ColorettoSeatScore) -> SeatScore:
    return SeatScore(
        score=message.score,
        jokers=cards_from_proto(message.jokers),
        positive=cards_from_proto(message.positive),
        negative=cards_from_proto(message.negative),
        counts=tuple((card_from_text(count.colour), count.count) for count in message.counts),
        plus_twos=message.plus_twos,
    )


def game_result_to_proto(result: GameResult) -> pb.ColorettoGameResult:
    """The wire form of one finished game: each seat's score and the engine's choices."""
    return pb.ColorettoGameResult(
        game=result.game, first=result.first, scores=[_score_to_proto(score) for score in result.scores]
    )


def game_result_from_proto(message: pb.ColorettoGameResult) -> GameResult:
    """One finished game from its wire form."""
    return GameResult(
        game=message.game, first=message.first, scores=tuple(_score_from_proto(score) for score in message.scores)
    )


def _rows_to_proto(observation: Observation) -> list[pb.ColorettoRow]:
    rows = []
    for cards, capacity, taker in zip(observation.rows, observation.capacities, observation.taken_by, strict=True):
        row = pb.ColorettoRow(cards=cards_to_proto(cards), capacity=capacity)
        if taker is not None:
            row.taken_by = taker
        rows.append(row)
    return rows


def observation_to_proto(observation: Observation) -> pb.ColorettoObservation:
    """The wire form of what one seat (or a spectator, with no seat) may know."""
    message = pb.ColorettoObservation(
        num_players=observation.num_players,
        scoring=_SCORING_TO_PROTO[observation.scoring],
        games=observation.games,
        game=observation.game,
        round=observation.round,
        starter=observation.starter,
        colours=cards_to_proto(observation.colours),
        rows=_rows_to_proto(observation),
        takes=[_take_to_proto(take) for take in observation.takes],
        collections=[collection_to_proto(collection) for collection in observation.collections],
        pile_size=observation.pile_size,
        cards_before_last_round=observation.cards_before_last_round,
        last_round=observation.last_round,
        removed_cards=cards_to_proto(observation.removed),
        round_results=[_round_message(record) for record in observation.history],
        game_results=[game_result_to_proto(result) for result in observation.results],
        totals=list(observation.totals),
        finished=observation.finished,
    )
    if observation.seat is not None:
        message.seat = observation.seat
    if observation.to_move is not None:
        message.to_move = observation.to_move
    if observation.drawn is not None:
        message.drawn = str(observation.drawn)
    return message


def observation_from_proto(message: pb.ColorettoObservation) -> Observation:
    """The engine's Observation from its wire form (what the starter bots reason over).

    Raises ``WireError`` naming an unset or unknown value or a malformed field.
    """
    scoring = _SCORING_FROM_PROTO.get(message.scoring)
    if scoring is None:
        raise WireError(f"Coloretto observation has an unset or unknown scoring {message.scoring!r}")
    rows: Sequence[pb.ColorettoRow] = message.rows
    return Observation(
        seat=message.seat if message.HasField("seat") else None,
        num_players=message.num_players,
        scoring=scoring,
        games=message.games,
        game=message.game,
        round=message.round,
        starter=message.starter,
        to_move=message.to_move if message.HasField("to_move") else None,
        drawn=card_from_text(message.drawn) if message.HasField("drawn") else None,
        colours=cards_from_proto(message.colours),
        capacities=tuple(row.capacity for row in rows),
        rows=tuple(cards_from_proto(row.cards) for row in rows),
        taken_by=tuple(row.taken_by if row.HasField("taken_by") else None for row in rows),
        takes=tuple(_take_from_proto(take) for take in message.takes),
        collections=tuple(collection_from_proto(collection) for collection in message.collections),
        pile_size=message.pile_size,
        cards_before_last_round=message.cards_before_last_round,
        last_round=message.last_round,
        removed=cards_from_proto(message.removed_cards),
        history=tuple(round_result_from_proto(record) for record in message.round_results),
        results=tuple(game_result_from_proto(result) for result in message.game_results),
        totals=tuple(message.totals),
        finished=message.finished,
    )
