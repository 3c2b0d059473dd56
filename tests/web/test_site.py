"""The web site in a real browser (Debian's Chromium driven by Playwright) against a real arena.

One arena, one set of bots and one browser for the whole module: a finished league of every hosted
game played by starter-bot processes, running 5211 and FOOL! matches between hand-driven raw bots,
and a running grey-wall Azul match held with one seat's column choice in. Screenshots of each page kind are
saved under ``test-artifacts/web/``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.cli.admin import get_leaderboard
from arena.cli.admin_ladders import get_standings
from arena.games.lookup import get_game
from arena.v1 import ladder_pb2, ladder_pb2_grpc
from tests.web.harness import (
    HOSTILE_BOT,
    HOSTILE_CLIENT,
    HOSTILE_LEAGUE,
    LADDER_VERSIONS,
    Site,
    get_json,
    get_text,
    served_site,
    wait_for,
)

os.environ["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with served_site(tmp_path_factory.mktemp("site")) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run scripts/install-system-deps.sh as root"
    shutil.rmtree(ARTIFACTS, ignore_errors=True)  # only this run's pictures
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS"):  # refresh the README's pictures from this run
        target = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        for picture in ARTIFACTS.glob("*.png"):
            shutil.copy(picture, target / picture.name)


class Watched:
    """A page with its console errors, uncaught errors and dialogs (an alert is an injected script)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("dialog", self._dialog)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str) -> Page:
        response = self.page.goto(url)
        assert response is not None and response.status == 200, (url, response and response.status)
        return self.page

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)

    def check(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = Watched(context.new_page())
    yield page
    context.close()
    page.check()


def league_matches(site: Site, game: str) -> list[dict[str, Any]]:
    return list(get_json(f"{site.url}api/matches?league={site.leagues[game]}")["matches"])


def state_at(record: Any, step: int) -> Any:
    """The engine's state after ``step`` recorded steps of a wire record, replayed independently of the site."""
    game = get_game(record.game)
    state = game.initial_state(len(record.bot_names), record.seed, dict(record.options), list(record.deck) or None)
    by_turn: dict[int, dict[int, Any]] = {}
    for decision in record.decisions:
        by_turn.setdefault(decision.turn_index, {})[decision.seat] = game.parse_action(decision.action)
    for turn in sorted(by_turn)[:step]:
        state = game.apply(state, by_turn[turn])
    return state


def seat_cards(page: Page, seat: int, field: str) -> list[str]:
    cards: list[str] = page.locator(f'section.seat[data-seat="{seat}"] .line[data-field="{field}"] .card').evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)"
    )
    return cards


def test_every_page_kind_loads_without_console_errors(site: Site, watched: Watched) -> None:
    league = site.leagues["5211"]
    match = league_matches(site, "5211")[0]["match_id"]
    pages = {
        "home": site.url,
        "leaderboard": f"{site.url}leagues/{league}",
        "bot": f"{site.url}bots/heuristic-1",
        "matches": f"{site.url}matches?game=5211",
        "replay": f"{site.url}matches/{match}?turn=3",
    }
    for name, url in pages.items():
        page = watched.open(url)
        if name == "replay":
            page.wait_for_selector("#viewer[data-ready=true]")
        else:  # the replays' pictures are taken per game below
            watched.shot(name)
    page = watched.open(f"{site.url}bots/heuristic-1")
    assert "Python starter kit" in page.locator("main").inner_text()  # the Python SDK's Hello says arena-bot
    assert page.locator("ul.clients li").count() == 1
    page = watched.open(f"{site.url}matches?bot=random-1&state=finished")
    rows = page.locator("table.matches tbody tr[data-match]")
    assert rows.count() >= 1
    assert all("random-1" in text for text in rows.all_inner_texts())
    missing = watched.page.goto(f"{site.url}bots/nobody-here")
    assert missing is not None and missing.status == 404
    watched.errors = [e for e in watched.errors if "404" not in e]  # the 404 page itself is the expected answer
    headers = missing.headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "unsafe-inline" not in headers["content-security-policy"]


