"""One arena node's services, wired together (transport-agnostic)."""

from __future__ import annotations

import dataclasses

from arena.metrics import ArenaMetrics
from arena.referee.clock import Clock
from arena.referee.timecontrol import TimeControl
from arena.service.auth import BotRegistry
from arena.service.ladders import LadderService
from arena.service.leagues import LeagueService
from arena.service.limits import Limits
from arena.service.matches import MatchManager
from arena.service.sessions import SessionHub
from arena.store.clients import ClientBook
from arena.store.nodes import NodeDirectory


@dataclasses.dataclass
class ArenaNode:
    """The services of one node: bot registry, bot sessions and matches."""

    registry: BotRegistry
    hub: SessionHub
    matches: MatchManager
    clock: Clock
    clients: ClientBook
    """The client programs (Hello's client name and version) each bot connected with, for its web page."""
    default_time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    keep_alive_seconds: float = 15.0
    max_matches_per_connection: int = 10_000
    metrics: ArenaMetrics | None = None
    leagues: LeagueService | None = None
    """Leagues need Redis: None on a node without it."""
    ladders: LadderService | None = None
    """Ladders need Redis too."""
    nodes: NodeDirectory | None = None
    """The heartbeats of this arena's nodes (Redis): None on a node without it."""
    limits: Limits = dataclasses.field(default_factory=Limits)
    """What clients may ask of this node (connections, Hellos, pings, registrations, league sizes)."""

    def check_admin(self, token: str | None) -> None:
        """Starting matches and leagues needs the admin token, open registration or not: open
        registration lets anyone register a bot, not seat other people's bots."""
        self.registry.check_admin(token)

    def watch_gauges(self) -> None:
        """Let the metrics read connected bots and active matches from this node."""
        if self.metrics is not None:
            self.metrics.watch(lambda: len(self.hub.connected()), lambda: len(self.matches.running))
