"""A stream of events with keep-alives in its silences (the web site's live view, relayed watches)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TypeVar

T = TypeVar("T")


async def with_keep_alives(events: AsyncGenerator[T, None], seconds: float) -> AsyncGenerator[T | None, None]:
    """``events``' items, and None each time ``seconds`` pass without one; closes ``events`` at the
    end. The wait for the next item outlives each keep-alive: a timeout that cancelled it would
    close the generator under it."""
    coming: asyncio.Future[T] | None = None
    try:
        while True:
            coming = coming or asyncio.ensure_future(anext(events))
            if not (await asyncio.wait({coming}, timeout=seconds))[0]:
                yield None
                continue
            try:
                item = coming.result()
            except StopAsyncIteration:
                return
            coming = None
            yield item
    finally:
        if coming is not None and not coming.done():
            coming.cancel()
            await asyncio.gather(coming, return_exceptions=True)
        await events.aclose()
