"""The Grafana dashboard and the Prometheus alert rules in config/ refer only to what roomsync exports,
and promtool accepts them (Debian's `prometheus` package; .ci/apt-packages installs it in CI)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roomsync.metrics import Metrics

CONFIG = Path(__file__).parents[3] / "config"
DASHBOARD = CONFIG / "grafana-dashboard.json"
ALERTS = CONFIG / "prometheus-alerts.yml"
RULE_TESTS = Path(__file__).parent / "alert_rules_test.yml"
SUFFIXES = ("", "_total", "_bucket", "_sum", "_count", "_created")
METRIC = re.compile(r"\b(?:roomsync|process)_[a-zA-Z0-9_]*")


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(
                "promtool is missing in CI: .ci/apt-packages must install Debian's prometheus package"
            )
        pytest.skip("promtool is not installed here (apt-get install prometheus); CI always runs this")
    return found


def exported_names() -> set[str]:
    return {name + suffix for name in Metrics().metric_names() for suffix in SUFFIXES}


def dashboard_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    queries += [
        variable["query"] for variable in dashboard["templating"]["list"] if variable["type"] == "query"
    ]
    return queries


def alert_rules() -> dict[str, str]:
    """Each alert's name and the text of its rule (expression, labels, annotations); promtool checks
    the YAML itself, this only needs to tell the rules apart."""
    text = "\n".join(line for line in ALERTS.read_text().splitlines() if not line.strip().startswith("#"))
    rules: dict[str, str] = {}
    for chunk in text.split("- alert: ")[1:]:
        name, _, body = chunk.partition("\n")
        rules[name.strip()] = body
    return rules


def test_every_metric_the_dashboard_queries_is_exported() -> None:
    queries = dashboard_queries()
    assert len(queries) >= 15
    used = {name for query in queries for name in METRIC.findall(query)}
    assert used, "the dashboard queries no roomsync metric"
    assert used - exported_names() == set()
    # and every metric roomsync exports is on the dashboard
    shown = {name.removesuffix(suffix) for name in used for suffix in SUFFIXES if name.endswith(suffix)}
    assert Metrics().metric_names() - shown == set()


def test_every_metric_the_alerts_use_is_exported() -> None:
    rules = alert_rules()
    wanted = {
        "RoomsyncSyncStale",
        "RoomsyncBudgetNearlySpent",
        "RoomsyncDeadLetters",
        "RoomsyncInboxBacklog",
        "RoomsyncAuthFailing",
    }
    assert wanted <= set(rules)
    for name, rule in rules.items():
        expression = rule.partition("expr:")[2].partition("labels:")[0]
        used = set(METRIC.findall(expression))
        assert used, f"{name} uses no roomsync metric"
        assert used - exported_names() == set(), name
        assert re.search(r"severity: (warning|critical)", rule), name
        assert "summary:" in rule and "description:" in rule, name


def test_promtool_accepts_the_alert_rules() -> None:
    result = subprocess.run([promtool(), "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(alert_rules())} rules found" in result.stdout


def test_promtool_accepts_every_dashboard_query(tmp_path: Path) -> None:
    """Each query as a recording rule, so promtool parses its PromQL (Grafana variables filled in)."""
    rules = [
        {"record": f"roomsync:dashboard_query_{n}", "expr": query.replace("$property", ".*")}
        for n, query in enumerate(dashboard_queries())
        if not query.startswith("label_values(")
    ]
    path = tmp_path / "dashboard-queries.yml"  # JSON is YAML too
    path.write_text(json.dumps({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run([promtool(), "check", "rules", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alerts_fire_on_the_series_they_are_for() -> None:
    """promtool's rule unit tests (alert_rules_test.yml): each alert fires on a made-up series."""
    result = subprocess.run(
        [promtool(), "test", "rules", RULE_TESTS.name], capture_output=True, text=True, cwd=RULE_TESTS.parent
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_dashboard_panel_of_a_property_follows_the_property_variable() -> None:
    """Each query over a roomsync series selects ``property=~"$property"``; only the process panels
    (CPU, memory, files: one process serves many properties) do not."""
    panels = json.loads(DASHBOARD.read_text())["panels"]
    unfiltered = [
        query
        for query in (target["expr"] for panel in panels for target in panel.get("targets", []))
        if "roomsync_" in query and not all(
            '{property=~"$property"' in part or 'property=~"$property"' in part
            for part in query.split("roomsync_")[1:]
        )
    ]
    assert unfiltered == []
    every_series = {name for query in dashboard_queries() for name in METRIC.findall(query)}
    assert {name for name in every_series if name.startswith("process_")} >= {
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
    }
