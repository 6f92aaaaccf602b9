#pragma once
// One node's place in a pool's rolling upgrade, persisted on the Node as one annotation so that a
// restarted or newly elected operator resumes where the last one stopped (the NVIDIA
// k8s-operator-libs approach, with the state in one value instead of spread over labels). Pure:
// the phases, the annotation's codec, and which track's endpoint a node publishes in each phase.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::gatewaypool {

// SideBySide: StartNew -> Validate -> Switch -> Drain -> StopOld -> Done; on failure
// RollBack -> Failed. InPlace: Drain -> StopOld -> Validate -> Done; on failure Failed (the old
// gateway is gone: there is nothing to roll back to on the node).
enum class UpgradePhase {
  kStartNew,
  kValidate,
  kSwitch,
  kDrain,
  kStopOld,
  kDone,
  kRollBack,
  kFailed
};

std::string_view PhaseName(UpgradePhase phase);
std::optional<UpgradePhase> ParsePhase(std::string_view name);

struct NodeUpgradeState {
  std::string from;  // track the node served before ("v1")
  std::string to;    // track it moves to ("v2"); == from for an InPlace update within a track
  // InPlace within a track: the pod template hash being rolled out (it names the target when the
  // track stays the same).
  std::string template_hash;
  bool in_place = false;
  UpgradePhase phase = UpgradePhase::kStartNew;
  int64_t started = 0;  // unix seconds: the node's move began (validationTimeout counts from here)
  int64_t since = 0;    // unix seconds: this phase began (a drain counts from here, or from the
                        // API server's first answer after an outage: drain_clock.h)
  // RollBack and Failed: why (CamelCase) and what happened, in one line.
  std::string reason;
  std::string message;
  // Roll back to Failed (this node's own failure) or to no state at all (the rollout halted or
  // the target changed: the node itself is fine and may try again).
  bool keep_failed = false;
  // RollBack of a node whose new gateway clients were already sent to (Switch, Drain): it serves
  // on, listed as draining, for drainSeconds, so that a client with a slightly old view of the
  // endpoints finishes there instead of failing.
  bool drain_new = false;
  friend bool operator==(const NodeUpgradeState&, const NodeUpgradeState&) = default;
};

std::string SerializeNodeUpgradeState(const NodeUpgradeState& state);
StatusOr<NodeUpgradeState> ParseNodeUpgradeState(std::string_view json);

// The annotation that holds the state of `pool`'s upgrade on a node:
// "upgrade.gwp.rdmastack.io/<namespace>.<pool>" (cut and hashed like the track labels).
std::string NodeUpgradeAnnotation(std::string_view ns, std::string_view pool);

// Still moving (counts against maxParallel): neither finished nor failed.
bool InFlight(const NodeUpgradeState& state);

// How a node appears in a track's EndpointSlice.
enum class EndpointRole {
  kAbsent,    // not listed
  kActive,    // listed; ready as its pod is
  kDraining,  // listed as terminating (still serving) so that clients finish and move on
};

// `track`'s role for a node in `state` (a node without state publishes its one labelled track).
EndpointRole RoleOf(const NodeUpgradeState& state, std::string_view track);

}  // namespace rdmastack::gatewaypool
