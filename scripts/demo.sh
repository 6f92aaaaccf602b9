#!/usr/bin/env bash
# The main job, the whole story in one run: builds what it runs, starts the local control plane with
# simulated storage and GPU nodes, installs charts/rdmastack with helm and its default values (two
# operator replicas as pods of the chart's Deployment, from the operator image, under the chart's
# ServiceAccount and securityContext; leader election; every request through the API server's RBAC
# authorizer), applies the seed samples and waits for them to go Ready: node agents report from
# every selected node, gateways serve S3 on the verified storage nodes, the client data plane
# configures each eligible GPU node for its transport. Then `kubectl rdmastack` answers status and
# why, the leader pod is deleted and the standby takes over, and the pool's library moves 1.2.0.68 -> 2.0.0.109 node by node under
# S3 traffic, with its progress and the count of failed requests printed. Last, an application pod
# that names the GPU-direct profile is admitted through the operator's webhook, runs on an eligible
# node, reads that node's injected config and does an S3 PUT/GET through the pool. It leaves everything
# running; scripts/cluster.sh down stops it all.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/components.sh
source scripts/lib/components.sh
# shellcheck source=lib/background.sh
source scripts/lib/background.sh
step() { printf '\n==> %s\n' "$*"; }
t0=$SECONDS
demo_started=$(date -u +%Y-%m-%dT%H:%M:%S)  # the audit log's records sort as text against it

step "build: the demo's programs (build preset demo) and, beside them, the cluster's Go parts"
# The Go parts (control plane, kwok, CoreDNS, versitygw; cached by version under ~/.cache/rdmastack)
# build while the C++ compiles: their downloads and single-threaded links fill the gaps of the other.
components_log="$(mktemp)"
background "$components_log" scripts/cluster.sh build --up
components_pid=$LAST_BACKGROUND
trap stop_background EXIT  # a failed C++ build stops the Go builds too
cmake --preset dev >/dev/null
cmake --build --preset demo -j "$(nproc)"
wait_background "$components_pid" "$components_log" "building the cluster's parts"
grep -E '^building ' "$components_log" || true
echo "build done in $((SECONDS - t0))s"

step "local control plane: real etcd, kube-apiserver, controller-manager, scheduler; kwok nodes"
# Four storage nodes: two IPoIB nodes with bond0 (the seed's), two RoCE nodes without it. Four
# GPU nodes: the field report's A6000 (MOFED, nvidia_peermem), an H100 (open module, dma-buf), a
# cross-socket one, one without RDMA. A fresh cluster each run (the parts are cached: seconds).
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up --storage-nodes "${RDMASTACK_DEMO_STORAGE_NODES:-4}" --gpu-nodes "${RDMASTACK_DEMO_GPU_NODES:-4}"
eval "$(scripts/cluster.sh env)"
kubectl() { scripts/cluster.sh kubectl "$@"; }
# The plugin, as kubectl would find it on PATH.
rdmastack() { build/bin/kubectl-rdmastack --kubeconfig "$(scripts/cluster.sh kubeconfig)" "$@"; }
kubectl get nodes -o wide

