# Simulated nodes for scripts/cluster.sh: each node gets its own network namespace joined to the
# host by a per-cluster bridge (addresses from 198.18.0.0/15, RFC 2544's benchmarking range, never
# routed: the namespaces have no default route and the host forwards nothing), and a host root
# copied from a node fixture. The node runtime (tests/harness/node-runtime) runs labelled pods'
# processes inside these namespaces. Sourced by cluster.sh after CLUSTER, OFFSET and STATE are set.
# shellcheck shell=bash

SIM_FIXTURES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tests/fixtures/nodes"
SIM_STORAGE_FIXTURES=(storage-cx6-ib-ipoib-bond0-el8-inbox gateway-roce-v2-gid3-doca)
SIM_GPU_FIXTURES=(gpu-client-rtxa6000-bar1-256m-peermem-mofed gpu-client-h100-dmabuf-open-inbox
  gpu-client-cross-socket-sys node-without-rdma)
SIM_MAX_NODES=240

# One /24 per cluster, chosen by the port offset (offset mod 512 indexes the /24s of the /15), so
# clusters at different offsets never share a subnet.
SIM_INDEX=$((OFFSET % 512))
SIM_NET="198.$((18 + SIM_INDEX / 256)).$((SIM_INDEX % 256))"
SIM_GATEWAY="$SIM_NET.1"
SIM_BRIDGE="$(printf 'rs%d-%s' "$SIM_INDEX" "$CLUSTER" | cut -c1-15)"  # IFNAMSIZ: 15 characters
SIM_DIR="$STATE/sim"
SIM_NODE_TABLE="$SIM_DIR/nodes.txt"
# Each node's kubelet serving certificate (the node runtime serves `kubectl logs` with it).
SIM_KUBELET_PKI="$SIM_DIR/kubelet-pki"

sim_netns() { echo "rdmastack-$CLUSTER-$1"; }   # node name -> namespace name
sim_address() { echo "$SIM_NET.$((10 + $1))"; } # node index -> address
sim_host_root() { echo "$SIM_DIR/nodes/$1/root"; }

