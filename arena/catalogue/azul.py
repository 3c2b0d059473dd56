"""The catalogue entry of Azul: rules, heuristic, printer and checker in ``arena/games/azul/``, wire
``arena/wire/azul.py``."""

from __future__ import annotations

from typing import Final

from arena.bots.policy import RandomPolicy
from arena.catalogue.entry import GameEntry, Printer, WireCodec
from arena.games import azul
from arena.games.azul import conformance, printer
from arena.games.azul.heuristic import HeuristicAzul
from arena.wire import azul as wire

ENTRY: Final = GameEntry(
    rules=azul.RULES,
    wire=WireCodec(
        field="game_azul",
        observation_type=azul.Observation,
        round_result_type=azul.RoundResult,
        observation_to_proto=wire.observation_to_proto,
        observation_from_proto=wire.observation_from_proto,
        round_result_to_proto=wire.round_result_to_proto,
        round_result_from_proto=wire.round_result_from_proto,
    ),
    check_conformance=conformance.check_file,
    policies={"heuristic": HeuristicAzul, "random": RandomPolicy},
    printer=Printer(printer.describe_start, printer.describe_turn, printer.describe_end),
    default_players=4,
)
