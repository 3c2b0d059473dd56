"""The ``arena`` command line: one subcommand per job. ``arena COMMAND --help`` tells more."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_SERVER = "127.0.0.1:50051"


def _demo(args: argparse.Namespace) -> int:
    from arena.demo import play_demo

    play_demo(sys.stdout, seed=args.seed)
    return 0


def _conformance(args: argparse.Namespace) -> int:
    from arena.conformance import run

    return run(args.game, args.files, sys.stdout)


def _serve(args: argparse.Namespace) -> int:
    from arena import logs
    from arena.grpc.server import TlsFiles
    from arena.server import ServeConfig, serve

    logs.configure(args.log_level, json_format=args.log_format == "json")
    if bool(args.tls_cert) != bool(args.tls_key):
        print("arena serve: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    config = ServeConfig(
        address=args.address,
        redis_url=args.redis,
        data_dir=Path(args.data_dir),
        admin_token=args.admin_token,
        open_registration=args.open_registration,
        tls=TlsFiles(Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert else None,
        shutdown_grace_seconds=args.shutdown_grace,
        metrics_address=args.metrics_address or None,
    )

    def ready(node: object) -> None:
        port = getattr(node, "port", "?")
        print(f"arena serving on {args.address.rsplit(':', 1)[0]}:{port}", flush=True)

    asyncio.run(serve(config, ready))
    return 0


def _register(args: argparse.Namespace) -> int:
    from arena.admin import register_bot

    print(register_bot(args.server, args.name, _admin_token(args), args.tls_ca))
    return 0


def _match(args: argparse.Namespace) -> int:
    from arena.admin import play_match

    options = dict(option.split("=", 1) for option in args.option)
    return play_match(
        args.server,
        args.bots,
        _admin_token(args),
        seed=args.seed,
        options=options,
        decision_seconds=args.decision_seconds,
        bank_seconds=args.bank_seconds,
        out=sys.stdout,
        tls_ca=args.tls_ca,
    )


def _bot(args: argparse.Namespace) -> int:
    from arena_bot.__main__ import main as bot_main

    argv = [args.kind, "--server", *args.server.split(","), "--token", args.token]
    if args.concurrency:
        argv += ["--concurrency", str(args.concurrency)]
    return bot_main(argv)


def _loadtest(args: argparse.Namespace) -> int:
    from arena.loadtest import LoadConfig, run

    config = LoadConfig(
        bots=args.bots,
        matches=args.matches,
        concurrency=args.concurrency,
        players=args.players,
        processes=args.processes,
        server=args.server,
        admin_token=args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN"),
        seed=args.seed,
    )
    result = run(config, json_path=args.json)
    return 0 if result.errors == 0 else 1


def _admin_token(args: argparse.Namespace) -> str | None:
    if args.admin_token:
        return str(args.admin_token)
    if os.environ.get("ARENA_ADMIN_TOKEN"):
        return os.environ["ARENA_ADMIN_TOKEN"]
    path = Path(args.data_dir) / "admin-token"
    return path.read_text().strip() if path.exists() else None


def _client_options(parser: argparse.ArgumentParser, admin: bool = True) -> None:
    parser.add_argument("--server", default=DEFAULT_SERVER, help=f"arena address (default {DEFAULT_SERVER})")
    parser.add_argument("--tls-ca", help="PEM file of the CA to trust (TLS); plain TCP without it")
    if admin:
        parser.add_argument("--admin-token", help="admin token (default: $ARENA_ADMIN_TOKEN, or DATA_DIR/admin-token)")
        parser.add_argument("--data-dir", default="data", help="where a local server keeps its admin token")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="arena", description="The arena: bots play card games over gRPC.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="play a readable in-process 5211 match between built-in bots")
    demo.add_argument("--seed", type=int, default=5211, help="the match seed (default 5211)")
    demo.set_defaults(handler=_demo)

    conf = sub.add_parser("conformance", help="check a rules engine against conformance case files")
    conf.add_argument("game", help="the game, e.g. 5211")
    conf.add_argument("files", nargs="+", help="round-scoring or playthrough JSON files")
    conf.set_defaults(handler=_conformance)

    serve = sub.add_parser("serve", help="run an arena node (gRPC), with embedded Redis unless --redis is given")
    serve.add_argument("--address", default=DEFAULT_SERVER, help=f"host:port to listen on (default {DEFAULT_SERVER})")
    serve.add_argument("--redis", help="redis:// URL of an external Redis (default: start an embedded one)")
    serve.add_argument("--data-dir", default="data", help="embedded Redis data and the admin token (default data/)")
    serve.add_argument("--admin-token", help="admin token (default: $ARENA_ADMIN_TOKEN, or made in DATA_DIR)")
    serve.add_argument("--open-registration", action="store_true", help="anyone may register bots and start matches")
    serve.add_argument("--tls-cert", help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", help="PEM private key for --tls-cert")
    serve.add_argument(
        "--metrics-address", default="127.0.0.1:9464", help="host:port of /metrics ('' for none; default %(default)s)"
    )
    serve.add_argument("--shutdown-grace", type=float, default=30.0, help="seconds running matches get on SIGTERM")
    serve.add_argument("--log-format", choices=["json", "text"], default="json")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(handler=_serve)

    register = sub.add_parser("register", help="register a bot and print its token (shown once)")
    register.add_argument("name")
    _client_options(register)
    register.set_defaults(handler=_register)

    match = sub.add_parser("match", help="start a match between connected bots and print the result")
    match.add_argument("bots", nargs="+", help="bot names in seat order")
    match.add_argument("--seed", type=int, help="the match seed (default: random)")
    match.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="rules option")
    match.add_argument("--decision-seconds", type=float, default=1.0)
    match.add_argument("--bank-seconds", type=float, default=10.0)
    _client_options(match)
    match.set_defaults(handler=_match)

    load = sub.add_parser("loadtest", help="many simulated bots, many matches: throughput, latency, errors")
    load.add_argument("--bots", type=int, default=100, help="connected bots (default %(default)s)")
    load.add_argument("--matches", type=int, default=1000, help="matches to play (default %(default)s)")
    load.add_argument("--concurrency", type=int, default=64, help="matches in flight (default %(default)s)")
    load.add_argument("--players", type=int, default=2, choices=[2, 3, 4, 5])
    load.add_argument("--processes", type=int, default=2, help="bot processes (default %(default)s)")
    load.add_argument("--server", help="target this arena instead of starting one")
    load.add_argument("--admin-token", help="with --server: the admin token (or $ARENA_ADMIN_TOKEN)")
    load.add_argument("--seed", type=int, default=1)
    load.add_argument("--json", help="also write the JSON summary to this file")
    load.set_defaults(handler=_loadtest)

    bot = sub.add_parser("bot", help="run a built-in bot (random or heuristic) against an arena")
    bot.add_argument("kind", choices=["random", "heuristic"])
    bot.add_argument("--server", default=DEFAULT_SERVER, help="address, or several separated by commas")
    bot.add_argument("--token", required=True, help="the bot's token")
    bot.add_argument("--concurrency", type=int, default=0, help="matches at once (default: the SDK's)")
    bot.set_defaults(handler=_bot)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` command."""
    import grpc

    args = build_parser().parse_args(argv)
    try:
        result: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except grpc.RpcError as error:
        code, details = error.code(), error.details()  # type: ignore[attr-defined]
        print(f"arena {args.command}: {code.name.lower()}: {details}", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
