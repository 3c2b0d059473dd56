"""Azul on the wire: engine observations and round results <-> ``AzulObservation`` messages.

Tiles travel as strings in notation ("B", "Y", "R", "K", "W", and "S" for the marker); a wall row as
its five spaces ("" for an empty one); a grey-wall tiling as its notation ("2:4 5:1"). The
conversion is lossless both ways: for every engine ``Observation`` ``obs``,
``observation_from_proto(observation_to_proto(obs)) == obs``. It adds nothing either: the message
holds exactly the fields of the observation, which the engine already limits to the public view
(the bag as counts, never its order; no pending grey-wall choice).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

from arena.errors import InvalidActionError, WireError
from arena.games.azul.actions import Tiling
from arena.games.azul.scoring import Board, Placement
from arena.games.azul.state import EndReason, Observation, Phase, RoundResult, WallSide
from arena.games.azul.tiles import COLOURS, MARKER, SIZE, Tile, Wall
from arena.v1 import game_azul_pb2 as pb

_OBSERVATION = pb.AzulObservation
_WALL_TO_PROTO: Final = {
    WallSide.STANDARD: _OBSERVATION.WALL_SIDE_STANDARD,
    WallSide.GREY: _OBSERVATION.WALL_SIDE_GREY,
}
_WALL_FROM_PROTO: Final = {value: key for key, value in _WALL_TO_PROTO.items()}
_PHASE_TO_PROTO: Final = {
    Phase.OFFER: _OBSERVATION.PHASE_OFFER,
    Phase.TILING: _OBSERVATION.PHASE_TILING,
    Phase.OVER: _OBSERVATION.PHASE_OVER,
}
_PHASE_FROM_PROTO: Final = {value: key for key, value in _PHASE_TO_PROTO.items()}
_END_TO_PROTO: Final = {
    None: _OBSERVATION.END_REASON_UNSPECIFIED,
    EndReason.ROW: _OBSERVATION.END_REASON_ROW,
    EndReason.MAX_ROUNDS: _OBSERVATION.END_REASON_MAX_ROUNDS,
}
_END_FROM_PROTO: Final = {value: key for key, value in _END_TO_PROTO.items()}
_COLOUR_BY_TEXT: Final = {tile.name: tile for tile in COLOURS}
_FLOOR_BY_TEXT: Final = {**_COLOUR_BY_TEXT, MARKER.name: MARKER}


def _shown(text: str) -> str:
    value = repr(text)
    return value if len(value) <= 40 else value[:36] + "...'"


def colour_from_text(text: str) -> Tile:
    """The colour tile written ``text`` ("B", "Y", "R", "K" or "W"); raises ``WireError``."""
    tile = _COLOUR_BY_TEXT.get(text)
    if tile is None:
        raise WireError(f"invalid Azul tile {_shown(text)} on the wire: expected B, Y, R, K or W")
    return tile


def tiles_to_proto(tiles: Iterable[Tile]) -> list[str]:
    """Tiles in notation, in the same order."""
    return [tile.name for tile in tiles]


def colours_from_proto(texts: Iterable[str]) -> tuple[Tile, ...]:
    """Colour tiles from notation, in the same order (the marker is refused)."""
    return tuple(colour_from_text(text) for text in texts)


def _floor_from_proto(texts: Iterable[str]) -> tuple[Tile, ...]:
    floor = []
    for text in texts:
        tile = _FLOOR_BY_TEXT.get(text)
        if tile is None:
            raise WireError(f"invalid Azul floor tile {_shown(text)} on the wire: expected B, Y, R, K, W or S")
        floor.append(tile)
    return tuple(floor)


# -- boards -----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16_384)
def _board_message(board: Board) -> pb.AzulBoard:
    """Shared, never to be changed: most boards stay as they were from one decision to the next."""
    return pb.AzulBoard(
        score=board.score,
        pattern_lines=[pb.AzulTiles(tiles=tiles_to_proto(line)) for line in board.lines],
        wall_rows=[pb.AzulWallRow(spaces=["" if tile is None else tile.name for tile in row]) for row in board.wall],
        floor_tiles=tiles_to_proto(board.floor),
    )


def board_from_proto(message: pb.AzulBoard) -> Board:
    """One board from its wire form; raises ``WireError`` on a malformed line, wall or floor."""
    if len(message.pattern_lines) != SIZE or len(message.wall_rows) != SIZE:
        raise WireError(
            f"an Azul board has {SIZE} pattern lines and {SIZE} wall rows, not "
            f"{len(message.pattern_lines)} and {len(message.wall_rows)}"
        )
    lines = []
    for number, line in enumerate(message.pattern_lines, start=1):
        tiles = colours_from_proto(line.tiles)
        if len(tiles) > number or len(set(tiles)) > 1:
            raise WireError(f"Azul pattern line {number} cannot hold {''.join(t.name for t in tiles)[:40]!r}")
        lines.append(tiles)
    wall: Wall = tuple(_wall_row_from_proto(number, row) for number, row in enumerate(message.wall_rows, start=1))
    return Board(message.score, tuple(lines), wall, _floor_from_proto(message.floor_tiles))


def _wall_row_from_proto(number: int, row: pb.AzulWallRow) -> tuple[Tile | None, ...]:
    if len(row.spaces) != SIZE:
        raise WireError(f"Azul wall row {number} has {len(row.spaces)} spaces, not {SIZE}")
    return tuple(None if text == "" else colour_from_text(text) for text in row.spaces)


# -- round results ----------------------------------------------------------------------------------


def _placement_to_proto(placement: Placement) -> pb.AzulPlacement:
    message = pb.AzulPlacement(line=placement.line, points=placement.points)
    if placement.column is not None:
        message.column = placement.column
    return message


def _placement_from_proto(message: pb.AzulPlacement) -> Placement:
    return Placement(message.line, message.column if message.HasField("column") else None, message.points)


def _tiling_from_text(text: str) -> Tiling | None:
    if text == "":
        return None
    try:
        return Tiling.parse(text)
    except InvalidActionError as error:
        raise WireError(f"invalid Azul tiling {_shown(text)} on the wire: {error}") from None


@functools.lru_cache(maxsize=16_384)
def _round_message(result: RoundResult) -> pb.AzulRoundResult:
    """Shared, never to be changed: every later observation repeats the match's earlier rounds."""
    return pb.AzulRoundResult(
        round=result.round,
        starter=result.starter,
        tilings=["" if tiling is None else str(tiling) for tiling in result.tilings],
        seat_placements=[
            pb.AzulSeatPlacements(placements=[_placement_to_proto(p) for p in placements])
            for placements in result.placements
        ],
        floor_penalties=list(result.floor_penalties),
        scores=list(result.scores),
        next_starter=result.next_starter,
    )


