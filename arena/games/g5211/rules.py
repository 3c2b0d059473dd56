"""The 5211 rules engine: exactly the arena's rules contract (shared/rules/5211.md), 2 to 5 players.

Every turn is simultaneous: all seats lay cards in secret (2, then 1, then 1 per round), the choices
are revealed together, then each seat draws as many as it laid, in seat order, while the pile lasts.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError, clip
from arena.games.base import Outcome, Seat, Termination
from arena.games.g5211.cards import CARDS, Card, Play, format_cards, full_deck
from arena.games.g5211.scoring import RoundResult, score_round
from arena.games.g5211.state import Observation, State

HAND_SIZE: Final = 5
CARDS_PER_TURN: Final = (2, 1, 1)
REMOVED: Final = {2: 10, 3: 13, 4: 0, 5: 15}
"""Cards removed unseen at set-up, by player count."""
ROUNDS_PER_DECK: Final = {2: 11, 3: 7, 4: 6, 5: 4}
LONG_GAME_TARGET: Final = 50
OPTIONS: Final = frozenset({"long_game"})

_NOBODY: Final[frozenset[Seat]] = frozenset()
_EVERYONE: Final = {n: frozenset(range(n)) for n in REMOVED}

_legal_cache: dict[tuple[tuple[Card, ...], int], tuple[Play, ...]] = {}
_LEGAL_CACHE_LIMIT: Final = 200_000


def legal_plays(hand: tuple[Card, ...], count: int) -> tuple[Play, ...]:
    """Every distinct play of ``count`` cards from a sorted ``hand``, in sorted order."""
    key = (hand, count)
    plays = _legal_cache.get(key)
    if plays is None:
        # The hand is sorted, so its combinations come sorted; dict.fromkeys drops the repeats.
        if count == 1:
            plays = tuple(map(_SINGLES.__getitem__, dict.fromkeys(hand)))
        else:
            plays = tuple(map(_PAIRS.__getitem__, dict.fromkeys(itertools.combinations(hand, 2))))
        if len(_legal_cache) >= _LEGAL_CACHE_LIMIT:
            _legal_cache.clear()
        _legal_cache[key] = plays
    return plays


_SINGLES: Final = tuple(Play.of((c,)) for c in CARDS)
_PAIRS: Final = {pair: Play.of(pair) for pair in itertools.combinations_with_replacement(CARDS, 2)}


class Game5211:
    """The rules of 5211, behind the game-agnostic ``GameRules`` interface."""

    name: Final = "5211"
    player_counts: Final = range(2, 6)

    # -- set-up ---------------------------------------------------------------------------------

    def initial_state(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[str] | None = None,
    ) -> State:
        """A new match, shuffled from ``seed`` or dealt from an explicit 100-card ``deck`` order.

        Options: ``long_game`` (bool, default false) plays the longer game to 50 points.

        Raises ``GameSetupError`` naming the value for a player count outside 2-5, an unknown option, or a deck that
        is not the 100 cards.
        """
        if num_players not in self.player_counts:
            raise GameSetupError(f"5211 is for 2 to 5 players, not {num_players}")
        opts = dict(options or {})
        unknown = set(opts) - OPTIONS
        if unknown:
            raise GameSetupError(f"unknown 5211 option(s) {sorted(unknown)}; known: {sorted(OPTIONS)}")
        long_game = opts.get("long_game", False)
        if not isinstance(long_game, bool):
            raise GameSetupError(f"option long_game must be true or false, not {clip(repr(long_game))}")
        cards = _shuffled_deck(seed, 1) if deck is None else _parse_deck(deck)
        zeros = (0,) * num_players
        return _deal(
            num_players=num_players,
            seed=seed,
            long_game=long_game,
            deck_number=1,
            round_number=1,
            cards=cards,
            banked_points=zeros,
            banked_cards=zeros,
            history=(),
        )

    # -- whose turn, and what they may do --------------------------------------------------------

    def to_move(self, state: State) -> frozenset[Seat]:
        """Every seat, every turn, until the match is over."""
        return _NOBODY if state.finished else _EVERYONE[state.num_players]

    def legal_actions(self, state: State, seat: Seat) -> tuple[Play, ...]:
        """Every distinct play of the right number of cards from ``seat``'s hand."""
        if state.finished or not 0 <= seat < state.num_players:
            return ()
        return legal_plays(state.hands[seat], CARDS_PER_TURN[state.turn])

    def parse_action(self, text: str) -> Play:
        """Read a play in card notation, e.g. ``"G3 Y1"``."""
        return Play.parse(text)

    def describe_action(self, state: State, seat: Seat) -> str:
        """What a legal action looks like now."""
        if state.finished or not 0 <= seat < state.num_players:
            return "nothing to do: the match is over" if state.finished else f"seat {seat} is not in this match"
        count = CARDS_PER_TURN[state.turn]
        example = legal_plays(state.hands[seat], count)[0]
        return f"lay {_cards(count)} from your hand, as card notation, e.g. {example!s}"

    def check_action(self, state: State, seat: Seat, action: object) -> Play:
        """Return ``action`` as a legal play of ``seat`` now, or raise saying exactly why not."""
        if state.finished:
            raise IllegalActionError(f"illegal action {clip(str(action))} for seat {seat}: the match is over")
        if not 0 <= seat < state.num_players:
            raise IllegalActionError(f"illegal action {clip(str(action))}: seat {seat} is not to move")
        if not isinstance(action, Play):
            raise InvalidActionError(f"invalid action {clip(repr(action))}: expected a play of cards like 'G3 Y1'")
        where = f"for seat {seat} in round {state.round}, turn {state.turn + 1}"
        count = CARDS_PER_TURN[state.turn]
        if len(action.cards) != count:
            raise IllegalActionError(
                f"illegal action {clip(str(action))} {where}: lay exactly {_cards(count)}, not {len(action.cards)}"
            )
        hand = state.hands[seat]
        for card, wanted in Counter(action.cards).items():
            held = hand.count(card)
            if held < wanted:
                problem = f"{card} is not in your hand" if held == 0 else f"your hand holds {held} {card}, not {wanted}"
                raise IllegalActionError(
                    f"illegal action {clip(str(action))} {where}: {problem} ({format_cards(hand)})"
                )
        return action

    # -- playing ----------------------------------------------------------------------------------

    def apply(self, state: State, actions: Mapping[Seat, Play]) -> State:
        """Reveal one simultaneous turn: every seat's play, then the draws, then round scoring.

        Raises ``IllegalActionError`` naming the offending value; ``state`` is never changed.
        """
        num_players = state.num_players
        if len(actions) != num_players or state.finished:
            self._check_seats(state, actions)
        count = CARDS_PER_TURN[state.turn]
        pile = state.draw_pile
        hands: list[tuple[Card, ...]] = []
        laid: list[tuple[Card, ...]] = []
        seat = 0
        try:
            for seat, (old_hand, old_laid) in enumerate(zip(state.hands, state.laid, strict=True)):
                cards = actions[seat].cards
                if len(cards) != count:
                    raise ValueError
                hand = list(old_hand)
                for card in cards:
                    hand.remove(card)
                if pile:
                    # Draws go in seat order, one seat's whole draw at a time.
                    hand += pile[:count]
                    pile = pile[count:]
                    hand.sort()
                hands.append(tuple(hand))
                laid.append(old_laid + cards)
        except KeyError:
            self._check_seats(state, actions)
            raise
        except (ValueError, AttributeError):
            self.check_action(state, seat, actions[seat])
            raise
        sorted_hands = tuple(hands)

        if state.turn < 2:
            return State(
                num_players,
                state.seed,
                state.long_game,
                state.deck_number,
                state.round,
                state.turn + 1,
                sorted_hands,
                pile,
                state.removed,
                tuple(laid),
                state.score_piles,
                state.discard,
                state.banked_points,
                state.banked_cards,
                state.history,
                False,
                state.totals,
            )
        return _end_round(state, sorted_hands, pile, laid)

    def _check_seats(self, state: State, actions: Mapping[Seat, Any]) -> None:
        if state.finished and not actions:
            raise IllegalActionError("no action can be applied: the match is over")
        expected = self.to_move(state)
        for seat in actions:
            if seat not in expected:
                why = "the match is over" if state.finished else "it is not to move"
                raise IllegalActionError(f"illegal action {actions[seat]!s} for seat {seat}: {why}")
        for seat in sorted(expected - set(actions)):
            raise IllegalActionError(f"no action for seat {seat}: every seat lays cards this turn")

    # -- views and result -------------------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> Observation:
        """Exactly what ``seat`` may know: its own hand and everything public.

        Raises ``IllegalActionError`` for a seat not in the match.
        """
        if not 0 <= seat < state.num_players:
            raise IllegalActionError(f"seat {seat} is not in this {state.num_players}-player match")
        return _view(state, seat, state.hands[seat])

    def public_view(self, state: State) -> Observation:
        """What a spectator may know: everything public, no hand."""
        return _view(state, None, ())

    def round_result(self, view: Observation) -> tuple[int, RoundResult] | None:
        """The last scored round of the match so far: the history holds every one, oldest first."""
        if not view.history:
            return None
        return len(view.history), view.history[-1]

    def outcome(self, state: State) -> Outcome | None:
        """Most points wins; then most score-pile cards; a tie on both is a shared win."""
        if not state.finished:
            return None
        points = state.points()
        cards = state.score_pile_cards()
        return Outcome.from_keys(Termination.NORMAL, points, list(zip(points, cards, strict=True)))


