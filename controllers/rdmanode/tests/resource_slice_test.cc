// RenderResourceSlice over real agent reports (the agent's probe, checks and report builder run
// over the node fixtures): which ports become devices, the attributes a claim's selectors and
// constraints use, the limits Kubernetes puts on them, and what a hostile report cannot do.
#include "controllers/rdmanode/resource_slice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "controllers/common/render.h"
#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/validate.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::rdmanode {
namespace {

constexpr char kDriver[] = "rdma.rdmastack.io";
const SliceNode kNode{"gpu-node-4", "0b7c2f3e-uid"};

crd::RdmaNodeStatus FixtureStatus(const std::string& fixture) {
  crd::RdmaNodeStatus status;
  FillFacts(testing::FixtureReport(fixture, testing::ClientRequirements("ml/a")), &status);
  return status;
}

std::optional<std::string> Attribute(const k8s::JsonObject& device, std::string_view name) {
  for (const char* type : {"string", "int", "bool"}) {
    if (auto s = device.GetString({"attributes", name, type})) return s;
    if (auto i = device.GetInt({"attributes", name, type})) return std::to_string(*i);
    if (auto b = device.GetBool({"attributes", name, type})) return *b ? "true" : "false";
  }
  return std::nullopt;
}

std::vector<k8s::JsonObject> Devices(const k8s::JsonObject& slice) {
  return slice.GetArray({"spec", "devices"});
}

// For each GPU, exactly its nearest NIC shares its resource.kubernetes.io/pcieRoot, and that NIC's
// pathToGpu attribute and nearestGpuPath say the path the agent measured.
void ExpectEachGpuSharesItsRootWithItsNearestNicOnly(const crd::RdmaNodeStatus& status,
                                                     const std::vector<k8s::JsonObject>& devices) {
  for (const crd::GpuFacts& gpu : status.gpus) {
    ASSERT_TRUE(gpu.pcie_root) << gpu.pci_address;
    ASSERT_TRUE(gpu.nearest_nic && gpu.path_type) << gpu.pci_address;
    std::vector<std::string> same_root;
    for (const auto& device : devices) {
      if (Attribute(device, "resource.kubernetes.io/pcieRoot") == gpu.pcie_root) {
        same_root.push_back(device.GetString({"name"}).value_or(""));
      }
    }
    const std::string nic = DraDeviceName(*gpu.nearest_nic, 1);
    EXPECT_EQ(same_root, std::vector<std::string>{nic}) << gpu.pci_address;
    const auto device = std::find_if(devices.begin(), devices.end(),
                                     [&](const auto& d) { return d.GetString({"name"}) == nic; });
    ASSERT_NE(device, devices.end()) << nic;
    EXPECT_EQ(Attribute(*device, GpuPathAttribute(gpu.pci_address)), gpu.path_type) << nic;
    EXPECT_EQ(Attribute(*device, "nearestGpuPath"), gpu.path_type) << nic;
  }
}

// The eight-GPU HGX node: each GPU and its compute NIC sit under one PCIe switch on a root complex
// of their own, so for each GPU exactly its nearest NIC shares its resource.kubernetes.io/pcieRoot
// (a claim that matches the attribute between a GPU and a NIC gets that pair), and that NIC's
// pathToGpu attribute says the path the agent measured.
TEST(ResourceSliceTest, AnHgxNodePublishesEachActivePortWithItsRootAndItsPathToEachGpu) {
  const crd::RdmaNodeStatus status = FixtureStatus("gpu-client-hgx-h100-8gpu-8nic");
  ASSERT_EQ(status.gpus.size(), 8u);
  auto slice = RenderResourceSlice(kDriver, kNode, status, 1);
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->Name(), "gpu-node-4-rdma.rdmastack.io");
  EXPECT_EQ(slice->GetString({"spec", "driver"}), kDriver);
  EXPECT_EQ(slice->GetString({"spec", "nodeName"}), "gpu-node-4");
  EXPECT_EQ(slice->GetString({"spec", "pool", "name"}), "gpu-node-4");
  EXPECT_EQ(slice->GetInt({"spec", "pool", "generation"}), 1);
  EXPECT_EQ(slice->GetInt({"spec", "pool", "resourceSliceCount"}), 1);
  ASSERT_EQ(slice->OwnerReferences().size(), 1u);
  EXPECT_EQ(slice->OwnerReferences()[0].uid, "0b7c2f3e-uid");
  EXPECT_TRUE(slice->OwnerReferences()[0].controller);

