#include "controllers/gatewaypool/pool_conditions.h"

#include <algorithm>

#include "crds/types/reasons.h"
#include "lib/compat/named_refusal.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;

namespace {

using crd::ConditionStatus;

std::string SelectorText(const crd::StringMap& selector) {
  if (selector.empty()) return "{} (every node)";
  std::string out;
  for (const auto& [k, v] : selector) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

}  // namespace

crd::Condition LibraryCompatibleCondition(const PoolFacts& f) {
  const PoolStatusInputs& in = f.in;
  return f.set.Make(kLibraryCompatible,
                    in.decision.track ? ConditionStatus::kTrue : ConditionStatus::kFalse,
                    in.decision.reason, in.decision.message);
}

crd::Condition NodesVerifiedCondition(const PoolFacts& f) {
  const PoolNodeTally& n = f.nodes;
  if (f.in.conflict)
    return f.set.Make(kNodesVerified, ConditionStatus::kFalse, reasons::kPoolConflict,
                      f.in.conflict->message);
  if (n.selected == 0)
    return f.set.Make(kNodesVerified, ConditionStatus::kFalse, reasons::kNoNodesSelected,
                      "nodeSelector " + SelectorText(f.in.pool->spec.node_selector) +
                          " matches no node; label the storage nodes or fix the selector");
  if (n.not_verified == 0)
    return f.set.Make(kNodesVerified, ConditionStatus::kTrue, reasons::kAllNodesVerified,
                      "all " + Count(n.selected - n.in_maintenance, "selected node") +
                          " can run the gateway" + n.maintenance_text);
  return f.set.Make(kNodesVerified, ConditionStatus::kFalse, reasons::kNodesNotVerified,
                    std::to_string(n.not_verified) + " of " + Count(n.selected, "selected node") +
                        " cannot run the gateway" +
                        (n.unverified_names.empty() ? "" : ": " + n.unverified_names) +
                        "; status.failingNodes says why");
}

crd::Condition ReadyCondition(const PoolFacts& f) {
  const PoolStatusInputs& in = f.in;
  const PoolNodeTally& n = f.nodes;
  const std::optional<Track>& track = in.decision.track;
  const size_t current_ready = n.verified - n.failing_gateways - n.starting;
  if (!track)
    return f.set.Make(kReady, ConditionStatus::kFalse, in.decision.reason,
                      "the spec is refused (" + in.decision.message + "); " + f.serving_text +
                          " from the last accepted spec");
  if (in.conflict)
    return f.set.Make(kReady, ConditionStatus::kFalse, reasons::kPoolConflict,
                      "refused: it collides with pool " + in.conflict->other +
                          " (status NodesVerified says where); " + f.serving_text +
                          ", nothing starts");
  if (n.selected == 0)
    return f.set.Make(kReady, ConditionStatus::kFalse, reasons::kNoNodesSelected,
                      "no node matches the nodeSelector");
  if (n.verified == 0 && n.in_maintenance == n.selected)
    return f.set.Make(
        kReady, ConditionStatus::kFalse, reasons::kAllNodesInMaintenance,
        "every selected node is under maintenance (status.maintenanceNodes): nothing serves "
        "until one is uncordoned or spec.nodeMaintenance is Ignore");
  if (n.verified == 0)
    return f.set.Make(kReady, ConditionStatus::kFalse, reasons::kNoNodesVerified,
                      "none of the " + Count(n.selected, "selected node") +
                          " can run the gateway; status.failingNodes says why");
  if (in.secret != SecretState::kPresent && n.ready == 0)
    return f.set.Make(kReady, ConditionStatus::kFalse, in.secret_reason, in.secret_message);
  if (current_ready < n.verified)
    return f.set.Make(
        kReady, ConditionStatus::kFalse,
        n.failing_gateways > 0 ? reasons::kGatewaysFailing : reasons::kGatewaysStarting,
        std::to_string(current_ready) + " of " + Count(n.verified, "verified node") +
            " serve S3 on :" + std::to_string(track->s3_port) +
            (n.failing_gateways > 0 ? "; " + std::to_string(n.failing_gateways) + " failing" : ""));
  if (n.upgrade)
    return f.set.Make(kReady, ConditionStatus::kTrue, reasons::kGatewaysReady,
                      "every verified node serves S3 (" + Count(n.ready, "node") +
                          "); upgrading to libcuobjserver " + track->library_version +
                          n.maintenance_text);
  return f.set.Make(kReady, ConditionStatus::kTrue, reasons::kGatewaysReady,
                    Count(current_ready, "node") +
                        " serve S3 on :" + std::to_string(track->s3_port) +
                        " with libcuobjserver " + track->library_version + n.maintenance_text);
}

crd::Condition ProgressingCondition(const PoolFacts& f) {
  const PoolStatusInputs& in = f.in;
  const PoolNodeTally& n = f.nodes;
  const std::optional<Track>& track = in.decision.track;
  const UpgradePlan* up = n.upgrade;
  if (!track)
    return f.set.Make(kProgressing, ConditionStatus::kFalse, in.decision.reason,
                      "nothing new is started while the spec is refused");
  if (in.conflict)
    return f.set.Make(kProgressing, ConditionStatus::kFalse, reasons::kPoolConflict,
                      "nothing new is started while the pool collides with " + in.conflict->other);
  if (in.secret != SecretState::kPresent && n.starting > 0)
    return f.set.Make(kProgressing, ConditionStatus::kFalse, in.secret_reason, in.secret_message);
  if (n.starting > 0)
    return f.set.Make(kProgressing, ConditionStatus::kTrue, reasons::kRollingOut,
                      Count(n.starting, "gateway") + " starting");
  if (up && !up->paused && !up->halted && up->blocked.empty())
    return f.set.Make(kProgressing, ConditionStatus::kTrue, reasons::kUpgrading,
                      "nodes are moving to libcuobjserver " + track->library_version);
  return f.set.Make(kProgressing, ConditionStatus::kFalse, reasons::kRolloutComplete,
                    "every verified node runs the current gateway");
}

crd::Condition UpgradingCondition(const PoolFacts& f,
                                  const std::optional<crd::CurrentUpgrade>& upgrade) {
  const PoolStatusInputs& in = f.in;
  const std::optional<Track>& track = in.decision.track;
  const UpgradePlan* up = f.nodes.upgrade;
  if (!up || !upgrade)
    return f.set.Make(
        kUpgrading, ConditionStatus::kFalse, track ? reasons::kUpToDate : in.decision.reason,
        track ? "every node runs the spec's gateway and libcuobjserver " + track->library_version
              : "nothing is upgraded while the spec is refused");
  const std::string progress =
      upgrade->from + " -> " + upgrade->to + ": " + *upgrade->progress + " nodes done";
  std::string failed_names;
  for (const auto& failed : up->failed)
    failed_names += (failed_names.empty() ? "" : ", ") + failed.node;
  if (!up->blocked.empty())
    return f.set.Make(kUpgrading, ConditionStatus::kTrue, reasons::kPortsInUse, up->blocked);
  if (up->halted)
    return f.set.Make(
        kUpgrading, ConditionStatus::kTrue, reasons::kRolloutHalted,
        progress + "; halted by autoRollback after " + failed_names +
            " failed (status.failingNodes says why); nodes in flight were rolled back");
  if (up->paused)
    return f.set.Make(kUpgrading, ConditionStatus::kTrue, reasons::kPaused,
                      progress + "; paused: no node starts until spec.upgrade.paused is false");
  const auto moving = up->phases.pending + up->phases.start_new + up->phases.validate +
                      up->phases.switch_ + up->phases.drain + up->phases.stop_old +
                      up->phases.roll_back;
  if (up->held_by_failed > 0 || moving == 0) {
    std::string message = progress + "; " + failed_names + " failed and " +
                          (up->in_place ? "may have no serving gateway" : "serve the old track");
    if (up->held_by_failed > 0)
      message += "; " + Count(static_cast<size_t>(up->held_by_failed), "pending node") +
                 " wait: failed nodes hold their maxParallel/maxUnavailable slots until their "
                 "state is cleared (status.failingNodes says why)";
    return f.set.Make(kUpgrading, ConditionStatus::kTrue, reasons::kNodesFailed, message);
  }
  return f.set.Make(kUpgrading, ConditionStatus::kTrue, reasons::kRollingOut, progress);
}

crd::Condition DegradedCondition(const PoolFacts& f) {
  const PoolStatusInputs& in = f.in;
  const PoolNodeTally& n = f.nodes;
  const UpgradePlan* up = n.upgrade;
  if (!in.decision.track)
    return f.set.Make(kDegraded, ConditionStatus::kTrue, reasons::kSpecRefused,
                      in.decision.message + "; " + f.serving_text + " unchanged");
  if (in.conflict)
    return f.set.Make(kDegraded, ConditionStatus::kTrue, reasons::kPoolConflict,
                      in.conflict->message + "; " + f.serving_text + " unchanged");
  if (in.secret != SecretState::kPresent)
    return f.set.Make(
        kDegraded, ConditionStatus::kTrue, in.secret_reason,
        in.secret_message + "; " + f.serving_text + ", but no gateway can start or restart");
  if (up && !up->failed.empty())
    return f.set.Make(kDegraded, ConditionStatus::kTrue, reasons::kUpgradeFailed,
                      Count(up->failed.size(), "node") +
                          " failed the upgrade and serve the old track; status.failingNodes "
                          "says why");
  // A refusal with a reason of its own (a library of other bytes, a backend without user
  // xattrs) is named by it, so its Warning event says which and troubleshooting.md has its row.
  const auto named = std::find_if(n.failing.begin(), n.failing.end(), [](const auto& p) {
    return compat::IsNamedRefusalReason(p.reason);
  });
  if (n.failing_gateways > 0 && named != n.failing.end())
    return f.set.Make(kDegraded, ConditionStatus::kTrue, named->reason,
                      named->node + ": " + named->message.value_or("") + "; " +
                          Count(n.failing_gateways, "gateway") +
                          " failing; status.failingNodes says why");
  if (n.failing_gateways > 0)
    return f.set.Make(
        kDegraded, ConditionStatus::kTrue, reasons::kGatewaysFailing,
        Count(n.failing_gateways, "gateway") + " failing; status.failingNodes says why");
  if (n.selected > 0 && n.not_verified > 0)
    return f.set.Make(kDegraded, ConditionStatus::kTrue, reasons::kNodesNotVerified,
                      std::to_string(n.not_verified) + " of " + Count(n.selected, "selected node") +
                          " cannot run the gateway");
  if (!n.degraded.empty())
    return f.set.Make(kDegraded, ConditionStatus::kTrue, reasons::kRailDown,
                      n.degraded.front().node + ": " + n.degraded.front().message.value_or("") +
                          "; " + Count(n.degraded.size(), "node") +
                          (n.degraded.size() == 1 ? " serves" : " serve") +
                          " on fewer rails (status.degradedNodes)");
  return f.set.Make(kDegraded, ConditionStatus::kFalse, reasons::kAsExpected,
                    "nothing needs attention");
}

}  // namespace rdmastack::gatewaypool
