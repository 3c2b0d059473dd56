"""A bare grpc.aio bidirectional echo server: the baseline the arena's round trip is compared with.

Prints its port, then echoes every message on every stream until killed. An optional argument, a
JSON list of ``[name, value]`` pairs, gives the server's channel arguments (``bench_memory --option``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator

import grpc


async def echo(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
    async for message in requests:
        yield message


async def main() -> None:
    options = [(str(name), value) for name, value in json.loads(sys.argv[1])] if len(sys.argv) > 1 else []
    server = grpc.aio.server(options=options)
    # bytes in, bytes out: no serialisation
    handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.stream_stream_rpc_method_handler(echo)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("bench.Echo", {"Ping": handler})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main())
