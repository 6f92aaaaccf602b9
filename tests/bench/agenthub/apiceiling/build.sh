#!/usr/bin/env bash
# Builds apiceiling (main.go here: the operator's API writes for N agents' first reports from a
# trivial client-go client) from the Go module proxy and prints its path. Cached under
# ~/.cache/rdmastack/agenthub-apiceiling-<hash of its inputs>/, so a second call builds nothing.
# Only scripts/bench-apiceiling.sh uses it; CI never builds it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# shellcheck source=../../../../scripts/lib/components.sh
source "$ROOT/scripts/lib/components.sh"
# client-go as the agent hub's Go peer (../gohub/build.sh).
CLIENT_GO=v0.36.6
hash="$(cat "$HERE/main.go" "$HERE/build.sh" | sha256sum | cut -c1-12)"
d="$(component_dir agenthub-apiceiling "$hash")"
if ! is_built agenthub-apiceiling "$hash"; then
  require_go
  rm -rf "$d" && mkdir -p "$d/src" "$d/bin"
  log="$d/build.log"
  cp "$HERE/main.go" "$d/src/"
  printf 'module example.invalid/apiceiling\n\ngo 1.26.0\n' >"$d/src/go.mod"
  (cd "$d/src" &&
    run_step "go get" "$log" go_env go get "k8s.io/client-go@$CLIENT_GO" "k8s.io/api@$CLIENT_GO" \
      "k8s.io/apimachinery@$CLIENT_GO" &&
    run_step "go mod tidy" "$log" go_env go mod tidy &&
    run_step "go build" "$log" go_env go build -trimpath -ldflags "-s -w" -o "$d/bin/apiceiling" .) || exit 1
  mark_built agenthub-apiceiling "$hash"
fi
echo "$d/bin/apiceiling"
