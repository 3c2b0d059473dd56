"""The ``arena`` command line: one subcommand per job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from arena.demo import play_demo

    play_demo(sys.stdout, seed=args.seed)
    return 0


def _conformance(args: argparse.Namespace) -> int:
    from arena.conformance import run

    return run(args.game, args.files, sys.stdout)


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` command."""
    args = build_parser().parse_args(argv)
    handler = args.handler
    result: int = handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