# sim_fixture_dir NAME-OR-PATH: the fixture directory (it holds root/).
sim_fixture_dir() {
  local f="$1"
  [[ "$f" == */* ]] || f="$SIM_FIXTURES_DIR/$f"
  [[ -d "$f/root" ]] || die "node fixture '$1' not found (want a directory with root/ under $SIM_FIXTURES_DIR or a path); choose one of: $(cd "$SIM_FIXTURES_DIR" && ls -d -- */root | sed 's|/root||' | tr '\n' ' ')"
  echo "$f"
}

sim_require_tools() {
  command -v ip >/dev/null || die "ip (iproute2) is not installed; run scripts/setup.sh"
  [[ "$(id -u)" == 0 ]] || die "simulated nodes need root (network namespaces, bridges, mounts)"
}

# The bridge and its address; refuses a subnet another interface already uses.
sim_net_up() {
  local other
  other="$(ip -4 -o addr show 2>/dev/null | awk -v net="$SIM_NET." -v br="$SIM_BRIDGE" 'index($4, net) == 1 && $2 != br {print $2; exit}')"
  [[ -z "$other" ]] || die "subnet $SIM_NET.0/24 (from RDMASTACK_PORT_OFFSET=$OFFSET) is already used by interface $other; pick another offset or run 'cluster.sh down' for the cluster that owns it"
  ip link add "$SIM_BRIDGE" type bridge 2>/dev/null || die "cannot create bridge $SIM_BRIDGE (does it exist already? 'ip link del $SIM_BRIDGE')"
  ip link set "$SIM_BRIDGE" alias "rdmastack cluster $CLUSTER"
  ip addr add "$SIM_GATEWAY/24" dev "$SIM_BRIDGE"
  ip link set "$SIM_BRIDGE" up
}

# sim_kubelet_cert NAME ADDRESS: the node's kubelet serving certificate from the cluster CA, for
# its address (the API server dials the InternalIP and checks it against the CA). An EC key: a
# cluster of many nodes makes one each at every `up`.
sim_kubelet_cert() {
  local name="$1" addr="$2" base="$SIM_KUBELET_PKI/$1"
  mkdir -p "$SIM_KUBELET_PKI"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$base.key" \
    -subj "/O=system:nodes/CN=system:node:$name" -out "$base.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:%s,DNS:%s\n' \
    "$addr" "$name" >"$base.ext"
  openssl x509 -req -in "$base.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$base.ext" -out "$base.crt" 2>/dev/null ||
    die "cannot make the kubelet serving certificate of node $name"
  rm -f "$base.csr" "$base.ext"
}

# sim_node_up NAME INDEX FIXTURE_DIR: namespace, veth into the bridge, address, host root.
sim_node_up() {
  local name="$1" i="$2" fixture="$3" ns veth addr root
  ns="$(sim_netns "$name")"
  veth="rs${SIM_INDEX}v$i"
  addr="$(sim_address "$i")"
  root="$(sim_host_root "$name")"
  ip netns add "$ns" || die "cannot create network namespace $ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" alias "rdmastack cluster $CLUSTER node $name"
  ip link set "$veth" master "$SIM_BRIDGE" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  # Locally sent packets are routed before kube-proxy's DNAT, so a ClusterIP needs a route; still
  # no default route, nothing leaves the bridge.
  ip -n "$ns" route add "$SERVICE_CIDR" dev eth0 src "$addr"
  rm -rf "$(dirname "$root")"
  mkdir -p "$(dirname "$root")"
  cp -a "$fixture/root" "$root"
  # What the fixture recorded besides the tree (addresses, verbs/NVML results), where a pod can
  # mount it: hostPath /etc/rdmastack-fixture.
  mkdir -p "$root/etc/rdmastack-fixture"
  local f
  for f in ips.txt probes.txt args counters.txt; do [[ -f "$fixture/$f" ]] && cp "$fixture/$f" "$root/etc/rdmastack-fixture/"; done
  basename "$fixture" >"$root/etc/rdmastack-fixture/name"
  sim_kubelet_cert "$name" "$addr"
  printf '%s %s %s %s\n' "$name" "$ns" "$addr" "$root" >>"$SIM_NODE_TABLE"
}

# The kube-proxies cluster.sh started (they outlive a node runtime restart; `down` stops them).
sim_service_pids() { cat "$RUN"/svc-*.pid 2>/dev/null || echo none; }

# This cluster's namespaces only: the node name is matched whole, so cluster "test" never takes
# those of a cluster "test-b" beside it (rdmastack-test-b-stg-node-0 also starts "rdmastack-test-").
sim_namespaces() {
  ip netns list 2>/dev/null | awk -v p="rdmastack-$CLUSTER-" \
    'index($1, p) == 1 && substr($1, length(p) + 1) ~ /^(stg|gpu)-node-[0-9]+$/ {print $1}'
}

# Ends every process in this cluster's node namespaces: what a runtime that did not stop cleanly
# (killed, crashed) left running. SIGTERM, a second, then SIGKILL.
sim_kill_node_processes() {
  local ns pids=""
  for ns in $(sim_namespaces); do pids+=" $(ip netns pids "$ns" 2>/dev/null | grep -vxF -f <(sim_service_pids) || true)"; done
  [[ -n "${pids// /}" ]] || return 0
  log "ending processes left in the nodes' namespaces:$pids"
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  sleep 1
  pids=""
  for ns in $(sim_namespaces); do pids+=" $(ip netns pids "$ns" 2>/dev/null | grep -vxF -f <(sim_service_pids) || true)"; done
  # shellcheck disable=SC2086
  [[ -z "${pids// /}" ]] || kill -KILL $pids 2>/dev/null || true
}

# Ends what is left in the node namespaces (the runtime normally has stopped everything), then
# removes the namespaces (and with them the veths), the bridge and the host roots.
sim_net_down() {
  local ns any=0 id
  sim_kill_node_processes
  # Containers from OCI images whose runc was killed with them leave runc state and cgroups.
  if [[ -d "$SIM_DIR/runc" ]] && command -v runc >/dev/null; then
    for id in $(runc --root "$SIM_DIR/runc" list -q 2>/dev/null); do
      runc --root "$SIM_DIR/runc" delete --force "$id" >/dev/null 2>&1 || true
    done
  fi
  for ns in $(sim_namespaces); do
    ip netns del "$ns" 2>/dev/null || true
    any=1
  done
  if ip link show "$SIM_BRIDGE" >/dev/null 2>&1; then
    ip link del "$SIM_BRIDGE"
    any=1
  fi
  ((any)) && log "removed the simulated nodes' namespaces and bridge $SIM_BRIDGE"
  rm -rf "$SIM_DIR"
}

sim_leftovers() { # prints what sim_net_down would remove
  sim_namespaces
  ip link show "$SIM_BRIDGE" >/dev/null 2>&1 && echo "$SIM_BRIDGE"
  return 0
}
