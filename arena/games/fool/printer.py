"""A readable text record of a FOOL! match, for ``arena demo --game fool`` and replays.

Pure functions from the engine's values to lines of text: each trick with its cards in play order,
who sat it out, its lead colour, winner and Fool(s); each round's revealed hands and scores; the
result. Everything printed is public once the round is scored; nothing shows a hand before that.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import Outcome
from arena.games.fool.cards import format_cards
from arena.games.fool.scoring import RoundResult
from arena.games.fool.state import State
from arena.games.fool.trick import Trick


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


def format_match(state: State, names: Sequence[str] | None = None, outcome: Outcome | None = None) -> str:
    """Every scored round of ``state``'s match and, once it is over, the result (pass ``outcome``)."""
    labels = seat_names(state.num_players, names)
    setup = state.setup
    fools = "two Fools" if setup.fools_per_trick == 2 else "one Fool"
    lines = [
        f"FOOL!, {setup.num_players} players, {len(setup.cards_in_play)} cards in play, "
        f"{setup.hand_size} a hand, {fools} a trick, a wild left costs {setup.wild_penalty}"
    ]
    for result in state.history:
        lines.append("")
        lines += format_round(result, labels)
    if outcome is not None:
        lines.append("")
        lines += format_result(outcome, labels)
    return "\n".join(lines) + "\n"
