"""What the monitoring tests share: rendering the chart with helm, the rule file, the real scrape."""
import os
import re
import subprocess
import sys

import yaml

SRC = os.environ.get("RDMASTACK_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CHART = os.path.join(SRC, "charts", "rdmastack")
HELM = os.environ.get("RDMASTACK_HELM", "helm")
PROMTOOL = os.environ.get("RDMASTACK_PROMTOOL", "promtool")
# Real scrapes of the operator's /metrics (fixtures/README.md says when each was taken).
SCRAPES = os.path.join(SRC, "tests", "monitoring", "fixtures")
RELEASE, NAMESPACE = "rdmastack", "rdmastack-system"
# The labels Prometheus Operator puts on every target of a ServiceMonitor or PodMonitor; series
# without a `namespace` of their own get the target's (honorLabels keeps the pools' and profiles').
TARGET_LABELS = {"job", "instance", "pod", "namespace", "service", "endpoint", "container"}

failures = []


def check(ok, what):
    """Records a failed expectation (the test goes on, and fails at the end)."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def finish():
    if failures:
        print(f"\n{len(failures)} failed:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("\nall passed")


def helm_template(*sets, values=None):
    """(returncode, objects, stderr) of `helm template` with --set NAME=VALUE for each of sets."""
    cmd = [HELM, "template", RELEASE, CHART, "-n", NAMESPACE]
    for s in sets:
        cmd += ["--set", s]
    if values is not None:
        cmd += ["-f", values]
    p = subprocess.run(cmd, capture_output=True, text=True)
    objs = [o for o in yaml.safe_load_all(p.stdout) if o] if p.returncode == 0 else []
    return p.returncode, objs, p.stderr


def find(objs, kind, name=None):
    return [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def rendered_rules(*sets):
    """The PrometheusRule's spec (a Prometheus rule file) as the chart renders it."""
    rc, objs, err = helm_template("metrics.prometheusRule.enabled=true", *sets)
    if rc != 0:
        sys.exit(f"helm template failed: {err}")
    rules = find(objs, "PrometheusRule")
    if len(rules) != 1:
        sys.exit(f"want one PrometheusRule, rendered {len(rules)}")
    return rules[0]["spec"]


def alerts(spec):
    return [r for g in spec["groups"] for r in g["rules"] if "alert" in r]


def scrape_series():
    """{metric name: set of frozensets of label names} of the real scrapes."""
    series = {}
    files = sorted(f for f in os.listdir(SCRAPES) if f.endswith(".txt"))
    if not files:
        sys.exit(f"no scrape (*.txt) in {SCRAPES}")
    for name in files:
        with open(os.path.join(SCRAPES, name)) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s", line)
                if not m:
                    sys.exit(f"{name}: cannot read line {line!r}")
                labels = frozenset(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or ""))
                series.setdefault(m.group(1), set()).add(labels)
    return series
