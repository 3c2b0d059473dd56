"""The Coloretto rules engine: exactly the arena's rules contract (shared/rules/coloretto.md).

3 to 5 players, and the English edition's 2-player rules when two seats play. Turns are sequential:
the seat to move either draws a card (and then places it in an open row with room) or takes an open
row and leaves the round. The round in which ``LR`` turns up is the game's last; then every
collection is scored, the engine choosing jokers and positive colours for each seat.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError
from arena.games.base import Outcome, Seat, Termination
from arena.games.coloretto.cards import (
    ACTIONS,
    CARDS_PER_COLOUR,
    COLOURS,
    JOKER,
    JOKER_COUNT,
    LAST_ROUND,
    PLUS_TWO,
    PLUS_TWO_COUNT,
    Action,
    ActionKind,
    Card,
    Collection,
    shorten,
)
from arena.games.coloretto.scoring import Scoring, score_collection
from arena.games.coloretto.state import GameResult, Observation, RoundRecord, State, Take

CARDS_UNDER_LAST_ROUND: Final = 15
MATCH_LENGTHS: Final = (1, 4)
"""The values of the option ``games``."""
OPTIONS: Final = frozenset({"scoring", "games", "first"})

CAPACITIES: Final = {2: (1, 2, 3), 3: (3, 3, 3), 4: (3, 3, 3, 3), 5: (3, 3, 3, 3, 3)}
"""Each row's capacity, by player count (2 players: the English edition's rows of 1, 2 and 3)."""
COLOURS_IN_PLAY: Final = {2: COLOURS[:5], 3: COLOURS[:6], 4: COLOURS, 5: COLOURS}
STARTING_COLOURS: Final = {
    2: ((COLOURS[0], COLOURS[1]), (COLOURS[2], COLOURS[3])),
    **{players: tuple((COLOURS[seat],) for seat in range(players)) for players in (3, 4, 5)},
}
"""The cards each seat starts with face up (contract **Decision**: seat ``s`` takes colour ``s``)."""


def _pile_cards(players: int) -> Counter[Card]:
    """The cards of one game's draw pile, ``LR`` included: all but the removed colours and starting cards."""
    cards = Counter(dict.fromkeys(COLOURS_IN_PLAY[players], CARDS_PER_COLOUR))
    for start in STARTING_COLOURS[players]:
        cards.subtract(start)
    cards[JOKER] = JOKER_COUNT
    cards[PLUS_TWO] = PLUS_TWO_COUNT
    cards[LAST_ROUND] = 1
    return cards


PILE_CARDS: Final = {players: _pile_cards(players) for players in CAPACITIES}
"""Each player count's draw pile as a multiset (65 cards with 3 players, 73 with 4, 72 with 5, 55 with 2)."""
_NOBODY: Final[frozenset[Seat]] = frozenset()
_legal_cache: dict[tuple[object, ...], tuple[tuple[Action, ...], frozenset[Action]]] = {}
"""Legal actions by what decides them: the phase, who took which row, and how full each row is."""
_LEGAL_CACHE_LIMIT: Final = 100_000
_last_legal: Final[list[tuple[object, tuple[tuple[Action, ...], frozenset[Action]]]]] = [(None, ((), frozenset()))]
"""The last state ``_legal`` answered for, and its answer."""
_ONE: Final = tuple(frozenset({seat}) for seat in range(5))
_DRAW: Final = ActionKind.DRAW
_PLACE: Final = ActionKind.PLACE


