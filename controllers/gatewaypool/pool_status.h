#pragma once
// GatewayPool status from what the controller sees (pure): conditions Ready, Progressing,
// Degraded, LibraryCompatible, NodesVerified, Upgrading; node counts; versions running; failing
// nodes; the upgrade in progress.
// Reasons and what to do about each: docs/troubleshooting.md "GatewayPool".

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "controllers/common/credentials_secret.h"
#include "controllers/common/owned_pod.h"
#include "controllers/gatewaypool/node_verdict.h"
#include "controllers/gatewaypool/pool_conflict.h"
#include "controllers/gatewaypool/track.h"
#include "controllers/gatewaypool/upgrade_plan.h"
#include "crds/types/reasons.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

inline constexpr size_t kMaxFailingNodes = 32;
inline constexpr size_t kMaxMaintenanceNodes = 32;
inline constexpr size_t kMaxStatusEndpoints = 1024;
inline constexpr size_t kMaxPoolNetworks = 32;

using controllers::SecretState;

struct SelectedNode {
  std::string name;
  NodeVerdict verdict;
};

// The selected nodes' verdicts by node name.
using VerdictsByNode = std::map<std::string, const NodeVerdict*>;
VerdictsByNode IndexVerdicts(const std::vector<SelectedNode>& selected);
// Whether `rail` serves on `node` as its verdict says (RailServes); a node without a verdict is
// not held back.
bool RailServesOn(const VerdictsByNode& verdicts, const std::string& node, std::string_view rail);

struct PoolStatusInputs {
  const crd::GatewayPool* pool = nullptr;
  TrackDecision decision;
  SecretState secret = SecretState::kPresent;
  std::string secret_message;  // what is wrong with it, when not present
  // Which Secret: CredentialsSecretMissing (s3.credentialsSecret) or TlsSecretMissing.
  std::string secret_reason = crd::reasons::kCredentialsSecretMissing;
  std::vector<SelectedNode> selected;       // every node the selector matches, sorted by name
  std::vector<controllers::OwnedPod> pods;  // the pool's gateway pods, every track
  Clock::WallTime now{};
  // The rollout plan of this pass (null: none computed) and the tracks it names.
  const UpgradePlan* upgrade = nullptr;
  std::map<std::string, Track> tracks;
  // An older pool this one collides with (pool_conflict.h): nothing starts, nothing serving
  // changes, and the conditions say which pool and what to change.
  std::optional<PoolConflict> conflict;
};

crd::GatewayPoolStatus ComputePoolStatus(const PoolStatusInputs& in);

// During a rollout nearly every pass changes the status (the phase counts, each moved node's
// endpoint), and a large pool's status (an endpoint per node) costs the API server a good part of
// the pass, which every node's next step waits behind. So while a rollout goes on its status is
// written at most every `interval`; a change a human or a client acts on goes at once: a condition
// (type, status or reason), the failing or maintenance nodes, the rollout starting or ending.
// Returns how long to hold `now` back, given `written` (the status as last seen) and the time since
// this process last wrote it: zero to write now.
Clock::Duration StatusHoldBack(const std::optional<crd::GatewayPoolStatus>& written,
                               const crd::GatewayPoolStatus& now, Clock::Duration since_last_write,
                               Clock::Duration interval);

}  // namespace rdmastack::gatewaypool
