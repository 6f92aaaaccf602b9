#!/usr/bin/env bash
# Runs every test: builds (dev preset), unit tests, then brings up a private local control plane
# (cluster "test", ports shifted so a running dev cluster is untouched), runs the integration and
# e2e tests against it, and always tears it down. Then the unit tests again under ASan+UBSan, the
# unit tests of concurrent code (tests marked TSAN: operator/runtime, base) under
# ThreadSanitizer and, with clang available, the bounded fuzz runs. Benchmarks (label bench) are
# never part of this run.
#
#   scripts/test.sh [--skip-asan] [--skip-tsan] [--skip-fuzz] [--keep-cluster] [-R REGEX]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/components.sh
source scripts/lib/components.sh

SKIP_ASAN=0 SKIP_TSAN=0 SKIP_FUZZ=0 KEEP=0 FILTER=()
while (($#)); do
  case "$1" in
    --skip-asan) SKIP_ASAN=1 ;;
    --skip-tsan) SKIP_TSAN=1 ;;
    --skip-fuzz) SKIP_FUZZ=1 ;;
    --keep-cluster) KEEP=1 ;;
    -R) FILTER=(-R "$2"); shift ;;
    *) die "unknown flag $1 (usage: scripts/test.sh [--skip-asan] [--skip-tsan] [--skip-fuzz] [--keep-cluster] [-R REGEX])" ;;
  esac
  shift
done

JOBS="${RDMASTACK_JOBS:-$(nproc)}"
t_start=$SECONDS
# Each step says when it started, so a CI log shows where the time went.
step() { printf '\n==> %s (at %ds)\n' "$*" "$((SECONDS - t_start))"; }

