"""Match records: everything needed to replay a match exactly, and the replay itself."""

from __future__ import annotations

import dataclasses
from typing import Any

from arena.games.base import Outcome, Seat, Termination
from arena.games.registry import get_game
from arena.referee.timecontrol import TimeControl


@dataclasses.dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One seat's action in one step, as played (a fallback if the bot's answer was not used)."""

    step: int
    seat: Seat
    action: str
    elapsed: float
    """Seconds from request to answer (the full wait, for a timeout)."""
    fallback: str = ""
    """Why the fallback policy played this action ("timeout", "illegal", "invalid", "forfeited",
    "disconnected"); empty when the bot's own answer was played."""
    sequence: int = 0
    """The request's sequence number (0 when no request was sent: a forfeited seat)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``dataclasses.asdict``'s, built directly: a record holds one per decision)."""
        return {
            "step": self.step,
            "seat": self.seat,
            "action": self.action,
            "elapsed": self.elapsed,
            "fallback": self.fallback,
            "sequence": self.sequence,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class RejectionRecord:
    """An answer the referee did not use."""

    step: int
    seat: Seat
    sequence: int
    answer: str
    """What the bot sent (truncated); empty for a timeout."""
    reason: str
    fault: str = ""
    """"timeout", "invalid" or "illegal"."""
    fallback: str = ""
    """The action played instead."""
    strikes: int = 0
    """The seat's strikes, this one included."""


@dataclasses.dataclass(slots=True)
class MatchRecord:
    """The full record of one match; ``replay`` reproduces its outcome from it."""

    match_id: str
    game: str
    players: tuple[str, ...]
    seed: int
    options: dict[str, Any]
    deck: tuple[str, ...] | None
    time_control: TimeControl
    steps: list[tuple[DecisionRecord, ...]] = dataclasses.field(default_factory=list)
    rejections: list[RejectionRecord] = dataclasses.field(default_factory=list)
    strikes: list[int] = dataclasses.field(default_factory=list)
    forfeits: dict[Seat, Termination] = dataclasses.field(default_factory=dict)
    """Forfeited seats and why."""
    outcome: Outcome | None = None
    started_at: float = 0.0
    ended_at: float = 0.0

    @property
    def termination(self) -> Termination | None:
        """How the match ended (``None`` while it runs)."""
        return self.outcome.termination if self.outcome else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (never pickle)."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "players": list(self.players),
            "seed": self.seed,
            "options": self.options,
            "deck": list(self.deck) if self.deck is not None else None,
            "time_control": self.time_control.to_dict(),
            "steps": [[d.to_dict() for d in step] for step in self.steps],
            "rejections": [dataclasses.asdict(r) for r in self.rejections],
            "strikes": list(self.strikes),
            "forfeits": {str(seat): why.value for seat, why in self.forfeits.items()},
            "outcome": self.outcome.to_dict() if self.outcome else None,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        """Read the JSON form back."""
        outcome = data.get("outcome")
        return cls(
            match_id=data["match_id"],
            game=data["game"],
            players=tuple(data["players"]),
            seed=int(data["seed"]),
            options=dict(data.get("options") or {}),
            deck=tuple(data["deck"]) if data.get("deck") is not None else None,
            time_control=TimeControl.from_dict(data["time_control"]),
            steps=[tuple(DecisionRecord(**d) for d in step) for step in data["steps"]],
            rejections=[RejectionRecord(**r) for r in data.get("rejections", [])],
            strikes=list(data.get("strikes", [])),
            forfeits={int(seat): Termination(why) for seat, why in data.get("forfeits", {}).items()},
            outcome=outcome_from_dict(outcome) if outcome else None,
            started_at=float(data.get("started_at", 0.0)),
            ended_at=float(data.get("ended_at", 0.0)),
        )


def outcome_from_dict(data: dict[str, Any]) -> Outcome:
    """Read ``Outcome.to_dict`` back."""
    return Outcome(
        termination=Termination(data["termination"]),
        scores=tuple(data["scores"]),
        placings=tuple(data["placings"]),
        forfeited=frozenset(data.get("forfeited", ())),
    )


def final_outcome(game_outcome: Outcome, forfeits: dict[Seat, Termination]) -> Outcome:
    """The rules' outcome with forfeited seats placed last and the first forfeit's cause as termination."""
    if not forfeits:
        return game_outcome
    keys = [(placing_key,) for placing_key in (-p for p in game_outcome.placings)]
    forfeited = frozenset(forfeits)
    termination = forfeits[next(iter(forfeits))]
    return Outcome.from_keys(termination, game_outcome.scores, keys, forfeited)


def final_state(record: MatchRecord) -> Any:
    """The last state of the recorded match, rebuilt by playing its actions through the rules."""
    game = get_game(record.game)
    state = game.initial_state(len(record.players), record.seed, record.options, record.deck)
    for step in record.steps:
        state = game.apply(state, {d.seat: game.parse_action(d.action) for d in step})
    return state


def replay(record: MatchRecord) -> Outcome:
    """Play the recorded actions through the rules again and return the outcome they give."""
    outcome = get_game(record.game).outcome(final_state(record))
    if outcome is None:
        # The match was aborted before the rules ended it.
        return Outcome(Termination.ABORTED, (), (), frozenset(record.forfeits))
    return final_outcome(outcome, record.forfeits)
