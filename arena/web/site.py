"""The web site as an aiohttp application in the node's event loop: pages, JSON API, live events.

Read-only: only GET (and HEAD) routes exist. Every answer carries a content-security policy that
allows scripts, styles and connections from the site itself only (no inline script), and every
bot-supplied string reaches a page through Jinja2's autoescaping or the DOM's ``textContent``.

A running match's events (``/api/matches/{id}/events``, server-sent events) come from the node's
watch stream: public views only, so no hand or hidden card of a running match reaches a page.
At most ``MAX_STREAMS`` event streams are open at once; more are answered 503.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web

from arena import catalogue
from arena.errors import ArenaError, BadFilterError, InvalidPageTokenError, NotFoundError
from arena.node import ArenaNode
from arena.service.keepalive import with_keep_alives
from arena.web.chart import Series, line_chart
from arena.web.data import RulesOf, SiteData
from arena.web.frames import to_json

log = logging.getLogger(__name__)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
MAX_STREAMS = 256
KEEP_ALIVE_SECONDS = 15.0
DATA: web.AppKey[SiteData] = web.AppKey("data", SiteData)
STREAMS: web.AppKey[list[int]] = web.AppKey("streams", list)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def package_dir(name: str) -> Path:
    """A folder shipped in this package (``templates`` or ``static``)."""
    return Path(str(resources.files("arena.web") / name))


@web.middleware
async def security(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Security headers on every answer; the site's errors as a page or as JSON."""
    try:
        response = await handler(request)
    except (NotFoundError, BadFilterError, InvalidPageTokenError) as error:
        status = 404 if isinstance(error, NotFoundError) else 400
        response = _error(request, status, str(error))
    except web.HTTPException as error:
        if error.status < 400:
            raise
        response = _error(request, error.status, error.reason)
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def _error(request: web.Request, status: int, message: str) -> web.Response:
    if request.path.startswith("/api/"):
        return web.json_response({"error": message}, status=status)
    response = aiohttp_jinja2.render_template(
        "error.html", request, {"status": status, "message": message, "page": "error"}
    )
    response.set_status(status)
    return response


def _json(data: Any) -> web.Response:
    return web.json_response(data, dumps=lambda value: json.dumps(value, separators=(",", ":")))


def _chart(series: list[dict[str, Any]], title: str, x: str = "results stored", y: str = "Elo") -> Any:
    return line_chart([Series(s["label"], [tuple(p) for p in s["points"]]) for s in series], title, x, y)


def _filters(request: web.Request) -> dict[str, str]:
    query = request.query
    return {name: query.get(name, "").strip() for name in ("game", "bot", "league", "ladder", "state", "page")}


# --- pages -------------------------------------------------------------------------------------


@aiohttp_jinja2.template("home.html")
async def home(request: web.Request) -> dict[str, Any]:
    """Hosted games, leagues, matches playing now, bots, nodes, queue."""
    return {"o": await request.app[DATA].overview(), "page": "home"}


@aiohttp_jinja2.template("league.html")
async def league_page(request: web.Request) -> dict[str, Any]:
    """A league's leaderboard and chart."""
    board = await request.app[DATA].league_board(request.match_info["league_id"])
    return {"b": board, "chart": _chart(board["series"], "Leaders' Elo over the league"), "page": "league"}


@aiohttp_jinja2.template("ladder.html")
async def ladder_page(request: web.Request) -> dict[str, Any]:
    """A ladder's standings and its leaders' rating history."""
    board = await request.app[DATA].ladder_board(request.match_info["ladder_id"])
    chart = line_chart(
        [Series(s["label"], [tuple(p) for p in s["points"]]) for s in board["series"]],
        "Leaders' ratings as they played",
        "rated games",
        "rating",
    )
    return {"b": board, "chart": chart, "page": "ladder"}


@aiohttp_jinja2.template("bot.html")
async def bot_page(request: web.Request) -> dict[str, Any]:
    """``/bots/{name}``: the bot's games, clients, recent matches and its rating chart; 404 for an unknown bot."""
    bot = await request.app[DATA].bot(request.match_info["name"])
    title = "Rating in each league (Elo) and ladder"
    chart = _chart(bot["series"], title, "results stored (league), rated games (ladder)", "rating")
    return {"bot": bot, "chart": chart, "page": "bot"}


@aiohttp_jinja2.template("matches.html")
async def matches_page(request: web.Request) -> dict[str, Any]:
    """The match list with its filters."""
    filters = _filters(request)
    found = await request.app[DATA].matches(**filters)
    return {"m": found, "f": filters, "games": catalogue.names(), "page": "matches"}


@aiohttp_jinja2.template("match.html")
async def match_page(request: web.Request) -> dict[str, Any]:
    """A match: the replay viewer, or the live view of a running one."""
    match = await request.app[DATA].match(request.match_info["match_id"])
    return {"match": match, "page": "match"}


# --- API ---------------------------------------------------------------------------------------


