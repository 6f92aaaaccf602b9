#!/usr/bin/env bash
# Runs one monitoring test (a Python script here) with helm and promtool found: RDMASTACK_HELM and
# RDMASTACK_PROMTOOL when set (scripts/cluster.sh env), else the harness' builds under
# ~/.cache/rdmastack that scripts/test.sh makes before the unit tests.
#   run.sh SOURCE_DIR TEST.py
set -euo pipefail
src="${1:?usage: run.sh SOURCE_DIR TEST.py}"
# shellcheck source=../../scripts/lib/components.sh
source "$src/scripts/lib/components.sh"
export RDMASTACK_HELM="${RDMASTACK_HELM:-$(helm_bin)}"
export RDMASTACK_PROMTOOL="${RDMASTACK_PROMTOOL:-$(promtool_bin)}"
export RDMASTACK_SOURCE_DIR="$src"
for tool in "$RDMASTACK_HELM" "$RDMASTACK_PROMTOOL"; do
  [[ -x $tool ]] || die "$tool is missing: scripts/test.sh (or scripts/cluster.sh up) builds it; or set RDMASTACK_HELM / RDMASTACK_PROMTOOL"
done
# -B: no __pycache__ in the source tree.
exec python3 -B "$src/tests/monitoring/$2"
