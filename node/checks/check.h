#pragma once
// Check results, requirements and verdicts: the agent's judgement over NodeFacts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::node {

enum class CheckStatus { kPass, kWarn, kFail, kUnknown };
const char* CheckStatusName(CheckStatus s);  // Pass | Warn | Fail | Unknown

struct CheckResult {
  std::string id;  // rdma.port-state
  CheckStatus status = CheckStatus::kUnknown;
  std::string reason;   // CamelCase: LinkDown
  std::string message;  // what was found, for a human
  std::string remedy;   // what to do; empty on Pass
};

enum class Role { kGateway, kClient };
enum class Transport { kAuto, kGpuDirect, kHostMemory };
enum class Registration { kAuto, kDmaBuf, kPeerMem };

const char* RoleName(Role r);                  // gateway | client
const char* TransportName(Transport t);        // Auto | GPUDirect | HostMemory
const char* RegistrationName(Registration r);  // Auto | DMABuf | PeerMem
StatusOr<Role> ParseRole(std::string_view text);
StatusOr<Transport> ParseTransport(std::string_view text);
StatusOr<Registration> ParseRegistration(std::string_view text);

// What the pools/profiles selecting the node ask of it (ClientProfile fields, or the CLI flags).
struct Requirements {
  Role role = Role::kClient;
  Transport transport = Transport::kAuto;
  Registration registration = Registration::kAuto;
  int64_t max_transfer_bytes = 0;  // 0 = not set
  PathType max_gpu_nic_distance = PathType::kPxb;
  int gid_index = -1;   // -1 = auto
  std::string rdma_ip;  // gateway: the IPv4 it must serve RDMA on; "" = any
};

struct Verdict {
  std::string capability;  // Gateway | GPUDirect | HostMemory
  bool capable = false;
  std::string
      reason;       // first blocking check's reason; "Verified" or "NotFullyVerified" when capable
  std::string via;  // GPUDirect: PeerMem | DMABuf
  std::string message;
};

struct Evaluation {
  Requirements requirements;
  std::vector<CheckResult> checks;  // in evaluation order
  std::vector<Verdict> verdicts;
  std::string selected_transport;  // client: GPUDirect | HostMemory | "" (none possible)
  bool ready = false;              // the role can run on this node with these requirements
};

}  // namespace rdmastack::node
