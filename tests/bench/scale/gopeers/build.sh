#!/usr/bin/env bash
# Builds the Go peers of the scale benchmark from the Go module proxy and prints the directory of
# their binaries: goinformer (client-go informers, informer/main.go) and gooperator (a minimal
# controller-runtime operator, operator/main.go). Cached under
# ~/.cache/rdmastack/scale-gopeers-<hash of the inputs>/, so a second call builds nothing. Only
# scripts/bench-scale.sh uses them; CI never builds them.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# shellcheck source=../../../../scripts/lib/components.sh
source "$ROOT/scripts/lib/components.sh"
# client-go as the API server's own release; controller-runtime's release for Kubernetes 1.36.
CLIENT_GO=v0.36.3 CONTROLLER_RUNTIME=v0.24.1
hash="$(cat "$HERE/build.sh" "$HERE/informer/main.go" "$HERE/operator/main.go" "$HERE/trim/trim.go" | sha256sum | cut -c1-12)"
d="$(component_dir scale-gopeers "$hash")"
if ! is_built scale-gopeers "$hash"; then
  require_go
  rm -rf "$d" && mkdir -p "$d/src/informer" "$d/src/operator" "$d/src/trim" "$d/bin"
  log="$d/build.log"
  cp "$HERE/informer/main.go" "$d/src/informer/"
  cp "$HERE/operator/main.go" "$d/src/operator/"
  cp "$HERE/trim/trim.go" "$d/src/trim/"
  printf 'module example.invalid/scalepeers\n\ngo 1.26.0\n' >"$d/src/go.mod"
  (cd "$d/src" &&
    run_step "go get" "$log" go_env go get "k8s.io/client-go@$CLIENT_GO" "k8s.io/api@$CLIENT_GO" \
      "k8s.io/apimachinery@$CLIENT_GO" "sigs.k8s.io/controller-runtime@$CONTROLLER_RUNTIME" &&
    run_step "go mod tidy" "$log" go_env go mod tidy &&
    run_step "go build goinformer" "$log" go_env go build -trimpath -ldflags "-s -w" -o "$d/bin/goinformer" ./informer &&
    run_step "go build gooperator" "$log" go_env go build -trimpath -ldflags "-s -w" -o "$d/bin/gooperator" ./operator) || exit 1
  mark_built scale-gopeers "$hash"
fi
echo "$d/bin"