class GameColoretto:
    """The rules of Coloretto, behind the game-agnostic ``GameRules`` interface."""

    name: Final = "coloretto"
    player_counts: Final = range(2, 6)

    # -- set-up ---------------------------------------------------------------------------------

    def initial_state(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[str] | None = None,
    ) -> State:
        """A new match, shuffled from ``seed``, or with each game's draw pile fixed by ``deck``.

        Options: ``scoring`` (``"brown"``, the default, or ``"grey"``), ``games`` (1, the default, or 4
        for a match of four games) and ``first`` (the seat that starts game 1; random by default).
        ``deck`` lists the draw pile of every game from the top, ``LR`` included, game after game.

        Raises ``GameSetupError`` naming the value for a player count outside 2-5, an unknown option or value, or a
        deck that does not fit.
        """
        if num_players not in self.player_counts:
            raise GameSetupError(f"Coloretto is for 2 to 5 players, not {shorten(num_players)}")
        opts = dict(options or {})
        unknown = set(opts) - OPTIONS
        if unknown:
            raise GameSetupError(
                f"unknown Coloretto option(s) {shorten(sorted(map(str, unknown)))}; known: {sorted(OPTIONS)}"
            )
        scoring_text = opts.get("scoring", Scoring.BROWN.value)
        try:
            scoring = Scoring(scoring_text)
        except ValueError:
            raise GameSetupError(
                f"option scoring must be 'brown' or 'grey', not {shorten(repr(scoring_text))}"
            ) from None
        games = opts.get("games", 1)
        if not _is_int(games) or games not in MATCH_LENGTHS:
            raise GameSetupError(f"option games must be 1 or 4, not {shorten(repr(games))}")
        rng = random.Random(seed)
        first = rng.randrange(num_players)
        if "first" in opts:
            first = opts["first"]
            if not _is_int(first) or not 0 <= first < num_players:
                raise GameSetupError(
                    f"option first must be a seat from 0 to {num_players - 1}, not {shorten(repr(first))}"
                )
        if deck is None:
            piles = tuple(_shuffled_pile(num_players, rng) for _ in range(games))
        else:
            piles = _parse_piles(deck, num_players, games)
        return _start_game(
            num_players=num_players,
            scoring=scoring,
            games=games,
            first=first,
            game=1,
            piles=piles,
            history=(),
            results=(),
            totals=(0,) * num_players,
        )

    # -- whose turn, and what they may do --------------------------------------------------------

    def to_move(self, state: State) -> frozenset[Seat]:
        """The one seat to move, until the match is over."""
        return _NOBODY if state.finished else _ONE[state.seat]

    def legal_actions(self, state: State, seat: Seat) -> tuple[Action, ...]:
        """``draw`` then ``take r`` by row, or ``place r`` by row after a draw; empty if ``seat`` is not to move."""
        if state.finished or seat != state.seat:
            return ()
        return _legal(state)[0]

    def parse_action(self, text: str) -> Action:
        """Read ``draw``, ``place r`` or ``take r``."""
        return Action.parse(text)

    def describe_action(self, state: State, seat: Seat) -> str:
        """What a legal action looks like now."""
        if state.finished:
            return "nothing to do: the match is over"
        if seat != state.seat:
            return f"nothing to do: seat {state.seat} is to move"
        legal = ", ".join(str(action) for action in self.legal_actions(state, seat))
        if state.drawn is not None:
            return f"place the card you drew, {state.drawn}, in an open row with room: {legal}"
        return f"'draw' to turn up a card, or 'take r' to take open row r and leave the round; legal now: {legal}"

    def check_action(self, state: State, seat: Seat, action: object) -> Action:
        """Return ``action`` as a legal action of ``seat`` now, or raise saying exactly why not."""
        if state.finished:
            raise IllegalActionError(f"illegal action {_shown(action)} for seat {seat}: the match is over")
        if seat != state.seat:
            raise IllegalActionError(f"illegal action {_shown(action)} for seat {seat}: it is seat {state.seat}'s turn")
        if not isinstance(action, Action):
            raise InvalidActionError(
                f"invalid action {_shown(action)} for seat {seat}: expected 'draw', 'place r' or 'take r'"
            )
        if action in _legal(state)[1]:
            return action
        where = f"for seat {seat} in game {state.game}, round {state.round}"
        raise IllegalActionError(f"illegal action {action!s} {where}: {self._why_illegal(state, action)}")

    def _why_illegal(self, state: State, action: Action) -> str:
        capacities = CAPACITIES[state.num_players]
        if action.kind is ActionKind.DRAW:
            if state.drawn is not None:
                return f"place the card you drew ({state.drawn}) first"
            return "every open row is full: take one"
        row = action.row
        assert row is not None
        if state.drawn is None and action.kind is ActionKind.PLACE:
            return "there is no drawn card to place: 'draw' first"
        if state.drawn is not None and action.kind is ActionKind.TAKE:
            return f"place the card you drew ({state.drawn}) first"
        if row >= len(state.rows):
            return f"there is no row {row}: rows are 0 to {len(state.rows) - 1}"
        taker = state.taken_by[row]
        if taker is not None:
            return f"row {row} was taken by seat {taker} this round"
        if action.kind is ActionKind.PLACE:
            return f"row {row} is full ({capacities[row]} cards)"
        return f"row {row} is empty"

    # -- playing ----------------------------------------------------------------------------------

    def apply(self, state: State, actions: Mapping[Seat, Action]) -> State:
        """The state after the seat to move makes its one decision."""
        if state.finished or len(actions) != 1 or state.seat not in actions:
            self._check_seats(state, actions)
        action = self.check_action(state, state.seat, actions[state.seat])
        kind = action.kind
        if kind is _DRAW:
            return _draw(state)
        row = action.row
        assert row is not None
        if kind is _PLACE:
            return _place(state, row)
        return _take(state, row)

    def _check_seats(self, state: State, actions: Mapping[Seat, Any]) -> None:
        if state.finished:
            raise IllegalActionError("no action can be applied: the match is over")
        for seat in sorted(actions):
            if seat != state.seat:
                raise IllegalActionError(
                    f"illegal action {_shown(actions[seat])} for seat {seat}: it is seat {state.seat}'s turn"
                )
        raise IllegalActionError(f"no action for seat {state.seat}: it is to move")

    # -- views and result -------------------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> Observation:
        """Exactly what ``seat`` may know: the public view (Coloretto has no private information).

        Raises ``IllegalActionError`` for a seat not in the match.
        """
        if not 0 <= seat < state.num_players:
            raise IllegalActionError(f"seat {seat} is not in this {state.num_players}-player match")
        return _view(state, seat)

    def public_view(self, state: State) -> Observation:
        """What a spectator may know: everything but the draw-pile order."""
        return _view(state, None)

    def round_result(self, view: Observation) -> tuple[int, RoundRecord] | None:
        """The last finished round of the match so far (rounds are counted over all its games)."""
        if not view.history:
            return None
        return len(view.history), view.history[-1]

    def outcome(self, state: State) -> Outcome | None:
        """Most points over the match's games wins; a tie is a shared win."""
        if not state.finished:
            return None
        totals = state.totals
        return Outcome.from_keys(Termination.NORMAL, totals, [(total,) for total in totals])


