"""What one node allows its clients, and the small accounting that enforces it (no I/O).

Every number of :class:`Limits` is an ``arena serve`` flag (see the README, "Limits"). The
transport applies the connection-level ones (gRPC core channel args); the services apply the rest
with the pieces below, all keyed by the client's *peer address* (its IP, without the port; an IPv6
address by its /64, see :func:`counted_as`) and told the time by the caller, so tests drive them
without sleeping:

- :class:`PeerCounter`: how many of something each peer holds now (streams awaiting a Hello),
  with a global cap and a per-peer cap.
- :class:`TokenBucket`: a rate with a burst (pings on one bot stream).
- :class:`RateLimiter`: a token bucket per peer (registrations a minute).
- :class:`Lockout`: failures per peer (refused Hellos; wrong admin tokens, in a lockout of their
  own); past a threshold the peer is refused for a while, twice as long at each further failure
  (backoff), up to a ceiling.

Per-peer tables hold at most ``MAX_PEERS`` entries (the least recently used go first), so a
client with many addresses cannot make them grow without bound.

Beside them, the bounds of a time control a client may ask for (``MAX_DECISION_ALLOWANCE`` and the
others, checked by :func:`requested_time_control`): fixed, not flags, as no real match needs more.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import functools
import ipaddress
import resource
import urllib.parse
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from arena.errors import LimitExceededError, LimitsError, TimeControlError
from arena.referee.timecontrol import TimeControl

MAX_PEERS = 10_000
"""Entries kept per per-peer table; the least recently used are forgotten first."""


def _limit(default: float, help_text: str) -> Any:
    return dataclasses.field(default=default, metadata={"help": help_text})


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """The node's limits, with defaults sized for one node serving a few thousand bots.

    Each field is the ``arena serve`` flag of the same name (``max_connections`` is
    ``--max-connections``); its metadata ``help`` is the flag's help.
    """

    max_connections: int = _limit(4096, "TCP connections at once; kept below the open-files limit")
    handshake_timeout_seconds: float = _limit(5.0, "a connection still without its HTTP/2 (TLS) handshake is closed")
    idle_connection_seconds: float = _limit(60.0, "a connection with no call open this long is closed")
    keepalive_seconds: float = _limit(20.0, "the server pings every connection this often")
    keepalive_timeout_seconds: float = _limit(10.0, "a connection whose ping is unanswered this long is closed")
    max_streams_per_connection: int = _limit(
        1000, "calls open at once on one connection (load tests multiplex many bots on one)"
    )
    hello_timeout_seconds: float = _limit(3.0, "a bot stream without its Hello by then is ended")
    max_pending_hellos: int = _limit(1024, "bot streams awaiting their Hello at once, over every client")
    max_pending_hellos_per_peer: int = _limit(32, "bot streams awaiting their Hello at once from one address")
    pings_per_second: float = _limit(5.0, "pings a bot stream may send a second on average")
    ping_burst: int = _limit(50, "pings a bot stream may send at once; a faster stream is ended")
    hello_failures: int = _limit(10, "refused Hellos from one address before it is locked out")
    lockout_seconds: float = _limit(30.0, "first lockout; doubled at each further refusal, up to an hour")
    admin_token_failures: int = _limit(10, "wrong admin tokens from one address before it is locked out")
    registrations_per_minute: int = _limit(10, "bots one address may register a minute without the admin token")
    max_watchers: int = _limit(256, "WatchMatch streams open at once on this node, over every client")
    max_league_bots: int = _limit(256, "bots in one league (each is looked up in the bot registry)")
    max_league_matches: int = _limit(100_000, "scheduled matches in one league, counted before scheduling")

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not value > 0:
                raise LimitsError(f"--{field.name.replace('_', '-')} must be positive, not {value!r}")


MAX_LOCKOUT_SECONDS = 3600.0
FAILURES_FORGOTTEN_SECONDS = 600.0
"""A peer's failures (refused Hellos, wrong admin tokens) are forgotten after this long without one
(and out of its lockout)."""
RESERVED_FILES = 256
"""Open files kept free of connections: Redis, logs, the metrics endpoint, the node's own calls."""


