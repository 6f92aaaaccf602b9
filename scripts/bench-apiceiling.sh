#!/usr/bin/env bash
# What the API server alone sustains for the writes behind N agents' first reports (issue 33,
# docs/agenthub.md "The API server's ceiling for these writes"): the operator's three writes per
# node (RdmaNode apply, its status, one Node label patch; same bodies, same field manager) from a
# trivial client-go client (tests/bench/agenthub/apiceiling, built from the Go module proxy and
# cached under ~/.cache/rdmastack) as system:masters with its rate limiter off, at several
# concurrencies, on a fresh private cluster (RDMASTACK_CLUSTER=apiceiling, port offset 450, unless
# RDMASTACK_APICEILING_CLUSTER/RDMASTACK_APICEILING_PORT_OFFSET say otherwise) that it takes down
# after.
#
#   scripts/bench-apiceiling.sh
#
# RDMASTACK_APICEILING_NODES (default "1000 5000"), RDMASTACK_APICEILING_WORKERS (default
# "4 16 64") and RDMASTACK_APICEILING_REPEAT (default 2) pick the runs: every node count with every
# worker count, that many times. Each run creates its own Nodes (untimed), waits until no other
# client has written a Node or RdmaNode for 10 s, writes, prints its figures, and deletes its Nodes and RdmaNodes.
# `top` samples every 5 s go to build/bench/apiceiling/top-<n>-<w>-<i>.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/components.sh

export RDMASTACK_CLUSTER="${RDMASTACK_APICEILING_CLUSTER:-apiceiling}"
export RDMASTACK_PORT_OFFSET="${RDMASTACK_APICEILING_PORT_OFFSET:-450}"
# 5,000 nodes' runs log about 20 MB of audit events each; the tool reads the rotated files too.
export RDMASTACK_AUDIT_LOG_MAXBACKUP=10
nodes_list="${RDMASTACK_APICEILING_NODES:-1000 5000}"
workers_list="${RDMASTACK_APICEILING_WORKERS:-4 16 64}"
repeat="${RDMASTACK_APICEILING_REPEAT:-2}"
for v in $nodes_list $workers_list $repeat; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "RDMASTACK_APICEILING_NODES/_WORKERS/_REPEAT take positive integers, got '$v'"
done
out="$PWD/build/bench/apiceiling"
mkdir -p "$out"

tool="$(tests/bench/agenthub/apiceiling/build.sh)"
[[ -x build/bin/rdmastack-node-runtime ]] ||
  die "build/bin/rdmastack-node-runtime not found: the cluster harness needs the dev build (cmake --preset dev && cmake --build --preset dev)"
scripts/cluster.sh down >/dev/null 2>&1 || true
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
scripts/cluster.sh up --nodes 0
eval "$(scripts/cluster.sh env)"
scripts/cluster.sh kubectl apply -f crds/rdmanodes.yaml >/dev/null
scripts/cluster.sh kubectl wait --for=condition=Established crd/rdmanodes.rdmastack.io --timeout=60s >/dev/null
# kube-controller-manager's node lifecycle controller works through thousands of new kubelet-less
# Nodes (conditions, taints) for minutes on these cores, writing the same Nodes: stopped, the API
# server and etcd serve the measured writes alone. The tool deletes its RdmaNodes itself.
scripts/cluster.sh stop kube-controller-manager
run_dir="$RDMASTACK_CACHE/clusters/$RDMASTACK_CLUSTER/run"
pids=""
for c in kube-apiserver etcd; do
  pids+="${pids:+,}$c=$(cat "$run_dir/$c.pid")"
done

echo "commit $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
for n in $nodes_list; do
  for w in $workers_list; do
    for ((i = 1; i <= repeat; i++)); do
      top_log="$out/top-$n-$w-$i.txt"
      (while :; do top -b -d 1 -n 2 -w 160 | awk '/^top -/ { n++ } n == 2' | head -16; sleep 4; done) >"$top_log" 2>&1 &
      sampler=$!
      echo "== $n nodes, $w workers, run $i (top: $top_log)"
      status=0
      "$tool" -kubeconfig "$RDMASTACK_KUBECONFIG" -audit-log "$RDMASTACK_AUDIT_LOG" -nodes "$n" \
        -workers "$w" -pids "$pids" -min-wait 0s || status=$?
      kill "$sampler" 2>/dev/null || true
      wait "$sampler" 2>/dev/null || true
      ((status == 0)) || die "apiceiling failed ($status) at $n nodes, $w workers"
    done
  done
done
