#!/usr/bin/env bash
# churn.sh: delete + re-create 100 Services with EndpointSlices; time until both kube-proxies
# (stg-node-0 nftables, gpu-node-0 iptables) have the last one's rule; CPU ticks used.
source /work/kp/scripts/env.sh
KP1=$(cat /work/kp/run/kube-proxy-stg-node-0.pid); KP2=$(cat /work/kp/run/kube-proxy-gpu-node-0.pid); CD=$(cat /work/kp/run/coredns.pid)
has_nft() { ip netns exec rdmastack-kp-stg-node-0 nft list table ip kube-proxy | grep -q 'kp-test/churn-100/tcp/http'; }
has_ipt() { ip netns exec rdmastack-kp-gpu-node-0 iptables-save -t nat | grep -q 'kp-test/churn-100:http cluster IP'; }
c0() { awk '{print $14+$15}' /proc/$1/stat; }
$KC delete -f /work/kp/manifests-churn.yaml --wait=false >/dev/null 2>&1
for i in $(seq 200); do has_nft || has_ipt || break; sleep 0.2; done
sleep 3
a1=$(c0 $KP1); a2=$(c0 $KP2); a3=$(c0 $CD); t0=$(date +%s%N)
$KC apply -f /work/kp/manifests-churn.yaml >/dev/null; t1=$(date +%s%N)
for i in $(seq 300); do has_nft && break; sleep 0.1; done; t2=$(date +%s%N)
for i in $(seq 300); do has_ipt && break; sleep 0.1; done; t3=$(date +%s%N)
sleep 5
echo "apply 200 objects: $(( (t1-t0)/1000000 )) ms; last rule in nftables: +$(( (t2-t1)/1000000 )) ms after apply returned; iptables: +$(( (t3-t1)/1000000 )) ms"
echo "CPU ticks (1/$(getconf CLK_TCK) s) from apply to 5 s after: kube-proxy nftables $(( $(c0 $KP1)-a1 )), kube-proxy iptables $(( $(c0 $KP2)-a2 )), coredns $(( $(c0 $CD)-a3 ))"
for p in $KP1 $KP2 $CD; do echo "$p $(cat /proc/$p/comm) RSS $(awk '/VmRSS/{print $2}' /proc/$p/status) KiB peak $(awk '/VmHWM/{print $2}' /proc/$p/status) KiB"; done
