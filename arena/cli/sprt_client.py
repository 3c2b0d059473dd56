"""``arena sprt``: play a candidate against its baseline through an arena until the SPRT decides.

An admin client (the statistics are :mod:`arena.league.sprt`). Both bots (and any fillers) must be
connected to the arena under their names (``a@v2`` is version ``v2`` of bot ``a``). Units:

- 2 players: a *duplicate pair*: one deal (a fresh random seed) played twice with the seats
  swapped, both started at once under one seal (``StartMatchRequest.seal``), so neither record can
  be read, by a bot or anyone, until both have ended; scored as a pair (pentanomial).
- k players: one match with the candidate, the baseline and the k−2 fillers (``--filler``, named,
  connected bots: the same ones all test long), the seats rotating from match to match; scored
  by who of the two placed above the other (trinomial).

``concurrency`` units are played at once; the test is decided at the first unit after which the
LLR leaves its bounds (units still being played then are not counted). A unit with an aborted
match is played again. The test also ends, undecided, after ``max_matches`` matches. If the second
rotation of a pair cannot be started (a bot left), the test stops with that error and the first
rotation's record stays sealed: it showed nothing to anyone.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import secrets
import threading
import time
from collections.abc import Mapping
from typing import TextIO

import grpc

from arena.cli.admin import ClientTls, _metadata, channel
from arena.errors import SprtRunError
from arena.league.sprt import Decision, Estimate, Sprt, Tally, estimate
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.wire.common import duration_to_proto

POLL_SECONDS = 0.05
"""How often a match's record is asked for while it is being played (or sealed)."""
BUSY_SECONDS = 60.0
"""How long a start may keep finding a bot without a free match slot before the test gives up."""


@dataclasses.dataclass(frozen=True, slots=True)
class SprtPlan:
    """What to test, and how."""

    game: str
    candidate: str
    baseline: str
    test: Sprt
    players: int = 2
    fillers: tuple[str, ...] = ()
    concurrency: int = 4
    max_matches: int = 20_000
    decision_seconds: float = 1.0
    bank_seconds: float = 10.0
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.candidate == self.baseline:
            raise SprtRunError(f"the candidate and the baseline are the same bot: {self.candidate[:80]!r}")
        if self.players < 2:
            raise SprtRunError(f"--players must be at least 2, not {self.players}")
        if len(self.fillers) != self.players - 2:
            raise SprtRunError(
                f"{self.players} players need {self.players - 2} filler bots (--filler NAME, connected), "
                f"not {len(self.fillers)}"
            )
        if {self.candidate, self.baseline} & set(self.fillers):
            raise SprtRunError("a filler cannot be the candidate or the baseline")

    @property
    def matches_per_unit(self) -> int:
        """2 for a duplicate pair, 1 for a k-player match."""
        return 2 if self.players == 2 else 1


@dataclasses.dataclass(frozen=True, slots=True)
class SprtReport:
    """How the test ended."""

    decision: Decision
    llr: float
    lower: float
    upper: float
    matches: int
    tally: Tally
    estimate: Estimate
    replayed: int
    """Units played again because one of their matches was aborted."""


