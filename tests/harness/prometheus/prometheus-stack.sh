#!/usr/bin/env bash
# A real Prometheus for a harness cluster, configured by the real Prometheus Operator from the
# ServiceMonitors and PrometheusRules in the cluster. Runs in the foreground until SIGTERM/SIGINT.
#
#   prometheus-stack.sh --state DIR --port PORT [--interval 5s]
#
# What it does:
# 1. Applies the Prometheus Operator's CRDs and upstream's RBAC for the operator and for Prometheus
#    (namespace rdmastack-monitoring) into the cluster.
# 2. Runs the operator (prometheus-operator) as a host process under its own ServiceAccount, with
#    --watch-referenced-objects-in-all-namespaces: a ServiceMonitor's token Secret lives in the
#    monitor's namespace and is filled in by the token controller after the monitor exists; the
#    operator must see that change to put the token into the config.
# 3. Creates a `Prometheus` object that selects every ServiceMonitor and PrometheusRule, with
#    spec.apiserverConfig naming the API server at its host address, a token of the prometheus
#    ServiceAccount and the cluster's CA (files on this host): the operator's own way to configure
#    a Prometheus that runs outside the cluster. replicas is 0: its StatefulSet would only land on kwok nodes and run
#    nothing, and the operator generates the config either way.
# 4. Turns the Secret and ConfigMaps the operator generates into files (host_config.py: their mount
#    paths become paths under DIR) and runs Prometheus on them at 127.0.0.1:PORT, reloading it
#    (POST /-/reload) whenever the operator regenerates them, as the config-reloader sidecar does
#    (which also expands $(SHARD) and $(POD_NAME): here shard 0's first pod).
# Prometheus reaches the operator's pods at their simulated nodes' addresses, which is what the
# EndpointSlices name.
#
# Needs the variables `scripts/cluster.sh env` exports (RDMASTACK_KUBECONFIG, RDMASTACK_KUBECTL,
# RDMASTACK_PROMETHEUS, RDMASTACK_PROMETHEUS_OPERATOR, RDMASTACK_PROMETHEUS_OPERATOR_DIR).
# Prints "prometheus-stack: ready at http://127.0.0.1:PORT" once Prometheus answers /-/ready.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NS=rdmastack-monitoring
NAME=rdmastack
STATE="" PORT="" INTERVAL=5s
usage="usage: prometheus-stack.sh --state DIR --port PORT [--interval DURATION]"
while (($#)); do
  case "$1" in
    --state) STATE="${2:?$usage}"; shift 2 ;;
    --port) PORT="${2:?$usage}"; shift 2 ;;
    --interval) INTERVAL="${2:?$usage}"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ -n "$STATE" && -n "$PORT" ]] || { echo "$usage" >&2; exit 2; }

log() { echo "prometheus-stack: $*" >&2; }
die() { log "error: $*"; exit 1; }
for v in RDMASTACK_KUBECONFIG RDMASTACK_KUBECTL RDMASTACK_PROMETHEUS RDMASTACK_PROMETHEUS_OPERATOR \
  RDMASTACK_PROMETHEUS_OPERATOR_DIR; do
  [[ -n "${!v:-}" ]] || die "$v is not set; run eval \"\$(scripts/cluster.sh env)\" first"
done
for f in "$RDMASTACK_PROMETHEUS" "$RDMASTACK_PROMETHEUS_OPERATOR"; do
  [[ -x "$f" ]] || die "$f is not built; run scripts/cluster.sh up (it builds the Go parts) or scripts/test.sh"
done
kubectl() { "$RDMASTACK_KUBECTL" --kubeconfig "$RDMASTACK_KUBECONFIG" "$@"; }

mkdir -p "$STATE/config" "$STATE/data"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 0' TERM INT

