"""Check the 5211 engine against the shared conformance case files (``arena conformance 5211 FILE...``).

Two file formats exist, both described in ``docs/conformance.md`` and in each file's ``format`` key:

- round-scoring files: cases with ``played`` (the four cards each seat laid in one round) and the
  expected ``scoring`` cards and ``points`` per seat;
- playthrough files: cases with a 100-card ``deck`` order and every turn's ``actions``, and the
  expected per-round scoring, final points, score-pile card counts, winners and number of rounds.

Playthroughs are replayed through the public game interface only (``initial_state`` with the deck,
``parse_action``, ``check_action``, ``apply``, ``public_view``, ``outcome``). The entry point for
the catalogue is :func:`check_file`; ``arena.cli.conformance`` reads the files and prints. Standard
library only.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from arena.errors import ActionError, GameSetupError, InvalidActionError, MalformedCaseFileError
from arena.games.base import GameRules
from arena.games.casefile import as_list, field, is_int
from arena.games.g5211.cards import Card
from arena.games.g5211.rules import Game5211
from arena.games.g5211.scoring import score_round

RULES: Final = Game5211()

CARDS_PER_SEAT_PER_ROUND: Final = 4
"""Every seat lays 2 + 1 + 1 cards in a round."""
DECK_SIZE: Final = 100


@dataclasses.dataclass(frozen=True, slots=True)
class ScoringCase:
    """One round-scoring case: what each seat laid, and what each seat should score."""

    case_id: str
    players: int
    played: tuple[tuple[str, ...], ...]
    scoring: tuple[tuple[str, ...], ...]
    points: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class PlaythroughCase:
    """One whole game: a deck order, every turn's actions, and the expected results."""

    case_id: str
    players: int
    deck: tuple[str, ...]
    actions: tuple[tuple[tuple[str, ...], ...], ...]
    round_scoring: tuple[tuple[tuple[str, ...], ...], ...]
    points: tuple[int, ...]
    score_pile_cards: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int


Case = ScoringCase | PlaythroughCase


def check_file(document: Any) -> list[str]:
    """Every mismatch of the cases in one parsed case file, one line each starting ``"<case id>: "``.

    Empty when every case matches; raises ``MalformedCaseFileError`` (before checking any case) when the
    document follows neither format.
    """
    problems: list[str] = []
    for case in parse_cases(document, RULES.player_counts):
        problems += [f"{case.case_id}: {problem}" for problem in check_case(RULES, case)]
    return problems


# -- loading ----------------------------------------------------------------------------------------


def parse_cases(document: Any, player_counts: range) -> list[Case]:
    """Validate one parsed case file's structure and read its cases; raises ``MalformedCaseFileError``."""
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        raise MalformedCaseFileError('expected a JSON object with a "cases" list')
    cases: list[Case] = []
    seen: set[str] = set()
    for index, raw in enumerate(document["cases"]):
        if not isinstance(raw, dict):
            raise MalformedCaseFileError(f"case #{index} is not a JSON object")
        case_id = raw.get("id", f"#{index}")
        if not isinstance(case_id, str) or not case_id:
            raise MalformedCaseFileError(f'case #{index}: "id" must be a non-empty string')
        if case_id in seen:
            raise MalformedCaseFileError(f"case id {case_id!r} appears twice")
        seen.add(case_id)
        try:
            cases.append(_parse_case(raw, case_id, player_counts))
        except MalformedCaseFileError as error:
            raise MalformedCaseFileError(f"case {case_id}: {error}") from None
    return cases


def _parse_case(raw: dict[str, Any], case_id: str, player_counts: range) -> Case:
    players = field(raw, "players")
    if not is_int(players) or players not in player_counts:
        raise MalformedCaseFileError(
            f'"players" must be an integer from {player_counts.start} to {player_counts.stop - 1}, not {players!r}'
        )
    if "played" in raw:
        return ScoringCase(
            case_id=case_id,
            players=players,
            played=_seat_cards(raw, "played", players, exact=CARDS_PER_SEAT_PER_ROUND),
            scoring=_seat_cards(raw, "scoring", players),
            points=_ints(raw, "points", players),
        )
    if "deck" in raw or "actions" in raw:
        deck = _cards(field(raw, "deck"), '"deck"')
        if len(deck) != DECK_SIZE:
            raise MalformedCaseFileError(f'"deck" must list {DECK_SIZE} cards, not {len(deck)}')
        turns = as_list(field(raw, "actions"), '"actions"')
        actions = tuple(_per_seat(turn, players, f'"actions" turn {n}') for n, turn in enumerate(turns, 1))
        rounds_raw = as_list(field(raw, "round_scoring"), '"round_scoring"')
        round_scoring = tuple(
            _per_seat(scored, players, f'"round_scoring" round {n}') for n, scored in enumerate(rounds_raw, 1)
        )
        rounds = field(raw, "rounds")
        if not is_int(rounds) or rounds < 1:
            raise MalformedCaseFileError(f'"rounds" must be a positive integer, not {rounds!r}')
        winners = _ints(raw, "winners", None)
        if not winners or any(not 0 <= seat < players for seat in winners):
            raise MalformedCaseFileError(f'"winners" must list seats from 0 to {players - 1}, not {list(winners)}')
        return PlaythroughCase(
            case_id=case_id,
            players=players,
            deck=deck,
            actions=actions,
            round_scoring=round_scoring,
            points=_ints(raw, "points", players),
            score_pile_cards=_ints(raw, "score_pile_cards", players),
            winners=tuple(sorted(winners)),
            rounds=rounds,
        )
    raise MalformedCaseFileError('neither a round-scoring case ("played") nor a playthrough ("deck", "actions")')