  size_t active_ports = 0;
  for (const auto& d : status.devices) {
    for (const auto& p : d.ports) active_ports += (d.pci_address && p.state == "ACTIVE") ? 1 : 0;
  }
  const std::vector<k8s::JsonObject> devices = Devices(*slice);
  ASSERT_EQ(devices.size(), active_ports);
  ASSERT_GE(devices.size(), 8u);
  for (const auto& device : devices) {
    const std::string name = device.GetString({"name"}).value_or("");
    EXPECT_TRUE(crd::IsDnsLabel(name)) << name;
    EXPECT_LE(device.Keys({"attributes"}).size(), kMaxDeviceAttributes) << name;
    EXPECT_TRUE(Attribute(device, "resource.kubernetes.io/pcieRoot")) << name;
    const auto link_layer = Attribute(device, "linkLayer");
    ASSERT_TRUE(link_layer) << name;
    if (*link_layer == "InfiniBand") {
      EXPECT_EQ(Attribute(device, "gidIndex"), "0") << name;
    }
  }
  ExpectEachGpuSharesItsRootWithItsNearestNicOnly(status, devices);
}

// ConnectX-8 Data Direct (GB300-style): each NIC's own function hangs off the CPU, on another root
// complex than its GPU; its Data Direct function sits on the GPU's. The device's pcieRoot is the
// Data Direct function's, so a claim that matches the attribute pairs each GPU with its own NIC,
// where the NIC's own root would pair it with none.
TEST(ResourceSliceTest, ADataDirectNicCarriesTheRootOfItsDataDirectFunction) {
  const crd::RdmaNodeStatus status = FixtureStatus("gpu-client-cx8-data-direct-4gpu");
  ASSERT_EQ(status.gpus.size(), 4u);
  auto slice = RenderResourceSlice(kDriver, kNode, status, 1);
  ASSERT_TRUE(slice.has_value());
  const std::vector<k8s::JsonObject> devices = Devices(*slice);
  ExpectEachGpuSharesItsRootWithItsNearestNicOnly(status, devices);
  // The NICs' own functions: on other roots than the ones published.
  const node::NodeFacts facts = testing::FixtureFacts("gpu-client-cx8-data-direct-4gpu");
  ASSERT_EQ(facts.rdma_devices.size(), 4u);
  for (const node::RdmaDevice& d : facts.rdma_devices) {
    EXPECT_EQ(d.data_direct, node::Tristate::kYes) << d.name;
    EXPECT_NE(node::PcieRoot(d.pci_path), d.pcie_root) << d.name;
    EXPECT_EQ(node::PcieRoot(d.data_direct_path), d.pcie_root) << d.name;
  }
}

// gidIndex is the GID a client with gidIndex Auto uses: on the RoCE fixture, GID 3, the RoCE v2 GID
// of the IPv4 address its netdev owns (GIDs 0-2 are link-local or RoCE v1).
TEST(ResourceSliceTest, TheGidIndexIsTheOneAnAutoClientUses) {
  const crd::RdmaNodeStatus status = FixtureStatus("gateway-roce-v2-gid3-doca");
  auto slice = RenderResourceSlice(kDriver, kNode, status, 1);
  ASSERT_TRUE(slice.has_value());
  const std::vector<k8s::JsonObject> devices = Devices(*slice);
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(Attribute(devices[0], "linkLayer"), "Ethernet");
  EXPECT_EQ(Attribute(devices[0], "gidIndex"), "3");
}

TEST(ResourceSliceTest, OnlyActivePortsOfPciDevicesBecomeDevices) {
  crd::RdmaNodeStatus status = FixtureStatus("storage-cx6-ib-port-down");
  size_t active = 0, ports = 0;
  for (const auto& d : status.devices) {
    for (const auto& p : d.ports) {
      ++ports;
      active += p.state == "ACTIVE" ? 1 : 0;
    }
  }
  ASSERT_LT(active, ports) << "the fixture has a port down";
  auto slice = RenderResourceSlice(kDriver, kNode, status, 1);
  EXPECT_EQ(slice ? Devices(*slice).size() : 0u, active);

  // A device without a PCI function (rxe) has no root for a GPU to share.
  for (auto& d : status.devices) d.pci_address.reset();
  EXPECT_FALSE(RenderResourceSlice(kDriver, kNode, status, 1).has_value());
  EXPECT_FALSE(
      RenderResourceSlice(kDriver, kNode, FixtureStatus("node-without-rdma"), 1).has_value());
}

