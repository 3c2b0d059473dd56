"""Check the Azul engine against the shared conformance case files (shared/conformance/azul/).

Entry point for the per-game conformance catalogue: ``check_file(data)`` with a case file's parsed
JSON returns one line per mismatching case (its id and the first field that differs); an empty list
means every case matches. It dispatches on the file's ``format`` field to ``check_playthroughs``
(whole games) or ``check_wall_tiling`` (one board's wall-tiling), and raises ``MalformedCaseFileError``
when the file is neither. Games are replayed through the public interface only (``initial_state``
with the fixture, ``legal_actions``, ``parse_action``, ``check_action``, ``apply``, ``public_view``,
``outcome``). Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.errors import ActionError, GameSetupError, MalformedCaseFileError
from arena.games.azul.actions import Tiling
from arena.games.azul.rules import REFILL_SEPARATOR, GameAzul, _tiling_problem
from arena.games.azul.scoring import Board, Placement, end_bonus, tile_board
from arena.games.azul.state import Observation, State
from arena.games.azul.tiles import SIZE, Tile, format_row, format_tiles

PLAYTHROUGHS_FORMAT: Final = "Azul whole games"
WALL_TILING_FORMAT: Final = "Azul wall-tiling"

GAME: Final = GameAzul()


class _MismatchError(Exception):
    """The first field where the engine disagrees with a case (internal: ends the case)."""


def check_file(data: dict[str, Any]) -> list[str]:
    """Every mismatching case of one parsed case file, one line each (empty: all match).

    Raises ``MalformedCaseFileError`` when the file is not an object with a ``cases`` list.
    """
    checker = _checker(data)
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise MalformedCaseFileError('expected a JSON object with a "cases" list')
    return checker(cases)


def _checker(data: object) -> Callable[[list[Any]], list[str]]:
    if not isinstance(data, dict):
        raise MalformedCaseFileError("expected a JSON object")
    text = data.get("format")
    if isinstance(text, str) and text.startswith(PLAYTHROUGHS_FORMAT):
        return check_playthroughs
    if isinstance(text, str) and text.startswith(WALL_TILING_FORMAT):
        return check_wall_tiling
    raise MalformedCaseFileError(
        f"unknown format {str(text)[:40]!r}: expected {PLAYTHROUGHS_FORMAT!r} or {WALL_TILING_FORMAT!r}"
    )


def check_playthroughs(cases: Sequence[Any]) -> list[str]:
    """Replay every whole-game case; one line per mismatching case."""
    return _each(cases, _check_playthrough)


def check_wall_tiling(cases: Sequence[Any]) -> list[str]:
    """Wall-tile every one-board case; one line per mismatching case."""
    return _each(cases, _check_wall_tiling)


def _each(cases: Sequence[Any], check: Callable[[dict[str, Any]], None]) -> list[str]:
    problems = []
    for index, case in enumerate(cases):
        case_id = case.get("id", f"#{index}") if isinstance(case, dict) else f"#{index}"
        try:
            if not isinstance(case, dict):
                raise _MismatchError("the case is not a JSON object")
            check(case)
        except _MismatchError as mismatch:
            problems.append(f"{case_id}: {mismatch}")
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            # A malformed case, or an engine crash: a finding to report, not a reason to stop.
            problems.append(f"{case_id}: malformed case or engine error: {type(error).__name__}: {error}")
    return problems


def _expect(field: str, expected: object, actual: object) -> None:
    if expected != actual:
        raise _MismatchError(f"{field}: expected {expected!r}, engine {actual!r}")


# -- whole games ------------------------------------------------------------------------------------


def fixture_deck(bag: Sequence[str], refills: Sequence[Sequence[str]]) -> list[str]:
    """The engine's ``deck`` for a case's ``bag`` and ``refills``."""
    deck = list(bag)
    for entry in refills:
        deck.append(REFILL_SEPARATOR)
        deck.extend(entry)
    return deck


def _placements(placements: Sequence[Placement]) -> list[list[object]]:
    return [[p.line, "F" if p.column is None else p.column, p.points] for p in placements]


def _check_playthrough(case: dict[str, Any]) -> None:
    players = case["players"]
    options = {**case["options"], "first": case["first"]}
    try:
        state = GAME.initial_state(players, 0, options, fixture_deck(case["bag"], case["refills"]))
        for expected in case["rounds"]:
            state = _check_round(state, expected)
    except GameSetupError as error:
        raise _MismatchError(f"engine rejected the fixture: {error}") from None
    final = case["final"]
    view = GAME.public_view(state)
    outcome = GAME.outcome(state)
    if outcome is None:
        raise _MismatchError(f"final: the game is not over after round {view.round}")
    _expect("final end", final["end"], None if view.end is None else view.end.value)
    _expect("final rounds", final["rounds"], len(view.history))
    _expect("final bonus", final["bonus"], list(view.bonuses or ()))
    _expect("final scores", final["scores"], list(outcome.scores))
    _expect("final complete_rows", final["complete_rows"], [b.complete_rows() for b in view.boards])
    _expect("final winners", sorted(final["winners"]), sorted(outcome.winners))


def _check_round(state: State, expected: dict[str, Any]) -> State:
    number = expected["round"]
    where = f"round {number}"
    view = GAME.public_view(state)
    _expect(f"{where} round", number, view.round)
    _expect(f"{where} starter", expected["starter"], view.starter)
    _expect(f"{where} factories", expected["factories"], [format_tiles(f) for f in view.factories])
    steps = [("offer", [offer]) for offer in expected["offers"]]
    if "tiling" in expected:
        steps.append(("tiling", expected["tiling"]))
    for step, (kind, entries) in enumerate(steps, 1):
        label = f"{where} {kind} {step}" if kind == "offer" else f"{where} tiling"
        _expect(f"{label} seats to move", sorted(e["seat"] for e in entries), sorted(GAME.to_move(state)))
        actions = {}
        for entry in entries:
            seat = entry["seat"]
            _expect(f"{label} n_legal (seat {seat})", entry["n_legal"], len(GAME.legal_actions(state, seat)))
            try:
                actions[seat] = GAME.check_action(state, seat, GAME.parse_action(entry["action"]))
            except ActionError as error:
                raise _MismatchError(f"{label}: engine rejected {entry['action']!r}: {error}") from None
        state = GAME.apply(state, actions)
    view = GAME.public_view(state)
    if len(view.history) < number:
        raise _MismatchError(f"{where}: the round did not end after its listed actions")
    _check_checkpoint(where, expected, view)
    return state


def _check_checkpoint(where: str, expected: dict[str, Any], view: Observation) -> None:
    result = view.history[expected["round"] - 1]
    _expect(f"{where} placements", expected["placements"], [_placements(p) for p in result.placements])
    _expect(f"{where} floor_penalty", expected["floor_penalty"], list(result.floor_penalties))
    _expect(f"{where} scores", expected["scores"], list(result.scores))
    _expect(f"{where} walls", expected["walls"], [[format_row(row) for row in b.wall] for b in view.boards])
    _expect(f"{where} lines", expected["lines"], [[format_tiles(line) for line in b.lines] for b in view.boards])
    _expect(f"{where} next_starter", expected["next_starter"], result.next_starter)


# -- one board's wall-tiling ------------------------------------------------------------------------


def _tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.S if letter == "S" else Tile.parse_colour(letter) for letter in text)


def _wall(rows: Sequence[str]) -> tuple[tuple[Tile | None, ...], ...]:
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError("a wall is 5 strings of 5 characters")
    return tuple(tuple(None if ch == "." else Tile.parse_colour(ch) for ch in row) for row in rows)


def _check_wall_tiling(case: dict[str, Any]) -> None:
    grey = case["wall_side"] == "grey"
    board = Board(
        case["score"],
        tuple(_tiles(line) for line in case["lines"]),
        _wall(case["wall"]),
        tuple(_tiles("".join(case["floor"]))),
    )
    columns: list[int | None] | None = None
    if grey and board.full_lines():
        tiling = Tiling.parse(case["action"])
        problem = _tiling_problem(board, tiling)
        if problem:
            raise _MismatchError(f"action: engine rejected {case['action']!r}: {problem}")
        columns = [None if column is None else column - 1 for _, column in tiling.placements]
    result = tile_board(board, grey, columns)
    _expect("placements", case["placements"], _placements(result.placements))
    _expect("floor_penalty", case["floor_penalty"], result.floor_penalty)
    _expect("score_after", case["score_after"], result.board.score)
    _expect("wall_after", case["wall_after"], [format_row(row) for row in result.board.wall])
    _expect("lines_after", case["lines_after"], [format_tiles(line) for line in result.board.lines])
    _expect("to_lid", case["to_lid"], [tile.name for tile in sorted(result.to_lid)])
    bonus = end_bonus(result.board.wall)
    _expect("end_bonus", case["end_bonus"], [bonus.bonus, bonus.rows, bonus.columns, bonus.colours])
