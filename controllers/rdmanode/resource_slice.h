#pragma once
// RdmaNode status -> the DRA ResourceSlice (resource.k8s.io/v1) that publishes the node's RDMA
// ports as devices of rdmastack's driver (pure). One slice per node, its own pool; one device
// per active port of a PCI RDMA device, with the standard resource.kubernetes.io/pcieRoot and
// numaNode, what a client needs (link layer, GID index, netdev, netns mode, generation, VF, the
// transports the node carries) and the PCIe path from each GPU of the node (docs/operator.md,
// "DRA").

#include <optional>
#include <string>
#include <string_view>

#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::rdmanode {

inline constexpr char kDraDriverName[] = "rdma.rdmastack.io";
// Kubernetes' limit on a device's attributes and capacities together.
inline constexpr size_t kMaxDeviceAttributes = 32;

// The slice's name: "<node>-<driver>", or, where that would pass 253 characters, the node's
// name cut short with a hash of it.
std::string ResourceSliceName(std::string_view node, std::string_view driver);

// A port's device name: the RDMA device's name as a DNS label, then "-p<port>" ("mlx5_0" port 1
// -> "mlx5-0-p1"); "" when the name has nothing to keep.
std::string DraDeviceName(std::string_view rdma_device, int32_t port);

// The attribute that carries the path from the GPU at `pci_address` ("0000:18:00.0" ->
// "pathToGpu0000_18_00_0"): a C identifier, as attribute names must be.
std::string GpuPathAttribute(std::string_view pci_address);

struct SliceNode {
  std::string_view name;
  std::string_view uid;  // the Node's, for the ownerReference that deletes the slice with it
};

// The slice for `node` (the applied-hash annotation covers everything but spec.pool.generation,
// which is `generation`); nullopt when no port qualifies, so the node has no slice.
std::optional<k8s::JsonObject> RenderResourceSlice(std::string_view driver, const SliceNode& node,
                                                   const crd::RdmaNodeStatus& status,
                                                   int64_t generation);

}  // namespace rdmastack::rdmanode