def run_sprt(
    address: str,
    admin_token: str | None,
    plan: SprtPlan,
    tls: ClientTls | None = None,
    progress: TextIO | None = None,
) -> SprtReport:
    """Play units until the test decides (or ``max_matches``); raises ``SprtRunError`` if it cannot."""
    tally = Tally.pentanomial() if plan.players == 2 else Tally.trinomial()
    state = {"started": 0, "replayed": 0}
    decision = Decision.CONTINUE
    with channel(address, tls) as ch:
        stub = match_pb2_grpc.MatchServiceStub(ch)
        runner = _Runner(stub, _metadata(admin_token), plan)
        max_units = max(1, plan.max_matches // plan.matches_per_unit)
        with concurrent.futures.ThreadPoolExecutor(max_workers=plan.concurrency) as pool:
            pending: set[concurrent.futures.Future[float | None]] = set()

            def launch() -> None:
                while len(pending) < plan.concurrency and state["started"] < max_units:
                    index = state["started"]
                    state["started"] += 1
                    pending.add(pool.submit(runner.unit, index))

            try:
                launch()
                while pending and decision is Decision.CONTINUE:
                    done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in done:
                        pending.discard(future)
                        score = future.result()
                        if score is None:
                            state["replayed"] += 1
                            state["started"] -= 1
                        elif decision is Decision.CONTINUE:
                            tally.add(score)
                            decision = plan.test.decide(tally)
                    if progress is not None:
                        llr = plan.test.llr(tally)
                        print(
                            f"  {tally.units * plan.matches_per_unit} matches, LLR {llr:+.2f} "
                            f"({plan.test.lower:+.2f}, {plan.test.upper:+.2f})",
                            file=progress,
                            flush=True,
                        )
                    if decision is Decision.CONTINUE:
                        launch()
            finally:
                runner.stop.set()
                for future in pending:
                    future.cancel()
    return SprtReport(
        decision=decision,
        llr=plan.test.llr(tally),
        lower=plan.test.lower,
        upper=plan.test.upper,
        matches=tally.units * plan.matches_per_unit,
        tally=tally,
        estimate=estimate(tally),
        replayed=state["replayed"],
    )


class _Runner:
    """Plays one unit at a time per thread over a shared channel."""

    def __init__(self, stub: match_pb2_grpc.MatchServiceStub, metadata: tuple[tuple[str, str], ...], plan: SprtPlan):
        self.stub = stub
        self.metadata = metadata
        self.plan = plan
        self.stop = threading.Event()
        self.tag = secrets.token_hex(4)

    def unit(self, index: int) -> float | None:
        """The candidate's unit score, or None if a match of the unit was aborted (play it again)."""
        plan = self.plan
        seed = secrets.randbits(63)
        if plan.players == 2:
            seal = f"sprt-{self.tag}-{index}-{secrets.token_hex(3)}"
            orders = [(plan.candidate, plan.baseline), (plan.baseline, plan.candidate)]
            ids = [self._start(list(seats), seed, seal, 2) for seats in orders]
        else:
            table = [plan.candidate, plan.baseline, *plan.fillers]
            shift = index % plan.players
            ids = [self._start(table[shift:] + table[:shift], seed, "", 0)]
        points = 0.0
        for match_id in ids:
            record = self._wait(match_id)
            if record.outcome.termination == common_pb2.TERMINATION_ABORTED:
                return None
            seats = list(record.bot_names)
            placings = list(record.outcome.placings)
            mine, theirs = placings[seats.index(plan.candidate)], placings[seats.index(plan.baseline)]
            points += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        return points / len(ids)

    def _start(self, seats: list[str], seed: int, seal: str, seal_size: int) -> str:
        plan = self.plan
        request = match_pb2.StartMatchRequest(
            game=plan.game,
            bot_names=seats,
            seed=seed,
            options=dict(plan.options),
            time_control=common_pb2.TimeControl(
                decision_allowance=duration_to_proto(plan.decision_seconds),
                time_bank=duration_to_proto(plan.bank_seconds),
            ),
            seal=seal,
            seal_size=seal_size,
        )
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            try:
                return str(self.stub.StartMatch(request, metadata=self.metadata).match_id)
            except grpc.RpcError as error:
                details = str(error.details() or "")
                busy = error.code() == grpc.StatusCode.FAILED_PRECONDITION and "no free match slot" in details
                if not busy or time.monotonic() > deadline or self.stop.is_set():
                    raise SprtRunError(details or str(error.code())) from None
            time.sleep(POLL_SECONDS)

    def _wait(self, match_id: str) -> match_pb2.MatchRecord:
        while True:
            try:
                response = self.stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))
                return response.record
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise SprtRunError(str(error.details())) from None
            if self.stop.is_set():
                raise SprtRunError("stopped")
            time.sleep(POLL_SECONDS)


def print_report(plan: SprtPlan, report: SprtReport, out: TextIO) -> None:
    """The verdict, the LLR and its bounds, the matches, the Elo difference and the LOS."""
    test = plan.test
    verdict = {
        Decision.ACCEPT: f"accepted: {plan.candidate} is better than {plan.baseline} (H1: Elo {test.elo1:+g})",
        Decision.REJECT: f"rejected: {plan.candidate} is not better than {plan.baseline} (H0: Elo {test.elo0:+g})",
        Decision.CONTINUE: f"undecided after {report.matches} matches (--max-matches {plan.max_matches})",
    }[report.decision]
    kind = "duplicate pairs" if plan.players == 2 else f"{plan.players}-player matches"
    print(
        f"SPRT {plan.candidate} vs {plan.baseline} ({plan.game}, {kind}): elo0 {test.elo0:g}, "
        f"elo1 {test.elo1:g}, alpha {test.alpha:g}, beta {test.beta:g}",
        file=out,
    )
    print(verdict, file=out)
    print(f"LLR {report.llr:+.3f} (bounds {report.lower:+.3f}, {report.upper:+.3f})", file=out)
    outcomes = " ".join(f"{s:g}:{c}" for s, c in zip(report.tally.scores, report.tally.counts, strict=True))
    replayed = f", {report.replayed} replayed after an abort" if report.replayed else ""
    print(f"matches {report.matches} ({report.tally.units} units by score {outcomes}{replayed})", file=out)
    e = report.estimate
    print(f"Elo {e.elo:+.1f} (95% interval {e.low:+.1f} to {e.high:+.1f}), LOS {e.los:.1%}", file=out)


def exit_status(report: SprtReport) -> int:
    """0 when the test decided (accept or reject), 3 when it ended undecided."""
    return 0 if report.decision is not Decision.CONTINUE else 3


__all__ = ["SprtPlan", "SprtReport", "SprtRunError", "exit_status", "print_report", "run_sprt"]
