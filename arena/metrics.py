"""Prometheus metrics of one arena node, and the ``/metrics`` HTTP endpoint.

Transport-agnostic: the gRPC layer counts its calls into these metrics with its own interceptor
(``arena.grpc.call_metrics``).

Every name starts with ``arena_``, uses base units and ``_total`` for counters. Label sets are
bounded (game, termination, fault, gRPC method and code): never a bot or a match id — per-bot
figures belong in the leaderboard API.
"""

from __future__ import annotations

import bisect
import platform
from collections.abc import Callable, Iterator, Sequence

import prometheus_client
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

from arena import __version__
from arena.games.base import Termination
from arena.games.lookup import GAMES
from arena.referee.record import Fault
from arena.service.limits import HelloRefusal, StreamAbuse

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
OVERHEAD_BUCKETS = tuple(round(1e-5 * 1.25**k, 8) for k in range(52))
"""10 µs to about 1 s, 25% apart: fine enough to read a p50 and a p99 of the referee's own overhead."""
ILLEGAL_FAULTS = (Fault.INVALID, Fault.ILLEGAL)
"""The faults of answers that did not parse or were not legal (the ``kind`` label of illegal actions)."""
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)


class Observations:
    """One labelled series of a ``LoopHistogram``: a count per bucket (the last one +Inf) and a sum."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, amount)] += 1
        self.sum += amount


class LoopHistogram:
    """A Prometheus histogram observed from the event loop's thread only, the referee's per-decision
    ones: an observation is a bisection and two additions, where ``prometheus_client``'s
    ``Histogram.observe`` takes a lock for a bucket and another for the sum (with the counter beside
    it, about 3% of a node's CPU a decision). The scrape's thread reads whole numbers, and the count it
    reports is the sum of the buckets it read, so the two always agree. ``total`` also reports the
    count as a counter of that name (``arena_decisions_total``: one count, two series)."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        buckets: Sequence[float],
        registry: CollectorRegistry,
        total: tuple[str, str] | None = None,
    ) -> None:
        self.name, self.documentation, self.labelnames, self.total = name, documentation, tuple(labelnames), total
        self.bounds = tuple(sorted(float(b) for b in buckets))
        self.series: dict[tuple[str, ...], Observations] = {}
        registry.register(self)

    def labels(self, *values: str) -> Observations:
        """The series of these label values (made at the first call)."""
        series = self.series.get(values)
        if series is None:
            if len(values) != len(self.labelnames):
                raise ValueError(f"{self.name} takes the labels {self.labelnames}, not {values}")
            series = self.series[values] = Observations(self.bounds)
        return series

    def observe(self, amount: float) -> None:
        """Observe ``amount`` in the series of a histogram without labels."""
        self.labels().observe(amount)

    def describe(self) -> list[Metric]:
        return list(self._families(with_samples=False))

    def collect(self) -> Iterator[Metric]:
        return self._families(with_samples=True)

    def _families(self, with_samples: bool) -> Iterator[Metric]:
        histogram = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        total = CounterMetricFamily(*self.total, labels=self.labelnames) if self.total is not None else None
        for values, series in list(self.series.items()) if with_samples else ():
            counts, summed = list(series.counts), series.sum
            running, buckets = 0, []
            for bound, count in zip((*self.bounds, float("inf")), counts, strict=True):
                running += count
                buckets.append((floatToGoString(bound), running))  # type: ignore[no-untyped-call]
            histogram.add_metric(list(values), buckets, summed)
            if total is not None:
                total.add_metric(list(values), running)
        yield histogram
        if total is not None:
            yield total


