"""TLS: the server serves a certificate, a client that trusts it plays; a plain-text client cannot.
The same behind the node's front (``arena serve --front``), which then serves the TLS."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from arena.cli.admin import ClientTls, register_bot
from arena.grpc.server import TlsFiles, start_server
from arena.node import ArenaNode
from arena.store.embedded import EmbeddedRedis
from arena.v1 import match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from tests.grpc.harness import redis_node
from tests.test_front import BUILT_IN_A_FIXTURE, behind_front, build_front

pytestmark = BUILT_IN_A_FIXTURE


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


async def test_a_tls_server_talks_to_a_client_that_trusts_it_only(
    certificate: TlsFiles, arena_redis: EmbeddedRedis
) -> None:
    async with redis_node(arena_redis, None, open_registration=True) as node:
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


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Path]:
    """A CA, a server certificate for localhost and a client certificate, both signed by the CA, and
    a client certificate signed by nobody the server trusts."""
    files = {name: tmp_path / f"{name}.pem" for name in ("ca", "ca-key", "other", "other-key")}
    for ca in ("ca", "other"):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={ca}",
                 "-keyout", str(files[f"{ca}-key"]), "-out", str(files[ca]))  # fmt: skip
    for name, ca, san in (("server", "ca", "DNS:localhost"), ("client", "ca", "DNS:bot"), ("rogue", "other", "DNS:x")):
        key, csr, cert, ext = (tmp_path / f"{name}{suffix}" for suffix in ("-key.pem", ".csr", ".pem", ".ext"))
        ext.write_text(f"subjectAltName={san}\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(csr))
        _openssl("x509", "-req", "-in", str(csr), "-CA", str(files[ca]), "-CAkey", str(files[f"{ca}-key"]),
                 "-CAcreateserial", "-days", "1", "-extfile", str(ext), "-out", str(cert))  # fmt: skip
        files[name], files[f"{name}-key"] = cert, key
    return files


async def test_with_client_ca_only_a_bot_with_a_certificate_from_that_ca_plays(
    pki: dict[str, Path], arena_redis: EmbeddedRedis
) -> None:

    async with redis_node(arena_redis, None, open_registration=True) as node:
        server = await start_server(node, "127.0.0.1:0", TlsFiles(pki["server"], pki["server-key"], pki["ca"]))
        address = f"localhost:{server.port}"
        try:
            token = await node.registry.register("mutual")
            ca = pki["ca"].read_bytes()
            for cert, key in ((None, None), ("rogue", "rogue-key")):
                credentials = grpc.ssl_channel_credentials(
                    ca, None if key is None else pki[key].read_bytes(), None if cert is None else pki[cert].read_bytes()
                )
                async with grpc.aio.secure_channel(address, credentials) as channel:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await registry_pb2_grpc.RegistryServiceStub(channel).RegisterBot(
                            registry_pb2.RegisterBotRequest(name=f"no-{cert}"), timeout=5
                        )
                    assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            await _a_bot_with_its_certificate_connects(node, address, token, pki)
        finally:
            await server.stop(0.5)


async def test_the_admin_commands_reach_an_arena_that_wants_client_certificates(
    pki: dict[str, Path], arena_redis: EmbeddedRedis
) -> None:
    async with redis_node(arena_redis, "mtls-admin") as node:
        server = await start_server(node, "127.0.0.1:0", TlsFiles(pki["server"], pki["server-key"], pki["ca"]))
        address = f"localhost:{server.port}"
        common = ["--server", address, "--tls-ca", str(pki["ca"]), "--admin-token", "mtls-admin"]

        def arena(*args: str) -> subprocess.CompletedProcess[str]:
            command = [sys.executable, "-m", "arena.cli", *args]
            return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

        try:
            without = await asyncio.to_thread(arena, "register", "plain", *common)
            assert without.returncode == 1 and "Traceback" not in without.stderr
            cert = ["--tls-client-cert", str(pki["client"]), "--tls-client-key", str(pki["client-key"])]
            made = await asyncio.to_thread(arena, "register", "mutual", *common, *cert)
            assert made.returncode == 0, made.stderr
            assert await node.registry.authenticate(made.stdout.strip()) == "mutual"
            half = await asyncio.to_thread(arena, "register", "half", *common, cert[0], cert[1])
            assert half.returncode == 2
            assert half.stderr.strip() == "arena register: --tls-client-cert and --tls-client-key go together"
        finally:
            await server.stop(0.5)


@pytest.fixture(scope="module")
def front() -> Path:
    """The front (``arena serve --front``), built."""
    return build_front()


async def test_behind_a_front_tls_clients_play_and_call_a_plain_one_cannot_and_a_late_preface_is_closed(
    certificate: TlsFiles, front: Path, tmp_path: Path
) -> None:
    from arena_bot import Bot, Turn

    class First(Bot):
        def act(self, turn: Turn) -> str:
            return turn.legal_actions[0]

    tls = ["--tls-cert", str(certificate.cert), "--tls-key", str(certificate.key), "--handshake-timeout-seconds", "1"]
    with behind_front(tmp_path, *tls) as (_, address, admin):
        port = int(address.rsplit(":", 1)[1])
        client = ClientTls(str(certificate.cert))
        tokens = [await asyncio.to_thread(register_bot, f"localhost:{port}", name, admin, client) for name in "pq"]
        bots = [First(), First()]
        plays = [
            asyncio.create_task(
                bot.run_async(f"localhost:{port}", token, root_certificates=certificate.cert, max_matches=1)
            )
            for bot, token in zip(bots, tokens, strict=True)
        ]
        async with grpc.aio.secure_channel(f"localhost:{port}", client.credentials()) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            request = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "q"], seed=5)
            for _ in range(100):  # until both bots are connected
                try:
                    await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),), timeout=10)
                    break
                except grpc.aio.AioRpcError as error:
                    if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("the bots did not connect")
            await asyncio.wait_for(asyncio.gather(*plays), 30)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await registry_pb2_grpc.RegistryServiceStub(plain).RegisterBot(
                    registry_pb2.RegisterBotRequest(name="plain"), timeout=5
                )
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        # The handshake timeout covers the preface after TLS's handshake.
        context = ssl.create_default_context(cafile=certificate.cert)
        context.set_alpn_protocols(["h2"])
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname="localhost")
        started = time.monotonic()
        try:
            assert writer.get_extra_info("ssl_object").selected_alpn_protocol() == "h2"
            assert await asyncio.wait_for(reader.read(), 5) == b""
            assert time.monotonic() - started > 0.5
        finally:
            writer.close()


async def test_behind_a_front_with_client_ca_only_a_client_with_a_certificate_from_that_ca_is_served(
    pki: dict[str, Path], arena_redis: EmbeddedRedis, front: Path
) -> None:

    async with redis_node(arena_redis, None, open_registration=True) as node:
        files = TlsFiles(pki["server"], pki["server-key"], pki["ca"])
        server = await start_server(node, "127.0.0.1:0", files, front=front)
        address = f"localhost:{server.port}"
        try:
            ca = pki["ca"].read_bytes()
            for cert, key in ((None, None), ("rogue", "rogue-key"), ("client", "client-key")):
                credentials = grpc.ssl_channel_credentials(
                    ca, None if key is None else pki[key].read_bytes(), None if cert is None else pki[cert].read_bytes()
                )
                async with grpc.aio.secure_channel(address, credentials) as channel:
                    call = registry_pb2_grpc.RegistryServiceStub(channel).RegisterBot(
                        registry_pb2.RegisterBotRequest(name=f"with-{cert}"), timeout=5
                    )
                    if cert == "client":
                        assert len((await call).token) >= 40
                        continue
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await call
                    assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            token = await node.registry.register("mutual")
            await _a_bot_with_its_certificate_connects(node, address, token, pki)
        finally:
            await server.stop(0.5)


async def _a_bot_with_its_certificate_connects(node: ArenaNode, address: str, token: str, pki: dict[str, Path]) -> None:
    """An SDK bot with ``pki``'s client certificate connects to ``node`` at ``address`` as "mutual"."""
    from arena_bot import Bot, Turn

    class First(Bot):
        def act(self, turn: Turn) -> str:
            return turn.legal_actions[0]

    bot = First()
    task = asyncio.create_task(
        bot.run_async(
            address, token, root_certificates=pki["ca"], client_certificate=pki["client"],
            client_key=pki["client-key"], initial_backoff=0.05,
        )
    )  # fmt: skip
    for _ in range(500):
        if node.hub.connected():
            break
        await asyncio.sleep(0.01)
    assert [session.name for session in node.hub.connected()] == ["mutual"]
    bot.stop()
    await asyncio.wait_for(task, 10)
