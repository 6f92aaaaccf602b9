#pragma once
// Tables keyed by PCI ids: Mellanox/NVIDIA NIC generations and NVIDIA GPU models.

#include <cstdint>
#include <string>

namespace rdmastack::node {

inline constexpr uint32_t kMellanoxVendor = 0x15b3;
inline constexpr uint32_t kNvidiaVendor = 0x10de;

struct NicGeneration {
  std::string name;  // "ConnectX-6 Dx"; "" when unknown
  int rank = 0;      // 3..10 for ConnectX-3..10; BlueField-N integrated ranks as its ConnectX
  bool virtual_function = false;
  bool generic_vf = false;  // 0x101e: shared by every VF from ConnectX-6 Dx on
};
// From the PCI device id alone.
NicGeneration NicGenerationFromDeviceId(uint32_t device_id);
// From the major firmware number (20 = ConnectX-6, 28 = ConnectX-7, ...), for VFs whose id is
// shared. Returns rank 0 when unknown.
NicGeneration NicGenerationFromFirmware(int fw_major);

struct GpuModel {
  std::string name;          // "NVIDIA RTX A6000"; "" when not in the table
  std::string architecture;  // Volta | Turing | Ampere | Ada | Hopper | Blackwell
};
GpuModel GpuModelFromDeviceId(uint32_t device_id);
// Turing (TU10x, 0x1e00) and newer can export dma-buf with the open kernel module.
bool GpuIsTuringOrNewer(uint32_t device_id);

}  // namespace rdmastack::node