def _legal(state: State) -> tuple[tuple[Action, ...], frozenset[Action]]:
    """The legal actions of the seat to move, in canonical order and as a set, from a bounded cache.

    The last state asked about is remembered by identity too: a referee or a bot asks for the legal
    actions of a state and then checks an action in the same state.
    """
    last_state, legal = _last_legal[0]
    if last_state is state:
        return legal
    key = (state.num_players, state.drawn is None, state.taken_by, tuple(map(len, state.rows)))
    found = _legal_cache.get(key)
    if found is None:
        ordered = tuple(action for action in ACTIONS if _is_legal(state, action))
        found = (ordered, frozenset(ordered))
        if len(_legal_cache) >= _LEGAL_CACHE_LIMIT:
            _legal_cache.clear()
        _legal_cache[key] = found
    _last_legal[0] = (state, found)  # one item replaced as a whole, so threads never see half of it
    return found


def _is_legal(state: State, action: Action) -> bool:
    """Whether ``action`` is legal for the seat to move (the same rule as ``legal_actions``, per action)."""
    capacities = CAPACITIES[state.num_players]
    if action.kind is ActionKind.DRAW:
        return state.drawn is None and any(
            taker is None and len(cards) < capacity
            for cards, taker, capacity in zip(state.rows, state.taken_by, capacities, strict=True)
        )
    row = action.row
    if row is None or not 0 <= row < len(capacities) or state.taken_by[row] is not None:
        return False
    if action.kind is ActionKind.PLACE:
        return state.drawn is not None and len(state.rows[row]) < capacities[row]
    return state.drawn is None and bool(state.rows[row])


def _shown(action: object) -> str:
    """An action as an error message names it: in notation, or quoted and truncated if it is not one."""
    return str(action) if isinstance(action, Action) else repr(shorten(action))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _view(state: State, seat: Seat | None) -> Observation:
    # Positional, in the order of Observation's fields (keyword arguments cost a third more, once a decision).
    pile_size = len(state.pile)
    players = state.num_players
    return Observation(
        seat,
        players,
        state.scoring,
        state.games,
        state.game,
        state.round,
        state.starter,
        None if state.finished else state.seat,  # to_move
        state.drawn,
        COLOURS_IN_PLAY[players],  # colours
        CAPACITIES[players],  # capacities
        state.rows,
        state.taken_by,
        state.takes,
        state.collections,
        pile_size,
        0 if state.last_round else pile_size - CARDS_UNDER_LAST_ROUND - 1,  # cards_before_last_round
        state.last_round,
        state.removed,
        state.history,
        state.results,
        state.totals,
        state.finished,
    )