def raise_open_files_limit(max_connections: int) -> int:
    """Raise RLIMIT_NOFILE's soft limit to the hard one; returns it. ``LimitsError`` when
    ``max_connections`` does not fit below it with ``RESERVED_FILES`` to spare."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass  # keep the soft limit we have
    if max_connections > soft - RESERVED_FILES:
        raise LimitsError(
            f"--max-connections {max_connections} does not fit the open-files limit ({soft}, keeping "
            f"{RESERVED_FILES} spare): lower it to {max(1, soft - RESERVED_FILES)} or raise 'ulimit -n'"
        )
    return soft


def peer_address(peer: str) -> str:
    """The address part of a gRPC peer (``ipv4:10.0.0.1:5555`` → ``ipv4:10.0.0.1``)."""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def peer_host(peer: str) -> str:
    """The host of a ``peer_address``, as a person writes it: ``ipv6:%5B::1%5D`` → ``::1``."""
    return urllib.parse.unquote(peer.partition(":")[2] or peer).strip("[]")


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""RFC 6052's well-known prefix: its last 32 bits are the IPv4 client's address."""


@functools.lru_cache(maxsize=4096)
def counted_as(peer: str) -> str:
    """What the per-peer limits count ``peer`` (a ``peer_address``) as: an IPv6 address as its /64,
    the block that one host or one subscriber is given (counted by address, one client would have
    2**64 allowances); one that embeds an IPv4 client's address as that address: IPv4-mapped (a
    dual-stack listener's IPv4 client), NAT64's well-known prefix (whose /64 holds every client of
    the gateway), 6to4 and Teredo; anything else as it is."""
    if not peer.startswith("ipv6:"):
        return peer
    try:
        address = ipaddress.IPv6Address(peer_host(peer).partition("%")[0])  # without a zone
    except ValueError:
        return peer
    embedded = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
    if embedded is None and address in _NAT64:
        embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if embedded is not None:
        return f"ipv4:{embedded}"
    return f"ipv6:{ipaddress.IPv6Network((address, 64), strict=False)}"


IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclasses.dataclass(frozen=True, slots=True)
class AdminNetworks:
    """The networks the admin token is accepted from (``--admin-network``, repeatable); none: anywhere.

    Outside them a call that says a token is refused without the token being compared, so nobody
    there can guess it, nor lock the admin out; inside them wrong tokens are not locked out (the
    operator's own network: a guesser behind the admin's address locked the admin out with him)."""

    networks: tuple[IpNetwork, ...] = ()

    @classmethod
    def parse(cls, given: Sequence[str]) -> AdminNetworks:
        """The networks of ``--admin-network`` values (``10.0.0.0/8``, ``fd00::/8``, ``127.0.0.1``);
        ``LimitsError`` naming a value that is none."""
        networks = []
        for value in given:
            try:
                networks.append(ipaddress.ip_network(value.strip(), strict=False))
            except ValueError:
                raise LimitsError(
                    f"--admin-network {value!r} is not an address or a network (such as 10.0.0.0/8 or fd00::/8)"
                ) from None
        return cls(tuple(networks))

    def admits(self, peer: str) -> bool | None:
        """Whether ``peer`` (``peer_address``: ``ipv4:10.0.0.1``, ``ipv6:[::1]``, ``unix:…``) is inside
        them; None when there are none (the token is accepted anywhere, under the lockout). A Unix
        socket's peer is on this machine, and inside only if a loopback network is listed."""
        if not self.networks:
            return None
        kind, host = peer.partition(":")[0], peer_host(peer)
        if kind == "unix":
            host = "127.0.0.1"
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)

    def __str__(self) -> str:
        return ", ".join(str(network) for network in self.networks)


class PeerCounter:
    """How many of something each peer holds now, under a global and a per-peer cap."""

    def __init__(self, total: int, per_peer: int) -> None:
        self.total, self.per_peer = total, per_peer
        self.held = 0
        self._by_peer: dict[str, int] = {}

    def acquire(self, peer: str) -> None:
        """Take one for ``peer``; raises ``LimitExceededError`` past either cap."""
        peer = counted_as(peer)
        mine = self._by_peer.get(peer, 0)
        if self.held >= self.total:
            raise LimitExceededError(f"more than {self.total} bot streams are awaiting their Hello; try again later")
        if mine >= self.per_peer:
            raise LimitExceededError(f"more than {self.per_peer} bot streams from your address are awaiting a Hello")
        self._by_peer[peer] = mine + 1
        self.held += 1

    def release(self, peer: str) -> None:
        """Give one back."""
        peer = counted_as(peer)
        mine = self._by_peer.get(peer, 0)
        if mine <= 1:
            self._by_peer.pop(peer, None)
        else:
            self._by_peer[peer] = mine - 1
        self.held = max(0, self.held - 1)