step "helm install rdmastack charts/rdmastack by digest (CRDs, ServiceAccounts, least-privilege RBAC, operator Deployment)"
# The chart's default values, plus tests/harness/chart/simulated-nodes.yaml: the label that hands
# the chart's pods to the simulated nodes, and the fixture's recorded probes for the agents. The
# operator serves the namespace `demo` only (tenancy.namespaces; the chart grants its Secrets and
# writes there by a Role, so the namespace exists first).
kubectl get namespace demo >/dev/null 2>&1 || kubectl create namespace demo >/dev/null
# By digest: build/images/digests.yaml has the manifest digests scripts/images.sh printed
# (cluster.sh up ran it), so the operator, agent and client run as
# <registry>/<component>@sha256:..., which a simulated node resolves only to the archive whose
# manifest has exactly those bytes.
digests=build/images/digests.yaml
[[ -f "$digests" ]] || die "$digests not found; scripts/images.sh writes it"
echo "images by manifest digest ($digests, from scripts/images.sh):"
sed -n 's/^    /  /p' "$digests"
# The compatibility data with the sha256 of the library files the library images ship (the
# harness's fake libcuobj* builds), as the operator's ConfigMap: every gateway and client checks
# the bytes it loads (LibraryDigestMismatch otherwise).
kubectl get namespace rdmastack-system >/dev/null 2>&1 || kubectl create namespace rdmastack-system >/dev/null
tests/images/pinned_compatibility.sh --build-dir build >build/pinned-compatibility.yaml
kubectl create configmap rdmastack-compatibility -n rdmastack-system --dry-run=client -o yaml \
  --from-file=compatibility.yaml=build/pinned-compatibility.yaml | kubectl apply -f - >/dev/null
echo "library bytes the gateways and clients must find (ConfigMap rdmastack-system/rdmastack-compatibility):"
grep -E '^(server|client)Libraries:|^  - version:|^    sha256:' build/pinned-compatibility.yaml | sed 's/^/  /'
"$RDMASTACK_HELM" --kubeconfig "$(scripts/cluster.sh kubeconfig)" install rdmastack charts/rdmastack \
  -n rdmastack-system --create-namespace -f tests/harness/chart/simulated-nodes.yaml \
  -f "$digests" --set operator.compatibilityConfigMap=rdmastack-system/rdmastack-compatibility \
  --set 'tenancy.namespaces={demo}' --wait --timeout=180s
echo "the operator's image, and the agent's and client's it deploys:"
kubectl get deploy rdmastack-operator -n rdmastack-system \
  -o jsonpath='{.spec.template.spec.containers[0].image}{"\n"}{range .spec.template.spec.containers[0].args[*]}{@}{"\n"}{end}' |
  grep -E '^[^-].*@sha256:|^--(agent|client)-image=.*@sha256:'
kubectl get crd -l '!nothing' -o name | grep rdmastack.io
kubectl get sa,role,lease,secret,configmap,svc -n rdmastack-system -l app.kubernetes.io/instance=rdmastack
kubectl wait --for=condition=Established crd/gatewaypools.rdmastack.io crd/clientprofiles.rdmastack.io \
  crd/rdmanodes.rdmastack.io --timeout=60s >/dev/null

step "the seed samples (pool kvcache on the storage nodes, a GPU-direct and a host-memory profile)"
kubectl apply -n demo -f crds/samples/gatewaypool-kvcache.yaml -f crds/samples/clientprofile-gpudirect.yaml \
  -f crds/samples/clientprofile-hostmem.yaml
echo
echo "A bad change is refused at apply time, with the field and the reason (library 1.2.0.68 -> 3.0.0.1):"
sed 's/version: 1.2.0.68/version: 3.0.0.1/' crds/samples/gatewaypool-kvcache.yaml |
  kubectl apply -n demo --dry-run=server -f - 2>&1 | grep -v '^secret/' || true