_FIELD_INDEX: Final = {name: index for index, name in enumerate(State._fields)}
_PILE: Final = _FIELD_INDEX["pile"]
_DRAWN: Final = _FIELD_INDEX["drawn"]
_LAST_ROUND: Final = _FIELD_INDEX["last_round"]
_ROWS: Final = _FIELD_INDEX["rows"]
_SEAT: Final = _FIELD_INDEX["seat"]
_TAKEN_BY: Final = _FIELD_INDEX["taken_by"]
_TAKES: Final = _FIELD_INDEX["takes"]
_COLLECTIONS: Final = _FIELD_INDEX["collections"]
_make_state: Final = State._make


def _evolve(state: State, **changes: Any) -> State:
    """``state`` with some fields changed (``State._replace``, three times cheaper: one per decision)."""
    values = list(state)
    for name, value in changes.items():
        values[_FIELD_INDEX[name]] = value
    return State._make(values)


def _next_seat(seat: Seat, taken_by: tuple[Seat | None, ...], players: int) -> Seat:
    """The next seat clockwise that has not taken a row this round (``seat`` itself if it is the last)."""
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if candidate not in taken_by:
            return candidate
    raise AssertionError("no seat is left in the round")


def _draw(state: State) -> State:
    pile = state.pile
    last_round = state.last_round
    card = pile[0]
    if card == LAST_ROUND:
        # LR is set aside face up; the same seat turns up the next card in the same turn.
        last_round = True
        card = pile[1]
        pile = pile[2:]
    else:
        pile = pile[1:]
    assert pile, "a round uses at most 15 cards, so the pile never runs out"
    # As _evolve(state, pile=..., drawn=..., last_round=...), spelt out: draws and places are most decisions.
    values = list(state)
    values[_PILE], values[_DRAWN], values[_LAST_ROUND] = pile, card, last_round
    return _make_state(values)


def _place(state: State, row: int) -> State:
    drawn = state.drawn
    assert drawn is not None
    rows = list(state.rows)
    rows[row] = (*rows[row], drawn)
    values = list(state)
    values[_ROWS], values[_DRAWN] = tuple(rows), None
    values[_SEAT] = _next_seat(state.seat, state.taken_by, state.num_players)
    return _make_state(values)


def _take(state: State, row: int) -> State:
    seat = state.seat
    cards = state.rows[row]
    rows = list(state.rows)
    rows[row] = ()
    taken_list = list(state.taken_by)
    taken_list[row] = seat
    taken_by = tuple(taken_list)
    collections = list(state.collections)
    collections[seat] = collections[seat].plus(cards)
    takes = (*state.takes, Take(seat, row, cards))
    if len(takes) < state.num_players:
        # As _evolve(state, rows=..., taken_by=..., takes=..., collections=..., seat=...), spelt out.
        values = list(state)
        values[_ROWS], values[_TAKEN_BY], values[_TAKES] = tuple(rows), taken_by, takes
        values[_COLLECTIONS], values[_SEAT] = tuple(collections), _next_seat(seat, taken_by, state.num_players)
        return _make_state(values)
    return _end_round(state, tuple(rows), takes, tuple(collections))


