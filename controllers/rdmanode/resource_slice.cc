#include "controllers/rdmanode/resource_slice.h"

#include <set>

#include "base/pci_address.h"
#include "base/sha256.h"
#include "controllers/common/render.h"
#include "lib/rails/gpu_rails.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::rdmanode {
namespace {

constexpr size_t kMaxObjectName = 253;
constexpr char kActive[] = "ACTIVE";
constexpr char kPcieRootAttribute[] = "resource.kubernetes.io/pcieRoot";

const crd::NetDevFacts* NetDevOf(const crd::RdmaNodeStatus& status, std::string_view device,
                                 int32_t port) {
  for (const crd::NetDevFacts& n : status.netdevs) {
    if (n.rdma_device == device && n.rdma_port == port) return &n;
  }
  return nullptr;
}

// Attributes in the order added, until the limit: the ones added first matter most.
class Attributes {
 public:
  void String(std::string_view name, std::string_view value) {
    if (Room()) json_.SetString({name, "string"}, value);
  }
  void Int(std::string_view name, int64_t value) {
    if (Room()) json_.SetInt({name, "int"}, value);
  }
  void Bool(std::string_view name, bool value) {
    if (Room()) json_.SetBool({name, "bool"}, value);
  }
  const k8s::JsonBuilder& json() const { return json_; }

 private:
  // Counts the attribute about to be added; false once the device has the most it may carry.
  bool Room() {
    if (count_ == kMaxDeviceAttributes) return false;
    ++count_;
    return true;
  }
  k8s::JsonBuilder json_;
  size_t count_ = 0;
};

void AddTransports(const crd::RdmaNodeStatus& status, Attributes* a) {
  std::string gpu_direct = "None";
  if (status.verdicts && status.verdicts->gpu_direct &&
      status.verdicts->gpu_direct->capable == crd::Capability::kYes) {
    gpu_direct = status.verdicts->gpu_direct->via.value_or("None");
  }
  a->String("gpuDirect", gpu_direct);
  a->Bool("hostMemory", status.verdicts && status.verdicts->host_memory &&
                            status.verdicts->host_memory->capable == crd::Capability::kYes);
}

// nearestGpuPath, then pathToGpu<bdf> per GPU of the node (the GPUs' order in the status).
void AddGpuPaths(const crd::RdmaNodeStatus& status, std::string_view device, Attributes* a) {
  std::vector<std::pair<std::string, std::string>> paths;  // attribute, path type
  std::string nearest;
  for (const crd::GpuFacts& gpu : status.gpus) {
    // The address becomes an attribute's name: one the API server would refuse would keep the
    // node's whole slice out.
    if (!IsPciAddress(gpu.pci_address)) continue;
    for (const crd::GpuNicPathFacts& p : gpu.nic_paths) {
      if (p.nic != device || rails::PathRank(p.path_type) < 0) continue;
      paths.emplace_back(GpuPathAttribute(gpu.pci_address), p.path_type);
      if (nearest.empty() || rails::PathRank(p.path_type) < rails::PathRank(nearest)) {
        nearest = p.path_type;
      }
      break;
    }
  }
  if (!nearest.empty()) a->String("nearestGpuPath", nearest);
  for (const auto& [name, path] : paths) a->String(name, path);
}

k8s::JsonObject RenderDevice(const crd::RdmaNodeStatus& status, const crd::RdmaDeviceFacts& d,
                             const crd::RdmaPortFacts& port, const std::string& name) {
  Attributes a;
  if (d.pcie_root) a.String(kPcieRootAttribute, *d.pcie_root);
  if (d.numa_node && *d.numa_node >= 0) a.Int("numaNode", *d.numa_node);
  a.String("rdmaDevice", d.name);
  a.Int("port", port.number);
  if (port.link_layer) a.String("linkLayer", *port.link_layer);
  if (const auto gid = crd::AutoClientGid(status, port)) a.Int("gidIndex", *gid);
  if (const crd::NetDevFacts* n = NetDevOf(status, d.name, port.number))
    a.String("netdev", n->name);
  if (status.host && status.host->rdma_netns_mode &&
      *status.host->rdma_netns_mode != crd::RdmaNetnsMode::kNone) {
    a.String("rdmaNetnsMode", crd::ToString(*status.host->rdma_netns_mode));
  }
  if (d.generation) a.String("generation", *d.generation);
  a.Bool("virtualFunction", d.virtual_function.value_or(false));
  if (d.pci_address) a.String("pciAddress", *d.pci_address);
  if (d.dc_supported) a.Bool("dcSupported", *d.dc_supported);
  AddTransports(status, &a);
  AddGpuPaths(status, d.name, &a);
  k8s::JsonBuilder device;
  device.SetString({"name"}, name);
  device.Set({"attributes"}, a.json());
  return std::move(device).Build();
}

}  // namespace

std::string ResourceSliceName(std::string_view node, std::string_view driver) {
  std::string name = std::string(node) + "-" + std::string(driver);
  if (name.size() <= kMaxObjectName) return name;
  // A DNS subdomain still: the cut ends on the hash, which is lower-case hex.
  const std::string hash = Sha256Hex(node).substr(0, 16);
  const size_t keep = kMaxObjectName - driver.size() - hash.size() - 2;
  return std::string(node.substr(0, keep)) + "-" + hash + "-" + std::string(driver);
}

std::string DraDeviceName(std::string_view rdma_device, int32_t port) {
  std::string name;
  for (char c : rdma_device) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      name += c;
    } else if (c >= 'A' && c <= 'Z') {
      name += static_cast<char>(c - 'A' + 'a');
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  if (name.empty()) return "";
  const std::string suffix = "-p" + std::to_string(port);
  if (name.size() + suffix.size() > 63) name.resize(63 - suffix.size());
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name + suffix;
}

std::string GpuPathAttribute(std::string_view pci_address) {
  std::string name = "pathToGpu";
  for (char c : pci_address) name += (c == ':' || c == '.') ? '_' : c;
  return name;
}

std::optional<k8s::JsonObject> RenderResourceSlice(std::string_view driver, const SliceNode& node,
                                                   const crd::RdmaNodeStatus& status,
                                                   int64_t generation) {
  std::vector<k8s::JsonObject> devices;
  std::set<std::string> names;
  for (const crd::RdmaDeviceFacts& d : status.devices) {
    // A device without a PCI function (rxe, siw) has no root for a GPU to share.
    if (!d.pci_address) continue;
    for (const crd::RdmaPortFacts& port : d.ports) {
      if (port.state != kActive) continue;
      const std::string name = DraDeviceName(d.name, port.number);
      if (name.empty() || !names.insert(name).second) continue;
      devices.push_back(RenderDevice(status, d, port, name));
    }
  }
  if (devices.empty()) return std::nullopt;
  k8s::JsonBuilder slice;
  slice.SetApiVersion("resource.k8s.io/v1");
  slice.SetKind("ResourceSlice");
  slice.SetName(ResourceSliceName(node.name, driver));
  slice.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
  slice.Append({"metadata", "ownerReferences"},
               controllers::NodeControllerOwner(node.name, node.uid));
  slice.SetString({"spec", "driver"}, driver);
  slice.SetString({"spec", "nodeName"}, node.name);
  slice.SetString({"spec", "pool", "name"}, node.name);
  slice.SetInt({"spec", "pool", "resourceSliceCount"}, 1);
  slice.SetArray({"spec", "devices"}, devices);
  controllers::StampAppliedHash(&slice);
  slice.SetInt({"spec", "pool", "generation"}, generation);
  return std::move(slice).Build();
}

}  // namespace rdmastack::rdmanode
