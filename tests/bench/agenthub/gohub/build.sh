#!/usr/bin/env bash
# Builds the Go peer hub of the agent hub benchmark (main.go here) from the Go module proxy and
# prints its path. Cached under ~/.cache/rdmastack/agenthub-gohub-<hash of its inputs>/, so a
# second call builds nothing. Only the benchmark uses it; CI never builds it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# shellcheck source=../../../../scripts/lib/components.sh
source "$ROOT/scripts/lib/components.sh"
GRPC_GO=v1.85.0 PROTOBUF_GO=v1.36.12 PROTOC_GEN_GO_GRPC=v1.6.2 CLIENT_GO=v0.36.6
hash="$(cat "$HERE/main.go" "$HERE/build.sh" "$ROOT/agents/proto/agenthub.proto" | sha256sum | cut -c1-12)"
d="$(component_dir agenthub-gohub "$hash")"
if ! is_built agenthub-gohub "$hash"; then
  require_go
  rm -rf "$d" && mkdir -p "$d/src/pb" "$d/bin"
  log="$d/build.log"
  run_step "protoc-gen-go" "$log" go_env GOBIN="$d/bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOBUF_GO"
  run_step "protoc-gen-go-grpc" "$log" go_env GOBIN="$d/bin" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC"
  m="Magents/proto/agenthub.proto=example.invalid/gohub/pb"
  run_step "protoc (Go)" "$log" env PATH="$d/bin:$PATH" protoc -I"$ROOT" --go_out="$d/src/pb" --go_opt=paths=source_relative,"$m" \
    --go-grpc_out="$d/src/pb" --go-grpc_opt=paths=source_relative,"$m" "$ROOT/agents/proto/agenthub.proto"
  mv "$d/src/pb/agents/proto/"*.go "$d/src/pb/" && rm -rf "$d/src/pb/agents"
  cp "$HERE/main.go" "$d/src/"
  printf 'module example.invalid/gohub\n\ngo 1.26.0\n' >"$d/src/go.mod"
  (cd "$d/src" &&
    run_step "go get" "$log" go_env go get "google.golang.org/grpc@$GRPC_GO" "google.golang.org/protobuf@$PROTOBUF_GO" \
      "k8s.io/client-go@$CLIENT_GO" "k8s.io/api@$CLIENT_GO" "k8s.io/apimachinery@$CLIENT_GO" &&
    run_step "go mod tidy" "$log" go_env go mod tidy &&
    run_step "go build" "$log" go_env go build -trimpath -ldflags "-s -w" -o "$d/bin/gohub" .) || exit 1
  mark_built agenthub-gohub "$hash"
fi
echo "$d/bin/gohub"