def _cards(count: int) -> str:
    return f"{count} card{'s' if count != 1 else ''}"


def _view(state: State, seat: Seat | None, hand: tuple[Card, ...]) -> Observation:
    return Observation(
        seat=seat,
        num_players=state.num_players,
        long_game=state.long_game,
        deck_number=state.deck_number,
        round=state.round,
        rounds_per_deck=ROUNDS_PER_DECK[state.num_players],
        turn=0 if state.finished else state.turn + 1,
        cards_to_lay=0 if state.finished else CARDS_PER_TURN[state.turn],
        hand=hand,
        hand_sizes=tuple(len(h) for h in state.hands),
        laid=state.laid,
        history=state.history,
        points=state.points(),
        score_pile_cards=state.score_pile_cards(),
        draw_pile_size=len(state.draw_pile),
        removed_count=len(state.removed),
        finished=state.finished,
    )


def _end_round(
    state: State,
    hands: tuple[tuple[Card, ...], ...],
    pile: tuple[Card, ...],
    laid: list[tuple[Card, ...]],
) -> State:
    """Score the round just completed; end the deck or the match where the rules say so."""
    result = score_round(state.num_players, laid)
    score_piles = tuple(
        pile_cards + scored for pile_cards, scored in zip(state.score_piles, result.scored, strict=True)
    )
    discard = list(state.discard)
    for cards, scored in zip(laid, result.scored, strict=True):
        if len(scored) == len(cards):
            continue
        if not scored:
            discard.extend(cards)
            continue
        rest = list(cards)
        for card in scored:
            rest.remove(card)
        discard.extend(rest)
    history = (*state.history, result)
    deck_over = not pile and len(hands[0]) == 1
    if deck_over:
        # The last hand card of every seat is discarded unrevealed.
        for hand in hands:
            discard.extend(hand)
        hands = ((),) * state.num_players
    points = tuple(total + gained for total, gained in zip(state.totals, result.points, strict=True))
    reached = state.long_game and max(points) >= LONG_GAME_TARGET
    # The first deck is always played out; after it, the longer game ends once anyone reaches 50.
    finished = (deck_over and (not state.long_game or reached)) or (reached and state.deck_number > 1)
    if deck_over and not finished:
        return _deal(
            num_players=state.num_players,
            seed=state.seed,
            long_game=state.long_game,
            deck_number=state.deck_number + 1,
            round_number=state.round + 1,
            cards=_shuffled_deck(state.seed, state.deck_number + 1),
            banked_points=points,
            banked_cards=tuple(banked + len(p) for banked, p in zip(state.banked_cards, score_piles, strict=True)),
            history=history,
        )
    return State(
        state.num_players,
        state.seed,
        state.long_game,
        state.deck_number,
        state.round if finished else state.round + 1,
        0,
        hands,
        pile,
        state.removed,
        ((),) * state.num_players,
        score_piles,
        tuple(discard),
        state.banked_points,
        state.banked_cards,
        history,
        finished,
        points,
    )


