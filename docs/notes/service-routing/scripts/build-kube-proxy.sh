#!/usr/bin/env bash
# Build kube-proxy v1.36.3 the way scripts/lib/components.sh build_k8s builds kube-apiserver:
# a wrapper module that requires k8s.io/kubernetes and re-points every staging module at v0.36.3.
set -euo pipefail
V=v1.36.3; MINOR=36; STAGING=v0.36.3
D=/work/kp/build/kube-proxy
export GOMODCACHE=/work/cold/cache/gomod GOCACHE=/work/cold/cache/go-build GOTOOLCHAIN=local CGO_ENABLED=0
unset GOFLAGS
mkdir -p "$D/src" "$D/bin"
cd "$D/src"
printf 'module example.invalid/k8s-bins\n\ngo 1.26.0\n' >go.mod
go mod download -json "k8s.io/kubernetes@$V" >/dev/null
UP="$GOMODCACHE/cache/download/k8s.io/kubernetes/@v/$V.mod"
{
  printf 'module example.invalid/k8s-bins\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$V"
  grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$UP" | awk -v s="$STAGING" '{printf "\t%s => %s %s\n", $1, $1, s}'
  printf ')\n'
} >go.mod
LDF="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDF+=" -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitVersion=$V -X $p.gitTreeState=clean"
  LDF+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=1970-01-01T00:00:00Z"
done
t0=$(date +%s)
go get "k8s.io/kubernetes/cmd/kube-proxy@$V"
t1=$(date +%s)
go build -mod=mod -trimpath -ldflags "$LDF" -o "$D/bin/" k8s.io/kubernetes/cmd/kube-proxy
t2=$(date +%s)
echo "go get: $((t1-t0))s, go build: $((t2-t1))s"
ls -l "$D/bin/kube-proxy"
