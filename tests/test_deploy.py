"""The deploy files: every metric the dashboard queries exists; configs parse."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import generate_latest

from arena.metrics import ArenaMetrics

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def exported_series() -> set[str]:
    """Every series name the node's registry can export, from its TYPE lines."""
    text = generate_latest(ArenaMetrics().registry).decode()
    names: set[str] = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE):
        if kind == "counter":
            names.add(name if name.endswith("_total") else f"{name}_total")
        elif kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
        else:
            names.add(name)
    return names


def test_every_metric_the_dashboard_queries_is_exported() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "arena.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    queried = {name for expr in exprs for name in re.findall(r"\barena_[a-z_]+", expr)}
    assert len(queried) >= 10
    missing = queried - exported_series()
    assert not missing, f"the dashboard queries metrics no node exports: {sorted(missing)}"


def test_the_dashboard_shows_throughput_latency_queue_and_errors() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "arena.json").read_text())
    titles = " ".join(panel["title"].lower() for panel in dashboard["panels"])
    for topic in ("per second", "latency", "queue", "errors"):
        assert topic in titles
    assert any("histogram_quantile(0.99" in t["expr"] for p in dashboard["panels"] for t in p["targets"])


def test_prometheus_and_grafana_provisioning_parse() -> None:
    prometheus = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    job = prometheus["scrape_configs"][0]
    assert job["metrics_path"] == "/metrics"
    assert job["dns_sd_configs"][0]["port"] == 9464
    for path in (DEPLOY / "grafana" / "provisioning").rglob("*.yml"):
        assert yaml.safe_load(path.read_text())["apiVersion"] == 1
