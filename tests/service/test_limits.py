"""The limits' accounting, driven by a given clock: caps, buckets, lockouts with backoff, bounded tables."""

from __future__ import annotations

import pytest

from arena.errors import LimitExceededError
from arena.service import limits as limits_module
from arena.service.limits import (
    FAILURES_FORGOTTEN_SECONDS,
    MAX_LOCKOUT_SECONDS,
    Limits,
    Lockout,
    PeerCounter,
    RateLimiter,
    TokenBucket,
    peer_address,
)


def test_peer_addresses_drop_the_port() -> None:
    assert peer_address("ipv4:10.0.0.1:5555") == "ipv4:10.0.0.1"
    assert peer_address("ipv6:[::1]:5555") == "ipv6:[::1]"
    assert peer_address("unix:/tmp/sock") == "unix:/tmp/sock"


def test_ipv6_peers_are_counted_by_their_64_prefix_and_mapped_ipv4_as_ipv4() -> None:
    """A host or a subscriber is given a /64: counted per address, it would have 2**64 allowances."""
    lockout, limiter, counter = Lockout(threshold=2, seconds=10.0), RateLimiter(per_minute=2), PeerCounter(10, 2)
    for host in ("1", "2"):
        peer = peer_address(f"ipv6:%5B2001:db8:0:7::{host}%5D:5555")  # as grpc writes it
        lockout.failed(peer, 0.0)
        limiter.check(peer, 0.0, "calls")
        counter.acquire(peer)
    neighbour = "ipv6:[2001:db8:0:7:ffff:ffff:ffff:ffff]"
    assert lockout.locked_for(neighbour, 0.0) == 10.0
    with pytest.raises(LimitExceededError, match="more than 2 calls a minute from your address"):
        limiter.check(neighbour, 0.0, "calls")
    with pytest.raises(LimitExceededError, match="more than 2 bot streams from your address"):
        counter.acquire(neighbour)
    assert lockout.locked_for("ipv6:[2001:db8:0:8::1]", 0.0) == 0  # the next /64 is someone else
    counter.release("ipv6:[2001:db8:0:7::abc]")
    counter.acquire("ipv6:[2001:db8:0:7::def]")
    lockout.failed("ipv4:10.0.0.1", 0.0)
    lockout.failed("ipv6:[::ffff:10.0.0.1]", 0.0)  # an IPv4 client of a dual-stack listener
    assert lockout.locked_for("ipv4:10.0.0.1", 0.0) == 10.0
    assert lockout.locked_for("ipv4:10.0.0.2", 0.0) == 0
    # NAT64, 6to4 and Teredo addresses of one IPv4 client (10.0.0.3): counted as that client, not as
    # a /64 (a NAT64 gateway's /64 holds every IPv4 client behind it).
    for embedding in ("64:ff9b::10.0.0.3", "2002:a00:3::1", "2001:0:4136:e378:8000:63bf:f5ff:fffc"):
        lockout.failed(f"ipv6:[{embedding}]", 0.0)
    assert lockout.locked_for("ipv4:10.0.0.3", 0.0) == 20.0
    assert lockout.locked_for("ipv6:[2002:a00:3:1::]", 0.0) == 20.0
    assert lockout.locked_for("ipv6:[64:ff9b::10.0.0.4]", 0.0) == 0
    lockout.failed("unix:/tmp/sock", 0.0)
    assert lockout.locked_for("unix:/tmp/sock", 0.0) == 0


def test_a_peer_counter_holds_a_global_and_a_per_peer_cap_and_gives_back() -> None:
    counter = PeerCounter(total=3, per_peer=2)
    counter.acquire("a")
    counter.acquire("a")
    with pytest.raises(LimitExceededError, match="more than 2 bot streams from your address"):
        counter.acquire("a")
    counter.acquire("b")
    with pytest.raises(LimitExceededError, match="more than 3 bot streams are awaiting"):
        counter.acquire("c")
    counter.release("a")
    counter.acquire("c")
    for peer in ("a", "b", "c"):
        counter.release(peer)
    assert counter.held == 0


def test_a_token_bucket_allows_its_burst_then_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never more than the burst


def test_the_lockout_starts_at_the_threshold_and_doubles_up_to_a_ceiling() -> None:
    lockout = Lockout(threshold=2, seconds=10.0)
    lockout.failed("p", 0.0)
    assert lockout.locked_for("p", 0.0) == 0
    lockout.failed("p", 0.0)
    assert lockout.locked_for("p", 0.0) == 10.0
    lockout.failed("p", 0.0)
    assert lockout.locked_for("p", 0.0) == 20.0
    for _ in range(40):
        lockout.failed("p", 0.0)
    assert lockout.locked_for("p", 0.0) == MAX_LOCKOUT_SECONDS
    assert lockout.locked_for("other", 0.0) == 0


def test_refused_hellos_are_forgotten_after_a_quiet_while_not_on_a_good_one() -> None:
    lockout = Lockout(threshold=2, seconds=10.0)
    lockout.failed("p", 0.0)
    lockout.failed("p", 100.0)  # remembered: the second refusal locks
    assert lockout.locked_for("p", 100.0) == 10.0
    lockout.failed("q", 0.0)
    lockout.failed("q", FAILURES_FORGOTTEN_SECONDS + 1)  # forgotten: a first refusal again
    assert lockout.locked_for("q", FAILURES_FORGOTTEN_SECONDS + 1) == 0


def test_per_peer_tables_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits_module, "MAX_PEERS", 50)
    limiter, lockout = RateLimiter(per_minute=1), Lockout(threshold=1, seconds=5.0)
    for i in range(500):
        limiter.check(f"peer{i}", 0.0, "calls")
        lockout.failed(f"peer{i}", 0.0)
    assert len(limiter._buckets) == 50 and len(lockout._peers) == 50
    with pytest.raises(LimitExceededError, match="more than 1 calls a minute from your address"):
        limiter.check("peer499", 1.0, "calls")
    limiter.check("peer499", 61.0, "calls")


def test_every_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="--max-connections must be positive, not 0"):
        Limits(max_connections=0)
