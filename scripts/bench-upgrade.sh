#!/usr/bin/env bash
# The upgrade benchmark and its plot: 1,000 kwok nodes (RDMASTACK_GWP_BENCH_NODES), maxParallel
# 100 (RDMASTACK_GWP_BENCH_PARALLEL), on the running cluster (scripts/cluster.sh up; its env
# exported). Writes build/bench/upgrade-phases.csv and docs/img/bench-upgrade-phases.png.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/components.sh
venv="$RDMASTACK_CACHE/plot-venv"
[[ -x "$venv/bin/python" ]] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q matplotlib; }
mkdir -p build/bench
RDMASTACK_BENCH_OUT="$PWD/build/bench" build/tests/gatewaypool_bench \
  --gtest_filter='*SideBySideUpgradeAgainstTheFloor*'
"$venv/bin/python" tests/bench/gatewaypool/plot_upgrade.py build/bench/upgrade-phases.csv \
  docs/img/bench-upgrade-phases.png \
  "SideBySide upgrade, ${RDMASTACK_GWP_BENCH_NODES:-1000} kwok nodes, maxParallel ${RDMASTACK_GWP_BENCH_PARALLEL:-100}"
echo "plot: docs/img/bench-upgrade-phases.png"
