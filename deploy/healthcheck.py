"""Container health check for an arena node: asks its gRPC health service (grpc.health.v1).

Exit 0 when the node answers SERVING for the overall service (""), 1 otherwise (not serving,
draining after SIGTERM, unreachable, or slower than the timeout). The image's HEALTHCHECK runs it;
Kubernetes uses its own `grpc:` probes instead.

    python healthcheck.py [HOST:PORT]     # default $ARENA_HEALTH_ADDRESS, else 127.0.0.1:50051

Plain TCP only: a node serving TLS (--tls-cert) needs another check.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_ADDRESS = "127.0.0.1:50051"
TIMEOUT_SECONDS = 3.0


def check(address: str, timeout: float = TIMEOUT_SECONDS) -> bool:
    """Whether the node at ``address`` reports SERVING."""
    try:
        with grpc.insecure_channel(address) as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)  # the type stubs leave out its methods
            response = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
    except grpc.RpcError as error:
        print(f"{address}: {error.code().name}", file=sys.stderr)
        return False
    if response.status != health_pb2.HealthCheckResponse.SERVING:
        print(f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)}", file=sys.stderr)
        return False
    return True


def main(argv: list[str]) -> int:
    address = argv[1] if len(argv) > 1 else os.environ.get("ARENA_HEALTH_ADDRESS", DEFAULT_ADDRESS)
    return 0 if check(address) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
