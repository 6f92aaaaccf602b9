"""The chart's alert rules through promtool: `check rules` on the rule file the chart renders
(defaults, and the short `for` an e2e run uses), then `test rules` with alerts_test.yaml. Every
alert must have a test that sees it fire and one that sees it silent, and its runbook_url anchor
must exist in docs/operations.md."""
import os
import re
import shutil
import subprocess
import tempfile

import yaml

from common import PROMTOOL, SRC, alerts, check, finish, rendered_rules

HERE = os.path.dirname(os.path.abspath(__file__))
# What an e2e run sets so that alerts fire within a minute or two (docs/operations.md).
SHORT = ["metrics.prometheusRule.for.%s=%s" % kv for kv in {
    "poolNotReady": "30s", "profileNotReady": "30s", "upgradeHalted": "0s", "upgradeNodeFailed": "0s",
    "failingNodes": "30s", "agentNotReporting": "30s", "clientsNotReady": "30s", "webhookErrors": "0s",
    "webhookRefusals": "0s", "noLeader": "30s", "operatorDown": "30s", "reconcileErrors": "0s",
    "certificateExpiry": "0s", "rdmaLinkErrors": "0s", "rdmaOutOfBuffer": "0s",
    "rdmaRetransmits": "0s"}.items()] + ["metrics.prometheusRule.rateWindow=1m",
                                          "metrics.prometheusRule.rdma.window=5m"]


def promtool(*args, cwd=None):
    p = subprocess.run([PROMTOOL, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory() as tmp:
    for name, sets in (("defaults", []), ("short for (e2e)", SHORT)):
        spec = rendered_rules(*sets)
        path = os.path.join(tmp, "rules.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False, width=1000)
        rc, out = promtool("check", "rules", path)
        check(rc == 0, f"promtool check rules ({name}): {out.strip()}")
    # rules.yaml is now the short-for file: the unit tests run against the defaults.
    spec = rendered_rules()
    with open(os.path.join(tmp, "rules.yaml"), "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False, width=1000)
    shutil.copy(os.path.join(HERE, "alerts_test.yaml"), tmp)
    rc, out = promtool("test", "rules", "alerts_test.yaml", cwd=tmp)
    print(out)
    check(rc == 0, "promtool test rules alerts_test.yaml")

with open(os.path.join(HERE, "alerts_test.yaml")) as f:
    tests = yaml.safe_load(f)["tests"]
fired, silent = set(), set()
for t in tests:
    for a in t.get("alert_rule_test", []):
        (fired if a.get("exp_alerts") else silent).add(a["alertname"])
with open(os.path.join(SRC, "docs", "operations.md")) as f:
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', f.read()))
for rule in alerts(spec):
    name = rule["alert"]
    check(name in fired, f"{name}: a test sees it fire")
    check(name in silent, f"{name}: a test sees it silent (before `for`, after it clears, a near miss)")
    anchor = rule["annotations"]["runbook_url"].rsplit("#", 1)[1]
    check(anchor in anchors, f"{name}: runbook anchor #{anchor} exists in docs/operations.md")
    check(rule["labels"].get("severity") in ("critical", "warning", "info"), f"{name}: severity")
finish()
