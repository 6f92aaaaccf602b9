# Services on the simulated nodes, as on a real cluster: a real kube-proxy (iptables mode) in each
# node's network namespace programs every Service's ClusterIP there, and a real CoreDNS answers
# cluster names at the kube-dns Service. Pods then reach the API server at the kubernetes Service
# (10.96.0.1:443), the agent hub at rdmastack-agenthub.<namespace>.svc, and the API server calls
# the webhook through its Service (--enable-aggregator-routing: it dials the endpoint itself).
# Shortcuts, each because of what this machine is: the kubernetes Service's EndpointSlice is
# written here and points at the node runtime's forwarder (the API server listens on loopback), and
# CoreDNS runs as a process on the bridge address instead of a pod. Sourced by cluster.sh after
# sim_nodes.sh.
# shellcheck shell=bash

SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SERVICE_IP=10.96.0.1
CLUSTER_DNS_IP=10.96.0.10
CLUSTER_DOMAIN=cluster.local

svc_pid_name() { echo "svc-$1"; } # pid and log files of the Service processes: svc-NAME

# The certificates (bootstrap RBAC binds system:kube-proxy to system:node-proxier; CoreDNS gets
# kubeadm's system:coredns role below) and their kubeconfigs. kube-proxy runs inside a node and
# reaches the API server through the forwarder; CoreDNS runs on the host.
services_pki() {
  make_cert kube-proxy "/CN=system:kube-proxy"
  make_cert coredns "/CN=system:coredns"
  make_kubeconfig "$STATE/kube-proxy.kubeconfig" kube-proxy
  sed -i "s|server: https://127.0.0.1:$PORT_APISERVER|server: https://$SIM_GATEWAY:$PORT_APISERVER|" "$STATE/kube-proxy.kubeconfig"
  make_kubeconfig "$STATE/coredns.kubeconfig" coredns
}

# The kubernetes Service's endpoint: with --endpoint-reconciler-type=none the API server publishes
# none, so this one names the forwarder, where a node reaches it.
publish_kubernetes_endpoint() {
  kubectl_admin apply -f - >/dev/null <<EOF2
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kubernetes
  namespace: default
  labels:
    kubernetes.io/service-name: kubernetes
    endpointslice.kubernetes.io/managed-by: cluster.sh.rdmastack.io
addressType: IPv4
endpoints:
- addresses: ["$SIM_GATEWAY"]
  conditions: {ready: true}
ports:
- {name: https, port: $PORT_APISERVER, protocol: TCP}
EOF2
}

start_cluster_dns() {
  kubectl_admin apply -f - >/dev/null <<EOF2
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}
---
apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  labels: {k8s-app: kube-dns, kubernetes.io/name: CoreDNS}
spec:
  clusterIP: $CLUSTER_DNS_IP
  ports:
  - {name: dns, port: 53, protocol: UDP}
  - {name: dns-tcp, port: 53, protocol: TCP}
  - {name: metrics, port: 9153, protocol: TCP}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kube-dns
  namespace: kube-system
  labels:
    kubernetes.io/service-name: kube-dns
    endpointslice.kubernetes.io/managed-by: cluster.sh.rdmastack.io
addressType: IPv4
endpoints:
- addresses: ["$SIM_GATEWAY"]
  conditions: {ready: true}
ports:
- {name: dns, port: 53, protocol: UDP}
- {name: dns-tcp, port: 53, protocol: TCP}
- {name: metrics, port: 9153, protocol: TCP}
EOF2
  # No forward and no loop plugin: nothing beyond this machine may be asked, so a name outside the
  # cluster gets SERVFAIL.
  cat >"$STATE/Corefile" <<EOF2
.:53 {
    bind $SIM_GATEWAY
    errors
    health $SIM_GATEWAY:8080
    ready $SIM_GATEWAY:8181
    kubernetes $CLUSTER_DOMAIN in-addr.arpa ip6.arpa {
        kubeconfig $STATE/coredns.kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    prometheus $SIM_GATEWAY:9153
    cache 30
    loadbalance
}
EOF2
  ss -Hlun "sport = :53" 2>/dev/null | grep -qE "(\*|0\.0\.0\.0|$SIM_GATEWAY):53 " &&
    die "port 53 on $SIM_GATEWAY is taken (ss -lunp 'sport = :53'); the cluster DNS binds it"
  start_bg "$(svc_pid_name coredns)" "$(coredns_bin)" -conf "$STATE/Corefile"
  wait_for coredns 60 "$LOGS/$(svc_pid_name coredns).log" curl -sf "http://$SIM_GATEWAY:8181/ready"
}

kube_proxy_config() { # node-name
  cat <<EOF2
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig, qps: 5, burst: 10}
hostnameOverride: $1
mode: iptables
bindAddress: 0.0.0.0
# Per network namespace, so every node has its own.
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
clusterCIDR: 10.244.0.0/16
# nf_conntrack_max is global and read-only outside the host's namespace: 0 leaves every conntrack
# setting as the kernel has it (the defaults make kube-proxy exit with "permission denied").
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {syncPeriod: 30s, minSyncPeriod: 1s}
nodePortAddresses: [primary]
EOF2
}

# One kube-proxy per simulated node, in its namespace; returns once each has synced its rules.
start_kube_proxies() {
  local name ns pending=()
  while read -r name ns _ _; do
    kube_proxy_config "$name" >"$STATE/kube-proxy-$name.yaml"
    start_bg "$(svc_pid_name "kube-proxy-$name")" ip netns exec "$ns" "$(kube_proxy_bin)" \
      --config="$STATE/kube-proxy-$name.yaml" --v=1
    pending+=("$name $ns")
  done <"$SIM_NODE_TABLE"
  local p
  for p in "${pending[@]}"; do
    set -- $p
    wait_for "kube-proxy on $1" 60 "$LOGS/$(svc_pid_name "kube-proxy-$1").log" \
      ip netns exec "$2" curl -sf http://127.0.0.1:10256/healthz
  done
}

start_services() {
  [[ -s "$SIM_NODE_TABLE" ]] || return 0
  services_pki
  publish_kubernetes_endpoint
  start_cluster_dns
  start_kube_proxies
}

stop_services() {
  local f
  for f in "$RUN"/svc-*.pid; do
    [[ -f "$f" ]] && stop_component "$(basename "$f" .pid)"
  done
  return 0
}
