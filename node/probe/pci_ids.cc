#include "node/probe/pci_ids.h"

#include <array>

namespace rdmastack::node {
namespace {

struct NicRow {
  uint32_t id;
  const char* name;
  int rank;
  bool vf;
};

// rdma-core providers/mlx5 hca table with pci.ids names (see node-detection-spec §8.2).
constexpr std::array<NicRow, 24> kNics = {{
    {0x1003, "ConnectX-3", 3, false},      {0x1004, "ConnectX-3 VF", 3, true},
    {0x1007, "ConnectX-3 Pro", 3, false},  {0x1011, "Connect-IB", 4, false},
    {0x1012, "Connect-IB VF", 4, true},    {0x1013, "ConnectX-4", 4, false},
    {0x1014, "ConnectX-4 VF", 4, true},    {0x1015, "ConnectX-4 Lx", 4, false},
    {0x1016, "ConnectX-4 Lx VF", 4, true}, {0x1017, "ConnectX-5", 5, false},
    {0x1018, "ConnectX-5 VF", 5, true},    {0x1019, "ConnectX-5 Ex", 5, false},
    {0x101a, "ConnectX-5 Ex VF", 5, true}, {0x101b, "ConnectX-6", 6, false},
    {0x101c, "ConnectX-6 VF", 6, true},    {0x101d, "ConnectX-6 Dx", 6, false},
    {0x101f, "ConnectX-6 Lx", 6, false},   {0x1021, "ConnectX-7", 7, false},
    {0x1023, "ConnectX-8", 8, false},      {0x1025, "ConnectX-9", 9, false},
    {0xa2d2, "BlueField", 5, false},       {0xa2d6, "BlueField-2", 6, false},
    {0xa2dc, "BlueField-3", 7, false},     {0x1027, "ConnectX-10", 10, false},
}};

struct FwRow {
  int major;
  const char* name;
  int rank;
};
// DOCA bundled-firmware table: the firmware major names the family.
constexpr std::array<FwRow, 10> kFirmware = {{
    {12, "ConnectX-4", 4},
    {14, "ConnectX-4 Lx", 4},
    {16, "ConnectX-5", 5},
    {20, "ConnectX-6", 6},
    {22, "ConnectX-6 Dx", 6},
    {24, "BlueField-2", 6},
    {26, "ConnectX-6 Lx", 6},
    {28, "ConnectX-7", 7},
    {32, "BlueField-3", 7},
    {40, "ConnectX-8", 8},
}};

struct GpuRow {
  uint32_t id;
  const char* name;
  const char* arch;
};
constexpr std::array<GpuRow, 22> kGpus = {{
    {0x1db1, "Tesla V100-SXM2-16GB", "Volta"},
    {0x1db4, "Tesla V100-PCIE-16GB", "Volta"},
    {0x1db5, "Tesla V100-SXM2-32GB", "Volta"},
    {0x1db6, "Tesla V100-PCIE-32GB", "Volta"},
    {0x1eb8, "Tesla T4", "Turing"},
    {0x20b0, "NVIDIA A100-SXM4-40GB", "Ampere"},
    {0x20b2, "NVIDIA A100-SXM4-80GB", "Ampere"},
    {0x20b5, "NVIDIA A100 80GB PCIe", "Ampere"},
    {0x20f1, "NVIDIA A100-PCIE-40GB", "Ampere"},
    {0x2230, "NVIDIA RTX A6000", "Ampere"},
    {0x2231, "NVIDIA RTX A5000", "Ampere"},
    {0x2235, "NVIDIA A40", "Ampere"},
    {0x2236, "NVIDIA A10", "Ampere"},
    {0x26b1, "NVIDIA RTX 6000 Ada Generation", "Ada"},
    {0x26b5, "NVIDIA L40", "Ada"},
    {0x27b8, "NVIDIA L4", "Ada"},
    {0x2330, "NVIDIA H100 80GB HBM3", "Hopper"},
    {0x2331, "NVIDIA H100 PCIe", "Hopper"},
    {0x2321, "NVIDIA H100 NVL", "Hopper"},
    {0x2335, "NVIDIA H200", "Hopper"},
    {0x2901, "NVIDIA B200", "Blackwell"},
    {0x2bb5, "NVIDIA RTX PRO 6000 Blackwell", "Blackwell"},
}};

}  // namespace

NicGeneration NicGenerationFromDeviceId(uint32_t device_id) {
  if (device_id == 0x101e) return {"ConnectX VF (mlx5Gen)", 0, true, true};
  for (const NicRow& row : kNics) {
    if (row.id == device_id) return {row.name, row.rank, row.vf, false};
  }
  return {};
}

NicGeneration NicGenerationFromFirmware(int fw_major) {
  for (const FwRow& row : kFirmware) {
    if (row.major == fw_major) return {row.name, row.rank, false, false};
  }
  return {};
}

GpuModel GpuModelFromDeviceId(uint32_t device_id) {
  for (const GpuRow& row : kGpus) {
    if (row.id == device_id) return {row.name, row.arch};
  }
  return {};
}

bool GpuIsTuringOrNewer(uint32_t device_id) {
  return device_id >= 0x1e00;
}

}  // namespace rdmastack::node
