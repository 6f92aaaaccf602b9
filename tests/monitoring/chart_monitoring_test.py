"""helm template of the chart's monitoring values (metrics.serviceMonitor, podMonitor, scrape,
prometheusRule, dashboard): off by default, each object as it should be when on, refusals with a
clear message."""
import json
import os

from common import CHART, NAMESPACE, check, find, finish, helm_template

NEW_KINDS = {"ServiceMonitor", "PodMonitor", "PrometheusRule"}
SCRAPER = "rdmastack-metrics-scraper"


def selects(selector, labels):
    return all(labels.get(k) == v for k, v in selector["matchLabels"].items())


# Off by default: nothing of this renders.
rc, default, err = helm_template()
check(rc == 0, f"default render succeeds {err}")
check(not [o for o in default if o["kind"] in NEW_KINDS], "default: no monitor or rule objects")
check(not [o for o in default if o["metadata"]["name"].startswith(SCRAPER)], "default: no scraper identity")
check(not find(default, "ConfigMap", "rdmastack-dashboard"), "default: no dashboard ConfigMap")

# The ServiceMonitor, with the chart's scraper identity.
rc, objs, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.scrape.labels.release=kps")
check(rc == 0, f"serviceMonitor render succeeds {err}")
sm = find(objs, "ServiceMonitor")
check(len(sm) == 1, "one ServiceMonitor")
sm = sm[0] if sm else {"metadata": {"labels": {}}, "spec": {"endpoints": [{}], "selector": {"matchLabels": {"x": "y"}}}}
ep = sm["spec"]["endpoints"][0]
svc = find(objs, "Service", "rdmastack-operator-metrics")[0]
hub = find(objs, "Service", "rdmastack-agenthub")[0]
check(sm["metadata"].get("namespace") == NAMESPACE, "ServiceMonitor in the release namespace (where its Secret is read)")
check(sm["metadata"]["labels"].get("release") == "kps", "metrics.scrape.labels on the ServiceMonitor")
check(selects(sm["spec"]["selector"], svc["metadata"]["labels"]), "selects the metrics Service")
check(not selects(sm["spec"]["selector"], hub["metadata"]["labels"]), "does not select the agent hub Service")
check(sm["spec"].get("namespaceSelector") == {"matchNames": [NAMESPACE]}, "only the release namespace")
check(ep.get("port") == "https-metrics" and ep["port"] in [p["name"] for p in svc["spec"]["ports"]],
      "endpoint port https-metrics, a port of the Service")
check(ep.get("scheme") == "https" and ep.get("honorLabels") is True, "https, honorLabels")
check(ep.get("interval") == "30s" and ep.get("scrapeTimeout") == "10s", "interval 30s, scrapeTimeout 10s")
check(ep.get("tlsConfig") == {"insecureSkipVerify": True}, "insecureSkipVerify (the operator's own certificate)")
check(ep.get("authorization") == {"type": "Bearer", "credentials": {"name": SCRAPER + "-token", "key": "token"}},
      "authorization from the scraper's token Secret")
sa = find(objs, "ServiceAccount", SCRAPER)
check(len(sa) == 1 and sa[0]["metadata"]["namespace"] == NAMESPACE, "scraper ServiceAccount")
crb = find(objs, "ClusterRoleBinding", SCRAPER)
check(len(crb) == 1 and crb[0]["roleRef"]["name"] == "rdmastack-metrics-reader"
      and crb[0]["subjects"] == [{"kind": "ServiceAccount", "name": SCRAPER, "namespace": NAMESPACE}],
      "the scraper is bound to the metrics-reader ClusterRole")
reader = find(objs, "ClusterRole", "rdmastack-metrics-reader")
check(len(reader) == 1 and reader[0]["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
      "metrics-reader grants GET /metrics and nothing else")
tok = find(objs, "Secret", SCRAPER + "-token")
check(len(tok) == 1 and tok[0]["type"] == "kubernetes.io/service-account-token"
      and tok[0]["metadata"]["annotations"] == {"kubernetes.io/service-account.name": SCRAPER},
      "a service-account-token Secret for the scraper")

# The PodMonitor instead: the pods' metrics port, the job named as the ServiceMonitor names it.
rc, objs, err = helm_template("metrics.podMonitor.enabled=true")
check(rc == 0, f"podMonitor render succeeds {err}")
pm = find(objs, "PodMonitor")
check(len(pm) == 1 and not find(objs, "ServiceMonitor"), "one PodMonitor, no ServiceMonitor")
if pm:
    pep = pm[0]["spec"]["podMetricsEndpoints"][0]
    dep = find(objs, "Deployment", "rdmastack-operator")[0]
    ports = [p["name"] for c in dep["spec"]["template"]["spec"]["containers"] for p in c["ports"]]
    check(pep["port"] == "metrics" and "metrics" in ports, "PodMonitor port metrics, a port of the operator container")
    check(selects(pm[0]["spec"]["selector"], dep["spec"]["template"]["metadata"]["labels"]), "selects the operator pods")
    check({"action": "replace", "targetLabel": "job", "replacement": "rdmastack-operator-metrics"} in pep["relabelings"],
          "job relabelled to the Service's name")
    check(pep["authorization"]["credentials"]["name"] == SCRAPER + "-token" and pep["honorLabels"] is True,
          "same token and honorLabels")

# Refusals.
rc, _, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.podMonitor.enabled=true")
check(rc != 0 and "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled are both true" in err,
      f"both monitors refused with a message: {err.strip()[:200]}")
rc, _, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.enabled=false")
check(rc != 0 and "need metrics.enabled=true" in err, "a monitor without metrics refused")
rc, _, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.scrape.tls.ca.secret.name=ca",
                           "metrics.scrape.tls.ca.secret.key=ca.crt")
