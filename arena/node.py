"""One arena node's services, wired together (transport-agnostic)."""

from __future__ import annotations

import dataclasses
import math

from arena.errors import OUTSIDE_ADMIN_NETWORKS, AdminRequiredError, LimitExceededError
from arena.metrics import ArenaMetrics
from arena.referee.clock import Clock
from arena.referee.timecontrol import TimeControl
from arena.service.auth import ADMIN_REQUIRED, BotRegistry
from arena.service.ladders import LadderService
from arena.service.leagues import LeagueService
from arena.service.limits import AdminNetworks, Limits, Lockout, peer_host
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
    admin_networks: AdminNetworks = dataclasses.field(default_factory=AdminNetworks)
    """Where the admin token is accepted from (``--admin-network``); none listed: anywhere."""
    admin_lockout: Lockout = dataclasses.field(init=False, repr=False)
    """Wrong admin tokens per peer address: a lockout of its own, so that refused bot Hellos and
    wrong admin tokens are counted apart (a bot's guesses do not lock its address out of admin calls)."""
    hello_lockout: Lockout = dataclasses.field(init=False, repr=False)
    """Refused bot Hellos (bad tokens, messages that are no Hello) per peer address."""

    def __post_init__(self) -> None:
        self.admin_lockout = Lockout(self.limits.admin_token_failures, self.limits.lockout_seconds)
        self.hello_lockout = Lockout(self.limits.hello_failures, self.limits.lockout_seconds)

    def is_admin(self, token: str | None, peer: str) -> bool:
        """Whether ``token``, said from the address ``peer`` (``peer_address``), is the admin token.

        No token at all is no guess: False, and not counted (it learns nothing of the token). A wrong
        one counts against ``peer``'s lockout. From a locked-out peer every call that says a token is
        refused with ``LimitExceededError`` without the token being compared, the right one too: else
        a guesser would learn which guess was right by the answer.

        With ``admin_networks``, a token said from outside them is refused with ``AdminRequiredError``
        naming them, uncompared and uncounted; inside them a wrong one is not counted.
        """
        if not token:
            return False
        inside = self.admin_networks.admits(peer)
        if inside is False:
            raise AdminRequiredError(
                f"{OUTSIDE_ADMIN_NETWORKS}{self.admin_networks}; this call came from {peer_host(peer)}"
            )
        if inside:
            return self.registry.is_admin(token)
        now = self.clock.now()
        wait = self.admin_lockout.locked_for(peer, now)
        if wait > 0:
            raise LimitExceededError(f"too many wrong admin tokens from your address: try again in {math.ceil(wait)} s")
        if self.registry.is_admin(token):
            return True
        self.admin_lockout.failed(peer, now)
        self.admin_lockout.share_soon(peer, now)
        return False

    def check_admin(self, token: str | None, peer: str) -> None:
        """Raise ``AdminRequiredError`` unless ``token`` is the admin token (``LimitExceededError``
        for a locked-out ``peer``, see ``is_admin``). Starting matches and leagues needs it, open
        registration or not: open registration lets anyone register a bot, not seat other people's bots."""
        if not self.is_admin(token, peer):
            raise AdminRequiredError(ADMIN_REQUIRED)

    def watch_gauges(self) -> None:
        """Let the metrics read connected bots and active matches from this node."""
        if self.metrics is not None:
            self.metrics.watch(lambda: len(self.hub.connected()), lambda: len(self.matches.running))
