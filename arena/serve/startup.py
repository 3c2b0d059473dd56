"""Start-up checks of a node: each operator mistake becomes one :class:`StartupError` whose message
says what failed and what to check (``arena serve`` prints it as one line and exits 1).

Checked before the node takes any work: the data folder can be written (when the node keeps data
there), Redis answers, accepts our password and can persist a write, and the gRPC and metrics
ports are free.
"""

from __future__ import annotations

import errno
import os
import socket
import urllib.parse
import uuid
from pathlib import Path

import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, RedisError, ResponseError

from arena.errors import StartupError
from arena.store.embedded import redacted
from arena.store.redis_stores import key, text

PROBE_TIMEOUT_SECONDS = 5.0
"""How long the start-up checks wait for Redis before saying it cannot be reached."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def check_data_folder(folder: Path) -> None:
    """The data folder exists (or can be made) and a file can be written to it."""
    where = f"the data folder {folder}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # the node's alone (tokens, the store)
        probe = folder / f".write-probe-{uuid.uuid4().hex[:8]}"
        try:
            with probe.open("wb", buffering=0) as file:
                file.write(b"\0" * 4096)
                os.fsync(file.fileno())
        finally:
            probe.unlink(missing_ok=True)
    except OSError as error:
        if error.errno == errno.EROFS:
            raise StartupError(f"{where} is read-only: give --data-dir a writable folder") from error
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise StartupError(
                f"{where} has no space left on its disk: free some, or use another --data-dir"
            ) from error
        raise StartupError(f"{where} cannot be written ({_reason(error)}): check --data-dir") from error


async def check_redis(url: str) -> None:
    """Redis at ``url`` answers, accepts our credentials, and can persist a write."""
    shown = redacted(url)
    has_password = urllib.parse.urlsplit(url).password is not None
    client = aioredis.Redis.from_url(
        url, socket_connect_timeout=PROBE_TIMEOUT_SECONDS, socket_timeout=PROBE_TIMEOUT_SECONDS
    )
    try:
        await client.ping()
        await client.set(key("startup-probe", uuid.uuid4().hex), "1", px=10_000)
        persistence = await client.info("persistence")
    except AuthenticationError as error:
        said = str(error)
        if "without any password configured" in said or "no password is set" in said:
            raise StartupError(f"Redis at {shown} has no password, but the URL gives one: check --redis") from error
        if has_password:
            raise StartupError(f"Redis at {shown} refused the password: check the password in --redis") from error
        raise StartupError(
            f"Redis at {shown} needs a password: give it in --redis as redis://:PASSWORD@host:port/db"
        ) from error
    except ResponseError as error:
        if str(error).startswith("MISCONF"):
            raise StartupError(f"Redis at {shown} cannot save its data ({error}): free disk space for Redis") from error
        raise StartupError(f"Redis at {shown} refused the start-up check ({error}): check --redis") from error
    except (RedisError, OSError) as error:
        raise StartupError(f"cannot reach Redis at {shown} ({error}): check --redis and that Redis runs") from error
    finally:
        await client.aclose()
    for field in ("aof_last_write_status", "rdb_last_bgsave_status"):
        status = text(persistence.get(field, "ok"))
        if status != "ok":
            raise StartupError(
                f"Redis at {shown} cannot save its data ({field}: {status}): free disk space for Redis "
                "and check its log"
            )


WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})
"""Hosts that mean every interface of the machine: no client reaches the node at one of them."""


def check_advertise_address(address: str) -> str:
    """``address`` if it is host:port with a host and a port from 1 to 65535, else ``StartupError``."""
    host, _, port = address.rpartition(":")
    if host.strip("[]") and port.isascii() and port.isdigit() and 1 <= int(port) <= 65535:
        return address
    raise StartupError(
        f"{address!r} is not host:port (a host clients can reach, a port from 1 to 65535): check --advertise-address"
    )


def advertised_address(listening: str, port: int, given: str | None) -> str:
    """Where the other nodes tell clients to reach this node (to watch a match it referees): the
    address the operator ``given``, else the one it listens on with the port it bound (``port``,
    when it asked for 0), its host this machine's name if it listens on every interface."""
    if given:
        return given
    host, _, asked = listening.rpartition(":")
    if host in WILDCARD_HOSTS:
        host = socket.gethostname()
    return f"{host}:{port if asked == '0' else asked}"


def check_port_range(port: int, address: str, option: str) -> None:
    """``StartupError`` for a port past 65535 (which the system would take modulo 65536) or below 0."""
    if not 0 <= port <= 65535:
        raise StartupError(f"{address!r}: a port is 0 to 65535, not {port}: check {option}")


def check_port_free(address: str, option: str, doing: str = "listen on") -> None:
    """Nothing listens on ``address`` (host:port) yet; port 0 (any free port) always passes.

    Checked before gRPC binds, since gRPC itself only logs a C-core line and returns port 0.
    """
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        port = int(port_text)
    except ValueError:
        raise StartupError(f"{address!r} is not host:port: check {option}") from None
    check_port_range(port, address, option)
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise StartupError(f"cannot {doing} {address} ({_reason(error)}): check {option}") from error
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds: TIME_WAIT does not count
        try:
            probe.bind(where)
        except OSError as error:
            taken = " (is another node running?)" if error.errno == errno.EADDRINUSE else ""
            raise StartupError(f"cannot {doing} {address}: {_reason(error)}{taken}: check {option}") from error