// The applied hash is what the reconciler compares: the same facts give the same hash whatever
// the generation, and a changed port gives another.
TEST(ResourceSliceTest, TheHashFollowsTheDevicesNotTheGeneration) {
  crd::RdmaNodeStatus status = FixtureStatus("gpu-client-h100-dmabuf-open-inbox");
  auto hash = [&](int64_t generation) {
    auto slice = RenderResourceSlice(kDriver, kNode, status, generation);
    return slice ? slice->Annotation(controllers::kAppliedHashAnnotation).value_or("") : "";
  };
  const std::string first = hash(1);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(hash(7), first);
  ASSERT_FALSE(status.devices.empty() || status.devices[0].ports.empty());
  status.devices[0].ports[0].active_mtu = 1024;  // not published: no change
  EXPECT_EQ(hash(1), first);
  status.devices[0].numa_node = 3;
  EXPECT_NE(hash(1), first);
}

// What an agent says becomes attribute names and values only in the forms Kubernetes accepts: a
// GPU address that is not one gives no attribute (its name would be refused, and the whole slice
// with it), device names become DNS labels, and a device never carries more than 32 attributes.
TEST(ResourceSliceTest, AHostileReportCannotMakeASliceTheApiServerRefuses) {
  crd::RdmaNodeStatus status = FixtureStatus("gpu-client-h100-dmabuf-open-inbox");
  ASSERT_FALSE(status.gpus.empty());
  ASSERT_FALSE(status.devices.empty());
  status.devices[0].name = "MLX5_0 ../../x";
  const std::string nic = status.devices[0].name;
  status.gpus[0].pci_address = "0000:18:00.0\"/x";
  for (int i = 0; i < 40; ++i) {
    crd::GpuFacts gpu;
    char bdf[16];
    std::snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", 0x40 + i);
    gpu.pci_address = bdf;
    gpu.nic_paths.push_back({nic, "SYS"});
    status.gpus.push_back(gpu);
  }
  auto slice = RenderResourceSlice(kDriver, kNode, status, 1);
  ASSERT_TRUE(slice.has_value());
  const k8s::JsonObject device = Devices(*slice)[0];
  EXPECT_EQ(device.GetString({"name"}), "mlx5-0-x-p1");
  const std::vector<std::string> names = device.Keys({"attributes"});
  EXPECT_EQ(names.size(), kMaxDeviceAttributes);
  EXPECT_FALSE(device.Has({"attributes", "pathToGpu0000_18_00_0\"/x"}));
  EXPECT_TRUE(device.Has({"attributes", "pathToGpu0000_40_00_0"}));
  for (const std::string& name : names) {
    const std::string local = name.substr(name.find('/') + 1);
    EXPECT_LE(local.size(), 32u) << name;
    EXPECT_TRUE(std::all_of(local.begin(), local.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    })) << name;
  }
}

TEST(ResourceSliceTest, NamesStayWithinKubernetesLimits) {
  EXPECT_EQ(DraDeviceName("mlx5_0", 1), "mlx5-0-p1");
  EXPECT_EQ(DraDeviceName("ibp25s0", 2), "ibp25s0-p2");
  EXPECT_EQ(DraDeviceName("mlx5_bond_0", 1), "mlx5-bond-0-p1");
  EXPECT_EQ(DraDeviceName("__", 1), "");
  const std::string long_device(100, 'a');
  EXPECT_EQ(DraDeviceName(long_device, 1).size(), 63u);
  EXPECT_TRUE(crd::IsDnsLabel(DraDeviceName(long_device + "_x", 12)));
  EXPECT_EQ(GpuPathAttribute("0000:18:00.0"), "pathToGpu0000_18_00_0");

  EXPECT_EQ(ResourceSliceName("gpu-node-4", kDriver), "gpu-node-4-rdma.rdmastack.io");
  const std::string long_node(250, 'n');
  const std::string name = ResourceSliceName(long_node, kDriver);
  EXPECT_EQ(name.size(), 253u);
  EXPECT_TRUE(name.ends_with("-rdma.rdmastack.io"));
  EXPECT_NE(ResourceSliceName(long_node + "x", kDriver),
            ResourceSliceName(long_node + "y", kDriver));
}

}  // namespace
}  // namespace rdmastack::rdmanode
