"""The referee's per-decision histograms (``arena.metrics.LoopHistogram``) expose exactly what
``prometheus_client``'s ``Histogram`` does for the same observations, buckets' edges included."""

from __future__ import annotations

import prometheus_client
import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arena.metrics import LATENCY_BUCKETS, OVERHEAD_BUCKETS, LoopHistogram

AMOUNT = st.one_of(
    st.sampled_from([*LATENCY_BUCKETS, *OVERHEAD_BUCKETS, 0.0, 1e9]),  # on an edge: counted in its bucket
    st.floats(min_value=0.0, max_value=20.0, allow_nan=False),
)
OBSERVATIONS = st.lists(st.tuples(st.sampled_from(["a", "b"]), AMOUNT), max_size=60)


def exposition(observations: list[tuple[str, float]], buckets: tuple[float, ...], loop: bool) -> str:
    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # as ArenaMetrics does
    registry = CollectorRegistry()
    if loop:
        histogram = LoopHistogram("x_seconds", "X.", ["game"], buckets, registry, total=("x_total", "Xs."))
    else:
        histogram = Histogram("x_seconds", "X.", ["game"], buckets=buckets, registry=registry)  # type: ignore[assignment]
    for game in ("a", "b"):
        histogram.labels(game)
    for game, amount in observations:
        histogram.labels(game).observe(amount)
    return generate_latest(registry).decode()


@given(OBSERVATIONS)
def test_the_same_observations_give_the_same_histogram(observations: list[tuple[str, float]]) -> None:
    for buckets in (LATENCY_BUCKETS, OVERHEAD_BUCKETS):
        ours = exposition(observations, buckets, loop=True)
        theirs = exposition(observations, buckets, loop=False)
        assert [line for line in ours.splitlines() if line.startswith("x_seconds")] == [
            line for line in theirs.splitlines() if line.startswith("x_seconds")
        ]
        totals = {
            s.labels["game"]: s.value
            for family in text_string_to_metric_families(ours)
            if family.name == "x"
            for s in family.samples
        }
        assert totals == {game: sum(1 for g, _ in observations if g == game) for game in ("a", "b")}


def test_a_histogram_without_labels_observes_directly_and_labels_are_checked() -> None:
    registry = CollectorRegistry()
    histogram = LoopHistogram("y_seconds", "Y.", (), (0.1, 1.0), registry)
    histogram.observe(0.5)
    assert 'y_seconds_bucket{le="1.0"} 1.0' in generate_latest(registry).decode()
    with pytest.raises(ValueError, match=r"y_seconds takes the labels \(\)"):
        histogram.labels("extra")