check(rc != 0 and "set metrics.scrape.tls.insecureSkipVerify=false" in err, "a CA with insecureSkipVerify refused")
rc, _, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.scrape.interval=5s")
check(rc != 0 and "scrapeTimeout (10s) is longer than metrics.scrape.interval (5s)" in err,
      f"a timeout longer than the interval refused: {err.strip()[:200]}")
rc, _, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.scrape.interval=1m",
                           "metrics.scrape.scrapeTimeout=1m")
check(rc == 0, f"a timeout equal to a 1m interval renders {err}")
rc, _, err = helm_template("metrics.prometheusRule.enabled=true", "metrics.prometheusRule.for.poolNotReady=ten")
check(rc != 0 and "poolNotReady" in err, "a `for` that is no duration refused by the schema")

# A user's token Secret and CA replace the chart's.
rc, objs, err = helm_template("metrics.serviceMonitor.enabled=true", "metrics.scrape.tokenSecret.name=my-token",
                              "metrics.scrape.tokenSecret.key=tok", "metrics.scrape.tls.insecureSkipVerify=false",
                              "metrics.scrape.tls.ca.configMap.name=metrics-ca",
                              "metrics.scrape.tls.ca.configMap.key=ca.crt",
                              "metrics.scrape.tls.serverName=rdmastack-operator-metrics.rdmastack-system.svc")
check(rc == 0, f"user secret render succeeds {err}")
ep = find(objs, "ServiceMonitor")[0]["spec"]["endpoints"][0] if rc == 0 else {}
check(ep.get("authorization", {}).get("credentials") == {"name": "my-token", "key": "tok"}, "the user's Secret and key")
check(not [o for o in objs if o["metadata"]["name"].startswith(SCRAPER)], "no scraper identity of the chart's")
check(ep.get("tlsConfig") == {"insecureSkipVerify": False, "ca": {"configMap": {"name": "metrics-ca", "key": "ca.crt"}},
                              "serverName": "rdmastack-operator-metrics.rdmastack-system.svc"}, "the user's CA and server name")

# The PrometheusRule: its `for`, thresholds and job from values.
rc, objs, err = helm_template("metrics.prometheusRule.enabled=true", "metrics.prometheusRule.labels.release=kps",
                              "metrics.prometheusRule.for.poolNotReady=30s", "metrics.prometheusRule.job=rdmastack",
                              "metrics.prometheusRule.rateWindow=2m")
check(rc == 0, f"prometheusRule render succeeds {err}")
pr = find(objs, "PrometheusRule")
check(len(pr) == 1 and pr[0]["metadata"]["labels"].get("release") == "kps", "one PrometheusRule with its labels")
rules = {r["alert"]: r for g in pr[0]["spec"]["groups"] for r in g["rules"]} if pr else {}
check(rules.get("RdmastackGatewayPoolNotReady", {}).get("for") == "30s", "for.poolNotReady reaches its alert")
check(rules.get("RdmastackOperatorDown", {}).get("expr") == 'absent(up{job="rdmastack"} == 1)', "job reaches OperatorDown")
check("[2m]" in rules.get("RdmastackReconcileErrors", {}).get("expr", ""), "rateWindow reaches the rate windows")
check(all(r["labels"]["severity"] in ("critical", "warning", "info") and r["annotations"]["runbook_url"].endswith(
    "#" + r["alert"].lower()) for r in rules.values()), "every alert has a severity and its runbook anchor")

# The dashboard ConfigMap.
rc, objs, err = helm_template("metrics.dashboard.enabled=true", "metrics.dashboard.label=dashboards",
                              "metrics.dashboard.labelValue=rdma", "metrics.dashboard.namespace=grafana",
                              "metrics.dashboard.annotations.grafana_folder=Storage")
check(rc == 0, f"dashboard render succeeds {err}")
cm = find(objs, "ConfigMap", "rdmastack-dashboard")
check(len(cm) == 1 and cm[0]["metadata"]["labels"].get("dashboards") == "rdma"
      and cm[0]["metadata"]["namespace"] == "grafana"
      and cm[0]["metadata"]["annotations"] == {"grafana_folder": "Storage"}, "dashboard label, namespace, annotations")
with open(os.path.join(CHART, "monitoring", "dashboard.json")) as f:
    check(cm and json.loads(cm[0]["data"]["rdmastack.json"]) == json.load(f), "the ConfigMap holds dashboard.json")
rc, objs, _ = helm_template("metrics.dashboard.enabled=true")
cm = find(objs, "ConfigMap", "rdmastack-dashboard")
check(cm and cm[0]["metadata"]["labels"].get("grafana_dashboard") == "1" and cm[0]["metadata"]["namespace"] == NAMESPACE,
      "default sidecar label grafana_dashboard=1, release namespace")

finish()
