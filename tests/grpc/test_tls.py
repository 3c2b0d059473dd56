"""TLS: the server serves a certificate, a client that trusts it plays; a plain-text client cannot."""

from __future__ import annotations

import subprocess
from pathlib import Path

import grpc
import pytest

from arena.grpc.server import TlsFiles, start_server
from arena.node import ArenaNode
from arena.v1 import registry_pb2, registry_pb2_grpc


@pytest.fixture
def certificate(tmp_path: Path) -> TlsFiles:
    """A self-signed certificate for localhost, made with openssl."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return TlsFiles(cert, key)


async def test_a_tls_server_talks_to_a_client_that_trusts_it_only(certificate: TlsFiles) -> None:
    node = ArenaNode.in_memory(open_registration=True)
    server = await start_server(node, "127.0.0.1:0", certificate)
    try:
        credentials = grpc.ssl_channel_credentials(certificate.cert.read_bytes())
        async with grpc.aio.secure_channel(
            f"localhost:{server.port}", credentials, options=[("grpc.ssl_target_name_override", "localhost")]
        ) as channel:
            stub = registry_pb2_grpc.RegistryServiceStub(channel)
            response = await stub.RegisterBot(registry_pb2.RegisterBotRequest(name="secure"), timeout=10)
            assert len(response.token) >= 40
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await registry_pb2_grpc.RegistryServiceStub(plain).RegisterBot(
                    registry_pb2.RegisterBotRequest(name="plain"), timeout=5
                )
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    finally:
        await server.stop(0.5)
