#!/usr/bin/env bash
# incluster-kubectl.sh NETNS ARGS... : kubectl with in-cluster config (KUBERNETES_SERVICE_HOST/PORT
# = the kubernetes Service ClusterIP, token at the standard path) inside the node's netns, with a
# private mount namespace for /run/secrets.
ns="$1"; shift
exec ip netns exec "$ns" unshare -m --propagation private bash -c '
  mount -t tmpfs kp-secrets /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
  cp /work/kp/run/sa/* /run/secrets/kubernetes.io/serviceaccount/ &&
  env -u KUBECONFIG HOME=/nonexistent KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
    /work/kp/cache/kubectl-2.0.1/bin/kubectl "$@"' kubectl "$@"