step "operator: the chart's Deployment, two pods from the operator image; the leader serves the agent hub"
logs="$(mktemp -d)"
kubectl get deploy rdmastack-operator -n rdmastack-system -o wide
kubectl get pods -n rdmastack-system -l app.kubernetes.io/name=rdmastack-operator -o wide
holder() { kubectl get lease -n rdmastack-system rdmastack-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
for _ in $(seq 1 60); do [[ -n "$(holder)" ]] && break; sleep 0.5; done
# The holder identity is POD_RANDOM: the leader's pod name before the underscore.
leader=$(holder) && leader=${leader%%_*}
echo "lease rdmastack-system/rdmastack-operator is held by pod $leader"
oplog() { scripts/cluster.sh logs -n rdmastack-system "$1" 2>/dev/null || true; }
echo "its container runs as: $(kubectl get pod "$leader" -n rdmastack-system -o go-template='uid {{.spec.securityContext.runAsUser}}, {{with index .spec.containers 0}}readOnlyRootFilesystem {{.securityContext.readOnlyRootFilesystem}}, image {{.image}}{{end}}')"
echo "it reaches the API server in-cluster: $(oplog "$leader" | grep -o 'against https://[^ ]*, config: [a-z-]*' | head -1)"

step "conditions Ready: agents report, gateways serve, clients configure their nodes"
kubectl wait --for=condition=Ready gwp/kvcache -n demo --timeout=300s
kubectl wait --for=condition=Ready cprof/kvcache-gpudirect cprof/kvcache-hostmem -n demo --timeout=300s
kubectl wait --for=condition=Reporting rnode --all --timeout=60s >/dev/null
echo
echo '$ kubectl rdmastack status'
rdmastack status
echo
echo "Each gateway checked its libcuobjserver's bytes and each client its libcuobjclient's against the"
echo "pinned sha256 before loading or installing them (a library of other bytes: LibraryDigestMismatch):"
kubectl get ds -n demo -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.template.spec.containers[0].env[?(@.name=="RDMASTACK_GW_SERVER_LIB_SHA256")].value}{" "}{.spec.template.spec.containers[0].args}{"\n"}{end}' |
  sed -E 's/ \[.*"(libcuobjclient[^"]*)".*/ \1/; s/ \[.*//' | awk 'NF > 1 { printf "  %-36s %s\n", $1, $2 }' | tee "$logs/pins.txt"
grep -q 'gateway.* [0-9a-f]\{64\}$' "$logs/pins.txt" && grep -q 'libcuobjclient.so.*=[0-9a-f]\{64\}$' "$logs/pins.txt" ||
  die "the gateways and clients were not given the pinned library digests"
echo
echo "Every pod of the operator, the agents, the gateways and the clients runs its image, started by runc"
echo "on its node from the OCI archive (the gateways' vgwrdma images are built FROM the gateway image):"
for ns in rdmastack-system demo; do
  kubectl get pods -n "$ns" --no-headers \
    -o custom-columns='NAMESPACE:.metadata.namespace,POD:.metadata.name,NODE:.spec.nodeName,IMAGE:.spec.containers[0].image'
done | awk '{ img[$4]++; if (!($4 in node)) node[$4] = $2 " on " $3 }
            END { for (i in img) printf "  %-52s %2d pod(s), e.g. %s\n", i, img[i], node[i] }' | sort
echo "containers running under runc on the simulated nodes: $(pgrep -fc 'runc.* run --bundle' || true)"

step "S3 through the pool: SigV4 PUT/GET at a published endpoint"
kubectl get endpointslices -n demo -L gatewaypool.rdmastack.io/library-version
ep_ip=$(kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache \
  -o jsonpath='{.items[0].endpoints[0].addresses[0]}')
ep_port=$(kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache \
  -o jsonpath='{.items[0].ports[?(@.name=="s3")].port}')