def _deal(
    *,
    num_players: int,
    seed: int,
    long_game: bool,
    deck_number: int,
    round_number: int,
    cards: list[Card],
    banked_points: tuple[int, ...],
    banked_cards: tuple[int, ...],
    history: tuple[Any, ...],
) -> State:
    removed = REMOVED[num_players]
    hands = tuple(
        tuple(sorted(cards[removed + HAND_SIZE * seat : removed + HAND_SIZE * (seat + 1)]))
        for seat in range(num_players)
    )
    empty = tuple(() for _ in range(num_players))
    return State(
        num_players=num_players,
        seed=seed,
        long_game=long_game,
        deck_number=deck_number,
        round=round_number,
        turn=0,
        hands=hands,
        draw_pile=tuple(cards[removed + HAND_SIZE * num_players :]),
        removed=tuple(cards[:removed]),
        laid=empty,
        score_piles=empty,
        discard=(),
        banked_points=banked_points,
        banked_cards=banked_cards,
        history=history,
        finished=False,
        totals=banked_points,
    )


_FULL_DECK: Final = tuple(full_deck())


def _shuffled_deck(seed: int, deck_number: int) -> list[Card]:
    """Deck ``deck_number`` of the match with this seed; never touches the global RNG."""
    cards = list(_FULL_DECK)
    rng = random.Random(seed if deck_number == 1 else f"5211/{seed}/deck{deck_number}")
    rng.shuffle(cards)
    return cards


def _parse_deck(deck: Sequence[str]) -> list[Card]:
    try:
        cards = [Card.parse(text) for text in deck]
    except InvalidActionError as error:
        raise GameSetupError(f"invalid deck order: {error}") from None
    if Counter(cards) != Counter(_FULL_DECK):
        expected = Counter(_FULL_DECK)
        got = Counter(cards)
        wrong = sorted(set(expected) | set(got))
        diff = ", ".join(
            f"{CARDS[c]} x{got[CARDS[c]]} (want {expected[CARDS[c]]})" for c in wrong if got[c] != expected[c]
        )
        raise GameSetupError(f"a deck order must hold exactly the 100 cards of 5211: {diff}")
    return cards
