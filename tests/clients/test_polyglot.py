"""Bots of different languages at one table, in every game the arena hosts: Python, TypeScript, Go, Rust,
Java and C++ processes against a real arena server, then small multi-language leagues (``LEAGUES``).

Each game has a line in ``TABLES``: the tables its polyglot match is played at, each a line-up of seats
(language, strategy) and the match's rules options. A game without a heuristic in a kit is played by that
kit's ``heuristic`` bot at random (see each kit's README), so ``heuristic`` seats of such a game check that
fallback and ``random`` seats check that the random bot plays the game from ``legal_actions`` alone.
Adding a game is one more line here (``test_every_hosted_game_has_polyglot_tables`` fails until it has
one); the test plays the games of ``TABLES`` that the catalogue hosts, so a line may come before its game.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena import catalogue
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.v1 import common_pb2, league_pb2, league_pb2_grpc, match_pb2
from arena.wire.common import options_from_proto
from tests.clients.kits import BotProcess, build_kit, python_bot, running_bots
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually
from tests.queue.harness import wait_done
from tests.records import check_record

TC = TimeControl(decision_allowance=5.0, time_bank=10.0, strike_limit=3, disconnect_grace=10.0)
KIT_LANGUAGES = ("typescript", "go", "rust", "java", "cpp")
LANGUAGES = ("python", *KIT_LANGUAGES)
MATCH_SECONDS = 120.0
"""The bound on one table's match (the tables of a game play at once)."""

Seat = tuple[str, str]
"""(language, strategy): one seat's bot, e.g. ``("rust", "random")``."""


@dataclass(frozen=True)
class Table:
    """One match of a game's polyglot test: its seats in order and its rules options."""

    seats: tuple[Seat, ...]
    options: Mapping[str, str] = field(default_factory=dict)


def heuristics(*languages: str) -> tuple[Seat, ...]:
    """Heuristic seats of these languages."""
    return tuple((language, "heuristic") for language in languages)


def randoms(*languages: str) -> tuple[Seat, ...]:
    """Random seats of these languages."""
    return tuple((language, "random") for language in languages)


TABLES: dict[str, tuple[Table, ...]] = {
    # Two 5-player tables, every kit's 5211 heuristic.
    "5211": (
        Table(heuristics("python", "typescript", "go", "rust", "java")),
        Table(heuristics("cpp", "java", "rust", "go", "typescript")),
    ),
    # The six kits over two tables (3-5 players): every kit's random bot at one, their heuristic bots
    # (which play Coloretto at random) and the Python SDK's Coloretto heuristic at the other.
    "coloretto": (
        Table((*heuristics("python"), *randoms("typescript", "go", "rust", "java"))),
        Table((*randoms("cpp"), *heuristics("cpp", "typescript", "go", "rust"))),
    ),
    # Two 4-player tables (2-4 players), the second on the grey wall.
    "azul": (
        Table((*heuristics("python"), *randoms("typescript", "go", "rust"))),
        Table((*randoms("java", "cpp"), *heuristics("typescript", "go")), {"wall": "grey"}),
    ),
    # One 8-player table (4-8 players): all six languages, two of them twice.
    "fool": (
        Table((*heuristics("python"), *randoms("typescript", "go", "rust", "java", "cpp"), *heuristics("cpp", "java"))),
    ),
}
"""Every game's polyglot tables (a game's line may come before the game is in the catalogue)."""
HOSTED = [game for game in TABLES if game in catalogue.names()]
"""The games of ``TABLES`` the catalogue hosts: the ones played."""


def bot_name(seat: Seat) -> str:
    """The registered name of a seat's bot: one bot (and process) per language and strategy."""
    language, strategy = seat
    return f"{language}-{strategy}"


def command(seat: Seat, kits: Mapping[str, Path]) -> list[str]:
    language, strategy = seat
    if language == "python":
        return python_bot(strategy)
    return [str(kits[language]), "--strategy", strategy]


@pytest.fixture(scope="session")
def kits() -> dict[str, Path]:
    """Every kit built (each build is incremental: seconds when nothing changed)."""
    return {language: build_kit(language) for language in KIT_LANGUAGES}


async def play(arena: Arena, game: str, names: list[str], seed: int, options: Mapping[str, str]) -> None:
    """One match of ``game`` between ``names`` (seat order): it ends by the rules with no rejection, no
    fallback and no forfeit, and its record replays."""
    match_id = await arena.start_match(names, seed=seed, tc=TC, game=game, **options)
    await eventually(lambda: match_id not in arena.node.matches.running, MATCH_SECONDS)
    record = await arena.record(match_id)
    check_record(record)
    assert record.game == game
    assert list(record.bot_names) == names
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL, record.outcome
    assert not record.rejections, list(record.rejections)
    assert not record.outcome.forfeited_seats
    assert not [d for d in record.decisions if d.is_fallback], "a seat's answer was replaced by a fallback"
    assert {d.seat for d in record.decisions} == set(range(len(names))), "a seat never decided"
    assert sorted(record.outcome.placings)[0] == 1


