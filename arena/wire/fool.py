"""FOOL! on the wire: engine observations and round results <-> ``FoolObservation`` messages.

Cards travel as strings in notation ("G12", "W1"); a lead colour as the ``FoolColour`` enum,
unspecified for none. The conversion is lossless both ways: for every engine ``Observation`` ``obs``,
``observation_from_proto(observation_to_proto(obs)) == obs``. It adds nothing either: the message
holds exactly the fields of the observation, which the engine already limits to what the seat may
know (its own hand, the others' sizes, everything played, the hands left once a round is scored).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

from arena.errors import WireError
from arena.games.fool.cards import CARDS, Colour
from arena.games.fool.scoring import RoundResult, RoundSummary
from arena.games.fool.state import Observation
from arena.games.fool.trick import Play, Trick
from arena.v1 import game_fool_pb2 as pb
from arena.wire.common import Notation

_COLOUR_TO_PROTO: Final = {
    None: pb.FOOL_COLOUR_UNSPECIFIED,
    Colour.GREEN: pb.FOOL_COLOUR_GREEN,
    Colour.RED: pb.FOOL_COLOUR_RED,
    Colour.YELLOW: pb.FOOL_COLOUR_YELLOW,
    Colour.BLUE: pb.FOOL_COLOUR_BLUE,
}
_COLOUR_FROM_PROTO: Final = {value: key for key, value in _COLOUR_TO_PROTO.items()}


_NOTATION: Final = Notation(CARDS, "FOOL! card", "G2-G27, R2-R23, Y2-Y21, B2-B15 or W1")
card_from_text = _NOTATION.read
"""The card written as text (exact notation); raises ``WireError``."""
cards_to_proto = _NOTATION.write_all
cards_from_proto = _NOTATION.read_all


def colour_from_proto(value: pb.FoolColour.ValueType) -> Colour | None:
    """A lead colour from the wire enum (None for unspecified); raises ``WireError`` on an unknown value."""
    try:
        return _COLOUR_FROM_PROTO[value]
    except KeyError:
        raise WireError(f"unknown FOOL! colour {value!r} on the wire") from None


def _plays_to_proto(plays: Iterable[Play]) -> list[pb.FoolPlay]:
    return [pb.FoolPlay(seat=play.seat, card=str(play.card)) for play in plays]


def _plays_from_proto(messages: Iterable[pb.FoolPlay]) -> tuple[Play, ...]:
    return tuple(Play(message.seat, card_from_text(message.card)) for message in messages)


@functools.lru_cache(maxsize=16_384)
def _trick_message(trick: Trick) -> pb.FoolTrick:
    """Shared, never to be changed: every later observation repeats the match's earlier tricks."""
    return pb.FoolTrick(
        leader=trick.leader,
        plays=_plays_to_proto(trick.plays),
        sat_out=list(trick.sat_out),
        lead_colour=_COLOUR_TO_PROTO[trick.lead_colour],
        winner=trick.winner,
        fools=list(trick.fools),
    )


def trick_from_proto(message: pb.FoolTrick) -> Trick:
    """A completed trick from its wire form."""
    return Trick(
        leader=message.leader,
        plays=_plays_from_proto(message.plays),
        sat_out=tuple(message.sat_out),
        lead_colour=colour_from_proto(message.lead_colour),
        winner=message.winner,
        fools=tuple(message.fools),
    )


@functools.lru_cache(maxsize=4_096)
def _round_message(result: RoundResult) -> pb.FoolRoundResult:
    """Shared, never to be changed: every later observation repeats the match's earlier rounds."""
    return pb.FoolRoundResult(
        round=result.round,
        dealer=result.dealer,
        tricks=[_trick_message(trick) for trick in result.tricks],
        left_in_hand=[pb.FoolCards(cards=cards_to_proto(hand)) for hand in result.left_in_hand],
        scores=list(result.scores),
        totals=list(result.totals),
        tens=list(result.tens),
    )


def round_result_to_proto(result: RoundResult) -> pb.FoolRoundResult:
    """The wire form of one scored round (a new message the caller may change)."""
    message = pb.FoolRoundResult()
    message.CopyFrom(_round_message(result))
    return message


