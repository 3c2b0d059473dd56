"""The catalogue entry of 5211: rules ``arena/games/g5211/``, wire ``arena/wire/g5211.py``, bots ``arena/bots/``."""

from __future__ import annotations

from typing import Final

from arena.bots.heuristic5211 import Heuristic5211
from arena.bots.policy import RandomPolicy
from arena.catalogue.entry import GameEntry, Printer, WireCodec
from arena.games import g5211
from arena.games.g5211 import conformance, printer
from arena.wire import g5211 as wire


def _hasty(seed: int | None) -> Heuristic5211:
    """The heuristic with a glance instead of a look (2 samples): quicker and weaker."""
    return Heuristic5211(seed, samples=2)


ENTRY: Final = GameEntry(
    rules=g5211.RULES,
    wire=WireCodec(
        field="game_5211",
        observation_type=g5211.Observation,
        round_result_type=g5211.RoundResult,
        observation_to_proto=wire.observation_to_proto,
        observation_from_proto=wire.observation_from_proto,
        round_result_to_proto=wire.round_result_to_proto,
        round_result_from_proto=wire.round_result_from_proto,
        observation_to_wire=wire.observation_to_wire,
    ),
    check_conformance=conformance.check_file,
    policies={"heuristic": Heuristic5211, "hasty": _hasty, "random": RandomPolicy},
    printer=Printer(printer.describe_start, printer.describe_turn, printer.describe_end),
    default_players=2,
)