def test_every_hosted_game_has_polyglot_tables() -> None:
    assert set(catalogue.names()) <= set(TABLES)
    for game in HOSTED:
        for table in TABLES[game]:
            assert len(table.seats) in catalogue.entry(game).rules.player_counts, (game, table)
        assert {language for table in TABLES[game] for language, _ in table.seats} == set(LANGUAGES), game


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("game", HOSTED)
async def test_six_languages_share_tables(arena: Arena, kits: dict[str, Path], tmp_path: Path, game: str) -> None:
    tables = TABLES[game]
    seats = sorted({seat for table in tables for seat in table.seats})
    lineup = [(bot_name(seat), command(seat, kits)) for seat in seats]
    async with running_bots(arena, tmp_path, lineup) as processes:
        await asyncio.gather(
            *(
                play(arena, game, [bot_name(seat) for seat in table.seats], seed, table.options)
                for seed, table in enumerate(tables, start=1)
            )
        )
        await check_played_cleanly(processes)


async def check_played_cleanly(processes: Sequence[BotProcess]) -> None:
    """Each kit's bot process printed a match's end and no rejection (the Python SDK's prints no events)."""
    for process in processes:
        if not process.name.startswith("python-"):
            assert await process.line("ended "), process.describe()
            assert not process.starting("rejected "), process.describe()


@dataclass(frozen=True)
class League:
    """A small multi-language league of a game: its bots, players a match and rules options."""

    game: str
    bots: tuple[Seat, ...]
    players_per_match: int
    options: Mapping[str, str] = field(default_factory=dict)


LEAGUES: tuple[League, ...] = (
    # Four languages, three a match: C(4, 3) = 4 matches, each mixing three of them.
    League("coloretto", (("python", "heuristic"), ("cpp", "heuristic"), ("rust", "random"), ("java", "heuristic")), 3),
    # The grey wall, four languages, three a match: 4 matches.
    League(
        "azul",
        (("python", "heuristic"), ("typescript", "random"), ("go", "heuristic"), ("cpp", "random")),
        3,
        {"wall": "grey"},
    ),
    # Eight bots, eight a match: one table, so one match; the six languages, two of them twice.
    League(
        "fool",
        (*heuristics("python"), *randoms("typescript", "go", "rust", "java", "cpp"), *heuristics("go", "rust")),
        8,
    ),
)
"""The multi-language leagues (games_per_pairing=1), each of a hosted game."""


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "spec", [league for league in LEAGUES if league.game in HOSTED], ids=lambda league: league.game
)
async def test_a_multi_language_league_completes_with_a_leaderboard(
    arena: Arena, leagues: LeagueService, kits: dict[str, Path], tmp_path: Path, spec: League
) -> None:
    names = [bot_name(seat) for seat in spec.bots]
    assert len(set(names)) == len(names) and len(names) >= spec.players_per_match, names
    lineup = [(bot_name(seat), command(seat, kits)) for seat in spec.bots]
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    async with running_bots(arena, tmp_path, lineup) as processes:
        tc = common_pb2.TimeControl(strike_limit=3)
        tc.decision_allowance.FromSeconds(5)
        tc.time_bank.FromSeconds(10)
        league_spec = league_pb2.LeagueSpec(
            name=f"polyglot {spec.game}",
            game=spec.game,
            players_per_match=spec.players_per_match,
            bot_names=names,
            games_per_pairing=1,
            time_control=tc,
            options=spec.options,
        )
        league = (
            await stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=league_spec), metadata=ADMIN_METADATA)
        ).league
        await wait_done(leagues, league.league_id, 300)
        board = await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=league.league_id))
        await check_played_cleanly(processes)
    progress = board.league.progress
    listed = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(league_id=league.league_id, page_size=50))
    assert len(listed.matches) == progress.total, list(listed.matches)
    for summary in listed.matches:  # each a match of the game and bots, with the league's options
        assert summary.game == spec.game and set(summary.bot_names) <= set(names), summary
        assert options_from_proto(summary.options) == options_from_proto(spec.options), summary.options
        assert summary.state == match_pb2.MATCH_STATE_FINISHED, summary
    tables = math.comb(len(names), spec.players_per_match)
    assert progress.total == tables and progress.done == progress.total and not progress.cancelled, progress
    ranks = [entry.rank for entry in board.entries]  # equal ratings share a rank
    assert ranks[0] == 1 and ranks == sorted(ranks) and all(rank <= place for place, rank in enumerate(ranks, 1))
    assert sorted(entry.bot_name for entry in board.entries) == sorted(names)
    assert sum(entry.matches for entry in board.entries) == spec.players_per_match * progress.total
    assert all(entry.matches == tables * spec.players_per_match // len(names) for entry in board.entries)
    assert not any(entry.timeouts or entry.forfeits for entry in board.entries), list(board.entries)
