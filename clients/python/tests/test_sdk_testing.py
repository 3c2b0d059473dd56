"""``arena_bot.testing``: a bot asked about one recorded turn, or about every turn of a real record."""

from __future__ import annotations

from arena_bot import Bot, Turn
from arena_bot.bots import HeuristicBot
from arena_bot.testing import check_record, check_turn

from arena import catalogue
from arena.games.lookup import get_game
from arena.v1 import match_pb2
from arena.wire.turns import action_request


class Last(Bot):
    def act(self, turn: Turn) -> str:
        return turn.legal_actions[-1]


class Broken(Bot):
    def act(self, turn: Turn) -> str:
        if turn.sequence > 3:
            raise RuntimeError("oops")
        return "not an action"


def _record(game: str) -> match_pb2.MatchRecord:
    """A finished record of ``game`` played by built-in policies, on the wire."""
    rules = get_game(game)
    players = catalogue.entry(game).default_players
    policies = [catalogue.policy(game, "random", seat) for seat in range(players)]
    state = rules.initial_state(players, 5)
    record = match_pb2.MatchRecord(match_id=f"m-{game}", game=game, seed=5, bot_names=[f"b{i}" for i in range(players)])
    turn = 0
    while seats := rules.to_move(state):
        actions = {s: policies[s].choose(rules.observe(state, s), rules.legal_actions(state, s)) for s in seats}
        for seat in sorted(actions):
            record.decisions.add(turn_index=turn, seat=seat, action=str(actions[seat]))
        state = rules.apply(state, actions)
        turn += 1
    return record


def test_a_recorded_turn_is_answered_and_checked() -> None:
    rules = get_game("5211")
    request = action_request("5211", rules.initial_state(2, 1), 0)
    good = check_turn(Last(), request)
    assert good.legal
    assert good.chosen == request.legal_actions[-1]
    assert good.seat == 0
    bad = check_turn(Broken(), request)
    assert not bad.legal
    assert bad.chosen == "not an action"


def test_every_turn_of_a_record_for_every_game() -> None:
    for game in catalogue.names():
        record = _record(game)
        checks = check_record(HeuristicBot(1, game), record, seat=0)
        assert checks
        assert all(c.seat == 0 and c.legal for c in checks)
        replayed = check_record(Last(), record)
        assert {c.seat for c in replayed} == set(range(catalogue.entry(game).default_players))
        assert all(c.recorded for c in replayed)
    failing = check_record(Broken(), _record("5211"), seat=1)
    assert not failing[0].legal
    assert failing[-1].error == "RuntimeError: oops"
