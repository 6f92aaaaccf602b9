# Shared settings for the kp cluster: HEAD clone of /work/main, state under /work/kp/cache.
export RDMASTACK_CLUSTER=kp RDMASTACK_PORT_OFFSET=80 RDMASTACK_CACHE=/work/kp/cache RDMASTACK_BUILD_DIR=/work/kp/rtbuild
KP=/work/kp; ST=$RDMASTACK_CACHE/clusters/kp; KBIN=$KP/cache/kubectl-2.0.1/bin/kubectl
KC="$KBIN --kubeconfig $ST/kubeconfig"
KPROXY=$KP/build/kube-proxy/bin/kube-proxy; COREDNS=$KP/build/coredns/bin/coredns
