#pragma once
// What a pod needs to probe its node live, shared by the agent DaemonSet and the client
// DaemonSet (both run the agent's probes with --root /host --live-probes): the host's root, the
// host's RDMA device files, and a container that may open the host's devices.

#include "operator/k8s/json_object.h"

namespace rdmastack::controllers {

// Volume "host" (hostPath /, Directory) and its mount at /host: read-only, HostToContainer, so
// that a driver root the GPU operator mounts after the pod started (/run/nvidia/driver, one of
// the places the probes look for NVML) is seen.
k8s::JsonObject HostRootVolume();
k8s::JsonObject HostRootMount();
// Volume "dev-infiniband" (hostPath /dev/infiniband, DirectoryOrCreate) and its read-only mount:
// uverbs nodes made after the pod started (an mlx5 driver reload) appear in it; a read-only mount
// still opens device files read-write.
k8s::JsonObject DevInfinibandVolume();
k8s::JsonObject DevInfinibandMount();

// {"privileged":true,"readOnlyRootFilesystem":true}. libibverbs opens /dev/infiniband/uverbsN
// and NVML /dev/nvidiactl and /dev/nvidiaN, and the container's device cgroup denies open() on
// any host device it was not given, whatever is mounted. Kubernetes grants host devices only
// through privileged or a device plugin, and a plugin would hand out (and take from workloads)
// the very GPUs and NICs the probes only look at. A privileged container also gets every host
// device in its /dev at start, which is how the NVIDIA device nodes (single files, no directory
// to mount) get there. allowPrivilegeEscalation: false is refused by the API beside privileged.
k8s::JsonObject LiveProbeSecurityContext();

}  // namespace rdmastack::controllers
