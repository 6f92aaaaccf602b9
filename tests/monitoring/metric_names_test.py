"""Every metric and label name the alert rules, their promtool tests and the Grafana dashboard use
exists in a real scrape of the operator (fixtures/*.txt): a renamed metric or label
fails here. Every dashboard panel has a query, and every query parses (promtool check rules)."""
import json
import os
import re
import subprocess
import tempfile

import yaml

from common import CHART, PROMTOOL, TARGET_LABELS, alerts, check, finish, rendered_rules, scrape_series
from promql_names import names

HERE = os.path.dirname(os.path.abspath(__file__))
SCRAPE = scrape_series()
SCRAPE_LABELS = {label for sets in SCRAPE.values() for s in sets for label in s}
# Grafana's variables, as a query would see them.
GRAFANA_VARS = {"$__rate_interval": "2m", "$__interval": "30s", "$__range": "1h"}
METRIC_WORD = re.compile(r"\b((?:rdmastack|controller_runtime|workqueue|leader_election|rest_client)_[a-z0-9_]+)")


def known_metric(m):
    return m in SCRAPE or m == "up"


def check_expr(where, expr):
    metrics, labels = names(expr)
    check(bool(metrics), f"{where}: uses a metric ({expr})")
    for m in sorted(metrics):
        check(known_metric(m), f"{where}: metric {m} is in the real scrape")
    allowed = set(TARGET_LABELS) | {label for m in metrics for s in SCRAPE.get(m, ()) for label in s}
    for label in sorted(labels):
        check(label in allowed, f"{where}: label {label} is on {', '.join(sorted(metrics))} in the real scrape "
                                "(or a target label)")


# The alert rules as the chart renders them.
spec = rendered_rules()
for rule in alerts(spec):
    check_expr(rule["alert"], rule["expr"])
    for key, text in rule["annotations"].items():
        for m in METRIC_WORD.findall(text):
            check(known_metric(m), f"{rule['alert']} {key}: metric {m} is in the real scrape")

# The rule tests' input series: the exact label names of a scraped series (plus target labels).
with open(os.path.join(HERE, "alerts_test.yaml")) as f:
    for test in yaml.safe_load(f)["tests"]:
        for s in test["input_series"]:
            m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\}", s["series"])
            name, labels = m.group(1), set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(2)))
            where = f"alerts_test.yaml {test['name']}: {name}"
            if name == "up":
                check(labels <= TARGET_LABELS, f"{where}: target labels only")
                continue
            check(name in SCRAPE, f"{where} is in the real scrape")
            own = labels - (TARGET_LABELS - {"namespace"})
            sets = SCRAPE.get(name, set())
            check(own in sets or (own - {"namespace"}) in sets,
                  f"{where}: labels {sorted(own)} are those of the real scrape {sorted(map(sorted, sets))}")

# The dashboard: every panel has a query; every query's names are real and it parses.
with open(os.path.join(CHART, "monitoring", "dashboard.json")) as f:
    dash = json.load(f)
record = []
for panel in dash["panels"]:
    if panel["type"] == "row":
        continue
    targets = panel.get("targets", [])
    check(targets and all(t.get("expr") for t in targets), f"panel {panel['title']!r}: every target has an expr")
    for t in targets:
        expr = t.get("expr", "")
        for var, value in GRAFANA_VARS.items():
            expr = expr.replace(var, value)
        check_expr(f"panel {panel['title']!r} {t['refId']}", expr)
        record.append(expr)
        for label in re.findall(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}", t.get("legendFormat", "")):
            check(label in SCRAPE_LABELS | TARGET_LABELS, f"panel {panel['title']!r} legend label {label} exists")
for var in dash["templating"]["list"]:
    if var["type"] != "query":
        continue
    m = re.fullmatch(r"label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)", var["query"]["query"])
    check(m is not None, f"variable {var['name']}: a label_values query")
    if m:
        check_expr(f"variable {var['name']}", m.group(1))
        check(m.group(2) in SCRAPE_LABELS | TARGET_LABELS, f"variable {var['name']}: label {m.group(2)} exists")
with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query{i}", "expr": e} for i, e in enumerate(record)]}]}, f)
    f.flush()
    p = subprocess.run([PROMTOOL, "check", "rules", f.name], capture_output=True, text=True)
    check(p.returncode == 0, f"every dashboard query parses ({len(record)}): {(p.stdout + p.stderr).strip()}")
finish()
