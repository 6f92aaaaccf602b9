#!/usr/bin/env bash
# A real local Kubernetes control plane on loopback: etcd, kube-apiserver (TLS, RBAC + Node
# authorizers, service-account keys, default admission), kube-controller-manager, kube-scheduler
# and kwok fake kubelets. Binaries are built from the Go module proxy / npm and cached by version
# under ~/.cache/rdmastack (scripts/lib/components.sh).
#
#   cluster.sh up [--nodes N | --storage-nodes S --gpu-nodes G] [--node-fixture NODE=FIXTURE]...
#                                 start (idempotent), create simulated nodes (each in its own network
#                                 namespace, with a fixture tree as host root), wait until Ready
#   cluster.sh down               stop what `up` started, remove the nodes' namespaces and bridge;
#                                 keeps the binary cache
#   cluster.sh logs [-n NS] POD [CONTAINER] [--previous]   output of a simulated pod's container
#   cluster.sh status             one line per component
#   cluster.sh kubeconfig         print the admin kubeconfig path
#   cluster.sh token NS SA [--bound-pod NAME]   print a TokenRequest token
#   cluster.sh sa-kubeconfig NS SA FILE         write a kubeconfig that authenticates as NS/SA
#   cluster.sh kubectl ARGS...    kubectl with the admin kubeconfig
#   cluster.sh env                shell exports for tests (RDMASTACK_KUBECONFIG, RDMASTACK_AUDIT_LOG, ...)
#   cluster.sh restart COMPONENT  restart one component (watch-resilience tests)
#   cluster.sh stop COMPONENT     stop one component until `restart` starts it again (the scale
#                                 benchmark stops kwok to measure informers without its churn)
#   cluster.sh pause COMPONENT    freeze one component (SIGSTOP; the fault tests freeze etcd) until
#                                 `resume` (SIGCONT) thaws it
#   cluster.sh partition NODE     cut a simulated node off the network (its veth, its node Lease, its
#                                 pods' status) until `heal NODE` connects it again
#   cluster.sh compact            compact etcd past every revision clients have seen (410 Gone for
#                                 their watches once kube-apiserver restarts)
#   cluster.sh build [--up]       build/fetch every component without starting anything
#                                 (--up: only what `up` needs; scripts/demo.sh runs it beside its
#                                 C++ build)
#   cluster.sh prometheus         run the Prometheus Operator and Prometheus for this cluster in the
#                                 foreground (tests/harness/prometheus/prometheus-stack.sh), the
#                                 API at 127.0.0.1:9090+offset, until Ctrl-C
#   cluster.sh start-process NAME CMD...   run CMD beside the cluster (log: logs/extra-NAME.log); `down`
#                                 stops it first (the demo's operator replicas)
#   cluster.sh stop-process NAME  SIGTERM to it (SIGKILL after 10 s)
#
# RDMASTACK_CLUSTER (default "default") names the cluster; RDMASTACK_PORT_OFFSET shifts every port
# (and picks the nodes' subnet) so that a private cluster can run beside the shared one.
# RDMASTACK_BUILD_DIR (default build/) holds rdmastack-node-runtime and the binaries pods run.
# RDMASTACK_SIM_VOLUME_RESYNC (default 30s) is how often the node runtime refreshes ConfigMap and
# Secret volumes (the kubelet's sync period; a real kubelet takes up to about a minute).
# RDMASTACK_KWOK_NODE_LEASE_SECONDS (default 40, the kubelet's) is kwok's node lease duration; it
# renews each lease at a quarter of it, so thousands of nodes need a longer one on two cores, with
# RDMASTACK_NODE_MONITOR_GRACE_PERIOD (kube-controller-manager's --node-monitor-grace-period) above it.
# RDMASTACK_AUDIT_LOG_MAXBACKUP (default 1) keeps that many rotated 200 MB audit logs; the test
# harness reads them all, so a run that counts writes across rotations raises it.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
# shellcheck source=lib/components.sh
source "$SCRIPT_DIR/lib/components.sh"

CLUSTER="${RDMASTACK_CLUSTER:-default}"
OFFSET="${RDMASTACK_PORT_OFFSET:-0}"
STATE="$RDMASTACK_CACHE/clusters/$CLUSTER"
PKI="$STATE/pki"
RUN="$STATE/run"
LOGS="$STATE/logs"
KUBECONFIG_ADMIN="$STATE/kubeconfig"
BUILD_DIR="${RDMASTACK_BUILD_DIR:-$ROOT_DIR/build}"

PORT_ETCD=$((2379 + OFFSET))
PORT_ETCD_PEER=$((2380 + OFFSET))
PORT_APISERVER=$((6443 + OFFSET))
PORT_KCM=$((10257 + OFFSET))
PORT_SCHEDULER=$((10259 + OFFSET))
PORT_KWOK=$((10247 + OFFSET))
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok node-runtime)
# shellcheck source=lib/sim_nodes.sh
source "$SCRIPT_DIR/lib/sim_nodes.sh"
# shellcheck source=lib/sim_services.sh
source "$SCRIPT_DIR/lib/sim_services.sh"

STORAGE_ROLE_LABEL="node-role.rdmastack.io/storage"
GPU_ROLE_LABEL="node-role.rdmastack.io/gpu"
ZONES=(a b c)

log() { echo "cluster[$CLUSTER]: $*" >&2; }

pid_file() { echo "$RUN/$1.pid"; }
pid_of() { [[ -f "$(pid_file "$1")" ]] && cat "$(pid_file "$1")"; }
is_running() {
  local pid; pid="$(pid_of "$1" 2>/dev/null || true)"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null
}