@dataclasses.dataclass(slots=True)
class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = 0.0

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class RateLimiter:
    """A token bucket per peer: ``per_minute`` a minute, all of them at once at most."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, peer: str, now: float, what: str) -> None:
        """Spend one of ``peer``'s allowance; raises ``LimitExceededError`` when none is left."""
        peer = counted_as(peer)
        bucket = self._buckets.pop(peer, None) or TokenBucket(self.per_minute / 60.0, self.per_minute)
        self._buckets[peer] = bucket
        while len(self._buckets) > MAX_PEERS:
            self._buckets.popitem(last=False)
        if not bucket.take(now):
            raise LimitExceededError(f"more than {self.per_minute} {what} a minute from your address; try again later")


@dataclasses.dataclass(slots=True)
class _Failures:
    count: int = 0
    locked_until: float = 0.0
    last: float = 0.0


@dataclasses.dataclass(slots=True)
class _Turn:
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    holders: int = 0
    """Attempts holding or waiting for the lock (the entry goes with the last)."""


class Lockout:
    """Failures per peer address (refused Hellos, or wrong admin tokens: one instance each), with a
    lockout that doubles at each further failure.

    A peer's count is forgotten after ``FAILURES_FORGOTTEN_SECONDS`` without a failure, never on a
    success: a token of one's own (open registration gives anyone one) said between guesses would
    let them go on without end, and so would the admin's calls from an address a guesser shares."""

    def __init__(self, threshold: int, seconds: float) -> None:
        self.threshold, self.seconds = threshold, seconds
        self._peers: OrderedDict[str, _Failures] = OrderedDict()
        self.shared: Callable[[str], Awaitable[int]] | None = None
        """Adds a failure to the arena's count for an address and returns it (``arena.store.failures``):
        set on a node with Redis, so that guesses spread over nodes count together."""
        self._sharing: set[asyncio.Task[None]] = set()
        self._turns: dict[str, _Turn] = {}

    @contextlib.asynccontextmanager
    async def turn(self, peer: str) -> AsyncIterator[None]:
        """Hold while an attempt of ``peer``'s is checked, judged and counted when judging it waits
        (a token's lookup in Redis): one at a time, so attempts sent together are each checked
        against the failures of those before them, not all let through before the first is counted."""
        key = counted_as(peer)
        turn = self._turns.get(key)
        if turn is None:
            turn = self._turns[key] = _Turn()
        turn.holders += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.holders -= 1
            if not turn.holders:
                del self._turns[key]

    def locked_for(self, peer: str, now: float) -> float:
        """Seconds ``peer`` remains locked out (0 when it may try)."""
        failures = self._peers.get(counted_as(peer))
        return 0.0 if failures is None else max(0.0, failures.locked_until - now)

    def failed(self, peer: str, now: float) -> None:
        """Count a failure (a refused Hello, a wrong admin token); past the threshold lock the peer
        out, longer each time."""
        peer = counted_as(peer)
        failures = self._peers.pop(peer, None) or _Failures()
        if now - failures.last > FAILURES_FORGOTTEN_SECONDS and now >= failures.locked_until:
            failures.count = 0
        self._peers[peer] = failures
        while len(self._peers) > MAX_PEERS:
            self._peers.popitem(last=False)
        failures.count += 1
        failures.last = now
        self._lock(failures, now)

    def _lock(self, failures: _Failures, now: float) -> None:
        over = failures.count - self.threshold
        if over >= 0:
            failures.locked_until = now + min(MAX_LOCKOUT_SECONDS, self.seconds * 2.0 ** min(over, 20))

    async def share(self, peer: str, now: float) -> None:
        """After ``failed``: add the failure to the arena's count and take that count if it is higher
        (locking ``peer`` out here on the failures other nodes saw). ``shared`` answers 0 when it
        cannot reach the store, which leaves this node's count alone."""
        if self.shared is None:
            return
        peer = counted_as(peer)
        count = await self.shared(peer)
        failures = self._peers.get(peer)
        if failures is not None and count > failures.count:
            failures.count = count
            self._lock(failures, now)

    def share_soon(self, peer: str, now: float) -> None:
        """``share`` from code that cannot wait for it (the admin check), in a task kept till done."""
        if self.shared is not None:
            task = asyncio.ensure_future(self.share(peer, now))
            self._sharing.add(task)
            task.add_done_callback(self._sharing.discard)