def test_the_home_page_reads_on_a_phone_width(site: Site, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = Watched(context.new_page())
    for url in (site.url, f"{site.url}leagues/{site.leagues['5211']}"):
        page.open(url)
        overflow = page.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{url} is {overflow} px wider than a phone"
    page.shot("leaderboard-phone")
    context.close()
    page.check()


def test_the_leaderboard_shows_the_bots_of_a_finished_league_with_the_right_counts(
    site: Site, watched: Watched
) -> None:
    league = site.leagues["5211"]
    board = get_leaderboard(site.address, league)
    page = watched.open(f"{site.url}leagues/{league}")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == len(board.entries) == 3
    for index, entry in enumerate(board.entries):
        row = rows.nth(index)
        assert row.get_attribute("data-bot") == entry.bot_name
        assert row.locator("a.bot").inner_text() == entry.bot_name
        assert row.locator("a.bot").get_attribute("href") == f"/bots/{entry.bot_name}"
        assert int(row.locator(".n-matches").inner_text()) == entry.matches == 4  # 2 games with each of 2 others
        assert int(row.locator(".n-wins").inner_text()) == entry.wins
        assert float(row.locator(".n-points").inner_text()) == entry.points
    assert page.locator("svg.chart polyline").count() == 3
    page.locator("table.leaderboard a.bot", has_text=HOSTILE_BOT).click()
    page.wait_for_url(f"**/bots/{HOSTILE_BOT}")
    assert page.locator("h1.bot-name").inner_text() == HOSTILE_BOT


def test_hostile_strings_are_shown_as_text(site: Site, watched: Watched) -> None:
    page = watched.open(f"{site.url}leagues/{site.leagues['5211']}")
    assert page.locator("h1").inner_text() == HOSTILE_LEAGUE
    assert page.locator("main script").count() == 0
    page = watched.open(site.url)
    assert HOSTILE_LEAGUE in page.locator("table.leagues").inner_text()
    assert "<script>alert(1)</script>" not in page.content().split("<main>", 1)[1]
    page = watched.open(f"{site.url}bots/live-a")
    assert HOSTILE_CLIENT in page.locator("ul.clients").inner_text()
    assert page.locator("ul.clients img").count() == 0
    # The dialogs check (no alert ran) is the fixture's, after the test.


def assert_azul_drawn(page: Page, state: Any) -> None:
    """The factories, floors and walls on the page are ``state``'s (an empty space shows its pattern colour)."""
    from arena.games.azul.tiles import standard_colour

    for index, factory in enumerate(state.factories):
        shown = page.locator(f'.factory[data-factory="{index}"] .card').evaluate_all("n => n.map(x => x.dataset.card)")
        assert shown == [str(t) for t in factory]
    for seat, board in enumerate(state.boards):
        assert seat_cards(page, seat, "Floor") == [str(t) for t in board.floor]
        wall = page.locator(f'section.seat[data-seat="{seat}"] .wall .wall-row').evaluate_all(
            "rows => rows.map(r => [...r.children].map(c => c.textContent))"
        )
        assert wall == [
            [str(t) if t is not None else str(standard_colour(r, c)).lower() for c, t in enumerate(row)]
            for r, row in enumerate(board.wall)
        ]


@pytest.mark.parametrize("game", ["5211", "coloretto", "azul", "fool"])
def test_the_replay_viewer_shows_the_cards_of_a_recorded_match_at_a_step(
    site: Site, watched: Watched, game: str
) -> None:
    match_id = league_matches(site, game)[0]["match_id"]
    record = site.record(match_id)
    turns = len({d.turn_index for d in record.decisions})
    step = turns // 2
    expected = state_at(record, step)
    page = watched.open(f"{site.url}matches/{match_id}?turn={step}")
    page.wait_for_selector("#viewer[data-ready=true]")
    assert page.locator("#turn-no").inner_text() == str(step)
    assert page.locator("#turn-count").inner_text() == str(turns)
    if game == "5211":
        for seat in range(len(record.bot_names)):
            assert seat_cards(page, seat, "Hand") == [str(c) for c in expected.hands[seat]]
            assert seat_cards(page, seat, "Laid this round") == [str(c) for c in expected.laid[seat]]
            assert seat_cards(page, seat, "Score pile") == [str(c) for c in expected.score_piles[seat]]
    elif game == "azul":
        assert_azul_drawn(page, expected)
        assert record.bot_names[0] in ("a-random", "a-heuristic")  # played by the starter bots
    elif game == "fool":  # the replay of a finished match shows every hand
        for seat in range(len(record.bot_names)):
            assert seat_cards(page, seat, "Hand") == [str(c) for c in expected.hands[seat]]
        assert page.locator(".tricks-box").count() >= 1
    else:
        for index, row in enumerate(expected.rows):
            shown = page.locator(f'.rows .row[data-row="{index}"] .card').evaluate_all(
                "n => n.map(x => x.dataset.card)"
            )
            assert shown == [str(c) for c in row]
    watched.shot(f"replay-{game}")
    page.keyboard.press("ArrowRight")
    assert page.locator("#turn-no").inner_text() == str(step + 1)
    page.keyboard.press("End")
    assert page.locator("#turn-no").inner_text() == str(turns)
    page.keyboard.press("Home")
    assert page.locator("#turn-no").inner_text() == "0"
    page.locator("#round-jump").select_option(index=1)
    assert int(page.locator("#turn-no").inner_text()) > 0


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from walk(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from walk(inner, f"{path}[{index}]")


def assert_no_hand(text: str, hands: dict[int, list[str]], where: str) -> None:
    """No hand of the running match in ``text``: neither a seat's hand as sent to it, nor a hand field."""
    for seat, hand in hands.items():
        assert hand, f"seat {seat} was sent an empty hand"
        assert json.dumps(hand) not in text and ", ".join(hand) not in text, f"seat {seat}'s hand in {where}"
    try:
        data = json.loads(text)
    except ValueError:
        return
    for path, value in walk(data):
        leaf = path.rsplit(".", 1)[-1]
        assert leaf not in ("hands", "draw_pile", "removed", "seed"), f"{where} has {path}"
        if leaf == "hand":
            assert value == [], f"{where} shows a hand at {path}: {value}"


def read_events(url: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` server-sent events of a stream (raw HTTP, so nothing buffers them)."""
    where = url.split("//", 1)[1]
    authority, path = where.split("/", 1)
    host, port = authority.split(":")
    events: list[dict[str, Any]] = []
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET /{path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        received = b""
        while len(events) < count:
            chunk = sock.recv(65536)
            assert chunk, "the event stream ended early"
            received += chunk
            events = [json.loads(line[6:]) for line in received.split(b"\n") if line.startswith(b"data: ")]
    return events[:count]


def test_the_live_view_receives_the_turns_of_a_running_match_and_no_hand(site: Site, watched: Watched) -> None:
    match_id, live = site.live_match, site.live
    page = watched.open(f"{site.url}matches/{match_id}")
    page.wait_for_selector("#viewer[data-events]")
    assert page.locator("#turn-no").inner_text() == "0"
    for turn in (1, 2):
        assert wait_for(live.step, 10, "requests of the live match") == 2
        page.wait_for_selector(f'#viewer[data-turn="{turn}"]', timeout=10_000)
        assert page.locator("#turn-no").inner_text() == str(turn)
        assert page.locator(".actions li").count() == 2
    wait_for(lambda: live.pending, 10, "the next requests")
    watched.shot("live")
    hands = dict(live.hands)
    assert page.locator('.line[data-field="Hand"] .card').count() == 0
    assert "cards (hidden)" in page.locator("#board").inner_text()
    assert_no_hand(page.content(), hands, "the live page")
    for path in (
        f"api/matches/{match_id}",
        "api/matches?state=running",
        "api/overview",
        "api/bots/live-a",
        f"matches/{match_id}",
        "matches?state=running",
        "",
    ):
        assert_no_hand(get_text(f"{site.url}{path}"), hands, path)
    events = read_events(f"{site.url}api/matches/{match_id}/events", 1)
    assert events[0]["turn"] == 2
    assert_no_hand(json.dumps(events), hands, "the event stream")
    replay = watched.page.request.get(f"{site.url}api/matches/{match_id}/replay")
    assert replay.status == 404 and "still running" in replay.json()["error"]
    live.finish()
    page.wait_for_selector("#viewer[data-ended=true]", timeout=30_000)
    assert "ended" in page.locator("#live-status").inner_text()
    wait_for(lambda: get_json(f"{site.url}api/matches/{match_id}")["state"] == "finished", 10, "the match stored")


def test_the_live_view_of_a_grey_wall_azul_match_shows_no_column_choice_before_the_tiling(
    site: Site, watched: Watched
) -> None:
    match_id, grey = site.grey_match, site.grey
    secret = grey.secret
    assert secret is not None and grey.held is not None
    choice = secret.legal_actions[0]  # seat 0's tiling, sent; seat 1's is held
    wall_before = [list(row.spaces) for row in secret.observation.game_azul.boards[0].wall_rows]
    _, held = grey.held
    # Seat 1's request (sent as the tiling began) holds nothing of seat 0's choice either.
    assert [list(row.spaces) for row in held.observation.game_azul.boards[0].wall_rows] == wall_before
    assert held.observation.game_azul.round_results == secret.observation.game_azul.round_results
    page = watched.open(f"{site.url}matches/{match_id}")
    page.wait_for_selector("#viewer[data-events]")
    page.wait_for_selector("#viewer[data-turn]")
    step = int(page.locator("#turn-no").inner_text())
    events = read_events(f"{site.url}api/matches/{match_id}/events", 1)
    assert events[0]["turn"] == step
    view = events[0]["view"]
    assert view["phase"] == "TILING" and view["to_move"] == [0, 1], view
    assert [[t or "" for t in row] for row in view["boards"][0]["wall"]] == [
        [t or "" for t in row] for row in wall_before
    ]
    texts = {
        "the live page": page.content(),
        "the event stream": json.dumps(events),
        f"api/matches/{match_id}": get_text(f"{site.url}api/matches/{match_id}"),
        "api/matches?state=running": get_text(f"{site.url}api/matches?state=running"),
        "api/bots/azul-a": get_text(f"{site.url}api/bots/azul-a"),
        "the home page": get_text(site.url),
    }
    for where, text in texts.items():
        assert f'"{choice}"' not in text and f">{choice}<" not in text, f"seat 0's pending tiling {choice!r} in {where}"
    assert all(choice not in item for item in page.locator(".actions li").all_inner_texts())
    watched.shot("live-azul")
    grey.release()
    page.wait_for_selector("#viewer[data-ended=true]", timeout=60_000)
    wait_for(lambda: get_json(f"{site.url}api/matches/{match_id}")["state"] == "finished", 10, "the match stored")
    revealed = get_json(f"{site.url}api/matches/{match_id}/replay")["turns"][step + 1]["actions"]
    assert {"seat": 0, "action": choice, "fallback": ""} in revealed, revealed  # the check above could fail


def test_the_live_view_of_a_running_fool_match_shows_no_hand(site: Site, watched: Watched) -> None:
    match_id, live = site.fool_match, site.fool
    page = watched.open(f"{site.url}matches/{match_id}")
    page.wait_for_selector("#viewer[data-events]")
    for turn in (1, 2):
        assert wait_for(live.step, 10, "the FOOL! match's request") == 1  # one seat plays at a time
        page.wait_for_selector(f'#viewer[data-turn="{turn}"]', timeout=10_000)
    wait_for(lambda: live.pending, 10, "the next request")
    hands = dict(live.hands)
    assert len(hands) >= 2
    assert page.locator('.line[data-field="Hand"] .card').count() == 0
    assert_no_hand(page.content(), hands, "the live FOOL! page")
    for path in (f"api/matches/{match_id}", "api/matches?state=running&game=fool", "api/bots/fool-1", ""):
        assert_no_hand(get_text(f"{site.url}{path}"), hands, path)
    events = read_events(f"{site.url}api/matches/{match_id}/events", 1)
    assert events[0]["turn"] == 2
    assert_no_hand(json.dumps(events), hands, "the FOOL! event stream")
    watched.shot("live-fool")
    live.finish()
    page.wait_for_selector("#viewer[data-ended=true]", timeout=60_000)


def test_a_ladders_standings_page_shows_its_bots_with_the_counts_of_get_standings(site: Site, watched: Watched) -> None:
    standings = get_standings(site.address, site.ladder)
    assert len(standings.entries) >= 4
    page = watched.open(site.url)
    link = page.locator("table.ladders a", has_text="coloretto ladder")
    assert link.get_attribute("href") == f"/ladders/{site.ladder}"
    link.click()
    page.wait_for_url(f"**/ladders/{site.ladder}")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == len(standings.entries)
    for index, entry in enumerate(standings.entries):
        row = rows.nth(index)
        assert row.get_attribute("data-bot") == entry.bot_name
        assert row.locator(".rank").inner_text() == str(entry.rank)
        assert row.locator("a.bot").inner_text() == entry.bot_name
        assert int(row.locator(".n-games").inner_text()) == entry.games
        assert int(row.locator(".n-wins").inner_text()) == entry.wins
        assert int(row.locator(".n-faults").inner_text()) == entry.faults
        assert row.locator(".provisional").count() == int(entry.provisional)
        low, high = round(entry.rating_low, 1), round(entry.rating_high, 1)
        assert row.locator(".rating").inner_text().startswith(f"{round(entry.rating, 1)}")
        assert f"({low}–{high})" in row.locator(".rating").inner_text()
    watched.shot("ladder")
    api = get_json(f"{site.url}api/ladders/{site.ladder}")
    assert [(r["bot"], r["games"], r["wins"], r["faults"]) for r in api["rows"]] == [
        (e.bot_name, e.games, e.wins, e.faults) for e in standings.entries
    ]
    assert api["provisional_games"] == standings.provisional_games
    assert site.ladder in [ladder["id"] for ladder in get_json(f"{site.url}api/ladders")["ladders"]]
    # Its bots link to their pages; a version's page lists its lineage and its rating history.
    page.locator("table.leaderboard a.bot", has_text=LADDER_VERSIONS[1]).click()
    page.wait_for_url("**/bots/*")
    assert page.locator("h1.bot-name").inner_text() == LADDER_VERSIONS[1]
    versions = page.locator("ul.versions li a").all_inner_texts()
    assert set(LADDER_VERSIONS) <= set(versions)
    with grpc.insecure_channel(site.address) as channel:
        history = ladder_pb2_grpc.LadderServiceStub(channel).GetRatingHistory(
            ladder_pb2.GetRatingHistoryRequest(ladder_id=site.ladder, bot_name=LADDER_VERSIONS[1])
        )
    assert history.points, "the matchmaker charts every refit"
    bot = get_json(f"{site.url}api/bots/{LADDER_VERSIONS[1].replace('@', '%40')}")
    [mine] = [h for h in bot["ladders"] if h["id"] == site.ladder]
    assert [(p["games"], round(p["rating"], 1)) for p in mine["history"]] == [
        (p.games, round(p.rating, 1)) for p in history.points
    ]
    assert page.locator("svg.chart polyline").count() >= 1
    watched.shot("bot-versions")
    # The match list filters by ladder.
    page = watched.open(f"{site.url}matches?ladder={site.ladder}")
    shown = page.locator("table.matches tbody tr[data-match]").evaluate_all("rows => rows.map(r => r.dataset.match)")
    assert shown and all(m.startswith(f"{site.ladder}.") for m in shown), shown
    listed = get_json(f"{site.url}api/matches?ladder={site.ladder}")["matches"]
    assert listed and all(m["ladder_id"] == site.ladder for m in listed)
    # Clear errors: no such ladder; a ladder filter with a bot filter (the ladder's index has no bot).
    missing = watched.page.request.get(f"{site.url}api/ladders/LDnothere")
    assert missing.status == 404 and "no ladder 'LDnothere'" in missing.json()["error"]
    mixed = watched.page.request.get(f"{site.url}api/matches?ladder={site.ladder}&bot=cbot")
    assert mixed.status == 400 and "bot='cbot'" in mixed.json()["error"]