# Background work runs in its own process group (set -m), so that a failing run stops it too.
BACKGROUND=()
background() { # LOG CMD...: run CMD in the background, output to LOG; prints nothing
  local log="$1"; shift
  set -m
  ("$@") >"$log" 2>&1 &
  set +m
  BACKGROUND+=("$!")
  LAST_BACKGROUND=$!
}
# wait_background PID LOG WHAT: wait for it; on failure show the end of its log and stop.
wait_background() {
  local pid="$1" log="$2" what="$3"
  if ! wait "$pid"; then
    tail -n 60 "$log" >&2
    die "$what failed (the end of its log above; all of it in $log)"
  fi
}
stop_background() {
  local pid
  for pid in "${BACKGROUND[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}

# The Go and npm parts build beside the C++ build: on a cold machine their module downloads and
# the compiler share the wait. Cached parts return at once.
mkdir -p "$RDMASTACK_CACHE"
components_log="$RDMASTACK_CACHE/components-$$.log"
step "real parts in the background: control plane, versitygw, promtool, Prometheus and its operator (cached under $RDMASTACK_CACHE; log: $components_log)"
background "$components_log" build_all_components
components_pid=$LAST_BACKGROUND
trap stop_background EXIT

step "build (dev preset)"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$JOBS"

# The sanitizer builds (asan, tsan, fuzz) then run in the background at the lowest CPU and I/O
# priority, through the unit, image, integration and e2e steps: those spend most of their time
# waiting on the cluster, and the builds take only the cycles they leave. On a cold 2-core machine
# this is what keeps CI within its time (docs/development.md, "CI").
sanitizer_builds() {
  renice -n 19 -p "$BASHPID" >/dev/null
  ionice -c 3 -p "$BASHPID" 2>/dev/null || true
  if ((!SKIP_ASAN)); then
    echo "== asan build"; cmake --preset asan >/dev/null && cmake --build --preset asan -j "$JOBS" || return 1
  fi
  if ((!SKIP_TSAN)); then
    echo "== tsan build"; cmake --preset tsan >/dev/null && cmake --build --preset tsan -j "$JOBS" || return 1
  fi
  if ((!SKIP_FUZZ)) && command -v clang++-14 >/dev/null; then
    echo "== fuzz build"; cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j "$JOBS" --target fuzzers || return 1
    # The fuzz runs are bounded by time, not by work, so they need no step of their own: at this
    # priority they take what the cluster tests leave.
    echo "== fuzz runs"; ctest --test-dir build-fuzz -L fuzz --output-on-failure --no-tests=ignore || return 1
  fi
  echo "== sanitizer builds done"
}
sanitizers_log="$ROOT/build/sanitizer-builds.log"
step "sanitizer builds and the fuzz runs in the background, lowest priority (asan, tsan, fuzz presets; log: $sanitizers_log)"
background "$sanitizers_log" sanitizer_builds
sanitizers_pid=$LAST_BACKGROUND

step "real parts: waiting for the background build"
wait_background "$components_pid" "$components_log" "building a real part"
cat "$components_log"; rm -f "$components_log"

step "unit tests"
ctest --preset unit -j "$JOBS" "${FILTER[@]}"

step "container images (scripts/images.sh; Debian bases cached under $RDMASTACK_CACHE/images)"
scripts/images.sh
RDMASTACK_REQUIRE_IMAGES=1 ctest --test-dir build -L images --output-on-failure "${FILTER[@]}"

export RDMASTACK_CLUSTER="${RDMASTACK_TEST_CLUSTER:-test}"
export RDMASTACK_PORT_OFFSET="${RDMASTACK_TEST_PORT_OFFSET:-50}"
# ConfigMap volumes refreshed every 5 s, not 30: the client e2e tests follow a pool upgrade through
# the endpoints ConfigMap with a short drain.
export RDMASTACK_SIM_VOLUME_RESYNC="${RDMASTACK_SIM_VOLUME_RESYNC:-5s}"
teardown() {
  local rc=$?
  stop_background
  if ((KEEP)); then
    echo "keeping cluster '$RDMASTACK_CLUSTER' up (scripts/cluster.sh down with RDMASTACK_CLUSTER=$RDMASTACK_CLUSTER RDMASTACK_PORT_OFFSET=$RDMASTACK_PORT_OFFSET)"
  else
    scripts/cluster.sh down || true
  fi
  exit "$rc"
}
trap teardown EXIT
step "control plane up (cluster '$RDMASTACK_CLUSTER')"
scripts/cluster.sh down >/dev/null 2>&1 || true
# Fourteen simulated nodes, six fixtures (the e2e tests check each verdict): eight IPoIB bond0
# storage nodes serve the seed pool (the upgrade e2e test moves eight), a RoCE one lacks bond0,
# one has its port down.
scripts/cluster.sh up --storage-nodes 10 --gpu-nodes 4 \
  --node-fixture stg-node-1=storage-cx6-ib-ipoib-bond0-el8-inbox \
  --node-fixture stg-node-3=storage-cx6-ib-ipoib-bond0-el8-inbox \
  --node-fixture stg-node-4=gateway-roce-v2-gid3-doca \
  --node-fixture stg-node-5=storage-cx6-ib-port-down \
  --node-fixture stg-node-7=storage-cx6-ib-ipoib-bond0-el8-inbox \
  --node-fixture stg-node-9=storage-cx6-ib-ipoib-bond0-el8-inbox
eval "$(scripts/cluster.sh env)"
export RDMASTACK_REQUIRE_CLUSTER=1 RDMASTACK_REQUIRE_VERSITYGW=1

step "helm lint charts/rdmastack"
"$RDMASTACK_HELM" lint --strict charts/rdmastack
"$RDMASTACK_HELM" template rdmastack charts/rdmastack -n rdmastack-system >/dev/null
# The optional NetworkPolicy, with a peer list, as the real API server validates it (no CNI here
# enforces it: this proves the object, not the filtering).
"$RDMASTACK_HELM" template rdmastack charts/rdmastack -n default \
  --show-only templates/operator-networkpolicy.yaml --set networkPolicy.enabled=true \
  --set 'networkPolicy.agentHubFrom[0].ipBlock.cidr=198.18.0.0/15' \
  --set 'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring' |
  "$RDMASTACK_KUBECTL" --kubeconfig "$RDMASTACK_KUBECONFIG" create --dry-run=server -f -

# A step that finds no test fails: an empty e2e step is a broken build, not a pass. With -R the
# filter may rightly leave a step empty.
NO_TESTS=--no-tests=error
((${#FILTER[@]})) && NO_TESTS=--no-tests=ignore

step "integration tests"
ctest --test-dir build -L integration --output-on-failure "$NO_TESTS" "${FILTER[@]}"
step "e2e tests"
ctest --test-dir build -L e2e --output-on-failure "$NO_TESTS" "${FILTER[@]}"

# The cluster is no longer needed: its CPU goes to the sanitizer builds' last stretch.
if ((!KEEP)); then
  step "control plane down (cluster '$RDMASTACK_CLUSTER')"
  scripts/cluster.sh down || true
fi

step "sanitizer builds: waiting for the background build"
wait_background "$sanitizers_pid" "$sanitizers_log" "a sanitizer build"
grep '^== ' "$sanitizers_log"

if ((!SKIP_ASAN)); then
  step "unit tests under ASan+UBSan (asan preset)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan-unit -j "$JOBS" "${FILTER[@]}"
fi

if ((!SKIP_TSAN)); then
  step "runtime unit tests under ThreadSanitizer (tsan preset: builds only the tests marked TSAN)"
  ctest --preset tsan -j "$JOBS" "${FILTER[@]}"
fi

if ((!SKIP_FUZZ)) && command -v clang++-14 >/dev/null; then
  step "bounded fuzz runs (fuzz preset, clang-14 libFuzzer; ran in the background job)"
  sed -n '/^== fuzz runs/,/^== sanitizer builds done/p' "$sanitizers_log" | grep -E 'Test +#|tests passed'
fi

step "all tests passed in $((SECONDS - t_start))s"
