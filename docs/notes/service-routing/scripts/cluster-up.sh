#!/usr/bin/env bash
# How the kp cluster was started: a clone of /work/main at HEAD (the working tree's cluster.sh had
# uncommitted changes), a copy of the built binaries, the component cache linked from
# ~/.cache/rdmastack, state under /work/kp/cache/clusters/kp. Offset 80 -> 198.18.80.0/24,
# bridge rs80-kp, netns rdmastack-kp-<node>, API server 127.0.0.1:6523, forwarder 198.18.80.1:6523.
set -euo pipefail
[[ -d /work/kp/src ]] || git clone -q /work/main /work/kp/src
[[ -d /work/kp/rtbuild/bin ]] || { mkdir -p /work/kp/rtbuild && cp -a /work/main/build/bin /work/kp/rtbuild/ && ln -sfn /work/main/build/tests /work/kp/rtbuild/tests; }
mkdir -p /work/kp/cache
for d in etcd-v3.6.16 kubernetes-v1.36.3 kwok-v0.8.0 kubectl-2.0.1 versitygw-v1.8.0 promtool-v0.316.0 images; do
  ln -sfn ~/.cache/rdmastack/$d /work/kp/cache/$d
done
source /work/kp/scripts/env.sh
cd /work/kp/src && nice -n 15 scripts/cluster.sh up --nodes 2
