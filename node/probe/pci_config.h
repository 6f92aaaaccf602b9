#pragma once
// The PCIe Access Control Services (ACS) capability of a bridge, read from its configuration
// space (sys/bus/pci/devices/<bdf>/config). With "P2P Request Redirect" on, a downstream port
// sends a peer's request up to the root complex instead of across the switch, so a GPU and a NIC
// below one switch talk as if they were on different host bridges: GPUDirect RDMA loses the
// switch path NCCL and cuFile count on (PIX/PXB becomes PHB in effect), or fails where the root
// complex does not route peer-to-peer. `lspci -vvv` shows the same bits as "ACSCtl: ... ReqRedir+".
//
// Pure: takes the file's bytes. Only the first 256 bytes are readable without CAP_SYS_ADMIN, and
// ACS is an extended capability (at 0x100 or later), so a short file is "unknown", not "off".

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace rdmastack::node {

struct AcsControl {
  uint16_t capability = 0;  // ACS Capability register: which controls the port has
  uint16_t control = 0;     // ACS Control register: which are on
  bool RequestRedirect() const { return (control & 0x0004) != 0; }
  bool CompletionRedirect() const { return (control & 0x0008) != 0; }
  bool EgressControl() const { return (control & 0x0020) != 0; }
  // "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", as lspci.
  std::string Describe() const;
};

// The ACS capability of a device whose configuration space is `config`: nullopt when the device
// has none (its extended capability list ends without one); an error when the extended space is
// not there (fewer than 260 bytes: read without privilege) or its list is malformed (a loop, an
// offset outside 0x100..0xffc, or a capability that runs past the end).
StatusOr<std::optional<AcsControl>> FindAcs(std::string_view config);

}  // namespace rdmastack::node