def round_result_from_proto(message: pb.FoolRoundResult) -> RoundResult:
    """One scored round from its wire form."""
    return RoundResult(
        round=message.round,
        dealer=message.dealer,
        tricks=tuple(trick_from_proto(trick) for trick in message.tricks),
        left_in_hand=tuple(cards_from_proto(hand.cards) for hand in message.left_in_hand),
        scores=tuple(message.scores),
        totals=tuple(message.totals),
        tens=tuple(message.tens),
    )


@functools.lru_cache(maxsize=16_384)
def _summary_message(summary: RoundSummary) -> pb.FoolRoundSummary:
    """Shared, never to be changed: every later observation repeats the match's earlier rounds."""
    return pb.FoolRoundSummary(
        round=summary.round,
        dealer=summary.dealer,
        left_in_hand=[pb.FoolCards(cards=cards_to_proto(hand)) for hand in summary.left_in_hand],
        scores=list(summary.scores),
        totals=list(summary.totals),
        tens=list(summary.tens),
    )


def _summary_from_proto(message: pb.FoolRoundSummary) -> RoundSummary:
    return RoundSummary(
        round=message.round,
        dealer=message.dealer,
        left_in_hand=tuple(cards_from_proto(hand.cards) for hand in message.left_in_hand),
        scores=tuple(message.scores),
        totals=tuple(message.totals),
        tens=tuple(message.tens),
    )


def observation_to_proto(observation: Observation) -> pb.FoolObservation:
    """The wire form of what one seat (or a spectator, with no seat) may know."""
    message = pb.FoolObservation(
        num_players=observation.num_players,
        cards_in_play=cards_to_proto(observation.cards_in_play),
        cards_per_hand=observation.hand_size,
        fools_per_trick=observation.fools_per_trick,
        wild_penalty=observation.wild_penalty,
        round=observation.round,
        dealer=observation.dealer,
        hand=cards_to_proto(observation.hand),
        hand_sizes=list(observation.hand_sizes),
        leader=observation.leader,
        sitting_out=list(observation.sitting_out),
        trick=_plays_to_proto(observation.trick),
        lead_colour=_COLOUR_TO_PROTO[observation.lead_colour],
        tricks=[_trick_message(trick) for trick in observation.tricks],
        rounds=[_summary_message(summary) for summary in observation.rounds],
        totals=list(observation.totals),
        tens=list(observation.tens),
        finished=observation.finished,
    )
    if observation.seat is not None:
        message.seat = observation.seat
    if observation.to_play is not None:
        message.to_play = observation.to_play
    if observation.last_trick is not None:
        message.last_trick.CopyFrom(_trick_message(observation.last_trick))
    if observation.last_round is not None:
        message.last_round.CopyFrom(_round_message(observation.last_round))
    return message


def observation_from_proto(message: pb.FoolObservation) -> Observation:
    """The engine's Observation from its wire form (what the starter bots reason over)."""
    return Observation(
        seat=message.seat if message.HasField("seat") else None,
        num_players=message.num_players,
        cards_in_play=cards_from_proto(message.cards_in_play),
        hand_size=message.cards_per_hand,
        fools_per_trick=message.fools_per_trick,
        wild_penalty=message.wild_penalty,
        round=message.round,
        dealer=message.dealer,
        hand=cards_from_proto(message.hand),
        hand_sizes=tuple(message.hand_sizes),
        leader=message.leader,
        sitting_out=tuple(message.sitting_out),
        trick=_plays_from_proto(message.trick),
        lead_colour=colour_from_proto(message.lead_colour),
        to_play=message.to_play if message.HasField("to_play") else None,
        tricks=tuple(trick_from_proto(trick) for trick in message.tricks),
        last_trick=trick_from_proto(message.last_trick) if message.HasField("last_trick") else None,
        rounds=tuple(_summary_from_proto(summary) for summary in message.rounds),
        last_round=round_result_from_proto(message.last_round) if message.HasField("last_round") else None,
        totals=tuple(message.totals),
        tens=tuple(message.tens),
        finished=message.finished,
    )
