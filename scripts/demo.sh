#!/usr/bin/env bash
# The main job: builds everything, starts the local control plane with fake storage and GPU nodes
# and shows them. Leaves the cluster running; stop it with scripts/cluster.sh down.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "==> build"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)"

echo "==> local control plane"
scripts/cluster.sh up --nodes "${RDMASTACK_DEMO_NODES:-4}"

echo "==> nodes"
scripts/cluster.sh kubectl get nodes -o wide
echo
echo "kubeconfig: $(scripts/cluster.sh kubeconfig)   stop: scripts/cluster.sh down"
