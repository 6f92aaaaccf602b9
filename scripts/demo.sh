#!/usr/bin/env bash
# The main job: builds everything, starts the local control plane with simulated storage and GPU
# nodes, installs the CRDs and the seed samples, runs two operator replicas (leader election): the
# leader keeps the agent DaemonSet, the real node agent runs on every simulated node against its
# fixture host root and reports to the leader's agent hub, and the nodes' verdicts appear as
# RdmaNodes and node labels. The seed GatewayPool goes Ready: its gateways run on the storage
# nodes whose agents verified them, published as EndpointSlices, and S3 answers through one of
# them. Both seed ClientProfiles go Ready on the GPU nodes that qualify: the operator decides each
# node's transport from its agent's report, the real client data plane runs there and writes the
# node's cuFile/cuObject configuration, and nodes that cannot are listed with the reason. A
# hand-over to the standby follows; the agents reconnect to it. The pool's library is upgraded to
# 2.0.0.109 node by node, and the clients' configuration follows. Then what the agent says about
# the field report's RTX A6000 node. Leaves the cluster running; stop it with
# scripts/cluster.sh down.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/components.sh
source scripts/lib/components.sh
step() { printf '\n==> %s\n' "$*"; }

step "build"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)"

step "local control plane"
# Four storage nodes: two IPoIB nodes with bond0 (the seed's), two RoCE nodes without it. A fresh
# cluster each run (the parts are cached: seconds), so that the story starts from nothing.
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up --storage-nodes "${RDMASTACK_DEMO_STORAGE_NODES:-4}" --gpu-nodes "${RDMASTACK_DEMO_GPU_NODES:-4}"
eval "$(scripts/cluster.sh env)"
kubectl() { scripts/cluster.sh kubectl "$@"; }

step "nodes"
kubectl get nodes -o wide

step "CRDs and the seed samples (pool kvcache on the storage nodes, two client profiles)"
kubectl apply --server-side --force-conflicts -f crds/ >/dev/null
kubectl wait --for=condition=Established crd/gatewaypools.rdmastack.io crd/clientprofiles.rdmastack.io \
  crd/rdmanodes.rdmastack.io --timeout=60s >/dev/null
kubectl get namespace demo >/dev/null 2>&1 || kubectl create namespace demo >/dev/null
kubectl apply -n demo -f crds/samples/gatewaypool-kvcache.yaml -f crds/samples/clientprofile-gpudirect.yaml \
  -f crds/samples/clientprofile-hostmem.yaml
kubectl get gwp,cprof -n demo
echo "(no operator yet: the status columns are empty)"
echo
echo "A bad change is refused at apply time, with the field and the reason (library 1.2.0.68 -> 3.0.0.1):"
sed 's/version: 1.2.0.68/version: 3.0.0.1/' crds/samples/gatewaypool-kvcache.yaml |
  kubectl apply -n demo --dry-run=server -f - 2>&1 | grep -v '^secret/' || true

step "operator: two replicas with leader election; the leader serves the agent hub"
kubectl get namespace rdmastack-system >/dev/null 2>&1 || kubectl create namespace rdmastack-system >/dev/null
# The agent's ServiceAccount (no API permissions) comes from the chart.
"$RDMASTACK_HELM" template rdmastack charts/rdmastack -n rdmastack-system \
  --show-only templates/agent-serviceaccount.yaml | kubectl apply -n rdmastack-system -f - >/dev/null
logs="$(mktemp -d)"
hub="$RDMASTACK_SIM_GATEWAY:9443"
# Simulated nodes run pods labelled rdmastack.io/simulate=run as real processes; the agent reads
# the recorded probe results of its node's fixture from the host root.
op_args=(--kubeconfig "$(scripts/cluster.sh kubeconfig)" --leader-elect --metrics-bind-address=0
  --agent-bind-address "$hub" --agent-hub-address "$hub" --agent-pod-label rdmastack.io/simulate=run
  --agent-arg=--ips-file=/host/etc/rdmastack-fixture/ips.txt
  --agent-arg=--probes-file=/host/etc/rdmastack-fixture/probes.txt
  --gateway-pod-label rdmastack.io/simulate=run
  --gateway-env=RDMASTACK_GW_IPS_FILE=/host/etc/rdmastack-fixture/ips.txt
  --gateway-host-mount=/etc/rdmastack-fixture
  --client-pod-label rdmastack.io/simulate=run
  --client-arg=--ips-file=/host/etc/rdmastack-fixture/ips.txt
  --client-arg=--probes-file=/host/etc/rdmastack-fixture/probes.txt)