def _cards(value: object, what: str) -> tuple[str, ...]:
    """A list of card texts, in canonical notation; raises ``MalformedCaseFileError`` on a bad card."""
    cards = []
    for text in as_list(value, what):
        if not isinstance(text, str):
            raise MalformedCaseFileError(f"{what}: a card must be a string like 'G3', not {text!r}")
        try:
            cards.append(str(Card.parse(text)))
        except InvalidActionError:
            raise MalformedCaseFileError(f"{what}: {text!r} is not a 5211 card (like 'G3')") from None
    return tuple(cards)


def _per_seat(value: object, players: int, what: str, exact: int | None = None) -> tuple[tuple[str, ...], ...]:
    seats = as_list(value, what)
    if len(seats) != players:
        raise MalformedCaseFileError(f"{what} must have one list per seat ({players}), not {len(seats)}")
    result = tuple(_cards(cards, f"{what} seat {seat}") for seat, cards in enumerate(seats))
    if exact is not None:
        for seat, cards in enumerate(result):
            if len(cards) != exact:
                raise MalformedCaseFileError(f"{what} seat {seat} must have {exact} cards, not {len(cards)}")
    return result


def _seat_cards(raw: dict[str, Any], key: str, players: int, exact: int | None = None) -> tuple[tuple[str, ...], ...]:
    return _per_seat(field(raw, key), players, f'"{key}"', exact)


def _ints(raw: dict[str, Any], key: str, length: int | None) -> tuple[int, ...]:
    values = as_list(field(raw, key), f'"{key}"')
    if not all(is_int(v) for v in values) or (length is not None and len(values) != length):
        size = f"{length} " if length is not None else ""
        raise MalformedCaseFileError(f'"{key}" must be a list of {size}integers, not {values!r}')
    return tuple(values)


# -- checking ---------------------------------------------------------------------------------------


def check_case(rules: GameRules[Any, Any, Any], case: Case) -> list[str]:
    """Every way the engine disagrees with ``case``; empty when it matches."""
    try:
        if isinstance(case, ScoringCase):
            return _check_scoring(case)
        return _check_playthrough(rules, case)
    except Exception as error:  # an engine crash is a finding to report, not a reason to stop
        return [f"engine raised {type(error).__name__}: {error}"]


def _check_scoring(case: ScoringCase) -> list[str]:
    laid = [[Card.parse(text) for text in cards] for cards in case.played]
    result = score_round(case.players, laid)
    problems = _compare_seat_cards("scoring", case.scoring, result.scored)
    problems += _compare_values("points", case.points, result.points)
    return problems


def _check_playthrough(rules: GameRules[Any, Any, Any], case: PlaythroughCase) -> list[str]:
    try:
        state = rules.initial_state(case.players, 0, deck=list(case.deck))
    except GameSetupError as error:
        return [f"engine rejected the deck: {error}"]
    problems: list[str] = []
    for turn_number, turn in enumerate(case.actions, 1):
        to_move = rules.to_move(state)
        if not to_move:
            problems.append(f"the game ended after turn {turn_number - 1}, but the case has {len(case.actions)}")
            break
        try:
            actions = {
                seat: rules.check_action(state, seat, rules.parse_action(" ".join(turn[seat])))
                for seat in sorted(to_move)
            }
            state = rules.apply(state, actions)
        except ActionError as error:
            problems.append(f"turn {turn_number}: engine rejected an action: {error}")
            return problems
    view = rules.public_view(state)
    history = view.history
    if len(history) != case.rounds:
        problems.append(f"rounds: expected {case.rounds}, engine played {len(history)}")
    if len(case.round_scoring) != len(history):
        problems.append(f"round_scoring lists {len(case.round_scoring)} rounds, engine scored {len(history)}")
    for number, (expected, result) in enumerate(zip(case.round_scoring, history, strict=False), 1):
        problems += _compare_seat_cards(f"round {number} scoring", expected, result.scored)
    outcome = rules.outcome(state)
    if outcome is None:
        problems.append(f"the game is not over after all {len(case.actions)} turns")
        return problems
    problems += _compare_values("points", case.points, outcome.scores)
    problems += _compare_values("score_pile_cards", case.score_pile_cards, view.score_pile_cards)
    winners = tuple(sorted(outcome.winners))
    if winners != case.winners:
        problems.append(f"winners: expected {list(case.winners)}, engine {list(winners)}")
    return problems


def _compare_seat_cards(what: str, expected: Sequence[Sequence[str]], actual: Sequence[Sequence[Card]]) -> list[str]:
    """Compare per-seat cards as multisets (order does not matter)."""
    problems = []
    for seat, (want, got) in enumerate(zip(expected, actual, strict=True)):
        got_text = [str(card) for card in got]
        if Counter(want) != Counter(got_text):
            problems.append(f"seat {seat} {what}: expected [{_sorted(want)}], engine [{_sorted(got_text)}]")
    return problems


def _compare_values(what: str, expected: Sequence[int], actual: Sequence[int]) -> list[str]:
    problems = []
    for seat, (want, got) in enumerate(zip(expected, actual, strict=True)):
        if want != got:
            problems.append(f"seat {seat} {what}: expected {want}, engine {got}")
    return problems


def _sorted(cards: Sequence[str]) -> str:
    return " ".join(sorted(cards, key=lambda text: int(Card.parse(text))))
