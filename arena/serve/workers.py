"""``arena serve --workers N``: one node process per core, sharing one port and one Redis.

asyncio and gRPC run a node on one core. With N workers, a supervisor process starts the store
(the embedded Redis, unless ``--redis`` names one) and N worker processes, each a full node of the
arena (its own node id, ``NODE-ID.0`` … ``NODE-ID.N-1``) listening on the same port with
SO_REUSEPORT, so the kernel spreads bot connections over them. A match between bots whose
connections landed on different workers is played through the nodes' relay, over a direct link
between the two workers (a Unix socket in the supervisor's private folder, mode 0700, removed when
it exits) rather than through Redis as between the nodes of different machines. ``StartMatch``
starts a match on the worker its bots are connected to.
Worker ``i`` serves ``/metrics`` on the metrics port plus ``i``; the first worker serves the web site.

The supervisor prints the ready line once every worker serves, forwards SIGTERM/SIGINT to them
(each shuts down gracefully), and stops them all if one of them dies (a non-zero exit, for the
service manager to restart the whole). A worker whose supervisor dies stops itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path

from arena import logs
from arena.errors import StartupError
from arena.serve import startup
from arena.serve.process import ServeConfig, admin_token_for, given_admin_token, open_store
from arena.store.embedded import free_port

log = logging.getLogger(__name__)

READY_SECONDS = 120.0
"""How long a worker may take to start serving."""


CGROUP = Path("/sys/fs/cgroup")


def default_workers(allowed: int | None = None, cgroup: Path = CGROUP) -> int:
    """One worker per core this process may run on (``allowed``: its CPU affinity), or per CPU of its
    cgroup's quota if that is fewer (a container limited to 1.5 CPUs: 2), at least one."""
    if allowed is None:
        allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = _cgroup_cpus(cgroup)
    return max(1, min(allowed, quota) if quota is not None else allowed)


def _cgroup_cpus(cgroup: Path) -> int | None:
    """The CPUs the cgroup's quota gives, rounded up (v2 ``cpu.max``, else v1); None without one."""
    try:
        if (v2 := cgroup / "cpu.max").exists():
            quota, period = v2.read_text().split()
        else:
            quota = (cgroup / "cpu" / "cpu.cfs_quota_us").read_text().strip()
            period = (cgroup / "cpu" / "cpu.cfs_period_us").read_text().strip()
        if quota in ("max", "-1"):
            return None
        return -(-int(quota) // int(period))
    except (OSError, ValueError, ZeroDivisionError):
        return None


@dataclasses.dataclass(frozen=True)
class WorkerSpec:
    """What one worker process runs."""

    config: ServeConfig
    log_level: str
    json_logs: bool


def worker_configs(
    config: ServeConfig, count: int, redis_url: str, admin: str | None, siblings_dir: Path | None = None
) -> list[ServeConfig]:
    """The configuration of each of ``count`` workers of ``config`` (its port already chosen);
    with ``siblings_dir``, each relays to the others over their sockets there."""
    base = config.node_id or f"{socket.gethostname()}-{os.getpid()}"
    ids = tuple(f"{base}.{i}" for i in range(count))
    metrics: list[str | None] = [None] * count
    if config.metrics_address:
        host, _, port = config.metrics_address.rpartition(":")
        metrics = [f"{host}:{int(port) + i}" if int(port) else f"{host}:0" for i in range(count)]
    return [
        dataclasses.replace(
            config,
            redis_url=redis_url,
            admin_token=admin,
            node_id=ids[i],
            metrics_address=metrics[i],
            web_address=config.web_address if i == 0 else None,
            shared_port=True,
            siblings_dir=siblings_dir,
            siblings=tuple(other for other in ids if other != ids[i]) if siblings_dir is not None else (),
        )
        for i in range(count)
    ]


def _worker_main(
    spec: WorkerSpec,
    ready: multiprocessing.connection.Connection,
    life: multiprocessing.connection.Connection,
) -> None:
    """A worker process: one node; it stops when told (SIGTERM) or when its supervisor is gone."""
    import asyncio

    from arena.serve.process import serve

    logs.configure(spec.log_level, json_format=spec.json_logs)

    def watch_supervisor() -> None:
        with contextlib.suppress(EOFError, OSError):
            life.recv()  # nothing is ever sent: this returns when the supervisor's end closes
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch_supervisor, name="supervisor-watch", daemon=True).start()
    try:
        asyncio.run(
            serve(
                spec.config,
                lambda running: ready.send(("ready", (running.port, running.web.url if running.web else ""))),
            )
        )
    except StartupError as error:
        ready.send(("failed", str(error)))
        raise SystemExit(2) from None


