"""Run a bot from the command line: ``python -m arena_bot NAME --server HOST:PORT --token T``.

NAME is a starter bot (``random`` or ``heuristic``) or your own, as ``module:Class`` (the class is a
``Bot`` subclass built with no arguments). The token may also come from the ARENA_TOKEN variable.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from arena_bot.bot import ArenaBotError, Bot
from arena_bot.bots import BOTS


def load_bot(name: str, seed: int | None = None) -> Bot:
    """A starter bot by name, or ``module:Class`` built with no arguments."""
    if name in BOTS:
        return BOTS[name](seed)  # type: ignore[call-arg]
    module_name, _, class_name = name.partition(":")
    if not class_name:
        raise SystemExit(f"unknown bot {name!r}: use one of {', '.join(sorted(BOTS))}, or module:Class")
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise SystemExit(f"{name!r} is not a Bot subclass")
    return cls()


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m arena_bot", description=__doc__.split("\n\n")[0])
    p.add_argument("bot", metavar="NAME", help=f"{' or '.join(sorted(BOTS))}, or module:Class")
    p.add_argument(
        "--server",
        action="append",
        required=True,
        metavar="HOST:PORT",
        help="arena address; repeat to give fallbacks, tried in turn",
    )
    p.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="the bot's token (default: $ARENA_TOKEN)")
    p.add_argument("--tls", action="store_true", help="connect with TLS (system root certificates)")
    p.add_argument("--root-certs", metavar="FILE", help="PEM root certificates for TLS (implies --tls)")
    p.add_argument("--matches", type=int, metavar="N", help="stop after N matches (default: play until stopped)")
    p.add_argument("--concurrency", type=int, metavar="N", help="matches to play at once (default: the bot's)")
    p.add_argument("--seed", type=int, help="seed for the starter bots")
    p.add_argument("-v", "--verbose", action="store_true", help="log every message")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parser().parse_args(argv)
    if not args.token:
        raise SystemExit("give the bot's token with --token or ARENA_TOKEN")
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    bot = load_bot(args.bot, args.seed)
    if args.concurrency is not None:
        bot.max_concurrent_matches = args.concurrency
    try:
        bot.run(args.server, args.token, tls=args.tls, root_certificates=args.root_certs, max_matches=args.matches)
    except ArenaBotError as error:
        print(error, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
