"""The container deploys (deploy/Dockerfile, deploy/docker-compose.yml, deploy/k8s/), checked offline.

No Docker engine or cluster runs here, so each file goes through the parser the real tool uses:

- the Compose file through compose-go (the loader inside `docker compose`): interpolation, the
  Compose JSON schema, the consistency checks;
- the Dockerfile through BuildKit's Dockerfile frontend in lint mode (`docker build --check`), and its
  COPY sources against the build context and .dockerignore (BuildKit's own pattern matcher);
- the kustomization through kustomize's library (`kubectl apply -k`), and every object against the
  Kubernetes OpenAPI schemas (kubernetes-validate, strict: unknown fields fail) for the oldest
  Kubernetes with gRPC probes that it knows and the newest.

Those three are one Go program, deploy/tools/deploycheck, built here once (a missing Go toolchain fails
the tests, never skips them; the first build takes about a minute, later ones reuse it). The tests
then hold the files to what the arena needs: the same admin token, Redis and flags everywhere, every
`arena serve` flag one that `arena serve --help` lists, probes on the gRPC port, metrics on the
scraped port, and so on. The image's two scripts (healthcheck.py, sample_bots.py) run for real
against a real node.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import grpc
import kubernetes_validate
import psutil
import pytest
import yaml

from arena.cli.main import FRONT_PROGRAM, build_parser, web_address
from arena.serve.launch import serving
from arena.store.embedded import free_port
from arena.v1 import league_pb2, league_pb2_grpc
from tests.buildlock import build_lock

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
TOOL = DEPLOY / "tools" / "deploycheck"
BINARY = TOOL / "bin" / "deploycheck"

GRPC_PORT = 50051
METRICS_PORT = 9464
WEB_PORT = 8080
NODE_SERVICES = ("arena-1", "arena-2", "arena-3")
OLDEST_KUBERNETES = "1.25"  # gRPC probes: on by default from 1.24; the oldest schemas the package has
SERVE = "serve"

# Only the first build of the checker is slow (about a minute, plus fetching its modules once).
pytestmark = pytest.mark.timeout(900)


# -- the checker --------------------------------------------------------------------------------------


def _stale(binary: Path) -> bool:
    if not binary.exists():
        return True
    built = binary.stat().st_mtime
    sources = [*TOOL.glob("*.go"), TOOL / "go.mod", TOOL / "go.sum"]
    return any(source.stat().st_mtime > built for source in sources)


@pytest.fixture(scope="session")
def deploycheck() -> Path:
    """deploy/tools/deploycheck, built (or rebuilt when its sources changed) with the Go toolchain."""
    with build_lock(TOOL, 800):  # scripts/prebuild.sh may be building it
        if _stale(BINARY):
            try:
                result = subprocess.run(
                    ["go", "build", "-o", str(BINARY), "."],
                    cwd=TOOL,
                    capture_output=True,
                    text=True,
                    timeout=800,
                    check=False,
                )
            except FileNotFoundError:
                pytest.fail("the Go toolchain (go) is needed to build deploy/tools/deploycheck")
            assert result.returncode == 0, f"go build of deploy/tools/deploycheck failed:\n{result.stderr[-4000:]}"
    return BINARY


def check(deploycheck: Path, *args: str) -> Any:
    """Run the checker; its JSON answer, or the test fails with its reasons."""
    result = subprocess.run([str(deploycheck), *args], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"deploycheck {' '.join(args)}:\n{result.stderr}"
    return json.loads(result.stdout)


def check_fails(deploycheck: Path, *args: str) -> str:
    result = subprocess.run([str(deploycheck), *args], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1, f"deploycheck {' '.join(args)} should have failed:\n{result.stdout[:2000]}"
    return result.stderr


ADMIN_TOKEN = "0123456789abcdef0123456789abcdef"
"""What an operator sets as ARENA_ADMIN_TOKEN: the one variable the Compose file has no default for."""


@pytest.fixture(scope="module")
def compose(deploycheck: Path) -> dict[str, Any]:
    """The Compose project as `docker compose config` resolves it, every variable but the admin token at
    its default."""
    args = ["compose", "-env", f"ARENA_ADMIN_TOKEN={ADMIN_TOKEN}", str(DEPLOY / "docker-compose.yml")]
    project: dict[str, Any] = check(deploycheck, *args)
    return project


def test_compose_will_not_start_without_an_admin_token_of_the_operator_s(deploycheck: Path) -> None:
    """A token written in the repository is everybody's: the nodes published with ARENA_BIND=0.0.0.0
    would take it from anyone. Compose refuses to start without one, in one line saying how to make it."""
    said = check_fails(deploycheck, "compose", str(DEPLOY / "docker-compose.yml"))
    assert "ARENA_ADMIN_TOKEN" in said and "openssl rand -hex 24" in said


@pytest.fixture(scope="module")
def dockerfile(deploycheck: Path) -> dict[str, Any]:
    probes = [
        ".git",
        ".venv",
        "data",
        "clients/go/bot",
        "clients/typescript/node_modules",
        "clients/rust/target",
        "clients/java/target",
        "clients/python/arena_bot/__pycache__/bot.cpython-311.pyc",
        "arena/cli/main.py",
        "clients/python/arena_bot/bot.py",
        "deploy/healthcheck.py",
        "deploy/sample_bots.py",
        "front/Cargo.lock",
        "front/src/main.rs",
        "front/target/release/arena-front",
    ]
    args = ["dockerfile", "-context", str(ROOT)]
    for probe in probes:
        args += ["-probe", probe]
    report: dict[str, Any] = check(deploycheck, *args, str(DEPLOY / "Dockerfile"))
    return report


@pytest.fixture(scope="module")
def k8s(deploycheck: Path) -> list[dict[str, Any]]:
    """The objects `kubectl apply -k deploy/k8s` would send."""
    objects: list[dict[str, Any]] = check(deploycheck, "kustomize", str(K8S))
    return objects


def one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"want one {kind} {name}, found {len(found)}"
    return found[0]


# -- `arena serve` flags --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def serve_flags() -> set[str]:
    """Every option `arena serve --help` lists (the installed console script)."""
    arena = Path(sys.executable).with_name("arena")
    help_text = subprocess.run(
        [str(arena), SERVE, "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text))
    assert {"--address", "--redis", "--node-id", "--metrics-address"} <= flags
    return flags


def serve_commands(
    compose: dict[str, Any], dockerfile: dict[str, Any], k8s: list[dict[str, Any]]
) -> dict[str, list[str]]:
    """Every `arena serve` command line of the deploys, by where it comes from."""
    commands = {"Dockerfile CMD": dockerfile["final"]["cmd"]}
    for name in NODE_SERVICES:
        commands[f"compose {name}"] = compose["services"][name]["command"]
    for obj in k8s:
        if obj["kind"] == "Deployment":
            for container in obj["spec"]["template"]["spec"]["containers"]:
                commands[f"k8s {obj['metadata']['name']}/{container['name']}"] = container["args"]
    for where, command in commands.items():
        assert command[0] == SERVE, f"{where}: {command}"
    return commands


def options(command: list[str]) -> dict[str, str]:
    """`--flag=value` and `--flag value` as a mapping (a bare `--flag` maps to "")."""
    found: dict[str, str] = {}
    args = command[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        assert arg.startswith("--"), f"unexpected argument {arg!r} in {command}"
        if "=" in arg:
            flag, value = arg.split("=", 1)
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            flag, value = arg, args[i + 1]
            i += 1
        else:
            flag, value = arg, ""
        found[flag] = value
        i += 1
    return found


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def test_every_serve_flag_in_the_deploys_exists_and_parses(
    compose: dict[str, Any], dockerfile: dict[str, Any], k8s: list[dict[str, Any]], serve_flags: set[str]
) -> None:
    for where, command in serve_commands(compose, dockerfile, k8s).items():
        unknown = set(options(command)) - serve_flags
        assert not unknown, f"{where} uses flags `arena serve --help` does not list: {sorted(unknown)}"
        # And the values parse (types, choices), as `arena serve` itself would read them.
        args = build_parser().parse_args([arg.replace("$(POD_NAME)", "arena-7d9f-x2") for arg in command])
        assert args.command == SERVE
        assert port_of(args.address) == GRPC_PORT, where
        assert args.address.startswith("0.0.0.0:"), f"{where}: a container must listen on every interface"
        assert args.metrics_address == f"0.0.0.0:{METRICS_PORT}", where
        # The web site's port is spelt out (the port the manifests publish), on every interface.
        assert "--web-port" in options(command), f"{where}: declare the web site's port"
        assert web_address(args) == f"0.0.0.0:{WEB_PORT}", where


# -- Compose ----------------------------------------------------------------------------------------


def test_compose_has_redis_nodes_monitoring_and_bots(compose: dict[str, Any]) -> None:
    assert compose["name"] == "arena"
    assert set(compose["services"]) == {"redis", *NODE_SERVICES, "bots", "prometheus", "grafana"}
    for name, service in compose["services"].items():
        if "build" in service:  # built from this repository, tagged for local use
            continue
        image = service["image"]
        assert re.search(r":[\w.-]*\d", image) and not image.endswith(":latest"), f"{name}: pin {image} to a version"
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    assert redis["command"][:3] == ["redis-server", "--appendonly", "yes"]
    assert any(v["type"] == "volume" and v["target"] == "/data" for v in redis["volumes"])
    assert redis["healthcheck"]["test"][:2] == ["CMD", "redis-cli"]


def test_compose_nodes_share_redis_and_the_admin_token_under_distinct_ids(
    compose: dict[str, Any], dockerfile: dict[str, Any]
) -> None:
    node_ids = set()
    web_ports: set[str] = set()
    for name in NODE_SERVICES:
        service = compose["services"][name]
        assert service["build"] == {"context": str(ROOT), "dockerfile": "deploy/Dockerfile"}
        flags = options(service["command"])
        assert flags["--redis"] == "redis://redis:6379/0"
        node_ids.add(flags["--node-id"])
        assert service["hostname"] == flags["--node-id"] == name
        assert service["environment"]["ARENA_ADMIN_TOKEN"] == ADMIN_TOKEN
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        # Docker waits for the drain: the grace the node gives its matches, and then some.
        grace = float(flags["--shutdown-grace"])
        assert parse_duration(service["stop_grace_period"]) >= grace + 10
        assert service["init"] is True
        assert [p["target"] for p in service["ports"]] == [GRPC_PORT, WEB_PORT]
        web_ports.add(next(p["published"] for p in service["ports"] if p["target"] == WEB_PORT))
        assert all(p["host_ip"] == "127.0.0.1" for p in service["ports"]), "local defaults publish on loopback only"
        # The image's HEALTHCHECK (the gRPC health service) is what the nodes report.
        assert "healthcheck" not in service or not service["healthcheck"].get("disable")
    assert len(node_ids) == len(NODE_SERVICES)
    assert len(web_ports) == len(NODE_SERVICES), "each node's web site on its own host port"
    assert "healthcheck.py" in " ".join(dockerfile["final"]["healthcheck"])


def test_compose_variables_override_the_defaults(deploycheck: Path) -> None:
    env = {"ARENA_ADMIN_TOKEN": "s3cret", "ARENA_BIND": "0.0.0.0", "ARENA_IMAGE": "registry.example/arena:1.2.3"}
    args = ["compose"]
    for key, value in env.items():
        args += ["-env", f"{key}={value}"]
    project = check(deploycheck, *args, str(DEPLOY / "docker-compose.yml"))
    for name in (*NODE_SERVICES, "bots"):
        service = project["services"][name]
        assert service["environment"]["ARENA_ADMIN_TOKEN"] == "s3cret"
        assert service["image"] == "registry.example/arena:1.2.3"
    assert {p["host_ip"] for s in project["services"].values() for p in s.get("ports", [])} == {"0.0.0.0"}


def test_the_compose_checker_rejects_what_compose_would(deploycheck: Path, tmp_path: Path) -> None:
    """The checker is no rubber stamp: a misspelt key, a variable with no default, a dangling depends_on."""
    cases = {
        "services:\n  a:\n    image: x:1\n    restrat: always\n": "restrat",
        "services:\n  a:\n    image: x:${TAG}\n": "TAG",
        "services:\n  a:\n    image: x:1\n    depends_on: [b]\n": "undefined service",
    }
    for i, (text, reason) in enumerate(cases.items()):
        path = tmp_path / f"case{i}.yml"
        path.write_text(text)
        assert reason in check_fails(deploycheck, "compose", str(path))


def test_compose_bots_list_every_node_in_one_order(compose: dict[str, Any], dockerfile: dict[str, Any]) -> None:
    bots = compose["services"]["bots"]
    assert bots["entrypoint"] == ["python", "/opt/arena/libexec/sample_bots.py"]
    copied = [c for stage in dockerfile["stages"] for c in stage["copies"] if "deploy/sample_bots.py" in c["sources"]]
    assert copied and copied[0]["dest"] == "/opt/arena/libexec/"
    servers = bots["environment"]["ARENA_SERVERS"].split(",")
    assert servers == [f"{name}:{GRPC_PORT}" for name in NODE_SERVICES]
    assert (
        bots["environment"]["ARENA_ADMIN_TOKEN"] == compose["services"]["arena-1"]["environment"]["ARENA_ADMIN_TOKEN"]
    )
    tokens_dir = bots["environment"]["BOT_TOKENS_DIR"]
    assert any(v["type"] == "volume" and tokens_dir.startswith(v["target"]) for v in bots["volumes"])
    assert bots["healthcheck"] == {"disable": True}
    assert bots["depends_on"]["arena-1"]["condition"] == "service_healthy"
    assert bots["build"] == compose["services"]["arena-1"]["build"]


def test_compose_prometheus_finds_every_node_and_grafana_reads_it(compose: dict[str, Any]) -> None:
    scrape = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())["scrape_configs"][0]
    dns = scrape["dns_sd_configs"][0]
    assert dns["port"] == METRICS_PORT
    for name in NODE_SERVICES:  # the DNS name Prometheus asks for is an alias of every node
        assert set(dns["names"]) <= set(compose["services"][name]["networks"]["default"]["aliases"])
    prometheus = compose["services"]["prometheus"]
    mounts = {v["target"]: v for v in prometheus["volumes"]}
    config = mounts["/etc/prometheus/prometheus.yml"]
    assert config["type"] == "bind" and Path(config["source"]) == DEPLOY / "prometheus" / "prometheus.yml"
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]

    grafana = compose["services"]["grafana"]
    mounts = {v["target"]: v for v in grafana["volumes"]}
    provisioning = Path(mounts["/etc/grafana/provisioning"]["source"])
    assert provisioning == DEPLOY / "grafana" / "provisioning"
    provider = yaml.safe_load((provisioning / "dashboards" / "arena.yml").read_text())["providers"][0]
    dashboards = mounts[provider["options"]["path"]]
    assert Path(dashboards["source"]) == DEPLOY / "grafana" / "dashboards"
    assert grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"].startswith(provider["options"]["path"])
    datasource = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())["datasources"][0]
    url = urlparse(datasource["url"])
    assert url.hostname == "prometheus" and url.port == 9090
    assert [p["target"] for p in prometheus["ports"]] == [9090]
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            if volume["type"] == "bind":
                assert Path(volume["source"]).exists(), f"bind mount source missing: {volume['source']}"


def parse_duration(text: str) -> float:
    seconds = 0.0
    for amount, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text):
        seconds += float(amount) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[unit]
    return seconds


# -- Dockerfile -------------------------------------------------------------------------------------


def test_dockerfile_builds_a_pinned_non_root_arena_image(dockerfile: dict[str, Any]) -> None:
    # deploycheck already failed on any BuildKit lint warning and any COPY source missing from the context.
    assert dockerfile["lint"] == []
    python, rust = r"python:3\.11(\.\d+)?-slim-(\w+)", r"rust:1\.\d+(\.\d+)?-slim-(\w+)"
    bases = [stage["base"].split("@sha256:")[0] for stage in dockerfile["stages"]]
    assert all(re.fullmatch(python, base) or re.fullmatch(rust, base) for base in bases), bases
    # The front is built on the Debian it runs on (the final stage's), so it links against that C library.
    assert len({base.rsplit("-", 1)[1] for base in bases}) == 1, bases
    final = dockerfile["final"]
    user = final["user"].split(":")[0]
    assert user and user not in {"0", "root"}, f"the image runs as {final['user']!r}"
    assert final["entrypoint"] == ["arena"]
    assert final["shell_form"] == []
    assert final["cmd"][0] == SERVE
    assert {str(GRPC_PORT), str(METRICS_PORT), str(WEB_PORT)} <= set(final["expose"])
    assert final["healthcheck"] == ["CMD", "python", "/opt/arena/libexec/healthcheck.py"]
    assert port_of(final["env"]["ARENA_HEALTH_ADDRESS"]) == port_of(options(final["cmd"])["--address"])
    assert final["env"]["PATH"].startswith("/opt/arena/bin:")
    runs = " ".join(run for stage in dockerfile["stages"] for run in stage["runs"])
    assert '".[server]"' in runs and "./clients/python" in runs, "the image installs arena[server] and the SDK"
    copied = {c["dest"] for c in dockerfile["stages"][-1]["copies"] if c["from"] == dockerfile["stages"][0]["name"]}
    assert "/opt/arena" in copied


def test_the_image_has_the_front_and_every_deployed_node_listens_through_it(
    compose: dict[str, Any], dockerfile: dict[str, Any], k8s: list[dict[str, Any]]
) -> None:
    [front] = [stage for stage in dockerfile["stages"] if stage["base"].startswith("rust:")]
    assert "cargo build --release --locked" in " ".join(front["runs"])
    sources = {source for copy in front["copies"] for source in copy["sources"]}
    assert {"front/Cargo.toml", "front/Cargo.lock", "front/src/"} <= sources
    final = dockerfile["stages"][-1]
    copied = {c["dest"]: c["sources"] for c in final["copies"] if c["from"] == front["name"]}
    # Into the folder the image puts first on its PATH (checked above), under the name `arena serve --front` looks for.
    assert copied == {f"/opt/arena/bin/{FRONT_PROGRAM}": ["/src/front/target/release/arena-front"]}
    for where, command in serve_commands(compose, dockerfile, k8s).items():
        # A bare --front: the one on PATH (a path of the build machine would not be in the image).
        assert options(command).get("--front") == "", f"{where}: {command}"


def test_dockerignore_keeps_the_build_context_small(dockerfile: dict[str, Any]) -> None:
    probes = dockerfile["probes"]
    for path in (
        ".git",
        ".venv",
        "data",
        "clients/go/bot",
        "clients/typescript/node_modules",
        "clients/rust/target",
        "clients/java/target",
        "clients/python/arena_bot/__pycache__/bot.cpython-311.pyc",
        "front/target/release/arena-front",
    ):
        assert probes[path] is False, f"{path} would be sent to the Docker build"
    for path in (
        "arena/cli/main.py",
        "clients/python/arena_bot/bot.py",
        "deploy/healthcheck.py",
        "deploy/sample_bots.py",
        "front/Cargo.lock",
        "front/src/main.rs",
    ):
        assert probes[path] is True, f"{path} would be left out of the Docker build"
    for stage in dockerfile["stages"]:
        for copy in stage["copies"]:
            for source, files in (copy.get("context_files") or {}).items():
                assert files > 0, source


def test_the_dockerfile_checker_rejects_what_buildkit_would(deploycheck: Path, tmp_path: Path) -> None:
    good = (DEPLOY / "Dockerfile").read_text()
    cases = {
        "shell form": (good.replace('CMD ["serve"', "CMD serve #"), "JSONArgsRecommended"),
        "undefined variable": (good.replace("PYTHONUNBUFFERED=1", "PYTHONUNBUFFERED=$UNSET_THING"), "UndefinedVar"),
        "missing source": (good.replace("COPY arena/ arena/", "COPY arena/ no-such-dir/ arena/"), "no-such-dir"),
    }
    for name, (text, reason) in cases.items():
        assert text != good, name
        path = tmp_path / "Dockerfile"
        path.write_text(text)
        assert reason in check_fails(deploycheck, "dockerfile", "-context", str(ROOT), str(path)), name


# -- Kubernetes -------------------------------------------------------------------------------------


def test_every_kubernetes_manifest_validates_against_the_schemas(k8s: list[dict[str, Any]]) -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk, "every manifest in deploy/k8s/ is in kustomization.yaml, and only those"
    raw = [doc for name in sorted(listed) for doc in yaml.safe_load_all((K8S / name).read_text()) if doc]
    assert len(raw) == len(k8s) >= 10
    for version in (OLDEST_KUBERNETES, kubernetes_validate.latest_version()):
        for obj in (*raw, *k8s):
            try:
                kubernetes_validate.validate(obj, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                pytest.fail(f"{obj['kind']} {obj['metadata']['name']} (Kubernetes {version}): {error}")
    assert {o["metadata"].get("namespace") for o in k8s if o["kind"] != "Namespace"} == {"arena"}


def test_the_kubernetes_validator_is_no_rubber_stamp(k8s: list[dict[str, Any]]) -> None:
    deployment = json.loads(json.dumps(one(k8s, "Deployment", "arena")))
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["grcp"] = probe.pop("grpc")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, kubernetes_validate.latest_version(), strict=True)


def arena_container(k8s: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    pod = one(k8s, "Deployment", "arena")["spec"]["template"]
    containers = pod["spec"]["containers"]
    assert len(containers) == 1
    return pod, containers[0]


def test_arena_pods_probe_the_grpc_health_service_on_the_grpc_port(k8s: list[dict[str, Any]]) -> None:
    _, container = arena_container(k8s)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    flags = options(container["args"])
    assert ports["grpc"] == port_of(flags["--address"]) == GRPC_PORT
    assert ports["web"] == int(flags["--web-port"]) == WEB_PORT
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container[kind]
        assert set(probe) & {"grpc", "httpGet", "tcpSocket", "exec"} == {"grpc"}, kind
        assert probe["grpc"]["port"] == ports["grpc"], kind
        assert probe["grpc"].get("service", "") == "", kind  # the overall health of the node
    # A draining node answers NOT_SERVING; liveness must outlast the drain rather than kill it.
    liveness = container["livenessProbe"]
    assert liveness["periodSeconds"] * liveness["failureThreshold"] > float(flags["--shutdown-grace"])


def test_arena_pods_drain_take_their_id_and_token_and_are_bounded(
    k8s: list[dict[str, Any]], dockerfile: dict[str, Any]
) -> None:
    pod, container = arena_container(k8s)
    spec = pod["spec"]
    flags = options(container["args"])
    env = {e["name"]: e for e in container["env"]}
    # Node id from the pod's name.
    assert flags["--node-id"] == "$(POD_NAME)"
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    # The admin token from the Secret that deploy/README.md has the operator make, with that key; the
    # manifests carry none (a token in the repository is everybody's).
    ref = env["ARENA_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert not [o for o in k8s if o["kind"] == "Secret"]
    made = re.search(r"create secret generic (\S+) --from-literal=([\w-]+)=", (DEPLOY / "README.md").read_text())
    assert made is not None and (ref["name"], ref["key"]) == made.groups()
    assert ref.get("optional") is not True
    # Redis: the Service the URL names, on its port.
    url = urlparse(flags["--redis"])
    redis_service = one(k8s, "Service", url.hostname or "")
    assert url.port in [p["port"] for p in redis_service["spec"]["ports"]]
    # Graceful stop: preStop, then the drain, all inside the termination grace period.
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    grace = float(flags["--shutdown-grace"])
    assert spec["terminationGracePeriodSeconds"] >= float(pre_stop[1]) + grace + 10
    # Resources.
    for bound in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][bound]), bound
    # Non-root, as the image is.
    uid = int(dockerfile["final"]["user"].split(":")[0])
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == uid
    # Scraped by annotation, on the metrics port it serves.
    annotations = pod["metadata"]["annotations"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == ports["metrics"] == port_of(flags["--metrics-address"])
    assert annotations["prometheus.io/path"] == "/metrics"


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def test_services_hpa_and_budget_point_at_the_arena_pods(k8s: list[dict[str, Any]]) -> None:
    deployment = one(k8s, "Deployment", "arena")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert selects(deployment["spec"]["selector"]["matchLabels"], labels)
    assert "replicas" not in deployment["spec"], "the HorizontalPodAutoscaler owns the replica count"
    for name in ("arena", "arena-headless"):
        service = one(k8s, "Service", name)
        assert selects(service["spec"]["selector"], labels), name
        ports = {p["name"]: p for p in service["spec"]["ports"]}
        assert ports["grpc"]["port"] == GRPC_PORT and ports["grpc"]["targetPort"] == "grpc"
        assert ports["metrics"]["port"] == METRICS_PORT
        assert ports["web"]["port"] == WEB_PORT and ports["web"]["targetPort"] == "web"
    assert one(k8s, "Service", "arena-headless")["spec"]["clusterIP"] == "None"
    hpa = one(k8s, "HorizontalPodAutoscaler", "arena")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "arena"}
    assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    budget = one(k8s, "PodDisruptionBudget", "arena")
    assert selects(budget["spec"]["selector"]["matchLabels"], labels)


def test_redis_is_a_persistent_append_only_statefulset_reachable_by_the_nodes_only(k8s: list[dict[str, Any]]) -> None:
    redis = one(k8s, "StatefulSet", "redis")
    spec = redis["spec"]
    assert one(k8s, "Service", spec["serviceName"])["spec"]["clusterIP"] == "None"
    claims = {c["metadata"]["name"] for c in spec["volumeClaimTemplates"]}
    container = spec["template"]["spec"]["containers"][0]
    assert container["image"].startswith("redis:7")
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert "data" in claims and mounts["data"] == "/data"
    config = one(k8s, "ConfigMap", "redis-config")["data"]["redis.conf"]
    settings = dict(
        line.split(None, 1) for line in config.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
    assert settings["appendonly"] == "yes"
    assert settings["dir"] == mounts["data"]
    assert settings["maxmemory-policy"] == "noeviction"
    assert container["command"][-1].startswith(mounts["config"])
    policy = one(k8s, "NetworkPolicy", "redis-from-arena-only")["spec"]
    redis_labels = spec["template"]["metadata"]["labels"]
    arena_labels = one(k8s, "Deployment", "arena")["spec"]["template"]["metadata"]["labels"]
    assert selects(policy["podSelector"]["matchLabels"], redis_labels)
    assert selects(policy["ingress"][0]["from"][0]["podSelector"]["matchLabels"], arena_labels)


def test_the_plain_kubernetes_scrape_config_keeps_the_metrics_port(k8s: list[dict[str, Any]]) -> None:
    config = yaml.safe_load((K8S / "prometheus" / "scrape-config.yml").read_text())
    job = config["scrape_configs"][0]
    assert job["kubernetes_sd_configs"][0]["role"] == "pod"
    keeps = {tuple(r["source_labels"]): r["regex"] for r in job["relabel_configs"] if r.get("action") == "keep"}
    assert keeps[("__meta_kubernetes_pod_annotation_prometheus_io_scrape",)] == "true"
    port_name = keeps[("__meta_kubernetes_pod_container_port_name",)]
    _, container = arena_container(k8s)
    assert {p["name"]: p["containerPort"] for p in container["ports"]}[port_name] == METRICS_PORT


# -- the image's scripts, for real --------------------------------------------------------------------


@pytest.fixture
def node(tmp_path: Path) -> Iterator[str]:
    """A real `arena serve` (embedded Redis) on a free port; its address."""
    port = free_port()
    args = ["--address", f"127.0.0.1:{port}", "--data-dir", str(tmp_path / "node")]
    args += ["--metrics-address", "", "--web-port", "0", "--shutdown-grace", "0.5"]
    with serving(args, log=tmp_path / "node.log", env={"ARENA_ADMIN_TOKEN": "deploy-test-token"}):
        yield f"127.0.0.1:{port}"


def healthcheck(address: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEPLOY / "healthcheck.py"), address],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_healthcheck_asks_the_grpc_health_service(node: str) -> None:
    assert healthcheck(node).returncode == 0
    closed = healthcheck(f"127.0.0.1:{free_port()}")
    assert closed.returncode == 1 and "UNAVAILABLE" in closed.stderr


def test_sample_bots_register_once_play_a_league_and_stop_on_sigterm(node: str, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    env = {
        **os.environ,
        "ARENA_ADMIN_TOKEN": "deploy-test-token",
        # A dead node first: the bots fall back to the live one, as they would after a node's death.
        "ARENA_SERVERS": f"127.0.0.1:{free_port()},{node}",
        "SAMPLE_BOTS": "h1=heuristic r1=random r2=random",
        "SAMPLE_LEAGUE_GAMES": "1",
        "BOT_TOKENS_DIR": str(tokens),
        "BOT_CONCURRENCY": "2",
        "WAIT_SECONDS": "30",
    }
    log = tmp_path / "sample-bots.log"
    with log.open("w") as out:
        launcher = subprocess.Popen(
            [sys.executable, str(DEPLOY / "sample_bots.py")], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        league = wait_for_a_finished_league(node, launcher, log)
        assert league.progress.total == 3  # three bots, one game per pair
        bots = psutil.Process(launcher.pid).children()
        assert len(bots) == 3
        assert sorted(p.name for p in tokens.iterdir()) == ["h1", "r1", "r2"]
        assert all(p.stat().st_mode & 0o077 == 0 for p in tokens.iterdir()), "tokens are private"
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(20) == 0
        _, alive = psutil.wait_procs(bots, timeout=5)
        assert not alive, f"bots left running: {alive}"
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait(10)
    text = log.read_text()
    assert text.count("registered") == 3

    # A second start keeps the tokens it has: nothing is registered again.
    sys.path.insert(0, str(DEPLOY))
    try:
        import sample_bots

        config = sample_bots.Config.from_env(env)
        assert sample_bots.tokens(config, node) == {p.name: p.read_text().strip() for p in tokens.iterdir()}
    finally:
        sys.path.remove(str(DEPLOY))
        sys.modules.pop("sample_bots", None)
        sys.modules.pop("healthcheck", None)


def wait_for_a_finished_league(address: str, launcher: subprocess.Popen[bytes], log: Path) -> league_pb2.League:
    deadline = time.monotonic() + 60
    with grpc.insecure_channel(address) as channel:
        stub = league_pb2_grpc.LeagueServiceStub(channel)
        while time.monotonic() < deadline:
            assert launcher.poll() is None, f"sample_bots.py exited:\n{log.read_text()[-4000:]}"
            leagues = stub.ListLeagues(league_pb2.ListLeaguesRequest(), timeout=5).leagues
            done = [lg for lg in leagues if lg.progress.total and lg.progress.done == lg.progress.total]
            if done:
                return done[0]
            time.sleep(0.2)
    pytest.fail(f"the sample league did not finish in 60 s:\n{log.read_text()[-4000:]}")
