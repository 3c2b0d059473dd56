"""Check the Coloretto engine against the shared conformance case files (shared/conformance/coloretto/).

Entry point for the per-game conformance catalogue: ``check_file(document)`` with a file's parsed
JSON; it returns one line per mismatching case, ``"<case id>: <first differing field>: expected …,
engine …"`` (empty when every case matches) and raises ``MalformedCaseFileError`` when the document
follows neither format. The formats (each file's ``format`` field says which):

- scoring files (``check_scoring``): cases with a ``collection`` and the best ``score``;
- playthrough files (``check_playthroughs``): whole matches with each game's ``deck``, every step's
  seat, action, complete legal set (and, for a draw, the cards turned up), a checkpoint per finished
  round, each game's scores, and the match's ``totals`` and ``winners``.

Playthroughs are replayed through the public game interface only (``initial_state`` with the
options and the decks, ``to_move``, ``legal_actions``, ``parse_action``, ``check_action``, ``apply``,
``public_view``, ``outcome``). A case stops at its first mismatch, since later fields follow from it.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.errors import ArenaError, MalformedCaseFileError
from arena.games.coloretto.cards import LAST_ROUND, Collection
from arena.games.coloretto.rules import COLOURS_IN_PLAY, GameColoretto
from arena.games.coloretto.scoring import Scoring, score_collection
from arena.games.coloretto.state import Observation, RoundRecord

_GAME: Final = GameColoretto()


class _MismatchError(Exception):
    """The first field where the engine and a case differ."""


def check_file(document: Any) -> list[str]:
    """Every mismatch of the cases in one parsed case file, one line each naming the case id.

    Raises ``MalformedCaseFileError`` when the file is not an object with a ``cases`` list, or a case is of neither
    kind.
    """
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        raise MalformedCaseFileError('expected a JSON object with a "cases" list')
    cases = document["cases"]
    if all(isinstance(case, dict) and "collection" in case for case in cases):
        return check_scoring(cases)
    if all(isinstance(case, dict) and "games" in case for case in cases):
        return check_playthroughs(cases)
    raise MalformedCaseFileError('every case must be a scoring case ("collection") or a playthrough ("games")')


def check_scoring(cases: Sequence[dict[str, Any]]) -> list[str]:
    """Mismatches of end-game scoring cases."""
    return _check_all(cases, _check_scoring_case)


def check_playthroughs(cases: Sequence[dict[str, Any]]) -> list[str]:
    """Mismatches of whole-match cases, replayed step by step."""
    return _check_all(cases, _check_playthrough_case)


def _check_all(cases: Sequence[dict[str, Any]], check: Callable[[dict[str, Any]], None]) -> list[str]:
    problems = []
    for index, case in enumerate(cases):
        case_id = str(case.get("id", f"#{index}"))
        try:
            check(case)
        except _MismatchError as mismatch:
            problems.append(f"{case_id}: {mismatch}")
        except (KeyError, TypeError, ValueError, IndexError) as error:
            if isinstance(error, ArenaError):
                problems.append(f"{case_id}: engine raised {type(error).__name__}: {error}")
            else:
                problems.append(f"{case_id}: malformed case: {type(error).__name__}: {error}")
        except Exception as error:  # an engine crash is a finding to report, not a reason to stop
            problems.append(f"{case_id}: engine raised {type(error).__name__}: {error}")
    return problems


def _expect(field: str, expected: object, actual: object) -> None:
    if expected != actual:
        raise _MismatchError(f"{field}: expected {expected!r}, engine {actual!r}")


def _check_scoring_case(case: dict[str, Any]) -> None:
    result = score_collection(
        Collection.from_tokens(case["collection"]), COLOURS_IN_PLAY[case["players"]], Scoring(case["scoring"])
    )
    _expect("score", case["score"], result.score)


def _check_playthrough_case(case: dict[str, Any]) -> None:
    players = case["players"]
    options = {"scoring": case["options"]["scoring"], "games": case["options"]["games"], "first": case["first"]}
    games = case["games"]
    _expect("games (count)", case["options"]["games"], len(games))
    deck = [token for game in games for token in game["deck"]]
    state = _GAME.initial_state(players, 0, options, deck)
    for number, game in enumerate(games, 1):
        where = f"game {number}"
        view = _GAME.public_view(state)
        _expect(f"{where} first", game["first"], view.starter)
        for index, step in enumerate(game["steps"]):
            at = f"{where} step {index}"
            _expect(f"{at} seat", {step["seat"]}, set(_GAME.to_move(state)))
            seat = step["seat"]
            legal = sorted(str(action) for action in _GAME.legal_actions(state, seat))
            _expect(f"{at} legal", sorted(step["legal"]), legal)
            action = _GAME.check_action(state, seat, _GAME.parse_action(step["action"]))
            before = view
            state = _GAME.apply(state, {seat: action})
            view = _GAME.public_view(state)
            if "cards" in step:
                _expect(f"{at} cards", step["cards"], _turned_up(before, view))
        rounds = [record for record in view.history if record.game == number]
        _expect(f"{where} rounds (count)", len(game["rounds"]), len(rounds))
        for expected, record in zip(game["rounds"], rounds, strict=True):
            _check_round(f"{where} round {record.round}", expected, record)
        _expect(f"{where} scores", game["scores"], list(view.results[number - 1].points))
    _expect("finished", True, view.finished)
    outcome = _GAME.outcome(state)
    assert outcome is not None
    _expect("totals", case["totals"], list(outcome.scores))
    _expect("winners", sorted(case["winners"]), sorted(outcome.winners))


def _turned_up(before: Observation, after: Observation) -> list[str]:
    """The cards a draw turned up, as the case files write them: ``["LR", x]`` or ``[x]``."""
    drawn = [] if after.drawn is None else [str(after.drawn)]
    return [str(LAST_ROUND), *drawn] if after.last_round and not before.last_round else drawn


def _check_round(where: str, expected: dict[str, Any], record: RoundRecord) -> None:
    _expect(f"{where} round", expected["round"], record.round)
    _expect(f"{where} starter", expected["starter"], record.starter)
    takes = [[take.seat, take.row, [str(card) for card in take.cards]] for take in record.takes]
    _expect(f"{where} takes", expected["takes"], takes)
    _expect(f"{where} removed", expected["removed"], [str(card) for card in record.removed])
    _expect(f"{where} last_round", expected["last_round"], record.last_round)
    _expect(f"{where} pile_left", expected["pile_left"], record.pile_left)
    _expect(f"{where} collections", expected["collections"], [c.to_tokens() for c in record.collections])