port_in_use() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

kubectl_admin() { "$(kubectl_bin)" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

# ---------------------------------------------------------------- PKI and kubeconfigs

make_cert() { # name subject [server-sans]
  local name="$1" subj="$2" sans="${3:-}"
  [[ -f "$PKI/$name.crt" ]] && return 0
  openssl genrsa -out "$PKI/$name.key" 2048 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
  local ext="$PKI/$name.ext"
  if [[ -n "$sans" ]]; then
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' "$sans" >"$ext"
  else
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$ext"
  fi
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr" "$ext"
}

# write_kubeconfig FILE USER CREDENTIALS [NAMESPACE]: CREDENTIALS are the indented lines under
# `user:` (client certificate data, or a token).
write_kubeconfig() {
  local file="$1" user="$2" creds="$3" ns="${4:-}"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: rdmastack-$CLUSTER
  cluster:
    server: https://127.0.0.1:$PORT_APISERVER
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: $user
  user:
$creds
contexts:
- name: $user
  context: {cluster: rdmastack-$CLUSTER, user: $user${ns:+, namespace: $ns}}
current-context: $user
EOF
  chmod 600 "$file"
}

make_kubeconfig() { # file user-cert
  write_kubeconfig "$1" "$2" "    client-certificate-data: $(base64 -w0 "$PKI/$2.crt")
    client-key-data: $(base64 -w0 "$PKI/$2.key")"
}

make_pki() {
  mkdir -p "$PKI"
  if [[ ! -f "$PKI/ca.crt" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 \
      -subj "/CN=rdmastack-$CLUSTER-ca" 2>/dev/null
  fi
  # Pods on simulated nodes reach the API server through the node runtime's forwarder on the
  # bridge address, so the serving certificate names it too (remade when the subnet changed).
  if [[ -f "$PKI/apiserver.crt" ]] && ! openssl x509 -in "$PKI/apiserver.crt" -noout -ext subjectAltName 2>/dev/null | grep -q "IP Address:$SIM_GATEWAY\b"; then
    rm -f "$PKI/apiserver.crt" "$PKI/apiserver.key"
  fi
  make_cert apiserver "/CN=kube-apiserver" \
    "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.96.0.1,IP:$SIM_GATEWAY"
  make_cert admin "/O=system:masters/CN=rdmastack-admin"
  make_cert node-runtime "/O=system:masters/CN=rdmastack-node-runtime"
  make_cert kcm "/CN=system:kube-controller-manager"
  make_cert scheduler "/CN=system:kube-scheduler"
  make_cert kwok "/O=system:masters/CN=kwok"
  make_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  if [[ ! -f "$PKI/sa.key" ]]; then
    openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
    openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  fi
  make_kubeconfig "$KUBECONFIG_ADMIN" admin
  make_kubeconfig "$STATE/kcm.kubeconfig" kcm
  make_kubeconfig "$STATE/scheduler.kubeconfig" scheduler
  make_kubeconfig "$STATE/kwok.kubeconfig" kwok
  make_kubeconfig "$STATE/node-runtime.kubeconfig" node-runtime
}

# ---------------------------------------------------------------- processes

start_bg() { # name cmd...
  local name="$1"; shift
  # etcd maps every ETCD_* variable to a flag; start every component with none of them set.
  local unset_etcd=()
  while IFS= read -r v; do unset_etcd+=(-u "$v"); done < <(env | sed -n 's/^\(ETCD_[A-Za-z0-9_]*\)=.*/\1/p')
  setsid env "${unset_etcd[@]}" "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
  echo $! >"$(pid_file "$name")"
}

wait_for() { # what timeout-seconds log cmd...
  local what="$1" timeout="$2" logf="$3"; shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      die "$what did not become healthy within ${timeout}s; see $logf"
    fi
    sleep 0.5
  done
}

check_alive() { # name
  is_running "$1" || die "$1 exited during start-up; see $LOGS/$1.log"
}

curl_admin() {
  curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "$@"
}

advertise_address() {
  local ip
  ip="$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.' | grep -v '^127\.' | head -1 || true)"
  echo "${ip:-127.0.0.1}"
}

start_etcd() {
  start_bg etcd "$(etcd_bin)" --name node0 --data-dir "$STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$PORT_ETCD" --advertise-client-urls "http://127.0.0.1:$PORT_ETCD" \
    --listen-peer-urls "http://127.0.0.1:$PORT_ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$PORT_ETCD_PEER" \
    --initial-cluster "node0=http://127.0.0.1:$PORT_ETCD_PEER" --unsafe-no-fsync=true \
    --quota-backend-bytes=8589934592 --log-level=warn
  wait_for etcd 60 "$LOGS/etcd.log" curl -sf "http://127.0.0.1:$PORT_ETCD/health"
}

# Every write is recorded (Metadata level: user, user agent, verb, object, response code), so tests
# count and attribute API writes from the server's own log rather than from our counters. Reads
# are not logged: they would dwarf the writes.
write_audit_policy() {
  cat >"$STATE/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
# Every request of the chart's operator ServiceAccount, reads too: tests/e2e/chart compares what it
# used with what the chart's RBAC grants, and finds its 403s.
- level: Metadata
  users: ["system:serviceaccount:rdmastack-system:rdmastack-operator"]
# Every request of the scale benchmark's operators (tests/bench/scale): idle request rates.
- level: Metadata
  userGroups: ["system:serviceaccounts:rdmastack-bench"]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
EOF
}

start_apiserver() {
  local k8s; k8s="$(k8s_bin_dir)"
  write_audit_policy
  start_bg kube-apiserver "$k8s/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$PORT_ETCD" --bind-address=127.0.0.1 --secure-port="$PORT_APISERVER" \
    --advertise-address="$(advertise_address)" --endpoint-reconciler-type=none \
    --cert-dir="$PKI" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --client-ca-file="$PKI/ca.crt" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$PKI/ca.crt" --kubelet-preferred-address-types=InternalIP,Hostname \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --authorization-mode=Node,RBAC --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true \
    --enable-aggregator-routing=true \
    --enable-priority-and-fairness=false --v=1 \
    --audit-policy-file="$STATE/audit-policy.yaml" --audit-log-path="$LOGS/audit.log" \
    --audit-log-format=json --audit-log-maxsize=200 --audit-log-maxbackup="${RDMASTACK_AUDIT_LOG_MAXBACKUP:-1}"
  wait_for kube-apiserver 120 "$LOGS/kube-apiserver.log" curl_admin "https://127.0.0.1:$PORT_APISERVER/readyz"
}

start_kcm() {
  start_bg kube-controller-manager "$(k8s_bin_dir)/kube-controller-manager" \
    --kubeconfig="$STATE/kcm.kubeconfig" --authentication-kubeconfig="$STATE/kcm.kubeconfig" \
    --authorization-kubeconfig="$STATE/kcm.kubeconfig" --bind-address=127.0.0.1 --secure-port="$PORT_KCM" \
    --leader-elect=false --controllers='*' --use-service-account-credentials=true \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
    --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics --v=1 \
    ${RDMASTACK_NODE_MONITOR_GRACE_PERIOD:+--node-monitor-grace-period="$RDMASTACK_NODE_MONITOR_GRACE_PERIOD"}
  wait_for kube-controller-manager 60 "$LOGS/kube-controller-manager.log" curl -skf "https://127.0.0.1:$PORT_KCM/healthz"
}

start_scheduler() {
  start_bg kube-scheduler "$(k8s_bin_dir)/kube-scheduler" \
    --kubeconfig="$STATE/scheduler.kubeconfig" --authentication-kubeconfig="$STATE/scheduler.kubeconfig" \
    --authorization-kubeconfig="$STATE/scheduler.kubeconfig" --bind-address=127.0.0.1 \
    --secure-port="$PORT_SCHEDULER" --leader-elect=false \
    --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics --v=1
  wait_for kube-scheduler 60 "$LOGS/kube-scheduler.log" curl -skf "https://127.0.0.1:$PORT_SCHEDULER/healthz"
}

# kwok's pod stages, each with one more selector term, so that kwok leaves the pods labelled
# rdmastack.io/simulate=run to the node runtime: the two never write the same pod's status.
write_kwok_stages() {
  local dir="$STATE/kwok-stages" f out
  rm -rf "$dir"
  mkdir -p "$dir"
  for f in "$(kwok_stages_dir)"/*.yaml; do
    out="$dir/$(basename "$f")"
    if grep -q '^    kind: Pod$' "$f"; then
      awk '{print} /^    matchExpressions:$/ {
        print "    - key: '"'"'.metadata.labels[\"rdmastack.io/simulate\"]'"'"'"
        print "      operator: NotIn"
        print "      values: [run]"}' "$f" >"$out"
      grep -q 'rdmastack.io/simulate' "$out" || die "kwok stage $f has no selector.matchExpressions to extend; update write_kwok_stages in scripts/cluster.sh"
      # A pod labelled kwok.rdmastack.io/ready-delay=<duration> turns Ready that long after it
      # was scheduled (benchmarks model a gateway's start time with it); others at once.
      if [[ "$(basename "$f")" == pod-ready.yaml ]]; then
        awk '{print} /^spec:$/ {
          print "  delay:"
          print "    durationMilliseconds: 0"
          print "    durationFrom:"
          print "      expressionFrom: '"'"'.metadata.labels[\"kwok.rdmastack.io/ready-delay\"]'"'"'"}' \
          "$out" >"$out.tmp" && mv "$out.tmp" "$out"
      fi
    else
      cp "$f" "$out"
    fi
  done
}

start_kwok() {
  local stages=() f
  write_kwok_stages
  for f in "$STATE/kwok-stages"/*.yaml; do stages+=(--config "$f"); done
  start_bg kwok "$(kwok_bin)" --kubeconfig="$STATE/kwok.kubeconfig" "${stages[@]}" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-ip=127.0.0.1 --node-name=localhost --node-port="$PORT_KWOK" \
    --server-address="127.0.0.1:$PORT_KWOK" --cidr=10.244.0.0/16 --node-lease-duration-seconds="${RDMASTACK_KWOK_NODE_LEASE_SECONDS:-40}"
  wait_for kwok 60 "$LOGS/kwok.log" curl -sf "http://127.0.0.1:$PORT_KWOK/healthz"
}

# ---------------------------------------------------------------- simulated nodes

# Nodes look like real ones: role labels, zone/instance labels, GPU and RDMA extended resources on
# GPU nodes, kubelet/kernel versions. kwok keeps their status and heartbeats; each one's InternalIP
# is its network namespace's address (scripts/lib/sim_nodes.sh), where its pods' processes listen.
node_yaml() { # name role index fixture-name
  local name="$1" role="$2" i="$3" fixture="$4" role_label extra_cap
  if [[ "$role" == storage ]]; then
    role_label="$STORAGE_ROLE_LABEL"
    extra_cap='    rdma/hca_shared_devices_a: "1k"'
  else
    role_label="$GPU_ROLE_LABEL"
    extra_cap=$'    nvidia.com/gpu: "8"\n    rdma/hca_shared_devices_a: "1k"'
  fi
  cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
    sim.rdmastack.io/fixture: $fixture
    sim.rdmastack.io/netns: $(sim_netns "$name")
  labels:
    $role_label: ""
    node-role.kubernetes.io/$role: ""
    kubernetes.io/hostname: $name
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    beta.kubernetes.io/os: linux
    beta.kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: $([[ $role == storage ]] && echo r7i.8xlarge || echo p5.48xlarge)
    topology.kubernetes.io/region: local-1
    topology.kubernetes.io/zone: local-1${ZONES[$((i % 3))]}
    type: kwok
spec:
  podCIDR: 10.244.$i.0/24
status:
  addresses:
  - {type: InternalIP, address: $(sim_address "$i")}
  - {type: Hostname, address: $name}
  capacity:
    cpu: "64"
    memory: 515813408Ki
    ephemeral-storage: 3750000000Ki
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    pods: "110"
$extra_cap
  allocatable:
    cpu: 63500m
    memory: 514662432Ki
    ephemeral-storage: 3456000000Ki
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    pods: "110"
$extra_cap
  nodeInfo:
    architecture: amd64
    kubeletVersion: $CP_K8S_VERSION
    kubeProxyVersion: $CP_K8S_VERSION
    containerRuntimeVersion: containerd://2.1.4
    kernelVersion: 5.15.0-153-generic
    operatingSystem: linux
    osImage: Ubuntu 22.04.5 LTS
    machineID: $(printf '%032x' $((0x5eed0000 + i)))
    systemUUID: $(printf '%08x-0000-4000-8000-%012x' $((0x5eed + i)) "$i")
    bootID: $(printf '%08x-0001-4000-8000-%012x' $((0x5eed + i)) "$i")
EOF
}

# plan_nodes STORAGE GPU [NODE=FIXTURE...]: one line per node, "NAME ROLE INDEX FIXTURE_DIR";
# storage nodes first, default fixtures in turn unless --node-fixture chose one.
plan_nodes() {
  local stg="$1" gpu="$2" i name role fixture total=$(($1 + $2)) kv
  shift 2
  declare -A chosen=()
  for kv in "$@"; do chosen["${kv%%=*}"]="${kv#*=}"; done
  ((total <= SIM_MAX_NODES)) || die "at most $SIM_MAX_NODES simulated nodes per cluster (asked for $total)"
  for ((i = 0; i < total; i++)); do
    if ((i < stg)); then
      name="stg-node-$i" role=storage fixture="${SIM_STORAGE_FIXTURES[$((i % ${#SIM_STORAGE_FIXTURES[@]}))]}"
    else
      name="gpu-node-$((i - stg))" role=gpu fixture="${SIM_GPU_FIXTURES[$(((i - stg) % ${#SIM_GPU_FIXTURES[@]}))]}"
    fi
    if [[ -n "${chosen[$name]:-}" ]]; then fixture="${chosen[$name]}"; unset "chosen[$name]"; fi
    fixture="$(sim_fixture_dir "$fixture")" || exit 1
    echo "$name $role $i $fixture"
  done
  ((${#chosen[@]} == 0)) || die "--node-fixture names nodes this cluster does not have: ${!chosen[*]} (nodes are stg-node-0..$((stg - 1)) and gpu-node-0..$((gpu - 1)))"
}

# create_nodes PLAN: the bridge, one namespace and host root per node, the node table for the
# runtime, then the Node objects.
create_nodes() {
  local plan="$1" name role i fixture docs=""
  mkdir -p "$SIM_DIR"
  : >"$SIM_NODE_TABLE"
  [[ -n "$plan" ]] || return 0
  sim_net_up
  while read -r name role i fixture; do
    sim_node_up "$name" "$i" "$fixture"
    # The seed's backend: storage nodes mount Lustre at /lustre/agent/vol0 (an empty directory
    # here, what the GatewayPool samples' backend.posix.hostPath names).
    [[ "$role" == storage ]] && mkdir -p "$(sim_host_root "$name")/lustre/agent/vol0"
    docs+="$(node_yaml "$name" "$role" "$i" "$(basename "$fixture")")"$'\n---\n'
  done <<<"$plan"
  printf '%s' "$docs" | kubectl_admin apply -f - >/dev/null
}

wait_nodes_ready() {
  local n="$1" deadline=$((SECONDS + 120)) ready
  while :; do
    ready="$(kubectl_admin get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null | grep -c True || true)"
    ((ready >= n)) && return 0
    ((SECONDS >= deadline)) && die "only $ready of $n nodes became Ready within 120s; see $LOGS/kwok.log"
    sleep 1
  done
}

# ---------------------------------------------------------------- commands

cmd_build() {
  case "${1:-}" in
    "") build_all_components ;;
    --up) build_cluster_components; drop_go_scratch ;;
    *) die "unknown flag for build: $1 (usage: cluster.sh build [--up])" ;;
  esac
  log "components ready under $RDMASTACK_CACHE"
}

running_components() {
  local c n=0; for c in "${COMPONENTS[@]}"; do is_running "$c" && n=$((n + 1)); done; echo "$n"
}

UP_USAGE="cluster.sh up [--nodes N | --storage-nodes S --gpu-nodes G] [--node-fixture NODE=FIXTURE]..."

node_runtime_bin() { echo "$BUILD_DIR/bin/rdmastack-node-runtime"; }
IMAGE_TABLE="$ROOT_DIR/tests/harness/node-runtime/images.yaml"
# The images this project builds: simulated nodes run them from these archives with runc.
OCI_IMAGES="$BUILD_DIR/images"
OCI_COMPONENTS="operator agent gateway client"
# The vgwrdma images the tests' and samples' pools name, and a second name of the client image:
# harness-only stand-ins built FROM our images (tests/harness/node-runtime/standin_images.sh).
STANDIN_IMAGES="registry.local/rdmastack/vgwrdma:1.8.0-cuobj1 registry.local/rdmastack/vgwrdma:1.8.0-cuobj2 registry.local/rdmastack/vgwrdma:1.8.0-cuobj1-longlog registry.local/rdmastack/client:rollout"
oci_image_ref() { echo "${RDMASTACK_IMAGE_REGISTRY:-ghcr.io/rdmastack}/$1:$(project_version)"; }
project_version() { sed -n 's/^project(rdmastack VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT_DIR/CMakeLists.txt"; }

# The OCI images of the build (scripts/images.sh: rebuilt only when a binary changed).
build_oci_images() {
  local out
  log "container images: scripts/images.sh --build-dir $BUILD_DIR"
  if ! out="$("$ROOT_DIR/scripts/images.sh" --build-dir "$BUILD_DIR" 2>&1)"; then
    echo "$out" >&2
    die "scripts/images.sh failed (above); the simulated nodes run our pods from those images"
  fi
  sed "s/^/cluster[$CLUSTER]: /" <<<"$out" >&2
  if ! out="$("$ROOT_DIR/tests/harness/node-runtime/standin_images.sh" --build-dir "$BUILD_DIR" \
      --versitygw "$(versitygw_bin)" 2>&1)"; then
    echo "$out" >&2
    die "building the vgwrdma stand-in images failed (above); gateway pods run from them"
  fi
  sed "s/^/cluster[$CLUSTER]: /" <<<"$out" >&2
}

# The node runtime's --var flags: the build tree, the checkout, and every image table component.
image_table_var_args() {
  local v
  echo "--var"; echo "BUILD_DIR=$BUILD_DIR"
  echo "--var"; echo "SOURCE_DIR=$ROOT_DIR"
  while read -r v; do echo "--var"; echo "$v"; done < <(image_table_component_vars)
}

# Before any node starts: every file the image table names exists (the components were just built
# or found; the rest comes from the CMake build), or `up` stops here naming what is missing.
check_image_table() {
  local args out c
  mapfile -t args < <(image_table_var_args)
  for c in $OCI_COMPONENTS; do args+=(--require-image "$(oci_image_ref "$c")"); done
  for c in $STANDIN_IMAGES; do args+=(--require-image "$c"); done
  if ! out="$("$(node_runtime_bin)" --check-images --images "$IMAGE_TABLE" "${args[@]}" --oci-images "$OCI_IMAGES" 2>&1)"; then
    echo "$out" >&2
    die "the simulated nodes' image table names files that were not built (above); build the tree (cmake --build --preset dev, or set RDMASTACK_BUILD_DIR) and see the component logs under $RDMASTACK_CACHE/<part>-<version>/build.log"
  fi
  log "$out"
}

# The node runtime serves every simulated node; pods reach the API server through its forwarder on
# the bridge address. It also answers the API server's kubelet log calls (`kubectl logs`) on each
# node's address at the kubelet port the Nodes advertise: kwok writes its --node-port into every
# node's status.daemonEndpoints.kubeletEndpoint.Port, and kwok itself listens only on the host's
# loopback, so inside the nodes' namespaces that port is free.
start_node_runtime() {
  local n forward=()
  n="$(grep -c . "$SIM_NODE_TABLE" || true)"
  ((n == 0)) || forward=(--api-forward "$SIM_GATEWAY:$PORT_APISERVER=127.0.0.1:$PORT_APISERVER"
    --kubernetes-service "$KUBERNETES_SERVICE_IP:443" --cluster-dns "$CLUSTER_DNS_IP" --cluster-domain "$CLUSTER_DOMAIN")
  mkdir -p "$LOGS/pods"
  sim_kill_node_processes
  local vars; mapfile -t vars < <(image_table_var_args)
  start_bg node-runtime "$(node_runtime_bin)" --kubeconfig "$STATE/node-runtime.kubeconfig" \
    --nodes "$SIM_NODE_TABLE" --images "$IMAGE_TABLE" \
    --state-dir "$SIM_DIR" --log-dir "$LOGS/pods" "${vars[@]}" --oci-images "$OCI_IMAGES" \
    --volume-resync "${RDMASTACK_SIM_VOLUME_RESYNC:-30s}" "${forward[@]}" \
    --kubelet-port "$PORT_KWOK" --kubelet-pki "$SIM_KUBELET_PKI" --kubelet-client-ca "$PKI/ca.crt" \
    --kubelet-client-name kube-apiserver-kubelet-client
  wait_for node-runtime 60 "$LOGS/node-runtime.log" grep -q "serving $n simulated node" "$LOGS/node-runtime.log"
}

cmd_up() {
  local nodes="" storage="" gpu="" fixtures=()
  while (($#)); do
    case "$1" in
      --nodes|--storage-nodes|--gpu-nodes)
        [[ "${2:-}" =~ ^[0-9]+$ ]] || die "$1 needs a number (usage: $UP_USAGE)"
        case "$1" in --nodes) nodes="$2" ;; --storage-nodes) storage="$2" ;; *) gpu="$2" ;; esac
        shift 2 ;;
      --node-fixture)
        [[ "${2:-}" =~ ^[a-z0-9.-]+=.+$ ]] || die "--node-fixture needs NODE=FIXTURE, e.g. gpu-node-0=gpu-client-h100-peermem-mofed"
        fixtures+=("$2"); shift 2 ;;
      *) die "unknown flag for up: $1 (usage: $UP_USAGE)" ;;
    esac
  done
  if [[ -n "$nodes" ]]; then
    [[ -z "$storage$gpu" ]] || die "use either --nodes or --storage-nodes/--gpu-nodes, not both"
    storage=$(((nodes + 1) / 2)) gpu=$((nodes / 2))
  fi
  [[ -n "$storage$gpu" ]] || storage=2 gpu=2
  storage="${storage:-0}" gpu="${gpu:-0}"
  local alive; alive="$(running_components)"
  if ((alive == ${#COMPONENTS[@]})); then
    log "already up (kubeconfig: $KUBECONFIG_ADMIN); nothing to do"
    return 0
  fi
  if ((alive > 0)); then
    die "cluster is partially running ($alive of ${#COMPONENTS[@]} components); run 'scripts/cluster.sh down' first"
  fi
  local c
  for c in "${COMPONENTS[@]}"; do
    if [[ -f "$(pid_file "$c")" ]]; then
      log "removing stale pid file $(pid_file "$c") (process $(pid_of "$c") is not running)"
      rm -f "$(pid_file "$c")"
    fi
  done
  local p
  for p in $PORT_ETCD $PORT_ETCD_PEER $PORT_APISERVER $PORT_KCM $PORT_SCHEDULER $PORT_KWOK; do
    port_in_use "$p" && die "port 127.0.0.1:$p is already in use; stop what holds it (ss -ltnp 'sport = :$p') or set RDMASTACK_PORT_OFFSET"
  done
  command -v openssl >/dev/null || die "openssl is not installed; run scripts/setup.sh"
  command -v ss >/dev/null || die "ss (iproute2) is not installed; run scripts/setup.sh"
  local plan
  plan="$(plan_nodes "$storage" "$gpu" "${fixtures[@]}")" || exit 1
  [[ -x "$(node_runtime_bin)" ]] || die "$(node_runtime_bin) not found; build it first (cmake --preset dev && cmake --build --preset dev) or set RDMASTACK_BUILD_DIR"
  sim_require_tools
  stop_services
  if [[ -n "$(sim_leftovers)" ]]; then
    log "removing simulated nodes left by an earlier run: $(sim_leftovers | tr '\n' ' ')"
    sim_net_down
  fi
  # Clusters that come up at once (scripts/test.sh starts two) share the build tree's images and the
  # component cache: one builds what is missing while the others wait, then find it cached.
  local lock
  exec {lock}>"$BUILD_DIR/.cluster-up.lock"
  flock "$lock"
  build_cluster_components
  drop_go_scratch
  build_oci_images
  check_image_table
  exec {lock}>&-
  mkdir -p "$RUN" "$LOGS"
  rm -rf "$STATE/etcd" "$LOGS/pods"
  make_pki
  local t0=$SECONDS
  start_etcd; check_alive etcd
  start_apiserver; check_alive kube-apiserver
  start_kcm; check_alive kube-controller-manager
  start_scheduler; check_alive kube-scheduler
  start_kwok; check_alive kwok
  create_nodes "$plan"
  wait_nodes_ready $((storage + gpu))
  start_node_runtime; check_alive node-runtime
  start_services
  log "up in $((SECONDS - t0))s with $storage storage and $gpu GPU nodes on $SIM_NET.0/24 (bridge $SIM_BRIDGE); kubeconfig: $KUBECONFIG_ADMIN"
}

stop_component() {
  local c="$1" pid
  pid="$(pid_of "$c" 2>/dev/null || true)"
  [[ -n "$pid" ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    log "stopped $c (pid $pid)"
  fi
  rm -f "$(pid_file "$c")"
}

# Processes started beside the cluster (cmd_start_process): pid files extra-NAME.pid.
cmd_start_process() {
  local name="${1:?usage: cluster.sh start-process NAME CMD...}"; shift
  (($#)) || die "usage: cluster.sh start-process NAME CMD..."
  mkdir -p "$RUN" "$LOGS"
  stop_component "extra-$name"
  start_bg "extra-$name" "$@"
  log "started $name (pid $(pid_of "extra-$name"), log $LOGS/extra-$name.log)"
}

cmd_down() {
  local any=0 i c f
  for f in "$RUN"/extra-*.pid; do
    [[ -f "$f" ]] || continue
    any=1
    c="$(basename "$f" .pid)"
    stop_component "$c"
  done
  compgen -G "$RUN/svc-*.pid" >/dev/null && any=1
  stop_services
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    c="${COMPONENTS[$i]}"
    [[ -f "$(pid_file "$c")" ]] && any=1
    stop_component "$c"
  done
  [[ -n "$(sim_leftovers)" ]] && any=1
  sim_net_down
  ((any)) || log "nothing running; nothing to stop"
  rm -rf "$STATE/etcd"
}

cmd_status() {
  local c pid f
  for c in "${COMPONENTS[@]}"; do
    pid="$(pid_of "$c" 2>/dev/null || true)"
    if is_running "$c"; then
      printf '%-24s running (pid %s)\n' "$c" "$pid"
    elif [[ -n "$pid" ]]; then
      printf '%-24s dead (stale pid file, pid %s)\n' "$c" "$pid"
    else
      printf '%-24s stopped\n' "$c"
    fi
  done
  for f in "$RUN"/svc-*.pid; do
    [[ -f "$f" ]] || continue
    c="$(basename "$f" .pid)"
    if is_running "$c"; then printf '%-24s running (pid %s)\n' "${c#svc-}" "$(pid_of "$c")"; else printf '%-24s dead\n' "${c#svc-}"; fi
  done
  (($(running_components) == ${#COMPONENTS[@]}))
}

cmd_token() {
  local ns="${1:-}" sa="${2:-}"; shift 2 || die "usage: cluster.sh token NAMESPACE SERVICEACCOUNT [--bound-pod NAME]"
  [[ -n "$ns" && -n "$sa" ]] || die "usage: cluster.sh token NAMESPACE SERVICEACCOUNT [--bound-pod NAME]"
  local args=(create token "$sa" -n "$ns" --duration=1h)
  if [[ "${1:-}" == --bound-pod ]]; then
    local pod="${2:?--bound-pod needs a pod name}" uid
    uid="$(kubectl_admin get pod "$pod" -n "$ns" -o jsonpath='{.metadata.uid}')" || die "pod $ns/$pod not found"
    args+=(--bound-object-kind=Pod --bound-object-name="$pod" --bound-object-uid="$uid")
  fi
  kubectl_admin "${args[@]}"
}

cmd_sa_kubeconfig() {
  local ns="${1:?usage: cluster.sh sa-kubeconfig NS SA FILE}" sa="${2:?}" file="${3:?}" token
  token="$(cmd_token "$ns" "$sa")"
  write_kubeconfig "$file" "$ns-$sa" "    token: $token" "$ns"
}

cmd_restart() {
  local c="${1:?usage: cluster.sh restart kube-apiserver|kube-controller-manager|kube-scheduler|kwok|node-runtime}"
  case "$c" in
    apiserver|kube-apiserver) stop_component kube-apiserver; start_apiserver ;;
    kube-controller-manager) stop_component "$c"; start_kcm ;;
    kube-scheduler) stop_component "$c"; start_scheduler ;;
    kwok) stop_component "$c"; start_kwok ;;
    node-runtime) stop_component "$c"; start_node_runtime ;;
    *) die "cannot restart '$c'; choose kube-apiserver, kube-controller-manager, kube-scheduler, kwok or node-runtime" ;;
  esac
}

# etcd's v3 JSON gateway: write a key outside /registry (no watcher sees it, so the new revision is
# past every resourceVersion a client holds), then compact to that revision.
# partition|heal NODE: cut a simulated node off the network, or connect it again. The host end of its
# veth goes down (nothing reaches the node or leaves it); its node Lease is taken from kwok (another
# holder, a day long, which kwok leaves alone), so it is renewed no more and the node controller
# marks the node NotReady and its pods not Ready, as for a real unreachable node; and the node
# runtime, its kubelet, stops probing and writing for its pods (a marker file beside the host root).
# `heal` reverses all three; the Lease is handed back expired, so kwok takes it over at its next
# look (within its renew interval) and marks the node Ready again.
cmd_partition() {
  local cmd="$1" node="${2:?usage: cluster.sh $1 NODE}" addr veth marker now
  addr="$(awk -v n="$node" '$1 == n {print $3}' "$SIM_NODE_TABLE" 2>/dev/null || true)"
  [[ -n "$addr" ]] || die "'$node' is not a simulated node of cluster '$CLUSTER' ($SIM_NODE_TABLE)"
  veth="rs${SIM_INDEX}v$((${addr##*.} - 10))"
  ip link show "$veth" >/dev/null 2>&1 || die "node $node has no veth $veth"
  marker="$SIM_DIR/nodes/$node/partitioned"
  now="$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)"
  if [[ "$cmd" == partition ]]; then
    : >"$marker"
    ip link set "$veth" down
    kubectl_admin patch lease -n kube-node-lease "$node" --type=merge -p \
      '{"spec":{"holderIdentity":"rdmastack-partition","leaseDurationSeconds":86400,"renewTime":"'"$now"'"}}' >/dev/null
    log "partitioned node $node ($addr): $veth down, its Lease no longer renewed, its pods' status frozen"
  else
    ip link set "$veth" up
    rm -f "$marker"
    kubectl_admin patch lease -n kube-node-lease "$node" --type=merge -p \
      '{"spec":{"holderIdentity":"rdmastack-partition","leaseDurationSeconds":1,"renewTime":"2000-01-01T00:00:00.000000Z"}}' >/dev/null
    log "healed node $node ($addr)"
  fi
}

cmd_compact() {
  local rev
  rev="$(curl -sf -X POST "http://127.0.0.1:$PORT_ETCD/v3/kv/put" \
    -d "{\"key\":\"$(printf /rdmastack/compact-marker | base64)\",\"value\":\"$(date +%s | base64)\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')" ||
    die "cannot write to etcd at 127.0.0.1:$PORT_ETCD; is the cluster up?"
  curl -sf -X POST "http://127.0.0.1:$PORT_ETCD/v3/kv/compaction" -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null ||
    die "etcd compaction to revision $rev failed"
  echo "$rev"
}

# A real Prometheus configured by the real Prometheus Operator from the cluster's ServiceMonitors
# and PrometheusRules, both host processes (docs/development.md, "Prometheus").
cmd_prometheus() {
  is_running kube-apiserver || die "the cluster is not up; run cluster.sh up first"
  build_prometheus
  build_prometheus_operator
  drop_go_scratch
  eval "$(cmd_env)"
  exec "$ROOT_DIR/tests/harness/prometheus/prometheus-stack.sh" --state "$STATE/prometheus" \
    --port $((9090 + OFFSET)) "$@"
}

cmd_env() {
  echo "export RDMASTACK_KUBECONFIG=$KUBECONFIG_ADMIN"
  echo "export RDMASTACK_KUBECTL=$(kubectl_bin)"
  echo "export RDMASTACK_HELM=$(helm_bin)"
  echo "export RDMASTACK_CLUSTER=$CLUSTER"
  echo "export RDMASTACK_PORT_OFFSET=$OFFSET"
  echo "export RDMASTACK_VERSITYGW=$(versitygw_bin)"
  echo "export RDMASTACK_PROMTOOL=$(promtool_bin)"
  echo "export RDMASTACK_PROMETHEUS=$(prometheus_bin)"
  echo "export RDMASTACK_PROMETHEUS_OPERATOR=$(prometheus_operator_bin)"
  echo "export RDMASTACK_PROMETHEUS_OPERATOR_DIR=$(prometheus_operator_dir)"
  echo "export RDMASTACK_AUDIT_LOG=$LOGS/audit.log"
  echo "export RDMASTACK_SIM_NODES=$SIM_NODE_TABLE"
  echo "export RDMASTACK_SIM_GATEWAY=$SIM_GATEWAY"
  echo "export RDMASTACK_POD_LOGS=$LOGS/pods"
}

# The output of one container of a simulated pod: the runtime writes
# logs/pods/<namespace>_<pod>_<uid>/<container>/<restartCount>.log, as the kubelet does.
cmd_logs() {
  local ns=default pod="" container="" previous=0 usage="usage: cluster.sh logs [-n NAMESPACE] POD [CONTAINER] [--previous]"
  while (($#)); do
    case "$1" in
      -n|--namespace) ns="${2:?$usage}"; shift 2 ;;
      --previous|-p) previous=1; shift ;;
      -*) die "unknown flag $1; $usage" ;;
      *) if [[ -z "$pod" ]]; then pod="$1"; elif [[ -z "$container" ]]; then container="$1"; else die "$usage"; fi; shift ;;
    esac
  done
  [[ -n "$pod" ]] || die "$usage"
  local dir
  dir="$(ls -1dt "$LOGS/pods/${ns}_${pod}_"* 2>/dev/null | head -1 || true)"
  if [[ -z "$dir" ]]; then
    if kubectl_admin get pod "$pod" -n "$ns" >/dev/null 2>&1; then
      die "pod $ns/$pod has no logs: only pods labelled rdmastack.io/simulate=run on simulated nodes run processes (kwok runs nothing for the others), and its containers may not have started yet"
    fi
    die "no pod $ns/$pod (and no logs of an earlier one under $LOGS/pods)"
  fi
  if [[ -z "$container" ]]; then
    local names; names="$(ls -1 "$dir")"
    [[ "$(grep -c . <<<"$names")" == 1 ]] || die "pod $ns/$pod has several containers; name one of: $(tr '\n' ' ' <<<"$names")"
    container="$names"
  fi
  [[ -d "$dir/$container" ]] || die "pod $ns/$pod has no logs for container $container; it has: $(ls -1 "$dir" | tr '\n' ' ')"
  local files; files="$(ls -1 "$dir/$container" | sort -n)"
  local file
  if ((previous)); then
    file="$(tail -2 <<<"$files" | head -1)"
    [[ "$(grep -c . <<<"$files")" -ge 2 ]] || die "container $container of pod $ns/$pod has not restarted; there is no previous log"
  else
    file="$(tail -1 <<<"$files")"
  fi
  cat "$dir/$container/$file"
}

main() {
  local cmd="${1:-}"; shift || true
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    build) cmd_build "$@" ;;
    kubeconfig) echo "$KUBECONFIG_ADMIN" ;;
    token) cmd_token "$@" ;;
    sa-kubeconfig) cmd_sa_kubeconfig "$@" ;;
    kubectl) kubectl_admin "$@" ;;
    env) cmd_env ;;
    prometheus) cmd_prometheus "$@" ;;
    logs) cmd_logs "$@" ;;
    restart) cmd_restart "$@" ;;
    stop) case "${1:-}" in
        kwok|kube-controller-manager|kube-scheduler|node-runtime) stop_component "$1" ;;
        *) die "cannot stop '${1:-}'; choose kube-controller-manager, kube-scheduler, kwok or node-runtime" ;;
      esac ;;
    pause|resume)
      local pid
      pid="$(pid_of "${1:?usage: cluster.sh $cmd COMPONENT}" 2>/dev/null || true)"
      [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || die "$1 is not running"
      kill "$([[ $cmd == pause ]] && echo -STOP || echo -CONT)" "$pid"
      log "${cmd}d $1 (pid $pid)" ;;
    partition|heal) cmd_partition "$cmd" "$@" ;;
    compact) cmd_compact ;;
    start-process) cmd_start_process "$@" ;;
    stop-process) stop_component "extra-${1:?usage: cluster.sh stop-process NAME}" ;;
    ""|-h|--help|help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$cmd'; run 'scripts/cluster.sh help'" ;;
  esac
}

main "$@"