async def api_overview(request: web.Request) -> web.Response:
    """GET /api/overview."""
    return _json(await request.app[DATA].overview())


async def api_league(request: web.Request) -> web.Response:
    """GET /api/leagues/{league_id}."""
    return _json(await request.app[DATA].league_board(request.match_info["league_id"]))


async def api_ladders(request: web.Request) -> web.Response:
    """GET /api/ladders."""
    return _json(await request.app[DATA].ladders())


async def api_ladder(request: web.Request) -> web.Response:
    """GET /api/ladders/{ladder_id}."""
    return _json(await request.app[DATA].ladder_board(request.match_info["ladder_id"]))


async def api_bot(request: web.Request) -> web.Response:
    """GET /api/bots/{name}."""
    return _json(await request.app[DATA].bot(request.match_info["name"]))


async def api_matches(request: web.Request) -> web.Response:
    """GET /api/matches?game=&bot=&league=&ladder=&state=&page=."""
    return _json(await request.app[DATA].matches(**_filters(request)))


async def api_match(request: web.Request) -> web.Response:
    """GET /api/matches/{match_id}."""
    return _json(await request.app[DATA].match(request.match_info["match_id"]))


async def api_replay(request: web.Request) -> web.Response:
    """GET /api/matches/{match_id}/replay."""
    return _json(await request.app[DATA].replay(request.match_info["match_id"]))


async def api_events(request: web.Request) -> web.StreamResponse:
    """GET /api/matches/{match_id}/events: server-sent events of a match, public views only."""
    data = request.app[DATA]
    match = await data.match(request.match_info["match_id"])
    streams = request.app[STREAMS]
    if streams[0] >= MAX_STREAMS:
        raise web.HTTPServiceUnavailable(reason=f"more than {MAX_STREAMS} live streams are open: try again later")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
    for name, value in HEADERS.items():
        response.headers[name] = value
    streams[0] += 1
    events = with_keep_alives(data.node.matches.watch(match["match_id"]), KEEP_ALIVE_SECONDS)
    try:
        await response.prepare(request)
        async for event in events:
            if event is None:
                await response.write(b": keep-alive\n\n")
                continue
            payload = {
                "kind": event.kind.value,
                "turn": event.turn,
                "actions": [{"seat": seat, "action": event.actions[seat]} for seat in sorted(event.actions)],
                "round": getattr(event.view, "round", None),
                "view": to_json(event.view),
                "outcome": event.outcome.to_dict() if event.outcome else None,
            }
            await response.write(f"event: {event.kind.value}\ndata: {json.dumps(payload)}\n\n".encode())
    except (ConnectionResetError, ArenaError) as error:
        log.debug("event stream ended: %s", error)
    finally:
        streams[0] -= 1
        await events.aclose()
    return response


def make_app(node: ArenaNode, rules_of: RulesOf | None = None) -> web.Application:
    """The site over ``node`` (``rules_of`` replays records; default: the rules lookup)."""
    app = web.Application(middlewares=[security])
    app[DATA] = SiteData(node) if rules_of is None else SiteData(node, rules_of)
    app[STREAMS] = [0]
    env = aiohttp_jinja2.setup(
        app, loader=jinja2.FileSystemLoader(package_dir("templates")), autoescape=True, undefined=jinja2.StrictUndefined
    )
    env.globals["games"] = catalogue.names()
    routes = [
        ("/", home),
        ("/leagues/{league_id}", league_page),
        ("/ladders/{ladder_id}", ladder_page),
        ("/bots/{name}", bot_page),
        ("/matches", matches_page),
        ("/matches/{match_id}", match_page),
        ("/api/overview", api_overview),
        ("/api/leagues/{league_id}", api_league),
        ("/api/ladders", api_ladders),
        ("/api/ladders/{ladder_id}", api_ladder),
        ("/api/bots/{name}", api_bot),
        ("/api/matches", api_matches),
        ("/api/matches/{match_id}", api_match),
        ("/api/matches/{match_id}/replay", api_replay),
        ("/api/matches/{match_id}/events", api_events),
    ]
    for path, handler in routes:
        app.router.add_get(path, handler)
    app.router.add_static("/static", package_dir("static"), append_version=False)
    return app


@dataclasses.dataclass
class WebServer:
    """A started site: its runner and the bound port."""

    runner: web.AppRunner
    port: int
    host: str

    @property
    def url(self) -> str:
        """Where a browser finds it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        """Close the listening socket and the open streams."""
        await self.runner.cleanup()


async def start_web(node: ArenaNode, host: str, port: int, rules_of: RulesOf | None = None) -> WebServer:
    """Serve the site for ``node`` on ``host:port`` (port 0: a free one) in this event loop.

    Raises ``OSError`` if the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    runner = web.AppRunner(make_app(node, rules_of), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.SockSite(runner, sock)
    await site.start()
    return WebServer(runner, int(sock.getsockname()[1]), host)
