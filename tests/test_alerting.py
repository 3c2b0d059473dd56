"""The shipped alerting rules and dashboard: promtool checks and unit-tests the rules, every metric
they and the dashboard name is one a node exposes, and the dashboard picks its datasource, node and
game by variables."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import yaml
from prometheus_client import generate_latest

from arena.grpc.call_metrics import ErrorCountingInterceptor
from arena.metrics import ArenaMetrics

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
RULES = DEPLOY / "prometheus"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "arena.json"
BY_GAME = {
    "arena_matches_started_total",
    "arena_matches_finished_total",
    "arena_match_duration_seconds_bucket",
    "arena_decisions_total",
    "arena_decision_latency_seconds_bucket",
    "arena_timeouts_total",
    "arena_illegal_actions_total",
    "arena_rejections_total",
}
"""The metrics labelled by game: the dashboard's game variable filters them."""


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("promtool")
    assert tool, "promtool is missing: make system-deps installs Debian's prometheus package"
    return subprocess.run([tool, *args], cwd=RULES, capture_output=True, text=True, timeout=60, check=False)


def exposed_names() -> set[str]:
    """The series a fresh node exposes: its metrics, with the gRPC call counters its interceptor starts."""
    metrics = ArenaMetrics()
    ErrorCountingInterceptor(metrics)
    text = generate_latest(metrics.registry).decode()
    names = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}
    return names | {"up"}


def metric_names(expr: str) -> set[str]:
    return set(re.findall(r"\b(arena_[a-z_]+|up)\b(?=\s*[{\[)]|\s*$|\s*[=!<>])", expr))


def test_promtool_checks_the_rules_and_their_unit_tests_pass() -> None:
    checked = promtool("check", "rules", "alerts.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", "alerts.test.yml")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    config = yaml.safe_load((RULES / "prometheus.yml").read_text())
    assert config["rule_files"] == ["alerts.yml"]


def test_the_rules_cover_the_five_conditions_with_metrics_a_node_exposes() -> None:
    rules = [r for group in yaml.safe_load((RULES / "alerts.yml").read_text())["groups"] for r in group["rules"]]
    assert {r["alert"] for r in rules} == {
        "ArenaNodeDown",
        "ArenaQueueStuck",
        "ArenaNoProgress",
        "ArenaGrpcErrorRatio",
        "ArenaDecisionLatencyHigh",
    }
    exposed = exposed_names()
    for rule in rules:
        names = metric_names(rule["expr"])
        assert names, rule["alert"]
        assert names <= exposed, (rule["alert"], names - exposed)


def test_the_dashboard_has_datasource_node_and_game_variables_and_no_fixed_uid() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["node"]["type"] == "query" and variables["game"]["type"] == "query"
    assert variables["node"]["includeAll"] and variables["game"]["includeAll"]
    text = DASHBOARD.read_text()
    assert '"uid": "prometheus"' not in text
    exposed = exposed_names()
    for panel in dashboard["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        for target in panel.get("targets", []):
            expr = target["expr"]
            assert 'instance=~"$node"' in expr, (panel["title"], expr)
            assert metric_names(expr) <= exposed, (panel["title"], expr)
            if metric_names(expr) & BY_GAME:
                assert 'game=~"$game"' in expr, (panel["title"], expr)