# versitygw wants x-amz-content-sha256, which curl 7.88 does not add by itself.
s3() { curl -sS --fail-with-body --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" --user kvcache-root:change-me-please \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
s3 -X PUT "http://$ep_ip:$ep_port/demo-bucket" >/dev/null && echo "PUT /demo-bucket at $ep_ip:$ep_port: ok"
echo "hello from the kvcache pool" >"$logs/object.txt"
s3 -X PUT -T "$logs/object.txt" "http://$ep_ip:$ep_port/demo-bucket/hello.txt" >/dev/null && echo "PUT /demo-bucket/hello.txt: ok"
echo "GET /demo-bucket/hello.txt: $(s3 "http://$ep_ip:$ep_port/demo-bucket/hello.txt")"

step "GPU clients: each node's transport from its agent's report, and what the client wrote there"
# A simulated node's host root (RDMASTACK_SIM_NODES: NAME NETNS ADDRESS HOST_ROOT per line).
gpu_root() { awk -v n="$1" '$1==n {print $4}' "$RDMASTACK_SIM_NODES"; }
dir=/var/lib/rdmastack/client/demo.kvcache-gpudirect
root1=$(gpu_root gpu-node-1)
echo "gpu-node-1 (open kernel module: dma-buf), $dir: $(ls "$root1$dir" | tr '\n' ' ')"
echo "  cuobj.json: $(cat "$root1$dir/cuobj.json")"
echo "gpu-node-0 (the field report's A6000, proprietary module + MOFED): $(cat "$(gpu_root gpu-node-0)$dir/cuobj.json")"
echo
echo '$ kubectl rdmastack why gpu-node-2'
rdmastack why gpu-node-2 || true

step "kubectl delete pod (the leader): the standby takes the lease and the hub; the agents reconnect to it"
nodes=$(kubectl get rnode -o name | wc -l)
t_handover=$SECONDS
kubectl delete pod "$leader" -n rdmastack-system --wait=false
# The lease goes to the standby or to the pod the ReplicaSet starts in the deleted one's place,
# whichever asks first once the old leader released it.
new="" accepted=0
for _ in $(seq 1 240); do
  new=$(holder) && new=${new%%_*}
  if [[ -n "$new" && "$new" != "$leader" ]]; then
    accepted=$(oplog "$new" | grep -c "accepted agent" || true)
    ((accepted >= nodes)) && break
  fi
  sleep 0.5
done
echo "lease now held by pod $new ($(kubectl get pod "$new" -n rdmastack-system -o jsonpath='{.metadata.creationTimestamp}' 2>/dev/null | sed 's/^/created /'))"
echo "agents accepted by the new leader: $accepted of $nodes, $((SECONDS - t_handover))s after the delete"
# Only the leader listens; its pod carries rdmastack.io/agent-hub=serving, which the Service selects.
echo "agent hub Service endpoints: $(kubectl get endpointslices -n rdmastack-system -l kubernetes.io/service-name=rdmastack-agenthub \
  -o jsonpath='{.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}') (the new leader's pod: $(kubectl get pod "$new" \
  -n rdmastack-system -o jsonpath='{.status.podIP}' 2>/dev/null))"
echo "status writes (RdmaNodes, pools, profiles) by the new leader: $(oplog "$new" | grep -c "status written" || true)"
handover="done"
[[ -n "$new" && "$new" != "$leader" ]] && ((accepted >= nodes)) || handover="$accepted of $nodes agents reconnected, lease held by '$(holder)'"
kubectl rollout status deploy/rdmastack-operator -n rdmastack-system --timeout=120s
kubectl get pods -n rdmastack-system -l app.kubernetes.io/name=rdmastack-operator -o wide

step "rolling upgrade 1.2.0.68 -> 2.0.0.109 under S3 traffic, node by node"
# A client in the background: re-reads the EndpointSlices before every request, as a client's
# cache would, PUTs an object to a ready endpoint and GETs it back; no retries, every failure counts.
for ip in $(kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache \
  -o jsonpath='{.items[*].endpoints[*].addresses[0]}'); do
  s3 -X PUT "http://$ip:$ep_port/traffic" >/dev/null 2>&1 || true
done
# "PORT IP" of one ready endpoint of the pool, picked at random, as a client's balancer would.
ready_endpoint() {
  kubectl get endpointslices -n demo -l gatewaypool.rdmastack.io/name=kvcache -o json | python3 -c '
import json, random, sys
ready = [(p["port"], e["addresses"][0]) for s in json.load(sys.stdin)["items"]
         for p in s.get("ports") or [] if p.get("name") == "s3"
         for e in s.get("endpoints") or [] if (e.get("conditions") or {}).get("ready")]
if ready: print(*random.choice(ready))'
}
traffic() {
  local n=0 ok=0 fail=0 port ip
  while [[ ! -f "$logs/stop-traffic" ]]; do
    read -r port ip < <(ready_endpoint) || continue
    head -c 8192 /dev/urandom >"$logs/body"
    if s3 -X PUT -T "$logs/body" "http://$ip:$port/traffic/o-$n" >/dev/null 2>>"$logs/traffic.err" &&
      s3 "http://$ip:$port/traffic/o-$n" 2>>"$logs/traffic.err" | cmp -s - "$logs/body"; then
      ok=$((ok + 1))
    else
      fail=$((fail + 1)); echo "request $n via $ip:$port failed" >>"$logs/traffic.err"
    fi
    n=$((n + 1))
    echo "$ok $fail" >"$logs/traffic"
  done
}
traffic &
traffic_pid=$!
sleep 3
# The 2.0 sample as it is, with a 5 s drain instead of 30 s to keep the demo short.
sed 's/drainSeconds: 30/drainSeconds: 5/' crds/samples/gatewaypool-kvcache-2.0.yaml | kubectl apply -n demo -f -
echo '$ kubectl rdmastack upgrade kvcache -n demo'
rdmastack upgrade kvcache -n demo | sed -n '1,/^$/p'
echo "progress (each change of a node's phase):"
last="" upgrade="not done within 300s"
for _ in $(seq 1 300); do
  # The node rows and the progress line, without the ages that change every second.
  now=$(rdmastack upgrade kvcache -n demo 2>/dev/null | grep -E '^(Progress|stg-node)' |
    sed -E 's/ +[0-9]+[smh]( +)/\1/' || true)
  [[ "$now" != "$last" ]] && { echo "$now" | sed 's/^/  /'; echo "  --"; last="$now"; }
  [[ "$(kubectl get gwp kvcache -n demo -o jsonpath='{.status.conditions[?(@.type=="Upgrading")].reason}')" == UpToDate &&
     "$(kubectl get gwp kvcache -n demo -o jsonpath='{.status.library}')" == 2.0.0.109 ]] && { upgrade="done"; break; }
  sleep 1
done
echo '$ kubectl rdmastack upgrade kvcache -n demo'
rdmastack upgrade kvcache -n demo
sleep 2
touch "$logs/stop-traffic"; wait "$traffic_pid" || true
read -r ok fail <"$logs/traffic"
echo "S3 traffic during the upgrade: $((ok + fail)) PUT+GET pairs, $fail failed"
((fail == 0)) || head -5 "$logs/traffic.err"
kubectl get endpointslices -n demo -L gatewaypool.rdmastack.io/library-version
echo "GET /demo-bucket/hello.txt (written through 1.x) from the same node's 2.x gateway $ep_ip:7072: $(s3 "http://$ep_ip:7072/demo-bucket/hello.txt")"
echo
echo "the clients follow: gpu-node-1's endpoints.json once the kubelet refreshed its ConfigMap volume:"
for _ in $(seq 1 90); do grep -q 7071 "$root1$dir/endpoints.json" || break; sleep 1; done
cat "$root1$dir/endpoints.json"; echo

step "an application pod names the GPU-direct profile; the webhook gives it RDMA and its node's config"
# The webhook admits the pod only while the profile counts a Ready client (it refuses with what to
# do otherwise). A client is not Ready between its old endpoints going away and its next pass over
# the refreshed list, so wait for one, as a user would after an upgrade.
for _ in $(seq 1 120); do
  [[ "$(kubectl get cprof kvcache-gpudirect -n demo -o jsonpath='{.status.nodeCounts.ready}' || true)" =~ ^[1-9] ]] && break
  sleep 1
done
echo "kvcache-gpudirect clients Ready: $(kubectl get cprof kvcache-gpudirect -n demo -o jsonpath='{.status.nodeCounts.readyOfEligible}')"
# crds/samples/workload-pod-gpudirect.yaml: only the label rdmastack.io/client-profile, no device,
# no capability, no mount; here also rdmastack.io/simulate=run, so that the simulated node runs it.
for _ in $(seq 1 60); do
  [[ -n "$(kubectl get mutatingwebhookconfiguration rdmastack-clientprofile-injector \
    -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ]] && break
  sleep 0.5
done
kubectl label --local -f crds/samples/workload-pod-gpudirect.yaml rdmastack.io/simulate=run -o yaml |
  kubectl apply -n demo -f -
kubectl get pod s3-smoke -n demo -o go-template='injected: {{index .metadata.annotations "clientprofile.rdmastack.io/injected"}}
node affinity: {{range (index .spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms 0).matchExpressions}}{{.key}} {{.operator}} {{.values}}{{end}}
{{with index .spec.containers 0}}limits: {{.resources.limits}}
capabilities: {{.securityContext.capabilities.add}}
mounts: {{range .volumeMounts}}{{.mountPath}}{{if .readOnly}} (read-only){{end}} {{end}}
env: {{range .env}}{{if .value}}{{.name}}={{.value}} {{else if .valueFrom.secretKeyRef}}{{.name}} from Secret {{.valueFrom.secretKeyRef.name}} {{end}}{{end}}{{end}}
'
kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/s3-smoke -n demo --timeout=120s >/dev/null ||
  kubectl get pod s3-smoke -n demo -o wide
echo "$ scripts/cluster.sh logs -n demo s3-smoke"
scripts/cluster.sh logs -n demo s3-smoke | tee "$logs/s3-smoke.log"
app_phase=$(kubectl get pod s3-smoke -n demo -o jsonpath='{.status.phase}')
app="phase $app_phase, no PUT+GET in its log"
[[ $app_phase == Succeeded ]] && grep -q '^PUT+GET .*: written by gpu-node-' "$logs/s3-smoke.log" && app="done"
echo
echo "A pod naming a profile without spec.workload is refused at admission, saying why:"
sed 's/client-profile: kvcache-gpudirect/client-profile: kvcache-hostmem/' crds/samples/workload-pod-gpudirect.yaml |
  kubectl create -n demo --dry-run=server -f - 2>&1 || true

step "proving the deployment: PUT/GET throughput as the profile's pods see it (docs/operations.md#proving-a-deployment)"
# A Job of the profile (the webhook's injection, the profile's S3 user), every object verified and
# removed. rdmastack.io/simulate=run makes the simulated node run the Job's pod.
echo '$ kubectl rdmastack bench kvcache-gpudirect -n demo --size 4Mi --streams 1,2,4 --pod-label rdmastack.io/simulate=run'
bench=fail
rdmastack bench kvcache-gpudirect -n demo --size 4Mi --streams 1,2,4 \
  --pod-label rdmastack.io/simulate=run | tee "$logs/bench.txt" && bench="done"

step "metrics: what a Prometheus bound to the chart's metrics-reader role scrapes (docs/operations.md#metrics)"
# A scraper identity as a Prometheus would have it; the operator reviews its token with the API server.
kubectl create serviceaccount demo-scraper -n rdmastack-system --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl create clusterrolebinding demo-scraper --clusterrole=rdmastack-metrics-reader \
  --serviceaccount=rdmastack-system:demo-scraper --dry-run=client -o yaml | kubectl apply -f - >/dev/null
scraped=$(kubectl get lease rdmastack-operator -n rdmastack-system -o jsonpath='{.spec.holderIdentity}')
scraped=${scraped%%_*}
scrape_ip=$(kubectl get pod "$scraped" -n rdmastack-system -o jsonpath='{.status.podIP}')
curl -sk -H "Authorization: Bearer $(scripts/cluster.sh token rdmastack-system demo-scraper)" \
  "https://$scrape_ip:8443/metrics" >"$logs/metrics.txt" || true
echo "\$ curl -sk -H 'Authorization: Bearer ...' https://$scrape_ip:8443/metrics   # the leader, $scraped"
grep -E '^rdmastack_(gatewaypool_(nodes|endpoints|upgrade_in_progress)|clientprofile_clients)\{|^rdmastack_gatewaypool_condition\{.*type="Ready".*status="True"|^rdmastack_node_agent_report_age_seconds\{node="stg-node-0"' \
  "$logs/metrics.txt" || echo "(no rdmastack series in the scrape; see $logs/metrics.txt)"
# Pools whose Ready condition the scrape reports True, of the pools it reports.
metrics_pools=$(awk '/^rdmastack_gatewaypool_condition\{/ && /type="Ready"/ && /status="True"/ {n++; if ($NF == 1) r++}
  END {printf "%d/%d\n", r, n}' "$logs/metrics.txt")

step "final status"
echo '$ kubectl rdmastack status'
rdmastack status
# Only this run's records (the audit log outlives `cluster.sh down`), and only what RBAC refused:
# a 403 from admission (an Event in a namespace being deleted) is not an authorization refusal.
denied=$(awk -v since="$demo_started" '
  index($0, "\"username\":\"system:serviceaccount:rdmastack-system:rdmastack-operator\"") &&
  index($0, "\"authorization.k8s.io/decision\":\"forbid\"") &&
  match($0, /"requestReceivedTimestamp":"[^"]*"/) &&
  substr($0, RSTART + 28, RLENGTH - 29) >= since { n++ }
  END { print n + 0 }' "$RDMASTACK_AUDIT_LOG")
echo "requests of the operator's ServiceAccount that RBAC refused in this run (audit log): $denied"

# One block a machine can check (.ci/run does, with scripts/check-demo-summary.sh): what the story
# above showed, counted again from the cluster and the audit log.
ready_of() { # KIND: "ready/total" of the kind's Ready conditions, every namespace
  kubectl get "$1" -A -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
    awk '{n++} $1=="True"{r++} END{printf "%d/%d\n", r, n}'
}
pools=$(ready_of gatewaypools) profiles=$(ready_of clientprofiles)
operator_pods=$(kubectl get deploy rdmastack-operator -n rdmastack-system \
  -o go-template='{{or .status.readyReplicas 0}}/{{.spec.replicas}}')
all_ready() { [[ ${1%/*} == "${1#*/}" && ${1#*/} -gt 0 ]]; }
result=pass
all_ready "$pools" && all_ready "$profiles" && all_ready "$operator_pods" && [[ $handover == "done" ]] &&
  [[ $upgrade == "done" ]] && ((fail == 0 && ok > 0)) &&
  [[ $app == "done" ]] && [[ $bench == "done" ]] && ((denied == 0)) && all_ready "$metrics_pools" ||
  result=fail
step "summary"
cat <<EOF
--- demo summary ---
gatewaypools_ready=$pools
clientprofiles_ready=$profiles
operator_pods_ready=$operator_pods
leader_handover=$handover
upgrade=$upgrade
upgrade_s3_requests=$((ok + fail))
upgrade_s3_failed=$fail
app_pod_put_get=$app
bench_verified=$bench
operator_requests_refused=$denied
metrics_pools_ready=$metrics_pools
result=$result
--- end demo summary ---
EOF

echo
echo "done in $((SECONDS - t0))s ($result). Everything keeps running:"
echo "  kubectl:   scripts/cluster.sh kubectl get gwp,cprof -A   (kubeconfig: $(scripts/cluster.sh kubeconfig))"
echo "  plugin:    build/bin/kubectl-rdmastack --kubeconfig $(scripts/cluster.sh kubeconfig) status"
echo "  operator:  scripts/cluster.sh logs -n rdmastack-system POD   (kubectl get pods -n rdmastack-system)"
echo "  stop all:  scripts/cluster.sh down"
[[ $result == pass ]]
