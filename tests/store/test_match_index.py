"""Match summaries and the queries that list them (arena.store.match_index; no I/O)."""

from __future__ import annotations

from arena.games.base import Outcome, Termination
from arena.referee.timecontrol import TimeControl
from arena.store.match_index import MatchQuery, MatchSummary, Phase, index_names, ladder_of, league_of


def summary(match_id: str, players: tuple[str, ...] = ("ann", "bob"), phase: Phase = Phase.FINISHED) -> MatchSummary:
    outcome = Outcome(Termination.NORMAL, (3, 1), (1, 2)) if phase is Phase.FINISHED else None
    return MatchSummary(match_id, "5211", list(players), {"long_game": True}, TimeControl(), outcome, 5.0, 9.0, phase)


def test_a_match_id_names_its_league_or_ladder_and_nothing_else_does() -> None:
    assert league_of("L1234abcd.00042") == league_of("L1234abcd.00042.ab12") == "L1234abcd"
    assert league_of("0f3a9c") == league_of("x.42") == league_of("a.b.c.d") == ""
    assert ladder_of("LD1234abcd.7.x") == "LD1234abcd" and league_of("LD1234abcd.00007.x") == ""
    assert ladder_of("L1234abcd.00042") == ""


def test_a_summary_reads_back_what_it_stores_and_orders_by_its_phases_time() -> None:
    info = summary("L1234abcd.00001.a")
    assert MatchSummary.from_dict(info.to_dict()) == info
    assert info.position == (9.0, info.match_id)
    running = summary("m1", phase=Phase.RUNNING)
    assert running.running and running.position == (5.0, "m1")
    assert (running.queued_at, summary("m2", phase=Phase.PENDING).position) == (5.0, (0.0, "m2"))


def test_a_query_reads_the_one_index_that_holds_exactly_its_matches() -> None:
    info = summary("L1234abcd.00001.a", ("ann", "bob", "ann"))
    names = index_names(info)
    for query in (
        MatchQuery(),
        MatchQuery(game="5211"),
        MatchQuery(bot="ann"),
        MatchQuery(game="5211", bot="bob"),
        MatchQuery(league="L1234abcd"),
        MatchQuery(league="L1234abcd", bot="ann"),
    ):
        assert query.index_keys() in names and query.fits(info), query
    assert len(names) == len(set(names)) == 9  # a bot in two seats is indexed once
    assert MatchQuery(ladder="LD00000001").index_keys() == ("ladder", "LD00000001")
    for misfit in (MatchQuery(bot="cat"), MatchQuery(game="azul"), MatchQuery(phase=Phase.RUNNING)):
        assert not misfit.fits(info)
    assert MatchQuery(phase=Phase.PENDING).wants(Phase.PENDING) and not MatchQuery(phase=Phase.PENDING).wants(
        Phase.FINISHED
    )
