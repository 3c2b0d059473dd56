"""A readable text account of a Coloretto match, step by step, for ``arena demo --game coloretto``.

Pure functions of public views only (no draw-pile order ever shows): :func:`describe_turn` gives the
lines for one decision (the card turned up, where it went, what a take collected, the end of a round
and the scoring of a finished game with the joker choices), :func:`describe_end` the match result.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.base import Seat
from arena.games.coloretto.cards import Action, ActionKind, format_cards
from arena.games.coloretto.rules import GameColoretto
from arena.games.coloretto.scoring import SeatScore
from arena.games.coloretto.state import GameResult, Observation, State

_GAME = GameColoretto()


def describe_start(state: State) -> list[str]:
    """The header of a match: players, options and who starts."""
    view = _GAME.public_view(state)
    games = f", a match of {view.games} games" if view.games > 1 else ""
    return [
        f"Coloretto, {view.num_players} players, {view.scoring.value} scoring{games}",
        *_round_header(view),
    ]


def describe_turn(before: State, actions: Mapping[Seat, Action], after: State) -> list[str]:
    """What happened in one decision, in a few lines."""
    old, new = _GAME.public_view(before), _GAME.public_view(after)
    seat, action = next(iter(actions.items()))
    lines: list[str] = []
    if action.kind is ActionKind.DRAW:
        card = str(new.drawn)
        if new.last_round and not old.last_round:
            lines.append(f"  seat {seat} draws LR: this is the last round! then turns up {card}")
        else:
            lines.append(f"  seat {seat} draws {card}")
        return lines
    assert action.row is not None
    if action.kind is ActionKind.PLACE:
        lines.append(f"  seat {seat} places {old.drawn} in row {action.row}:  {_rows(new)}")
        return lines
    cards = old.rows[action.row]
    finished_round = len(new.history) > len(old.history)
    collection = (new.history[-1].collections if finished_round else new.collections)[seat]
    lines.append(f"  seat {seat} takes row {action.row} [{format_cards(cards)}]  ->  {collection}")
    if not finished_round:
        return lines
    record = new.history[-1]
    if record.removed:
        lines.append(f"  the row left over leaves the game: {format_cards(record.removed)}")
    lines.append(f"  round {record.round} over; draw pile {record.pile_left}")
    if not new.finished:
        # The last game's scoring is part of describe_end.
        if len(new.results) > len(old.results):
            lines += describe_game(new.results[-1], new.num_players)
        lines += _round_header(new)
    return lines


def describe_game(result: GameResult, players: int) -> list[str]:
    """The scoring of one finished game: each seat's colours, the joker choices and the points."""
    lines = [f"\nGame {result.game} scoring (started by seat {result.first})"]
    for seat in range(players):
        lines.append(f"  seat {seat}: {_score_line(result.scores[seat])}")
    return lines


def describe_end(state: State) -> list[str]:
    """The match result: the last game's scoring with the joker choices, the totals and the winners."""
    view = _GAME.public_view(state)
    outcome = _GAME.outcome(state)
    if outcome is None or not view.results:
        return ["\nThe match is not over."]
    lines = describe_game(view.results[-1], view.num_players)
    lines.append("\nResult")
    for seat in sorted(range(view.num_players), key=lambda s: (outcome.placings[s], s)):
        per_game = " + ".join(str(result.points[seat]) for result in view.results)
        breakdown = f"  ({per_game})" if len(view.results) > 1 else ""
        lines.append(f"  {outcome.placings[seat]}. seat {seat}  {outcome.scores[seat]:>3} points{breakdown}")
    lines.append(f"Winner(s): {', '.join(f'seat {s}' for s in sorted(outcome.winners))}")
    return lines


def _score_line(score: SeatScore) -> str:
    counts = dict(score.counts)
    plus = " ".join(f"{colour}x{counts[colour]}" for colour in score.positive)
    minus = " ".join(f"{colour}x{counts[colour]}" for colour in score.negative)
    jokers = f"; jokers to {format_cards(score.jokers)}" if score.jokers else ""
    parts = [f"+[{plus}]"]
    if minus:
        parts.append(f"-[{minus}]")
    if score.plus_twos:
        parts.append(f"+2 x{score.plus_twos}")
    return f"{score.score:>3} points  {'  '.join(parts)}{jokers}"


def _round_header(view: Observation) -> list[str]:
    game = f"Game {view.game}, round {view.round}" if view.games > 1 else f"Round {view.round}"
    return [f"\n{game}: seat {view.starter} starts (draw pile {view.pile_size})"]


def _rows(view: Observation) -> str:
    return "  ".join(
        f"{row}:[{format_cards(cards)}]"
        for row, (cards, taker) in enumerate(zip(view.rows, view.taken_by, strict=True))
        if taker is None
    )
