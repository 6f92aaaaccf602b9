#!/usr/bin/env bash
# The main job: builds everything, starts the local control plane with fake storage and GPU nodes,
# installs the CRDs and the seed samples, and shows what the node agent says about two GPU nodes
# from the field report (fixture trees). Leaves the cluster running; stop it with
# scripts/cluster.sh down.
#
# Not yet here: the operator (controllers, agent hub) that turns the samples' status Ready; until
# it lands, the pools and profiles are accepted by the API server and show empty status columns.
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

step "node agent on an RTX A6000 node asked for 224Mi transfers (fixture from the field report)"
fx=tests/fixtures/nodes/gpu-client-rtxa6000-224mi-bar1-too-small
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 224Mi --output table || true

step "the same node at 192Mi"
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 192Mi --output table | sed -n '/VERDICTS/,$p' || true

echo
echo "kubeconfig: $(scripts/cluster.sh kubeconfig)   stop: scripts/cluster.sh down"
