"""The scenario that every load-test bot program passes (``arena.cli.loadtest_bots`` and the Go kit's
``bin/loadbots``, which have one command line and one output): real matches on a real arena, exact stats."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Sequence
from pathlib import Path

from tests.clients.kits import TC, BotProcess, check_normal_record
from tests.grpc.harness import Arena


async def check_load_bots(
    command: Sequence[str], arena: Arena, logs: Path, wait: float = 20.0, stop: signal.Signals | None = None
) -> None:
    """``command TOKENS_FILE --server ADDR --capacity 4 --per-channel 1`` with four bots, each on its own
    connection: three 2-player matches and a 3-player one where one bot holds two seats all end
    normally (one ``ended <match> TERMINATION_NORMAL`` line a seat), with no rejection and no protocol
    error (each answer is legal and echoes its seat); once its standard input closes (or it gets the
    signal ``stop``) it prints stats that count every decision of the records, and exits 0."""
    names = [f"load-{i}" for i in range(4)]
    tokens = logs / "tokens.txt"
    tokens.write_text("".join([f"{name} {await arena.register(name)}\n" for name in names]))
    stderr = logs / "loadbots.stderr"
    with stderr.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            *command, str(tokens), "--server", arena.address, "--capacity", "4", "--per-channel", "1",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
        )  # fmt: skip
    bots = BotProcess("load bots", process, stderr, wait)
    try:
        assert await bots.line("ready") == "ready", bots.describe()
        seatings = [names[0:2], names[2:4], [names[0], names[3]], [names[1], names[1], names[2]]]
        matches = [await arena.start_match(seats, seed=61 + i, tc=TC) for i, seats in enumerate(seatings)]
        for match_id, seats in zip(matches, seatings, strict=True):
            for count in range(1, len(seats) + 1):
                line = await bots.line(f"ended {match_id} ", count=count)
                assert line == f"ended {match_id} TERMINATION_NORMAL", f"{seats}: {line}{bots.describe()}"
        if stop is None:
            assert process.stdin is not None
            process.stdin.close()
        else:
            process.send_signal(stop)
        assert await bots.exit_code() == 0, bots.describe()
        stats = json.loads((await bots.line("stats ")).removeprefix("stats "))
    finally:
        await bots.stop()
    records = [await arena.record(match_id) for match_id in matches]
    for match_id, seats in zip(matches, seatings, strict=True):
        await check_normal_record(arena, match_id, seats)
    assert stats == {
        "decisions": sum(len(record.decisions) for record in records),
        "rejections": 0,
        "protocol_errors": 0,
        "stream_errors": 0,
        "matches_ended": sum(len(seats) for seats in seatings),
        "abnormal_ends": 0,
    }, bots.describe()
    assert stats["decisions"] > 0
