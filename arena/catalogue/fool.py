"""The catalogue entry of FOOL!: rules, heuristic, printer and checker in ``arena/games/fool/``,
wire ``arena/wire/fool.py``."""

from __future__ import annotations

from typing import Final

from arena.bots.policy import RandomPolicy
from arena.catalogue.entry import GameEntry, Printer, WireCodec
from arena.games import fool
from arena.games.fool import conformance, printer
from arena.games.fool.heuristic import HeuristicFool
from arena.wire import fool as wire

ENTRY: Final = GameEntry(
    rules=fool.RULES,
    wire=WireCodec(
        field="game_fool",
        observation_type=fool.Observation,
        round_result_type=fool.RoundResult,
        observation_to_proto=wire.observation_to_proto,
        observation_from_proto=wire.observation_from_proto,
        round_result_to_proto=wire.round_result_to_proto,
        round_result_from_proto=wire.round_result_from_proto,
    ),
    check_conformance=conformance.check_file,
    policies={"heuristic": HeuristicFool, "random": RandomPolicy},
    printer=Printer(printer.describe_start, printer.describe_turn, printer.describe_end),
    default_players=6,
    demo_policies=("heuristic", "heuristic", "heuristic", "random", "random", "random"),
)