build/bin/rdmastack-operator "${op_args[@]}" --health-probe-bind-address=127.0.0.1:18081 >"$logs/a.log" 2>&1 &
op_a=$!
build/bin/rdmastack-operator "${op_args[@]}" --health-probe-bind-address=127.0.0.1:18082 >"$logs/b.log" 2>&1 &
op_b=$!
trap 'kill $op_a $op_b 2>/dev/null || true' EXIT
holder() { kubectl get lease -n rdmastack-system rdmastack-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
for _ in $(seq 1 60); do [[ -n "$(holder)" ]] && break; sleep 0.5; done
echo "lease rdmastack-system/rdmastack-operator is held by: $(holder)"
# Both replicas sync their caches (the standby too, so that it can take over at once).
ready() { [[ "$(curl -s "http://127.0.0.1:$1/readyz")" == ok* ]]; }
for _ in $(seq 1 60); do ready 18081 && ready 18082 && break; sleep 0.5; done
echo "readyz: a=$(curl -s http://127.0.0.1:18081/readyz) b=$(curl -s http://127.0.0.1:18082/readyz)"
leader=$op_a leader_log="$logs/a.log" standby_log="$logs/b.log"
grep -q "$(holder)" "$logs/b.log" && { leader=$op_b; leader_log="$logs/b.log"; standby_log="$logs/a.log"; }

step "agents on every node report to the hub: RdmaNodes and node labels"
nodes=$(kubectl get nodes -o name | wc -l)
for _ in $(seq 1 120); do
  (($(kubectl get rnode -o name 2>/dev/null | wc -l) >= nodes)) && break
  sleep 0.5
done
kubectl wait --for=condition=Reporting rnode --all --timeout=60s >/dev/null
kubectl get pods -n rdmastack-system -o wide
kubectl get rnode
kubectl get nodes -L rdmastack.io/gateway-capable,rdmastack.io/gpudirect,rdmastack.io/hostmem,rdmastack.io/link-layer

step "the seed GatewayPool: gateways on the verified storage nodes, published as EndpointSlices"
kubectl wait --for=condition=Ready gwp/kvcache -n demo --timeout=240s >/dev/null
kubectl get gwp -n demo -o wide
kubectl get ds,pods -n demo -o wide
kubectl get endpointslices -n demo -L gatewaypool.rdmastack.io/library-version
echo
echo "nodes the pool cannot use, and why:"
kubectl get gwp kvcache -n demo -o jsonpath='{range .status.failingNodes[*]}{.node}: {.reason}: {.message}{"\n"}{end}'
ep_ip=$(kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache \
  -o jsonpath='{.items[0].endpoints[0].addresses[0]}')
ep_port=$(kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache \
  -o jsonpath='{.items[0].ports[?(@.name=="s3")].port}')
echo
echo "S3 with SigV4 through the published endpoint $ep_ip:$ep_port (curl --aws-sigv4, the sample's root keys):"
# versitygw wants x-amz-content-sha256, which curl 7.88 does not add by itself.
s3() { curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user kvcache-root:change-me-please \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
s3 -X PUT "http://$ep_ip:$ep_port/demo-bucket" >/dev/null && echo "PUT /demo-bucket: ok"
echo "hello from the kvcache pool" >"$logs/object.txt"
s3 -X PUT -T "$logs/object.txt" "http://$ep_ip:$ep_port/demo-bucket/hello.txt" >/dev/null && echo "PUT /demo-bucket/hello.txt: ok"
echo "GET /demo-bucket/hello.txt: $(s3 "http://$ep_ip:$ep_port/demo-bucket/hello.txt")"

step "the client profiles: each GPU node's transport decided from its agent's report, clients Ready"
kubectl wait --for=condition=Ready cprof/kvcache-gpudirect cprof/kvcache-hostmem -n demo --timeout=300s >/dev/null
kubectl get cprof -n demo -o wide
for p in kvcache-gpudirect kvcache-hostmem; do
  echo
  echo "$p: per node"
  kubectl get cprof "$p" -n demo -o jsonpath='{range .status.eligibleNodes[*]}  {.node}: {.transport} {.memoryRegistration} ready={.ready}: {.message}{"\n"}{end}{range .status.ineligibleNodes[*]}  {.node}: {.reason}: {.message}{"\n"}{end}'
done
echo
kubectl get nodes -l node-role.rdmastack.io/gpu -L rdmastack.io/client.demo.kvcache-gpudirect,rdmastack.io/client.demo.kvcache-hostmem
# A simulated node's host root (RDMASTACK_SIM_NODES: NAME NETNS ADDRESS HOST_ROOT per line).
gpu_root() { awk -v n="$1" '$1==n {print $4}' "$RDMASTACK_SIM_NODES"; }
dir=/var/lib/rdmastack/client/demo.kvcache-gpudirect
echo
echo "what the client wrote on gpu-node-1 (open kernel module: dma-buf) under $dir:"
root1=$(gpu_root gpu-node-1)
ls "$root1$dir" "$root1$dir/lib"
echo "cuobj.json:    $(cat "$root1$dir/cuobj.json")"
echo "endpoints.json: $(cat "$root1$dir/endpoints.json")"
echo "and on gpu-node-0 (the seed's A6000, proprietary module + MOFED): $(cat "$(gpu_root gpu-node-0)$dir/cuobj.json")"

step "SIGTERM to the leader: the standby takes the lease and the hub; the agents reconnect to it"
kill -TERM "$leader"; wait "$leader" || true
for _ in $(seq 1 120); do
  (($(grep -c "accepted agent" "$standby_log") >= nodes)) && break
  sleep 0.5
done
echo "lease now held by: $(holder)"
grep -E "acquired lease|agenthub: listening" "$standby_log" | tail -2
echo "agents accepted by the new leader: $(grep -c "accepted agent" "$standby_log") of $nodes"
echo "status writes (RdmaNodes, pools, profiles) by the new leader: $(grep -c "status written" "$standby_log" || true)"
kubectl get rnode
kubectl get gwp,cprof -n demo

step "rolling upgrade 1.2.0.68 -> 2.0.0.109 (SideBySide): node by node, new gateway beside the old"
# The 2.0 sample as it is, with a 5 s drain instead of 30 s to keep the demo short.
sed 's/drainSeconds: 30/drainSeconds: 5/' crds/samples/gatewaypool-kvcache-2.0.yaml | kubectl apply -n demo -f -
last=""
cols='LIBRARY:.status.library,UPGRADED:.status.currentUpgrade.progress,PHASES:.status.currentUpgrade.phases,UPGRADING:.status.conditions[?(@.type=="Upgrading")].reason'
for _ in $(seq 1 240); do
  now=$(kubectl get gwp kvcache -n demo --no-headers -o custom-columns="$cols" 2>/dev/null)
  [[ "$now" != "$last" ]] && { echo "$now"; last="$now"; }
  [[ "$(kubectl get gwp kvcache -n demo -o jsonpath='{.status.conditions[?(@.type=="Upgrading")].reason}')" == UpToDate ]] && break
  sleep 1
done
kubectl get events -n demo --field-selector reason=UpgradeSwitch -o custom-columns=NODE:.related.name,MESSAGE:.message
kubectl get gwp -n demo -o wide
kubectl get endpointslices -n demo -L gatewaypool.rdmastack.io/library-version
echo "GET /demo-bucket/hello.txt (written through 1.x) from the same node's 2.x gateway $ep_ip:7072: $(s3 "http://$ep_ip:7072/demo-bucket/hello.txt")"
echo
echo "the clients follow: gpu-node-1's endpoints.json once the kubelet refreshed its ConfigMap volume:"
for _ in $(seq 1 90); do grep -q 7071 "$root1$dir/endpoints.json" || break; sleep 1; done
cat "$root1$dir/endpoints.json"; echo
kubectl get cprof -n demo
kill -TERM $op_a $op_b 2>/dev/null || true
wait 2>/dev/null || true
trap - EXIT

step "node agent on an RTX A6000 node asked for 224Mi transfers (fixture from the field report)"
fx=tests/fixtures/nodes/gpu-client-rtxa6000-224mi-bar1-too-small
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 224Mi --output table || true

step "the same node at 192Mi"
build/bin/rdmastack-agent check --root "$fx/root" --ips-file "$fx/ips.txt" --probes-file "$fx/probes.txt" \
  --role client --max-transfer-size 192Mi --output table | sed -n '/VERDICTS/,$p' || true

echo
echo "kubeconfig: $(scripts/cluster.sh kubeconfig)   stop: scripts/cluster.sh down"
