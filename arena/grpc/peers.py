"""Who a call came from, whether it reached the node directly or through its front (``arena-front``).

A node serving behind its front (``arena serve --front``) has its gRPC server on a Unix socket in a
private folder that only the front reaches, and the front names the client's TCP address in the
``x-arena-peer`` header (it drops any such header a client sends). The per-address limits count that
address, as they count a direct client's.
"""

from __future__ import annotations

from typing import Any

import grpc

FRONT_PEER_HEADER = "x-arena-peer"
"""The header the front names a proxied call's client in, as ``IP:PORT`` (``[IPv6]:PORT``)."""


def grpc_peer(address: str) -> str:
    """A front's ``IP:PORT`` as gRPC names a peer: ``ipv4:10.0.0.1:5555``, ``ipv6:%5B::1%5D:5555``."""
    if address.startswith("["):
        host, _, port = address[1:].partition("]:")
        return f"ipv6:%5B{host}%5D:{port}"
    return f"ipv4:{address}"


def client_peer(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The call's peer as gRPC names it; for a call through the front, its client's."""
    peer: str = context.peer()
    if peer.startswith("unix:"):
        for key, value in context.invocation_metadata() or ():
            if key == FRONT_PEER_HEADER and isinstance(value, str):
                return grpc_peer(value)
    return peer
