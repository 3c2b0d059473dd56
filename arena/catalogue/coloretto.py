"""The catalogue entry of Coloretto: rules, heuristic, printer and checker in ``arena/games/coloretto/``,
wire ``arena/wire/coloretto.py``."""

from __future__ import annotations

from typing import Final

from arena.bots.policy import RandomPolicy
from arena.catalogue.entry import GameEntry, Printer, WireCodec
from arena.games import coloretto
from arena.games.coloretto import conformance, printer
from arena.games.coloretto.heuristic import HeuristicColoretto
from arena.wire import coloretto as wire

ENTRY: Final = GameEntry(
    rules=coloretto.RULES,
    wire=WireCodec(
        field="game_coloretto",
        observation_type=coloretto.Observation,
        round_result_type=coloretto.RoundRecord,
        observation_to_proto=wire.observation_to_proto,
        observation_from_proto=wire.observation_from_proto,
        round_result_to_proto=wire.round_result_to_proto,
        round_result_from_proto=wire.round_result_from_proto,
    ),
    check_conformance=conformance.check_file,
    policies={"heuristic": HeuristicColoretto, "random": RandomPolicy},
    printer=Printer(printer.describe_start, printer.describe_turn, printer.describe_end),
    default_players=4,
)