def run_workers(
    config: ServeConfig,
    count: int,
    on_ready: Callable[[int, str], None],
    log_level: str = "info",
    json_logs: bool = True,
) -> int:
    """Run ``count`` workers of ``config`` until SIGTERM or SIGINT; returns the exit status.
    ``on_ready(port, web site URL or "")`` is called once every worker serves.

    Operator mistakes (a taken port, an unusable data folder or Redis) raise ``StartupError``
    before any worker takes work.
    """
    startup.check_port_free(config.address, "--address")
    if config.advertise_address is not None:
        startup.check_advertise_address(config.advertise_address)
    given_admin_token(config)
    if config.metrics_address:
        metrics_host, _, metrics_text = config.metrics_address.rpartition(":")
        startup.check_port_free(config.metrics_address, "--metrics-address", "serve metrics on")
        first = int(metrics_text)
        if first and first + count - 1 > 65535:
            raise StartupError(
                f"{count} workers serve metrics on ports {first} to {first + count - 1}, past 65535: "
                "give a lower port in --metrics-address"
            )
        for i in range(1, count if first else 0):
            startup.check_port_free(f"{metrics_host}:{first + i}", "--metrics-address", "serve metrics on")
    host, _, port_text = config.address.rpartition(":")
    port = int(port_text) or free_port()
    config = dataclasses.replace(config, address=f"{host}:{port}")
    embedded, url = open_store(config)
    try:
        try:
            admin = admin_token_for(config)
        except OSError as error:
            raise StartupError(f"cannot keep the admin token in the data folder {config.data_dir}: {error}") from error
        # The workers' sockets for each other: private to this user, removed when the supervisor exits.
        with tempfile.TemporaryDirectory(prefix="arena-workers-") as siblings:
            os.chmod(siblings, 0o700)
            configs = worker_configs(config, count, url, admin, Path(siblings))
            return _supervise(configs, port, on_ready, log_level, json_logs)
    finally:
        if embedded is not None:
            embedded.stop()


def _supervise(
    configs: list[ServeConfig], port: int, on_ready: Callable[[int, str], None], log_level: str, json_logs: bool
) -> int:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    context = multiprocessing.get_context("spawn")  # gRPC's threads do not survive a fork
    workers: list[BaseProcess] = []
    readies: list[multiprocessing.connection.Connection] = []
    lives: list[multiprocessing.connection.Connection] = []
    try:
        for config in configs:
            ready_out, ready_in = context.Pipe(duplex=False)
            life_out, life_in = context.Pipe(duplex=False)
            worker: BaseProcess = context.Process(
                target=_worker_main,
                args=(WorkerSpec(config, log_level, json_logs), ready_in, life_out),
                name=f"arena-worker-{config.node_id}",
            )
            worker.start()
            ready_in.close()
            life_out.close()
            workers.append(worker)
            readies.append(ready_out)
            lives.append(life_in)
        deadline = time.monotonic() + READY_SECONDS
        web = ""
        for started, ready in zip(workers, readies, strict=True):
            if not ready.poll(max(0.0, deadline - time.monotonic())):
                raise StartupError(f"worker {started.name} did not start serving in {READY_SECONDS:g} s")
            try:
                kind, detail = ready.recv()
            except EOFError:
                started.join(5)
                raise StartupError(
                    f"worker {started.name} exited while starting (exit code {started.exitcode})"
                ) from None
            if kind != "ready":
                raise StartupError(str(detail))
            web = web or detail[1]
        log.info("arena workers serving", extra={"workers": len(workers), "port": port})
        on_ready(port, web)
        while not stop.wait(0.2):
            dead = [w for w in workers if not w.is_alive()]
            if dead:
                log.error(
                    "a worker died: stopping the others", extra={"worker": dead[0].name, "code": dead[0].exitcode}
                )
                return 1
        return 0
    finally:
        for running in workers:
            if running.is_alive() and running.pid is not None:
                os.kill(running.pid, signal.SIGTERM)
        grace = max(c.shutdown_grace_seconds for c in configs) + 15.0
        until = time.monotonic() + grace
        for running in workers:
            running.join(max(0.1, until - time.monotonic()))
            if running.is_alive():
                running.kill()
                running.join()
        for end in (*readies, *lives):
            end.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
