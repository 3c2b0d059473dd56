"""Check the FOOL! engine against the shared conformance case files (shared/conformance/fool/).

Entry point for the per-game conformance catalogue: ``check_file(data)`` with the parsed JSON of
one case file returns one line per mismatching case (empty when all match) and raises
``MalformedCaseFileError`` (one line, naming the case) when the file does not follow a format.
Exit status is the catalogue's business. Three case formats exist, each described in its file's ``format`` key
and recognised per case by its keys:

- whole games (``deals``): replayed through the public interface only (``initial_state`` with
  option ``first_dealer`` and the deals as the ``deck``, ``to_move``, ``legal_actions``,
  ``parse_action``, ``check_action``, ``apply``, ``public_view``, ``outcome``), checking every
  play's legal set and every trick's and round's checkpoints;
- trick resolution (``plays``, ``fools_per_trick``): lead colour, winner and Fools;
- legal plays (``trick_so_far``, ``hand``): the distinct cards the hand may play.

A mismatch line names the case id and the first differing field; a case stops at its first
mismatch, since everything after it would differ too. Standard library only.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any

from arena.errors import ActionError, GameSetupError, InvalidActionError, MalformedCaseFileError
from arena.games.casefile import as_list, field, is_int
from arena.games.fool.cards import PLAYER_COUNTS, Card
from arena.games.fool.rules import GameFool, deck_from_deals
from arena.games.fool.trick import Play, lead_colour, legal_cards, resolve

GAME = GameFool()


class _MismatchError(Exception):
    """The first way a case differs from the engine (internal: ends the case)."""


@dataclasses.dataclass(frozen=True, slots=True)
class TrickCheckpoint:
    """One expected trick of a whole game."""

    leader: int
    plays: tuple[tuple[int, str], ...]
    legal: tuple[frozenset[str], ...]
    lead_colour: str | None
    winner: int
    fools: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RoundCheckpoint:
    """One expected round of a whole game."""

    round: int
    dealer: int
    tricks: tuple[TrickCheckpoint, ...]
    left_in_hand: tuple[tuple[str, ...], ...]
    round_scores: tuple[int, ...]
    totals: tuple[int, ...]
    tens: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class GameCase:
    """A whole game: the set-up, every round, and the final result."""

    case_id: str
    players: int
    options: dict[str, Any]
    first_dealer: int
    cards_in_play: tuple[str, ...]
    deals: tuple[tuple[str, ...], ...]
    rounds: tuple[RoundCheckpoint, ...]
    scores: tuple[int, ...]
    tens: tuple[int, ...]
    winners: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class TrickCase:
    """One trick to resolve."""

    case_id: str
    players: int
    fools_per_trick: int
    plays: tuple[tuple[int, str], ...]
    lead_colour: str | None
    winner: int
    fools: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class LegalCase:
    """One hand facing one trick so far."""

    case_id: str
    players: int
    trick_so_far: tuple[str, ...]
    hand: tuple[str, ...]
    legal: frozenset[str]


Case = GameCase | TrickCase | LegalCase


# -- entry points -----------------------------------------------------------------------------------


def check_file(data: object) -> list[str]:
    """One line per case that disagrees with the engine (``"<id>: <first differing field>"``)."""
    return [problem for case in load_cases(data) if (problem := check_case(case)) is not None]


def check_case(case: Case) -> str | None:
    """The first way the engine disagrees with ``case``, as one line; None when it matches."""
    try:
        if isinstance(case, GameCase):
            _check_game(case)
        elif isinstance(case, TrickCase):
            _check_trick(case)
        else:
            _check_legal(case)
    except _MismatchError as mismatch:
        return f"{case.case_id}: {mismatch}"
    except Exception as error:  # an engine crash is a finding to report, not a reason to stop
        return f"{case.case_id}: engine raised {type(error).__name__}: {error}"
    return None


# -- checking ---------------------------------------------------------------------------------------


def _expect(what: str, expected: object, actual: object) -> None:
    if expected != actual:
        raise _MismatchError(f"{what}: expected {_show(expected)}, engine {_show(actual)}")


def _show(value: object) -> str:
    if isinstance(value, frozenset) and all(isinstance(v, str) for v in value):
        return "{" + ", ".join(sorted(value, key=lambda t: int(Card.parse(t)))) + "}"
    if isinstance(value, frozenset):
        return _show(tuple(sorted(value)))
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return json.dumps(value)


def _check_legal(case: LegalCase) -> None:
    hand = tuple(sorted(Card.parse(t) for t in case.hand))
    lead = lead_colour([Card.parse(t) for t in case.trick_so_far])
    _expect("legal", case.legal, frozenset(str(c) for c in legal_cards(hand, lead)))


def _check_trick(case: TrickCase) -> None:
    plays = [Play(seat, Card.parse(text)) for seat, text in case.plays]
    lead, winner, fools = resolve(plays, case.fools_per_trick)
    _expect("lead_colour", case.lead_colour, lead.letter if lead is not None else None)
    _expect("winner", case.winner, winner)
    _expect("fools", case.fools, fools)


def _check_game(case: GameCase) -> None:
    options = {**case.options, "first_dealer": case.first_dealer}
    try:
        state = GAME.initial_state(case.players, 0, options, deck_from_deals(case.deals))
    except GameSetupError as error:
        raise _MismatchError(f"engine rejected the set-up: {error}") from None
    view = GAME.public_view(state)
    _expect("cards_in_play", Counter(case.cards_in_play), Counter(map(str, view.cards_in_play)))
    for expected in case.rounds:
        where = f"round {expected.round}"
        view = GAME.public_view(state)
        if view.finished:
            raise _MismatchError(f"{where}: the engine's game ended after round {view.round}")
        _expect(f"{where} round", expected.round, view.round)
        _expect(f"{where} dealer", expected.dealer, view.dealer)
        for number, trick in enumerate(expected.tricks, 1):
            at = f"{where} trick {number}"
            _expect(f"{at} leader", trick.leader, GAME.public_view(state).leader)
            for index, ((seat, text), legal) in enumerate(zip(trick.plays, trick.legal, strict=True), 1):
                _expect(f"{at} play {index} seat to move", frozenset({seat}), GAME.to_move(state))
                _expect(f"{at} play {index} legal", legal, frozenset(map(str, GAME.legal_actions(state, seat))))
                try:
                    state = GAME.apply(state, {seat: GAME.check_action(state, seat, GAME.parse_action(text))})
                except ActionError as error:
                    raise _MismatchError(f"{at} play {index}: engine rejected {text}: {error}") from None
            view = GAME.public_view(state)
            got = view.last_trick
            over = bool(view.rounds) and view.rounds[-1].round == expected.round
            if got is None or (not over and len(view.tricks) != number):
                raise _MismatchError(f"{at}: the engine's trick is not complete after its {len(trick.plays)} plays")
            if over != (number == len(expected.tricks)):
                ended = "ended" if over else "did not end"
                raise _MismatchError(
                    f"{where} tricks: expected {len(expected.tricks)}, the engine's round {ended} after {number}"
                )
            _expect(f"{at} lead_colour", trick.lead_colour, got.lead_colour.letter if got.lead_colour else None)
            _expect(f"{at} winner", trick.winner, got.winner)
            _expect(f"{at} fools", trick.fools, got.fools)
        view = GAME.public_view(state)
        if not view.rounds or view.rounds[-1].round != expected.round:
            raise _MismatchError(f"{where}: the engine's round is not over after its {len(expected.tricks)} tricks")
        result = view.rounds[-1]
        left = tuple(tuple(sorted(map(str, h), key=lambda t: int(Card.parse(t)))) for h in result.left_in_hand)
        _expect(f"{where} left_in_hand", expected.left_in_hand, left)
        _expect(f"{where} round_scores", expected.round_scores, result.scores)
        _expect(f"{where} totals", expected.totals, result.totals)
        _expect(f"{where} tens", expected.tens, result.tens)
    outcome = GAME.outcome(state)
    if outcome is None:
        raise _MismatchError(f"final: the engine's game is not over after round {len(case.rounds)}")
    view = GAME.public_view(state)
    _expect("final scores", case.scores, outcome.scores)
    _expect("final tens", case.tens, view.tens)
    _expect("final winners", case.winners, tuple(sorted(outcome.winners)))


# -- loading ----------------------------------------------------------------------------------------


def load_cases(data: object) -> list[Case]:
    """The cases of one parsed case file; raises ``MalformedCaseFileError`` naming the case."""
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise MalformedCaseFileError('expected a JSON object with a "cases" list')
    cases: list[Case] = []
    seen: set[str] = set()
    for index, raw in enumerate(data["cases"]):
        if not isinstance(raw, dict):
            raise MalformedCaseFileError(f"case #{index} is not a JSON object")
        case_id = raw.get("id")
        if not isinstance(case_id, str) or not case_id:
            raise MalformedCaseFileError(f'case #{index}: "id" must be a non-empty string')
        if case_id in seen:
            raise MalformedCaseFileError(f"case id {case_id!r} appears twice")
        seen.add(case_id)
        try:
            cases.append(_parse_case(raw, case_id))
        except MalformedCaseFileError as error:
            raise MalformedCaseFileError(f"case {case_id}: {error}") from None
    return cases


def _parse_case(raw: dict[str, Any], case_id: str) -> Case:
    players = field(raw, "players")
    if not is_int(players) or players not in PLAYER_COUNTS:
        raise MalformedCaseFileError(f'"players" must be an integer from 4 to 8, not {players!r}')
    if "deals" in raw:
        return _parse_game(raw, case_id, players)
    if "trick_so_far" in raw:
        return LegalCase(
            case_id,
            players,
            _cards(field(raw, "trick_so_far"), '"trick_so_far"'),
            _cards(field(raw, "hand"), '"hand"'),
            frozenset(_cards(field(raw, "legal"), '"legal"')),
        )
    if "plays" in raw:
        fools_per_trick = field(raw, "fools_per_trick")
        if fools_per_trick not in (1, 2) or not is_int(fools_per_trick):
            raise MalformedCaseFileError(f'"fools_per_trick" must be 1 or 2, not {fools_per_trick!r}')
        return TrickCase(
            case_id,
            players,
            fools_per_trick,
            _plays(field(raw, "plays"), players, '"plays"'),
            _colour(raw, '"lead_colour"'),
            _seat(field(raw, "winner"), players, '"winner"'),
            _seats(field(raw, "fools"), players, '"fools"'),
        )
    raise MalformedCaseFileError('not a whole game ("deals"), a trick ("plays") or a legal-play case ("trick_so_far")')


def _parse_game(raw: dict[str, Any], case_id: str, players: int) -> GameCase:
    options = field(raw, "options")
    if not isinstance(options, dict):
        raise MalformedCaseFileError(f'"options" must be an object, not {options!r}')
    rounds = []
    for n, rnd in enumerate(as_list(field(raw, "rounds"), '"rounds"'), 1):
        if not isinstance(rnd, dict):
            raise MalformedCaseFileError(f'"rounds" #{n} is not an object')
        what = f"round #{n}"
        tricks = []
        for t, trick in enumerate(as_list(field(rnd, "tricks"), f"{what} tricks"), 1):
            at = f"{what} trick {t}"
            if not isinstance(trick, dict):
                raise MalformedCaseFileError(f"{at} is not an object")
            plays = _plays(field(trick, "plays"), players, f"{at} plays")
            legal = tuple(
                frozenset(_cards(cards, f"{at} legal")) for cards in as_list(field(trick, "legal"), f"{at} legal")
            )
            if len(legal) != len(plays):
                raise MalformedCaseFileError(f"{at}: one legal set per play ({len(plays)}), not {len(legal)}")
            tricks.append(
                TrickCheckpoint(
                    _seat(field(trick, "leader"), players, f"{at} leader"),
                    plays,
                    legal,
                    _colour(trick, f"{at} lead_colour"),
                    _seat(field(trick, "winner"), players, f"{at} winner"),
                    _seats(field(trick, "fools"), players, f"{at} fools"),
                )
            )
        left = as_list(field(rnd, "left_in_hand"), f"{what} left_in_hand")
        if len(left) != players:
            raise MalformedCaseFileError(f"{what} left_in_hand must have one list per seat ({players})")
        rounds.append(
            RoundCheckpoint(
                _int(field(rnd, "round"), f"{what} round"),
                _seat(field(rnd, "dealer"), players, f"{what} dealer"),
                tuple(tricks),
                tuple(_cards(hand, f"{what} left_in_hand") for hand in left),
                _ints(field(rnd, "round_scores"), players, f"{what} round_scores"),
                _ints(field(rnd, "totals"), players, f"{what} totals"),
                _ints(field(rnd, "tens"), players, f"{what} tens"),
            )
        )
    final = field(raw, "final")
    if not isinstance(final, dict):
        raise MalformedCaseFileError(f'"final" must be an object, not {final!r}')
    return GameCase(
        case_id,
        players,
        dict(options),
        _seat(field(raw, "first_dealer"), players, '"first_dealer"'),
        _cards(field(raw, "cards_in_play"), '"cards_in_play"'),
        tuple(_cards(deal, '"deals"') for deal in as_list(field(raw, "deals"), '"deals"')),
        tuple(rounds),
        _ints(field(final, "scores"), players, "final scores"),
        _ints(field(final, "tens"), players, "final tens"),
        tuple(sorted(_seats(field(final, "winners"), players, "final winners"))),
    )


def _int(value: object, what: str) -> int:
    if not is_int(value):
        raise MalformedCaseFileError(f"{what} must be an integer, not {value!r}")
    assert isinstance(value, int)
    return value


def _ints(value: object, length: int, what: str) -> tuple[int, ...]:
    values = tuple(_int(v, what) for v in as_list(value, what))
    if len(values) != length:
        raise MalformedCaseFileError(f"{what} must list {length} integers, not {len(values)}")
    return values


def _seat(value: object, players: int, what: str) -> int:
    seat = _int(value, what)
    if not 0 <= seat < players:
        raise MalformedCaseFileError(f"{what} must be a seat from 0 to {players - 1}, not {seat}")
    return seat


def _seats(value: object, players: int, what: str) -> tuple[int, ...]:
    return tuple(_seat(v, players, what) for v in as_list(value, what))


def _cards(value: object, what: str) -> tuple[str, ...]:
    """Card tokens in canonical notation; raises ``MalformedCaseFileError`` on a bad one."""
    cards = []
    for text in as_list(value, what):
        try:
            cards.append(str(Card.parse(text)))
        except InvalidActionError:
            raise MalformedCaseFileError(f"{what}: {text!r} is not a FOOL! card (like 'G12' or 'W1')") from None
    return tuple(cards)


def _plays(value: object, players: int, what: str) -> tuple[tuple[int, str], ...]:
    plays = []
    for play in as_list(value, what):
        if not isinstance(play, list) or len(play) != 2:
            raise MalformedCaseFileError(f"{what}: a play must be [seat, card], not {play!r}")
        plays.append((_seat(play[0], players, what), _cards([play[1]], what)[0]))
    return tuple(plays)


def _colour(raw: dict[str, Any], what: str) -> str | None:
    value = field(raw, "lead_colour")
    if value is not None and value not in ("G", "R", "Y", "B"):
        raise MalformedCaseFileError(f"{what} must be G, R, Y, B or null, not {value!r}")
    return value if isinstance(value, str) else None
