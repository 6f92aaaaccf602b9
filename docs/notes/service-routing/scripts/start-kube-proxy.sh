#!/usr/bin/env bash
# start-kube-proxy.sh NODE MODE : kube-proxy in the node's netns; prints ms until KUBE-SERVICES
# holds the web Service's rule.
set -euo pipefail
source /work/kp/scripts/env.sh
node="$1" mode="${2:-iptables}" ns="rdmastack-kp-$1"
cfg=/work/kp/run/kube-proxy-$node-$mode.yaml
sed -e "s/^hostnameOverride: .*/hostnameOverride: $node/" -e "s/^mode: .*/mode: $mode/" \
  /work/kp/run/kube-proxy-stg-node-0.yaml >"$cfg"
t0=$(date +%s%N)
setsid ip netns exec "$ns" "$KPROXY" --config="$cfg" --v=2 >/work/kp/run/kube-proxy-$node-$mode.log 2>&1 </dev/null &
echo $! >/work/kp/run/kube-proxy-$node.pid
for i in $(seq 1 300); do
  if [[ $mode == iptables ]]; then
    ip netns exec "$ns" iptables-save -t nat 2>/dev/null | grep -q 'kp-test/web:http cluster IP' && break
  else
    ip netns exec "$ns" nft list table ip kube-proxy 2>/dev/null | grep -q 'kp-test/web' && break
  fi
  sleep 0.05
done
t1=$(date +%s%N)
echo "$node $mode: rules after $(( (t1 - t0) / 1000000 )) ms (pid $(cat /work/kp/run/kube-proxy-$node.pid))"
