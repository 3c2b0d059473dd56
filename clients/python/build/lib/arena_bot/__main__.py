"""Run a bot from the command line: ``python -m arena_bot NAME --server HOST:PORT``.

NAME is a starter bot (``random`` or ``heuristic``) or your own, as ``module:Class`` (the class is a
``Bot`` subclass built with no arguments). The arena's address comes from ``--server`` (repeat it
for fallbacks), else ``$ARENA_SERVER``, else 127.0.0.1:50051, as for ``arena bot``. The token comes
from ``--token VALUE``, ``--token-file PATH``, or ``$ARENA_TOKEN`` (``$ARENA_BOT_TOKEN`` is its
older alias); a file or the environment keeps it out of the process's command line, which other
local users can read. A token may start with '-'.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from arena_bot.bot import ArenaBotError, Bot
from arena_bot.bots import BOTS, PolicyBot


def load_bot(name: str, seed: int | None = None, game: str | None = None) -> Bot:
    """A starter bot by name (for ``game``, or every game it can play), or ``module:Class`` built with no arguments."""
    if name in BOTS:
        try:
            return BOTS[name](seed, game)
        except ValueError as error:
            raise SystemExit(str(error)) from None
    module_name, _, class_name = name.partition(":")
    if not class_name:
        raise SystemExit(f"unknown bot {name!r}: use one of {', '.join(sorted(BOTS))}, or module:Class")
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise SystemExit(f"{name!r} is not a Bot subclass")
    return cls()


def parser() -> argparse.ArgumentParser:
    """The command line."""
    called = Path(sys.argv[0]).name
    prog = called if called.startswith("arena-bot") else "python -m arena_bot"
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("bot", metavar="NAME", help=f"{' or '.join(sorted(BOTS))}, or module:Class")
    p.add_argument(
        "--server",
        action="append",
        metavar="HOST:PORT",
        help=f"arena address; repeat to give fallbacks, tried in turn ($ARENA_SERVER; default {DEFAULT_SERVER})",
    )
    p.add_argument("--token", help="the bot's token (visible to local users: prefer $ARENA_TOKEN or --token-file)")
    p.add_argument("--token-file", metavar="PATH", help="read the bot's token from this file")
    p.add_argument("--tls", action="store_true", help="connect with TLS (system root certificates)")
    p.add_argument("--root-certs", metavar="FILE", help="PEM root certificates for TLS (implies --tls)")
    p.add_argument("--client-cert", metavar="FILE", help="PEM client certificate, for an arena with mutual TLS")
    p.add_argument("--client-key", metavar="FILE", help="PEM private key of --client-cert")
    p.add_argument("--matches", type=int, metavar="N", help="stop after N matches (default: play until stopped)")
    p.add_argument("--concurrency", type=int, metavar="N", help="matches to play at once (default: the bot's)")
    p.add_argument("--seed", type=int, help="seed for the starter bots")
    p.add_argument("--game", help="play only this game (default: every game the bot can play)")
    p.add_argument(
        "--epsilon", type=float, default=0.0, help="a built-in policy plays at random with this probability (0-1)"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every message")
    return p


TOKEN_VARIABLES = ("ARENA_TOKEN", "ARENA_BOT_TOKEN")
"""Where the token is looked for, in order: the documented one, then its older alias."""
DEFAULT_SERVER = "127.0.0.1:50051"


def joined_values(argv: Sequence[str], flags: Sequence[str]) -> list[str]:
    """``--flag VALUE`` as ``--flag=VALUE`` for the given flags, so a value starting with '-' (a
    token may) is not taken for an option."""
    out: list[str] = []
    items = iter(argv)
    for item in items:
        if item in flags:
            value = next(items, None)
            out.append(item if value is None else f"{item}={value}")
        else:
            out.append(item)
    return out


def token_from(given: str | None, path: str | None) -> str:
    """The token: ``--token``, else ``--token-file``, else the environment; SystemExit saying what is missing."""
    if given:
        return given
    if path:
        try:
            token = Path(path).read_text().strip()
        except OSError as error:
            raise SystemExit(f"cannot read the token file {path!r}: {error.strerror}") from None
        if not token:
            raise SystemExit(f"the token file {path!r} is empty")
        return token
    for variable in TOKEN_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]
    raise SystemExit("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parser().parse_args(joined_values(sys.argv[1:] if argv is None else argv, ("--token",)))
    token = token_from(args.token, args.token_file)
    servers = args.server or [os.environ.get("ARENA_SERVER") or DEFAULT_SERVER]
    if bool(args.client_cert) != bool(args.client_key):
        raise SystemExit("--client-cert and --client-key go together")
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    bot = load_bot(args.bot, args.seed, args.game)
    if args.game and not BOTS.get(args.bot):
        bot.games = (args.game,)
    if args.epsilon:
        if not isinstance(bot, PolicyBot) or not 0.0 <= args.epsilon <= 1.0:
            raise SystemExit(f"--epsilon {args.epsilon!r}: give 0 to 1, for a built-in policy (heuristic, hasty)")
        bot.epsilon = args.epsilon
    if args.concurrency is not None:
        bot.max_concurrent_matches = args.concurrency
    try:
        bot.run(
            servers,
            token,
            tls=args.tls,
            root_certificates=args.root_certs,
            client_certificate=args.client_cert,
            client_key=args.client_key,
            max_matches=args.matches,
        )
    except ArenaBotError as error:
        print(error, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
