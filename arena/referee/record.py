"""Match records: everything needed to replay a match exactly, and the replay itself (:func:`replay_states`)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from arena.errors import IllegalActionError, StoredDataError, echo
from arena.games.base import Outcome, Seat, Termination
from arena.games.lookup import get_game
from arena.referee.timecontrol import TimeControl


class Fault(enum.StrEnum):
    """Why the referee played the fallback action for a seat; the text is the record's (and the
    ``fault`` label of the metrics)."""

    TIMEOUT = "timeout"
    """No answer in time (a strike)."""
    INVALID = "invalid"
    """The answer does not parse (a strike)."""
    ILLEGAL = "illegal"
    """The answer parses but is not legal now (a strike)."""
    DISCONNECTED = "disconnected"
    """The seat's bot was away (no strike), or is gone for good."""
    FORFEITED = "forfeited"
    """The seat was forfeited earlier in the match: the fallback plays it to the end."""

    @property
    def is_strike(self) -> bool:
        """Whether the seat's bot is struck for it (its answer was late, unparseable or illegal)."""
        return self in (Fault.TIMEOUT, Fault.INVALID, Fault.ILLEGAL)

    @classmethod
    def parse(cls, text: str) -> Fault | None:
        """A fault from its stored text (empty: none, the bot's own answer was played); raises
        ``StoredDataError`` naming a text that is no fault."""
        if not text:
            return None
        try:
            return cls(text)
        except ValueError:
            raise StoredDataError(f"unknown fault {echo(str(text))}: one of {[f.value for f in cls]}") from None


def _turn(data: Mapping[str, Any]) -> int:
    """A stored decision's or rejection's turn (records stored before the rename say ``step``)."""
    return int(data["turn"] if "turn" in data else data["step"])


@dataclasses.dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One seat's action in one turn, as played (a fallback if the bot's answer was not used)."""

    turn: int
    """The turn's index over the whole match, 0-based (the wire's ``turn_index``)."""
    seat: Seat
    action: str
    elapsed: float
    """Seconds from request to answer (the full wait, for a timeout)."""
    fallback: Fault | None = None
    """Why the fallback policy played this action; None when the bot's own answer was played."""
    sequence: int = 0
    """The request's sequence number (0 when no request was sent: a forfeited seat)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``dataclasses.asdict``'s, built directly: a record holds one per decision)."""
        return {
            "turn": self.turn,
            "seat": self.seat,
            "action": self.action,
            "elapsed": self.elapsed,
            "fallback": self.fallback.value if self.fallback is not None else "",
            "sequence": self.sequence,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DecisionRecord:
        """Read :meth:`to_dict`'s form back (raises ``StoredDataError`` for an unknown fault)."""
        return cls(
            turn=_turn(data),
            seat=int(data["seat"]),
            action=str(data["action"]),
            elapsed=float(data["elapsed"]),
            fallback=Fault.parse(data.get("fallback", "")),
            sequence=int(data.get("sequence", 0)),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class RejectionRecord:
    """An answer the referee did not use."""

    turn: int
    seat: Seat
    sequence: int
    answer: str
    """What the bot sent (truncated); empty for a timeout."""
    reason: str
    fault: Fault
    """A strike: ``TIMEOUT``, ``INVALID`` or ``ILLEGAL``."""
    fallback: str = ""
    """The action played instead."""
    strikes: int = 0
    """The seat's strikes, this one included."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return dataclasses.asdict(self) | {"fault": self.fault.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RejectionRecord:
        """Read :meth:`to_dict`'s form back (raises ``StoredDataError`` for a missing or unknown fault)."""
        fault = Fault.parse(data.get("fault", ""))
        if fault is None:
            raise StoredDataError(
                f"rejection at turn {data.get('turn', data.get('step'))} of seat {data.get('seat')} has no fault"
            )
        return cls(
            turn=_turn(data),
            seat=int(data["seat"]),
            sequence=int(data["sequence"]),
            answer=str(data["answer"]),
            reason=str(data["reason"]),
            fault=fault,
            fallback=str(data.get("fallback", "")),
            strikes=int(data.get("strikes", 0)),
        )


@dataclasses.dataclass(slots=True)
class MatchRecord:
    """The full record of one match; ``replay`` reproduces its outcome from it."""

    match_id: str
    game: str
    bot_names: tuple[str, ...]
    """The bots in seat order."""
    seed: int
    options: dict[str, Any]
    deck: tuple[str, ...] | None
    time_control: TimeControl
    turns: list[tuple[DecisionRecord, ...]] = dataclasses.field(default_factory=list)
    """The decisions of each turn played, in order."""
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
            "bot_names": list(self.bot_names),
            "seed": self.seed,
            "options": self.options,
            "deck": list(self.deck) if self.deck is not None else None,
            "time_control": self.time_control.to_dict(),
            "turns": [[d.to_dict() for d in turn] for turn in self.turns],
            "rejections": [r.to_dict() for r in self.rejections],
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
            bot_names=tuple(data["bot_names" if "bot_names" in data else "players"]),
            seed=int(data["seed"]),
            options=dict(data.get("options") or {}),
            deck=tuple(data["deck"]) if data.get("deck") is not None else None,
            time_control=TimeControl.from_dict(data["time_control"]),
            turns=[
                tuple(DecisionRecord.from_dict(d) for d in turn)
                for turn in data["turns" if "turns" in data else "steps"]
            ],
            rejections=[RejectionRecord.from_dict(r) for r in data.get("rejections", [])],
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


def replay_states(
    game: str,
    num_players: int,
    seed: int,
    options: Mapping[str, Any],
    deck: Sequence[str] | None,
    turns: Iterable[Mapping[Seat, str]],
) -> Iterator[Any]:
    """Every state of a recorded match: the initial one, then one after each turn's actions (one
    ``{seat: action text}`` per turn, in order), played through the rules. The one replay of a record,
    whether the referee's (:func:`final_state`) or the wire's (``arena.wire.record``).

    Raises ``UnknownGameError`` or ``GameSetupError`` if the match cannot be set up, and an
    ``ActionError`` (``IllegalActionError`` when a turn's seats are not the seats to move) if a turn
    does not replay; the states yielded before stay valid.
    """
    rules = get_game(game)
    state = rules.initial_state(num_players, seed, options, deck)
    yield state
    for index, texts in enumerate(turns):
        expected = rules.to_move(state)
        if set(texts) != expected:
            raise IllegalActionError(
                f"turn {index} has actions for seats {sorted(texts)}, but seats {sorted(expected)} are to move"
            )
        state = rules.apply(state, {seat: rules.parse_action(text) for seat, text in texts.items()})
        yield state


def final_state(record: MatchRecord) -> Any:
    """The last state of the recorded match, rebuilt by playing its actions through the rules
    (raises as :func:`replay_states`)."""
    turns = ({d.seat: d.action for d in turn} for turn in record.turns)
    state = None
    for state in replay_states(record.game, len(record.bot_names), record.seed, record.options, record.deck, turns):  # noqa: B007
        pass
    return state
