"""The one interface every game implements, and the values it trades in.

A game is a stateless rules object; a state is an immutable point of one match. Sequential and
simultaneous turns are the same call: :meth:`GameRules.to_move` returns the set of seats that must
act now (several seats = a simultaneous turn) and :meth:`GameRules.apply` takes one action per seat.

Pure rules: this package uses the standard library only (no asyncio, grpc, redis or prometheus).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

Seat = int
"""A seat index, 0-based, in ``range(num_players)``."""

S = TypeVar("S")
A = TypeVar("A")
V_co = TypeVar("V_co", covariant=True)


class Termination(enum.Enum):
    """Why a match ended: by the rules, or by the referee."""

    NORMAL = "normal"
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    DISCONNECTED = "disconnected"
    ABORTED = "aborted"


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match.

    ``placings[seat]`` is 1 for the winners, and a seat's placing is one more than the number of
    seats strictly ahead of it (competition ranking), so seats that tie share a placing and a shared
    win is several seats placed 1. ``forfeited`` seats are placed after every other seat.
    """

    termination: Termination
    scores: tuple[int, ...]
    placings: tuple[int, ...]
    forfeited: frozenset[Seat] = frozenset()

    @property
    def winners(self) -> frozenset[Seat]:
        """The seats placed first."""
        return frozenset(seat for seat, placing in enumerate(self.placings) if placing == 1)

    @classmethod
    def from_keys(
        cls,
        termination: Termination,
        scores: Sequence[int],
        keys: Sequence[tuple[int, ...]],
        forfeited: frozenset[Seat] = frozenset(),
    ) -> Outcome:
        """Place seats by descending sort key (score first, then tie-breaks); forfeits go last."""
        ranked = [((0 if seat in forfeited else 1,), *key) for seat, key in enumerate(keys)]
        placings = tuple(1 + sum(other > mine for other in ranked) for mine in ranked)
        return cls(termination, tuple(scores), placings, forfeited)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "termination": self.termination.value,
            "scores": list(self.scores),
            "placings": list(self.placings),
            "winners": sorted(self.winners),
            "forfeited": sorted(self.forfeited),
        }


class Action(Protocol):
    """An action is a value that prints in the game's notation; ``parse`` reads it back."""

    def __str__(self) -> str: ...

    def __hash__(self) -> int: ...


class Policy(Protocol):
    """Chooses an action for one seat from what that seat may see (a built-in bot, or a fallback)."""

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """One of ``legal_actions``."""
        ...


class GameRules(Protocol[S, A, V_co]):
    """The rules of one game. Implementations are stateless and their methods are pure."""

    @property
    def name(self) -> str:
        """The game's name (its key in ``arena.games.GAMES``), e.g. ``"5211"``."""
        ...

    @property
    def player_counts(self) -> range:
        """The supported numbers of players."""
        ...

    def initial_state(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[str] | None = None,
    ) -> S:
        """A new match: shuffled from ``seed``, or dealt from an explicit ``deck`` order."""
        ...

    def to_move(self, state: S) -> frozenset[Seat]:
        """The seats that must act now; empty once the match is over."""
        ...

    def legal_actions(self, state: S, seat: Seat) -> Sequence[A]:
        """Every distinct legal action of ``seat`` now (empty if it is not to move)."""
        ...

    def parse_action(self, text: str) -> A:
        """Read an action in the game's notation; raises ``InvalidActionError``."""
        ...

    def check_action(self, state: S, seat: Seat, action: object) -> A:
        """``action`` as a legal action of ``seat`` now; raises ``ActionError`` saying why not."""
        ...

    def apply(self, state: S, actions: Mapping[Seat, A]) -> S:
        """The state after the seats to move take ``actions`` (one each).

        Raises ``IllegalActionError`` naming the offending value; ``state`` is never changed.
        """
        ...

    def observe(self, state: S, seat: Seat) -> V_co:
        """Exactly what ``seat`` may know now."""
        ...

    def public_view(self, state: S) -> V_co:
        """What a spectator may know now: no hidden information of any seat."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The result, once the match is over; ``None`` before."""
        ...

    def describe_action(self, state: S, seat: Seat) -> str:
        """One line telling a bot what a legal action looks like now."""
        ...

    def round_result(self, view: Any) -> tuple[int, Any] | None:
        """The last scored round in a public view: its 1-based number over the match and its result.

        ``None`` before the first round is scored (and always, for a game without rounds). The referee
        reports a round to watchers when this number grows.
        """
        ...


def to_jsonable(value: Any) -> Any:
    """Turn observations, results and actions into plain JSON values.

    Dataclasses become dicts, tuples and sets lists, enums their value (int enums their
    lower-case name), and values that print in a
    game's notation (cards, actions: anything defining ``notation``) their text.

    Raises ``TypeError`` naming the type of a value it cannot convert.
    """
    if value is None or isinstance(value, (bool, str, float)):
        return value
    notation = getattr(value, "notation", None)
    if notation is not None:
        return str(value)
    if isinstance(value, enum.IntEnum):
        return value.name.lower()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, int):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")