def _end_round(
    state: State, rows: tuple[tuple[Card, ...], ...], takes: tuple[Take, ...], collections: tuple[Collection, ...]
) -> State:
    """Every seat has taken a row: the left-over row leaves the game (2 players); score after the last round."""
    removed_now = tuple(card for cards in rows for card in cards)
    record = RoundRecord(
        game=state.game,
        round=state.round,
        starter=state.starter,
        takes=takes,
        removed=removed_now,
        last_round=state.last_round,
        pile_left=len(state.pile),
        collections=collections,
    )
    history = (*state.history, record)
    players = state.num_players
    empty_rows = ((),) * len(rows)
    no_takers = (None,) * len(rows)
    if not state.last_round:
        starter = takes[-1].seat
        return _evolve(
            state,
            round=state.round + 1,
            starter=starter,
            seat=starter,
            rows=empty_rows,
            taken_by=no_takers,
            takes=(),
            collections=collections,
            removed=state.removed + removed_now,
            history=history,
        )
    colours = COLOURS_IN_PLAY[players]
    result = GameResult(
        game=state.game,
        first=(state.first + state.game - 1) % players,
        scores=tuple(score_collection(collection, colours, state.scoring) for collection in collections),
    )
    results = (*state.results, result)
    totals = tuple(total + points for total, points in zip(state.totals, result.points, strict=True))
    if state.game < state.games:
        return _start_game(
            num_players=players,
            scoring=state.scoring,
            games=state.games,
            first=state.first,
            game=state.game + 1,
            piles=state.later_piles,
            history=history,
            results=results,
            totals=totals,
        )
    # The collections stay as they ended, for everyone to see; the cards left in the pile stay hidden.
    return _evolve(
        state,
        rows=empty_rows,
        taken_by=no_takers,
        takes=(),
        collections=collections,
        removed=state.removed + removed_now,
        history=history,
        results=results,
        totals=totals,
        finished=True,
    )


def _start_game(
    *,
    num_players: int,
    scoring: Scoring,
    games: int,
    first: Seat,
    game: int,
    piles: tuple[tuple[Card, ...], ...],
    history: tuple[RoundRecord, ...],
    results: tuple[GameResult, ...],
    totals: tuple[int, ...],
) -> State:
    """Game ``game`` (1-based) of the match, its pile the first of ``piles``, started by ``first + game - 1``."""
    starter = (first + game - 1) % num_players
    rows = len(CAPACITIES[num_players])
    return State(
        num_players=num_players,
        scoring=scoring,
        games=games,
        first=first,
        game=game,
        later_piles=piles[1:],
        pile=piles[0],
        round=1,
        starter=starter,
        seat=starter,
        drawn=None,
        rows=((),) * rows,
        taken_by=(None,) * rows,
        takes=(),
        collections=tuple(Collection.of(start) for start in STARTING_COLOURS[num_players]),
        last_round=False,
        removed=(),
        history=history,
        results=results,
        totals=totals,
        finished=False,
    )


_SORTED_PILES: Final = {players: tuple(sorted(cards.elements())) for players, cards in PILE_CARDS.items()}


def _shuffled_pile(players: int, rng: random.Random) -> tuple[Card, ...]:
    """A uniformly shuffled pile of the other cards, with ``LR`` inserted before the last 15."""
    cards = [card for card in _SORTED_PILES[players] if card != LAST_ROUND]
    rng.shuffle(cards)
    cards.insert(len(cards) - CARDS_UNDER_LAST_ROUND, LAST_ROUND)
    return tuple(cards)


def _parse_piles(deck: Sequence[str], players: int, games: int) -> tuple[tuple[Card, ...], ...]:
    """Each game's pile from an explicit ``deck`` (the games' piles one after the other)."""
    size = PILE_CARDS[players].total()
    if isinstance(deck, str) or len(deck) != size * games:
        length = "a string" if isinstance(deck, str) else f"{len(deck)} tokens"
        raise GameSetupError(
            f"a {players}-player deck order must list {size} cards per game ({size * games} for {games} "
            f"game{'s' if games != 1 else ''}), not {length}"
        )
    cards = []
    for token in deck:
        try:
            cards.append(Card.parse(token))
        except (InvalidActionError, AttributeError):
            raise GameSetupError(f"invalid deck order: {shorten(repr(token))} is not a Coloretto card") from None
    piles = tuple(tuple(cards[start : start + size]) for start in range(0, size * games, size))
    for number, pile in enumerate(piles, 1):
        got = Counter(pile)
        if got != PILE_CARDS[players]:
            want = PILE_CARDS[players]
            diff = ", ".join(
                f"{card} x{got[card]} (want {want[card]})"
                for card in sorted(set(want) | set(got))
                if got[card] != want[card]
            )
            raise GameSetupError(f"deck order of game {number}: not the {players}-player pile: {diff}")
        under = len(pile) - 1 - pile.index(LAST_ROUND)
        if under != CARDS_UNDER_LAST_ROUND:
            raise GameSetupError(
                f"deck order of game {number}: LR must have exactly {CARDS_UNDER_LAST_ROUND} cards under it, "
                f"not {under}"
            )
    return piles
