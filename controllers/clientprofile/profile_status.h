#pragma once
// A ClientProfile's status from what the reconciler found (pure). The condition reasons are listed
// in docs/troubleshooting.md.

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "controllers/clientprofile/eligibility.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/types.h"

namespace rdmastack::clientprofile {

// Bounds of the per-node lists in status.
inline constexpr size_t kMaxListedNodes = 32;

struct NodeOutcome {
  std::string name;
  Eligibility eligibility;
  bool ready = false;  // the node's client pod is Ready
};

// A client's refusal of the profile's library image: LibraryRefused or LibraryDigestMismatch.
struct LibraryRefusal {
  std::string reason, message;
  bool empty() const { return reason.empty(); }
};

struct ProfileStatusInputs {
  const crd::ClientProfile* profile = nullptr;
  Clock::WallTime now{};
  bool pool_found = false;
  // A reason that nothing new is deployed (RootCredentialsRefused, InvalidSpec), with a message.
  std::string refused_reason, refused_message;
  std::string secret_message;      // "" when the credentials Secret is fine or none is named
  int32_t endpoints = 0;           // the pool's ready endpoints given to the clients
  std::vector<NodeOutcome> nodes;  // every matched node, sorted by name
  std::string ready_node_label;    // key=value
  // Nodes that have left the profile with its files still on them (node_retirement.h), sorted.
  std::vector<crd::RetiringNode> retiring;
  // spec.s3User: what the gateways have, and what keeps some from having it ("" when none).
  std::optional<crd::S3UserStatus> s3_user;
  std::string s3_user_message;
  // A client refused the profile's library image (ClientLibraryRefusal): the reason, and which
  // node and why.
  LibraryRefusal library_refused;
};

crd::ClientProfileStatus ComputeProfileStatus(const ProfileStatusInputs& in);

}  // namespace rdmastack::clientprofile
