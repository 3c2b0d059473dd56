"""A readable text account of a 5211 match, turn by turn, for ``arena demo`` (the demo shows every hand).

Pure functions of the states: :func:`describe_start` gives the header and the first round's hands,
:func:`describe_turn` the reveal of one turn (and, when a round ends, its scoring and the next
round's hands), :func:`describe_end` the result. The hands make it a demo printer: a spectator's
replay must not use it.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.base import Seat
from arena.games.g5211.cards import Play, format_cards
from arena.games.g5211.rules import Game5211
from arena.games.g5211.scoring import ScoringKind
from arena.games.g5211.state import State

_GAME = Game5211()


def describe_start(state: State) -> list[str]:
    """The header of a match and the first round's hands."""
    return [f"5211, {state.num_players} players", *_round_header(state)]


def describe_turn(before: State, actions: Mapping[Seat, Play], after: State) -> list[str]:
    """One turn's reveal; at the end of a round its scoring and the next round's hands."""
    reveal = "   ".join(f"{seat}: {actions[seat]!s:<5}" for seat in sorted(actions))
    lines = [f"  turn {before.turn + 1} reveal  {reveal}"]
    if after.turn != 0 and not after.finished:
        return lines
    result = after.history[-1]
    if result.kind is ScoringKind.KODODO:
        how = "exactly the Kododo target: only Kododo cards score"
    elif result.kind is ScoringKind.COLOUR and result.colour is not None:
        how = f"{result.colour.name.lower()} wins the majority"
    else:
        how = "no colour wins: nobody scores"
    lines.append(f"  scoring: {how}")
    for seat in range(after.num_players):
        scored = format_cards(result.scored[seat]) or "-"
        lines.append(f"    seat {seat}  +{result.points[seat]:<2} {scored:<14} total {after.points()[seat]}")
    if not after.finished:
        lines += _round_header(after)
    return lines


def describe_end(state: State) -> list[str]:
    """The result: placings, points and score-pile cards, and the winners."""
    outcome = _GAME.outcome(state)
    if outcome is None:
        return ["\nThe match is not over."]
    lines = ["\nResult"]
    for seat in sorted(range(state.num_players), key=lambda s: (outcome.placings[s], s)):
        lines.append(
            f"  {outcome.placings[seat]}. seat {seat}  {outcome.scores[seat]:>3} points, "
            f"{state.score_pile_cards()[seat]} cards"
        )
    lines.append(f"Winner(s): {', '.join(f'seat {s}' for s in sorted(outcome.winners))}")
    return lines


def _round_header(state: State) -> list[str]:
    lines = [f"\nRound {state.round} (draw pile {len(state.draw_pile)})"]
    lines += [f"  seat {seat}  hand {format_cards(hand)}" for seat, hand in enumerate(state.hands)]
    return lines
