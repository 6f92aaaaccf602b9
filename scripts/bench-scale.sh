#!/usr/bin/env bash
# The scale benchmarks beside client-go and controller-runtime (issue 18; docs/bench-scale.md), each
# on a fresh private cluster (RDMASTACK_CLUSTER=scale, port offset 400, unless
# RDMASTACK_SCALE_CLUSTER/RDMASTACK_SCALE_PORT_OFFSET say otherwise) that it takes down after.
#
#   scripts/bench-scale.sh [informers|operator|tenants|all]     (default all)
#
# informers: our Node + Pod informers and client-go's, three forms each, at RDMASTACK_SCALE_NODES
#   (default 1000,5000,10000) kwok nodes with one Pod each (tests/bench/scale/bench_informers.py);
#   results in build-release/bench/scale/, plots in docs/img/bench-scale-{memory,sync}.png.
# operator: the real operator over RDMASTACK_SCALE_BENCH_NODES (default 5000) kwok nodes with 5
#   GatewayPools and 5 ClientProfiles, then RDMASTACK_SCALE_BENCH_IDLE_S (default 600) idle seconds
#   beside the controller-runtime peer (operator_scale_bench); output in
#   build-release/bench/scale/operator-scale.txt.
# tenants: the real operator with RDMASTACK_TENANT_BENCH_POOLS (default 200) GatewayPools in 10
#   namespaces over RDMASTACK_SCALE_BENCH_NODES kwok nodes: a pool's pass time with a tenth of the
#   pools and with all of them (issue 53); output in build-release/bench/scale/tenant-pools.txt.
#
# Builds what it needs: the release preset's targets, the Go peers (tests/bench/scale/gopeers,
# cached under ~/.cache/rdmastack) and a matplotlib venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/components.sh
what="${1:-all}"
case "$what" in informers|operator|tenants|all) ;; *) die "usage: scripts/bench-scale.sh [informers|operator|tenants|all]" ;; esac

# RDMASTACK_SCALE_CLUSTER / RDMASTACK_SCALE_PORT_OFFSET pick another private cluster (a second
# checkout benchmarking on the same machine).
export RDMASTACK_CLUSTER="${RDMASTACK_SCALE_CLUSTER:-scale}"
export RDMASTACK_PORT_OFFSET="${RDMASTACK_SCALE_PORT_OFFSET:-400}"
# Thousands of kwok nodes on two cores: leases renewed every 5 minutes instead of every 10 s, and a
# node-monitor grace period that tolerates it (and kwok being stopped during the informer runs).
export RDMASTACK_KWOK_NODE_LEASE_SECONDS=1200 RDMASTACK_NODE_MONITOR_GRACE_PERIOD=3600s
export RDMASTACK_AUDIT_LOG_MAXBACKUP=20
out="$PWD/build-release/bench/scale"
mkdir -p "$out"

cmake --preset release >/dev/null
# Only what the chosen part runs: the informer bench needs the peer alone.
targets=(informer-scale-peer)
[[ "$what" == informers ]] || targets+=(rdmastack-operator operator_scale_bench)
cmake --build build-release -j2 --target "${targets[@]}"
gobin="$(tests/bench/scale/gopeers/build.sh)"
venv="$RDMASTACK_CACHE/plot-venv"
[[ -x "$venv/bin/python" ]] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q matplotlib; }

fresh_cluster() {
  scripts/cluster.sh down >/dev/null 2>&1 || true
  scripts/cluster.sh up --nodes 0
  eval "$(scripts/cluster.sh env)"
}
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT

if [[ "$what" == informers || "$what" == all ]]; then
  fresh_cluster
  "$venv/bin/python" tests/bench/scale/bench_informers.py --ours build-release/bin/informer-scale-peer \
    --goinformer "$gobin/goinformer" --cluster-script scripts/cluster.sh --out "$out" \
    --nodes "${RDMASTACK_SCALE_NODES:-1000,5000,10000}"
  "$venv/bin/python" tests/bench/scale/plot_scale.py "$out/results.json" \
    docs/img/bench-scale-memory.png docs/img/bench-scale-sync.png
  echo "plots: docs/img/bench-scale-memory.png docs/img/bench-scale-sync.png"
fi
if [[ "$what" == operator || "$what" == all ]]; then
  fresh_cluster
  RDMASTACK_BENCH_OUT="$out" RDMASTACK_SCALE_BENCH_GOOPERATOR="$gobin/gooperator" \
    RDMASTACK_BINARY_DIR="$PWD/build-release" build-release/tests/operator_scale_bench \
    --gtest_filter='*FiveThousandNodes*' 2>&1 | tee "$out/operator-scale.txt"
fi
if [[ "$what" == tenants || "$what" == all ]]; then
  fresh_cluster
  RDMASTACK_BINARY_DIR="$PWD/build-release" build-release/tests/operator_scale_bench \
    --gtest_filter='*TwoHundredPools*' 2>&1 | tee "$out/tenant-pools.txt"
fi
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%FT%TZ)"
