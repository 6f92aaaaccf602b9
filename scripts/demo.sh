#!/usr/bin/env bash
# The main job: builds everything, starts the local control plane with fake storage and GPU nodes,
# installs the CRDs and the seed samples, and shows what the node agent says about two GPU nodes
# from the field report (fixture trees). Leaves the cluster running; stop it with
# scripts/cluster.sh down.
#
# Not yet here: the controllers and agent hub that turn the samples' status Ready; until they land,
# the pools and profiles are accepted by the API server and show empty status columns. The
# operator executable runs two replicas to show leader election and a clean hand-over.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/components.sh
source scripts/lib/components.sh
step() { printf '\n==> %s\n' "$*"; }

step "build"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)"

step "local control plane"
scripts/cluster.sh up --nodes "${RDMASTACK_DEMO_NODES:-4}"
kubectl() { scripts/cluster.sh kubectl "$@"; }

step "nodes"
kubectl get nodes -o wide

step "CRDs and the seed samples (pool kvcache on the storage nodes, two client profiles)"
kubectl apply --server-side --force-conflicts -f crds/ >/dev/null
kubectl wait --for=condition=Established crd/gatewaypools.rdmastack.io crd/clientprofiles.rdmastack.io \
  crd/rdmanodes.rdmastack.io --timeout=60s >/dev/null
kubectl get namespace demo >/dev/null 2>&1 || kubectl create namespace demo >/dev/null
kubectl apply -n demo -f crds/samples/gatewaypool-kvcache.yaml -f crds/samples/clientprofile-gpudirect.yaml \
  -f crds/samples/clientprofile-hostmem.yaml
kubectl get gwp,cprof -n demo
echo "(status columns stay empty until the operator lands)"
echo
echo "A bad change is refused at apply time, with the field and the reason (library 1.2.0.68 -> 3.0.0.1):"
sed 's/version: 1.2.0.68/version: 3.0.0.1/' crds/samples/gatewaypool-kvcache.yaml |
  kubectl apply -n demo --dry-run=server -f - 2>&1 | grep -v '^secret/' || true

step "operator: two replicas with leader election (no controllers yet: they elect, serve probes, and stop cleanly)"
kubectl get namespace rdmastack-system >/dev/null 2>&1 || kubectl create namespace rdmastack-system >/dev/null
logs="$(mktemp -d)"
op_args=(--kubeconfig "$(scripts/cluster.sh kubeconfig)" --leader-elect --metrics-bind-address=0)
build/bin/rdmastack-operator "${op_args[@]}" --health-probe-bind-address=127.0.0.1:18081 >"$logs/a.log" 2>&1 &
op_a=$!
build/bin/rdmastack-operator "${op_args[@]}" --health-probe-bind-address=127.0.0.1:18082 >"$logs/b.log" 2>&1 &
op_b=$!
trap 'kill $op_a $op_b 2>/dev/null || true' EXIT
holder() { kubectl get lease -n rdmastack-system rdmastack-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
for _ in $(seq 1 60); do [[ -n "$(holder)" ]] && break; sleep 0.5; done
echo "lease rdmastack-system/rdmastack-operator is held by: $(holder)"
echo "readyz: a=$(curl -s http://127.0.0.1:18081/readyz) b=$(curl -s http://127.0.0.1:18082/readyz)"
kubectl get events -n rdmastack-system --field-selector reason=LeaderElection -o custom-columns=REASON:.reason,MESSAGE:.message
leader=$op_a standby_log="$logs/b.log"
grep -q "$(holder)" "$logs/b.log" && { leader=$op_b; standby_log="$logs/a.log"; }
echo "SIGTERM to the leader: it releases the lease and the standby takes it at its next retry"
kill -TERM "$leader"; wait "$leader" || true
old="$(holder)"
for _ in $(seq 1 40); do [[ -n "$(holder)" && "$(holder)" != "$old" ]] && break; sleep 0.25; done
echo "lease now held by: $(holder)"
grep -E "acquired lease" "$standby_log" | tail -1
kill -TERM $op_a $op_b 2>/dev/null || true
wait 2>/dev/null || true
trap - EXIT

step "node agent on an RTX A6000 node asked for 224Mi transfers (fixture from the field report)"
fx=tests/fixtures/nodes/gpu-client-rtxa6000-224mi-bar1-too-small
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 224Mi --output table || true

step "the same node at 192Mi"
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 192Mi --output table | sed -n '/VERDICTS/,$p' || true

echo
echo "kubeconfig: $(scripts/cluster.sh kubeconfig)   stop: scripts/cluster.sh down"