# 1. CRDs (server-side: the Prometheus CRD is over the client-side apply annotation's size limit)
# and RBAC, upstream's files with their namespace (default) replaced.
dir="$RDMASTACK_PROMETHEUS_OPERATOR_DIR"
kubectl apply --server-side --force-conflicts -f "$dir/crds" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
for f in "$dir"/rbac/*.yaml; do
  sed "s/namespace: default/namespace: $NS/" "$f" | kubectl apply -n "$NS" -f - >/dev/null
done

# A token of a ServiceAccount, long enough for a session by hand.
token() { kubectl create token "$1" -n "$NS" --duration=24h; }
server="$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')"
kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' |
  base64 -d >"$STATE/ca.crt"

# 2. The operator, as its ServiceAccount (upstream's ClusterRole).
cat >"$STATE/operator.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "$server", certificate-authority: "$STATE/ca.crt"}}]
users: [{name: prometheus-operator, user: {token: "$(token prometheus-operator)"}}]
contexts: [{name: c, context: {cluster: c, user: prometheus-operator}}]
current-context: c
EOF
chmod 600 "$STATE/operator.kubeconfig"
KUBECONFIG="$STATE/operator.kubeconfig" "$RDMASTACK_PROMETHEUS_OPERATOR" \
  --web.listen-address="127.0.0.1:$((PORT + 1))" --prometheus-instance-namespaces="$NS" \
  --watch-referenced-objects-in-all-namespaces \
  >"$STATE/operator.log" 2>&1 &
pids+=($!)
log "prometheus-operator $("$RDMASTACK_PROMETHEUS_OPERATOR" --version 2>&1 | head -1 | awk '{print $3}') running (log: $STATE/operator.log)"

# 3. The Prometheus object: every ServiceMonitor and PrometheusRule, the API server from the host.
# The API server's credentials as files on this host: the operator resolves a Secret named in
# apiserverConfig in each ServiceMonitor's namespace, so files are what works for every monitor.
(umask 077 && token prometheus >"$STATE/prometheus.token")
kubectl apply -f - >/dev/null <<EOF
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: $NAME, namespace: $NS}
spec:
  version: v$("$RDMASTACK_PROMETHEUS" --version 2>&1 | head -1 | awk '{print $3}')
  replicas: 0
  serviceAccountName: prometheus
  serviceMonitorSelector: {}
  serviceMonitorNamespaceSelector: {}
  ruleSelector: {}
  ruleNamespaceSelector: {}
  serviceDiscoveryRole: EndpointSlice
  scrapeInterval: $INTERVAL
  evaluationInterval: $INTERVAL
  apiserverConfig:
    host: $server
    authorization: {credentialsFile: "$STATE/prometheus.token"}
    tlsConfig: {caFile: "$STATE/ca.crt"}
EOF

# 4. The generated files, and Prometheus on them.
generated() {
  kubectl get -n "$NS" -o json secret,configmap -l "managed-by=prometheus-operator" 2>/dev/null
}
sync_config() { generated | python3 "$HERE/host_config.py" "$STATE/config"; }
digest=""
for _ in $(seq 120); do
  digest="$(sync_config 2>/dev/null)" && break
  sleep 1
done
[[ -n "$digest" ]] || die "the operator generated no config in 120 s; see $STATE/operator.log and: kubectl get prometheus -n $NS -o yaml"
"$RDMASTACK_PROMETHEUS" --config.file="$STATE/config/prometheus.yaml" \
  --storage.tsdb.path="$STATE/data" --web.listen-address="127.0.0.1:$PORT" --web.enable-lifecycle \
  >"$STATE/prometheus.log" 2>&1 &
pids+=($!)
prom_pid=$!
url="http://127.0.0.1:$PORT"
for _ in $(seq 60); do
  curl -sf "$url/-/ready" >/dev/null && break
  kill -0 "$prom_pid" 2>/dev/null || die "prometheus exited; see $STATE/prometheus.log"
  sleep 1
done
curl -sf "$url/-/ready" >/dev/null || die "prometheus not ready in 60 s; see $STATE/prometheus.log"
log "ready at $url (config: $STATE/config/prometheus.yaml, log: $STATE/prometheus.log)"

while sleep 2; do
  kill -0 "$prom_pid" 2>/dev/null || die "prometheus exited; see $STATE/prometheus.log"
  kill -0 "${pids[0]}" 2>/dev/null || die "prometheus-operator exited; see $STATE/operator.log"
  now="$(sync_config 2>/dev/null)" || continue
  if [[ "$now" != "$digest" ]]; then
    digest="$now"
    curl -sf -X POST "$url/-/reload" >/dev/null && log "reloaded: the operator regenerated the config" ||
      log "reload refused; see $STATE/prometheus.log"
  fi
done