class ArenaMetrics:
    """The node's metrics in their own Prometheus collector registry (tests make a fresh one each)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series
        self.registry = registry or CollectorRegistry()
        r = self.registry
        if r is not prometheus_client.REGISTRY:  # the default registry has them already
            ProcessCollector(registry=r)
            PlatformCollector(registry=r)
            GCCollector(registry=r)
        Info("arena_build", "The arena version this node runs.", registry=r).info(
            {"version": __version__, "python": platform.python_version()}
        )
        self.matches_started = Counter("arena_matches_started_total", "Matches started.", ["game"], registry=r)
        self.matches_finished = Counter(
            "arena_matches_finished_total", "Matches finished, by how they ended.", ["game", "termination"], registry=r
        )
        self.match_duration = Histogram(
            "arena_match_duration_seconds", "Wall time of a match.", ["game"], buckets=DURATION_BUCKETS, registry=r
        )
        self.decision_latency = LoopHistogram(
            "arena_decision_latency_seconds",
            "Time from sending an action request to receiving the action (timeouts: the full wait).",
            ["game"],
            LATENCY_BUCKETS,
            r,
            total=("arena_decisions_total", "Decisions asked of bots."),
        )
        self.referee_overhead = LoopHistogram(
            "arena_referee_overhead_seconds",
            "The referee's own time per turn on this node: from the arrival of the answer that completed a turn "
            "(the last one heard in its match) to the write of the match's next request (a turn ended by a "
            "timeout counts its wait).",
            (),
            OVERHEAD_BUCKETS,
            r,
        )
        self.timeouts = Counter("arena_timeouts_total", "Decisions not answered in time.", ["game"], registry=r)
        self.illegal_actions = Counter(
            "arena_illegal_actions_total", "Answers that did not parse or were not legal.", ["game", "kind"], registry=r
        )
        self.rejections = Counter(
            "arena_rejections_total", "Answers replaced by a fallback action.", ["game", "fault"], registry=r
        )
        self.connected_bots = Gauge("arena_connected_bots", "Bots with a live connection to this node.", registry=r)
        self.active_matches = Gauge("arena_active_matches", "Matches being refereed by this node.", registry=r)
        self.queue_depth = Gauge("arena_queue_depth", "Queued matches without a stored result.", registry=r)
        self.queue_oldest_age = Gauge("arena_queue_oldest_age_seconds", "Age of the oldest queued match.", registry=r)
        self.reclaimed = Counter(
            "arena_reclaimed_matches_total", "Queued matches taken over from a dead worker.", registry=r
        )
        self.hello_refused = Counter(
            "arena_hello_refused_total", "Bot streams refused before their Welcome, by why.", ["reason"], registry=r
        )
        self.client_errors = Counter(
            "arena_client_errors_total", "Bot streams ended for abuse after the Welcome.", ["kind"], registry=r
        )
        self.grpc_errors = Counter(
            "arena_grpc_errors_total", "gRPC calls that ended with an error status.", ["method", "code"], registry=r
        )
        self.grpc_calls = Counter(
            "arena_grpc_calls_total",
            "gRPC calls that ended, by service, method and status code (OK included): error ratios.",
            ["service", "method", "code"],
            registry=r,
        )
        self._start_at_zero()

    def _start_at_zero(self) -> None:
        """Every counter's known label values, at 0 from the start (panels show 0, not "No data")."""
        for game in sorted(GAMES):
            self.matches_started.labels(game)
            self.match_duration.labels(game)
            self.decision_latency.labels(game)
            self.timeouts.labels(game)
            for termination in Termination:
                self.matches_finished.labels(game, termination.value)
            for fault in Fault:
                self.rejections.labels(game, fault.value)
            for fault in ILLEGAL_FAULTS:
                self.illegal_actions.labels(game, fault.value)
        for reason in HelloRefusal:
            self.hello_refused.labels(reason.value)
        for abuse in StreamAbuse:
            self.client_errors.labels(abuse.value)

    # -- the referee's MatchMetrics protocol ------------------------------------------------------

    def match_started(self, game: str) -> None:
        """A match began."""
        self.matches_started.labels(game).inc()

    def decision(self, game: str, seconds: float, fault: Fault | None) -> None:
        """A seat answered, or failed to (``fault``: why its answer was not used, the ``fault`` label)."""
        self.decision_latency.labels(game).observe(seconds)
        if fault is None:
            return
        self.rejections.labels(game, fault.value).inc()
        if fault is Fault.TIMEOUT:
            self.timeouts.labels(game).inc()
        elif fault in ILLEGAL_FAULTS:
            self.illegal_actions.labels(game, fault.value).inc()

    def match_finished(self, game: str, termination: Termination, seconds: float) -> None:
        """A match ended."""
        self.matches_finished.labels(game, termination.value).inc()
        self.match_duration.labels(game).observe(seconds)

    # -- wiring -----------------------------------------------------------------------------------

    def grpc_error(self, method: str, code: str) -> None:
        """Count a call that ended with the status named ``code`` (for handlers that are not wrapped)."""
        self.grpc_errors.labels(method, code).inc()

    def watch(self, connected_bots: Callable[[], int], active_matches: Callable[[], int]) -> None:
        """Read the two gauges from the node's state at every scrape."""
        self.connected_bots.set_function(connected_bots)
        self.active_matches.set_function(active_matches)

    def serve(self, port: int, address: str = "127.0.0.1") -> int:
        """Expose ``/metrics`` over HTTP on a background thread; returns the bound port."""
        server, _thread = start_http_server(port, address, registry=self.registry)
        return int(server.server_port)
