"""A TCP relay on loopback for fault injection: a peer (a bot, a Redis server) that goes silent."""

from __future__ import annotations

import asyncio
import contextlib


class StallingProxy:
    """A TCP relay on loopback that can stop forwarding without closing (a peer gone silent, no FIN)."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.stalled = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        self.writers += [writer, up_writer]
        self.tasks += [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if self.stalled.is_set():
                    await asyncio.Event().wait()  # hold the bytes and the socket, forever
                writer.write(data)
                await writer.drain()

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for writer in self.writers:
            writer.close()
        if self.server is not None:
            self.server.close()
