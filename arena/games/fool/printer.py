"""A readable text record of a FOOL! match, for ``arena demo --game fool`` and replays.

Pure functions from the engine's values to lines of text: each trick with its cards in play order,
who sat it out, its lead colour, winner and Fool(s); each round's revealed hands and scores; the
result. Everything printed is public once the round is scored; nothing shows a hand before that:
:func:`describe_start`, :func:`describe_turn` and :func:`describe_end` (the catalogue's printer)
read public views only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.base import Outcome, Seat
from arena.games.fool.cards import Card, format_cards
from arena.games.fool.rules import GameFool
from arena.games.fool.scoring import RoundResult
from arena.games.fool.state import Observation, State
from arena.games.fool.trick import Trick

_GAME = GameFool()


def seat_names(num_players: int, names: Sequence[str] | None = None) -> list[str]:
    """``"seat 0 (name)"`` labels, or plain ``"seat 0"`` without names."""
    if names is None:
        return [f"seat {seat}" for seat in range(num_players)]
    return [f"seat {seat} ({name})" for seat, name in enumerate(names)]


def format_trick(number: int, trick: Trick, names: Sequence[str]) -> str:
    """One line: the cards in play order, the sit-outs, the lead colour, the winner and Fool(s)."""
    cards = "  ".join(f"{play.seat}:{play.card!s:<3}" for play in trick.plays)
    colour = trick.lead_colour.name.lower() if trick.lead_colour is not None else "only wilds"
    fools = ", ".join(names[seat] for seat in trick.fools)
    label = "Fools" if len(trick.fools) > 1 else "Fool"
    line = f"  trick {number:>2}  {cards}  | {colour}: {names[trick.winner]} wins, {label} {fools}"
    if trick.sat_out:
        line += f"  (sat out: {', '.join(str(seat) for seat in trick.sat_out)})"
    return line


def format_round(result: RoundResult, names: Sequence[str]) -> list[str]:
    """A scored round: its tricks, then each seat's revealed hand, score and total."""
    lines = [f"Round {result.round} (dealer {names[result.dealer]})"]
    lines += [format_trick(number, trick, names) for number, trick in enumerate(result.tricks, 1)]
    width = max(len(name) for name in names)
    lines.append("  scoring (hands shown):")
    for seat, name in enumerate(names):
        hand = format_cards(result.left_in_hand[seat]) or "-"
        score = result.scores[seat]
        lines.append(
            f"    {name:<{width}}  left {hand:<20} {score:+4d}  total {result.totals[seat]:>4}  "
            f"+10 rounds {result.tens[seat]}"
        )
    return lines


def format_result(outcome: Outcome, names: Sequence[str]) -> list[str]:
    """The placings, best first, and the winner(s)."""
    width = max(len(name) for name in names)
    lines = ["Result"]
    for seat in sorted(range(len(names)), key=lambda s: (outcome.placings[s], s)):
        lines.append(f"  {outcome.placings[seat]}. {names[seat]:<{width}}  {outcome.scores[seat]:>4} points")
    lines.append(f"Winner(s): {', '.join(names[s] for s in sorted(outcome.winners))}")
    return lines


def _header(view: Observation) -> str:
    fools = "two Fools" if view.fools_per_trick == 2 else "one Fool"
    return (
        f"FOOL!, {view.num_players} players, {len(view.cards_in_play)} cards in play, "
        f"{view.hand_size} a hand, {fools} a trick, a wild left costs {view.wild_penalty}"
    )


def _round_header(view: Observation, names: Sequence[str]) -> str:
    return f"Round {view.round} (dealer {names[view.dealer]}; {names[view.leader]} leads)"


def describe_start(state: State) -> list[str]:
    """The header of a match: players, cards in play, Fools a trick, and the first round's dealer."""
    view = _GAME.public_view(state)
    names = seat_names(view.num_players)
    return [_header(view), "", _round_header(view, names)]


def describe_turn(before: State, actions: Mapping[Seat, Card], after: State) -> list[str]:
    """Nothing while a trick is being played; the trick's line once it is complete, and the round's
    scoring (the hands shown) once that trick ended the round."""
    old, new = _GAME.public_view(before), _GAME.public_view(after)
    names = seat_names(new.num_players)
    if len(new.rounds) > len(old.rounds):
        result = new.last_round
        assert result is not None
        lines = [
            format_trick(len(result.tricks), result.tricks[-1], names),
            *format_round(result, names)[-1 - new.num_players :],
        ]
        if not new.finished:
            lines += ["", _round_header(new, names)]
        return lines
    if len(new.tricks) > len(old.tricks):
        return [format_trick(len(new.tricks), new.tricks[-1], names)]
    return []


def describe_end(state: State) -> list[str]:
    """The result: placings, points and the winner(s)."""
    outcome = _GAME.outcome(state)
    if outcome is None:
        return ["", "The match is not over."]
    return ["", *format_result(outcome, seat_names(state.num_players))]
