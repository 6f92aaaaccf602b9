#!/usr/bin/env bash
# CoreDNS v1.15.0 from the Go module proxy, with a trimmed plugin set (src/main.go).
# dnsserver.Directives (ordering) stays upstream's; only the imported plugins register.
set -euo pipefail
V=v1.15.0
D=/work/kp/build/coredns
export GOMODCACHE=/work/cold/cache/gomod GOCACHE=/work/cold/cache/go-build GOTOOLCHAIN=local CGO_ENABLED=0
unset GOFLAGS
cd "$D/src"
[[ -f go.mod ]] || printf 'module example.invalid/coredns-bin\n\ngo 1.26.0\n' >go.mod
t0=$(date +%s)
go get "github.com/coredns/coredns@$V"
go mod tidy
t1=$(date +%s)
go build -mod=mod -trimpath -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$V" -o "$D/bin/coredns" .
t2=$(date +%s)
echo "go get+tidy: $((t1-t0))s, go build: $((t2-t1))s"
ls -l "$D/bin/coredns"