def round_result_to_proto(result: RoundResult) -> pb.AzulRoundResult:
    """The wire form of one round's wall-tiling (a new message the caller may change)."""
    message = pb.AzulRoundResult()
    message.CopyFrom(_round_message(result))
    return message


def round_result_from_proto(message: pb.AzulRoundResult) -> RoundResult:
    """One round's wall-tiling from its wire form."""
    return RoundResult(
        round=message.round,
        starter=message.starter,
        tilings=tuple(_tiling_from_text(text) for text in message.tilings),
        placements=tuple(tuple(_placement_from_proto(p) for p in seat.placements) for seat in message.seat_placements),
        floor_penalties=tuple(message.floor_penalties),
        scores=tuple(message.scores),
        next_starter=message.next_starter,
    )


# -- observations -----------------------------------------------------------------------------------


def observation_to_proto(observation: Observation) -> pb.AzulObservation:
    """The wire form of what one seat (or a spectator, with no seat) may know."""
    message = pb.AzulObservation(
        num_players=observation.num_players,
        wall_side=_WALL_TO_PROTO[observation.wall_side],
        max_rounds=observation.max_rounds,
        round=observation.round,
        phase=_PHASE_TO_PROTO[observation.phase],
        starter=observation.starter,
        to_move=list(observation.to_move),
        factories=[pb.AzulTiles(tiles=tiles_to_proto(factory)) for factory in observation.factories],
        centre_tiles=tiles_to_proto(observation.centre),
        marker_in_centre=observation.marker_in_centre,
        boards=[_board_message(board) for board in observation.boards],
        bag_counts=list(observation.bag_counts),
        lid_tiles=tiles_to_proto(observation.lid),
        round_results=[_round_message(result) for result in observation.history],
        bonuses=list(observation.bonuses or ()),
        end_reason=_END_TO_PROTO[observation.end],
    )
    if observation.seat is not None:
        message.seat = observation.seat
    if observation.marker_holder is not None:
        message.marker_holder = observation.marker_holder
    return message


def observation_from_proto(message: pb.AzulObservation) -> Observation:
    """The engine's Observation from its wire form (what the starter bots reason over).

    Raises ``WireError`` naming an unset or unknown enum value or a malformed list.
    """
    wall_side = _WALL_FROM_PROTO.get(message.wall_side)
    if wall_side is None:
        raise WireError(f"Azul observation has an unset or unknown wall side {message.wall_side!r}")
    phase = _PHASE_FROM_PROTO.get(message.phase)
    if phase is None:
        raise WireError(f"Azul observation has an unset or unknown phase {message.phase!r}")
    if message.end_reason not in _END_FROM_PROTO:
        raise WireError(f"Azul observation has an unknown end reason {message.end_reason!r}")
    if len(message.bag_counts) != len(COLOURS):
        raise WireError(f"Azul bag counts list {len(COLOURS)} colours, not {len(message.bag_counts)}")
    return Observation(
        seat=message.seat if message.HasField("seat") else None,
        num_players=message.num_players,
        wall_side=wall_side,
        max_rounds=message.max_rounds,
        round=message.round,
        phase=phase,
        starter=message.starter,
        to_move=tuple(message.to_move),
        factories=tuple(colours_from_proto(factory.tiles) for factory in message.factories),
        centre=colours_from_proto(message.centre_tiles),
        marker_in_centre=message.marker_in_centre,
        marker_holder=message.marker_holder if message.HasField("marker_holder") else None,
        boards=tuple(board_from_proto(board) for board in message.boards),
        bag_counts=tuple(message.bag_counts),
        lid=colours_from_proto(message.lid_tiles),
        history=tuple(round_result_from_proto(result) for result in message.round_results),
        bonuses=tuple(message.bonuses) if message.bonuses else None,
        end=_END_FROM_PROTO[message.end_reason],
    )