class HelloRefusal(enum.Enum):
    """Why a bot stream was refused before its Welcome (the label of ``arena_hello_refused_total``)."""

    TIMEOUT = "timeout"
    NOT_HELLO = "not_hello"
    UNDECODABLE = "undecodable"
    BAD_TOKEN = "bad_token"
    TOO_MANY_PENDING = "too_many_pending"
    LOCKED_OUT = "locked_out"


class StreamAbuse(enum.Enum):
    """Why a bot stream was ended for abuse after its Welcome (the label of ``arena_client_errors_total``)."""

    PING_FLOOD = "ping_flood"


MAX_DECISION_ALLOWANCE = 600.0
"""The longest decision allowance a client may ask for, in seconds: 10 minutes (the default is 1 s;
a human playing through a bot needs no more)."""
MAX_TIME_BANK = 3600.0
"""The largest time bank a client may ask for, in seconds: 1 hour a seat (the default is 10 s)."""
MAX_DISCONNECT_GRACE = 3600.0
"""The longest a client may ask a disconnected bot's seats to be kept, in seconds: 1 hour (the
default is 10 s). Past these bounds one match could hold its bots' slots for years."""
MAX_STRIKE_LIMIT = 10_000
"""The most strikes a client may let a seat have before it forfeits (the default is 3): more than
any game's decisions a seat (a limit this high means a seat never forfeits by strikes); a larger one
is a client's mistake (a -1 sent as an unsigned 4294967295)."""

NANOS = 1_000_000_000


def requested_time_control(
    where: str, decision_allowance_ns: int, time_bank_ns: int, strike_limit: int, disconnect_grace_ns: int
) -> TimeControl:
    """A time control a client asked for (``where`` is its path in the request, ``time_control``),
    its durations in nanoseconds as sent: each within what a match may need
    (``MAX_DECISION_ALLOWANCE``, ``MAX_TIME_BANK``, ``MAX_DISCONNECT_GRACE``) and the strikes up to
    ``MAX_STRIKE_LIMIT``, else ``TimeControlError`` naming the field and the value, as sent.

    Only requests are held to the maxima: a stored record or spec reads back as it was accepted."""
    for name, value, most in (
        ("decision_allowance", decision_allowance_ns, MAX_DECISION_ALLOWANCE),
        ("time_bank", time_bank_ns, MAX_TIME_BANK),
        ("disconnect_grace", disconnect_grace_ns, MAX_DISCONNECT_GRACE),
    ):
        positive = name == "decision_allowance"  # a zero allowance would time every decision out
        if not (value > 0 if positive else value >= 0) or value > most * NANOS:
            bounds = f"more than 0 and at most {_span(most)}" if positive else f"between 0 and {_span(most)}"
            raise TimeControlError(f"{where}.{name} must be {bounds}, not {_seconds(value)} s")
    if strike_limit > MAX_STRIKE_LIMIT:
        raise TimeControlError(f"{where}.strike_limit must be at most {MAX_STRIKE_LIMIT}, not {strike_limit}")
    return TimeControl(decision_allowance_ns / NANOS, time_bank_ns / NANOS, strike_limit, disconnect_grace_ns / NANOS)


def _seconds(nanos: int) -> str:
    """Nanoseconds as the seconds a client wrote: ``315360000000``, ``0.5``, ``-5``,
    ``315360000000.000000001`` (exact: no exponent, no float rounding)."""
    whole, part = divmod(abs(nanos), NANOS)
    text = f"{whole}.{part:09d}".rstrip("0").rstrip(".")
    return f"-{text}" if nanos < 0 else text


def _span(seconds: float) -> str:
    """A bound in words: ``1 hour``, ``10 minutes``, ``30 s``."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} s"
