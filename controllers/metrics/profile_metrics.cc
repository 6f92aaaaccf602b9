#include "controllers/metrics/profile_metrics.h"

#include <map>
#include <string>
#include <utility>

#include "controllers/metrics/condition_metrics.h"
#include "controllers/metrics/family_set.h"

namespace rdmastack::statusmetrics {
namespace {

constexpr char kProfilePrefix[] = "rdmastack_clientprofile";
constexpr char kProfileNodes[] = "rdmastack_clientprofile_nodes";
constexpr char kClients[] = "rdmastack_clientprofile_clients";
constexpr char kIneligible[] = "rdmastack_clientprofile_ineligible_nodes";

}  // namespace

std::vector<runtime::SampledFamily> ProfileMetrics(
    const std::vector<crd::ClientProfile>& profiles) {
  FamilySet set;
  set.Declare(kProfileNodes,
              "Nodes of a ClientProfile by state (status.nodeCounts): matched, eligible, ready.");
  set.Declare(kClients,
              "Eligible nodes of a ClientProfile by the transport chosen for them and whether "
              "their client is ready.");
  set.Declare(kIneligible, "Nodes a ClientProfile matches but cannot serve, by reason.");
  DeclareConditionFamilies(set, kProfilePrefix, "ClientProfile");
  for (const crd::ClientProfile& profile : profiles) {
    if (!profile.status) continue;
    const crd::ClientProfileStatus& status = *profile.status;
    const Labels labels = {{"namespace", profile.metadata.namespace_.value_or("")},
                           {"clientprofile", profile.metadata.name}};
    if (status.node_counts) {
      const crd::ClientProfileNodeCounts& c = *status.node_counts;
      for (const auto& [state, n] : {std::pair<const char*, int32_t>{"matched", c.matched},
                                     {"eligible", c.eligible},
                                     {"ready", c.ready}}) {
        set.Add(kProfileNodes, With(labels, {{"state", state}}), n);
      }
    }
    // Both readiness values of every transport in use, so "not ready" reads 0, not absent.
    std::map<std::string, std::pair<int, int>> by_transport;  // transport -> (ready, not ready)
    for (const crd::EligibleNode& n : status.eligible_nodes) {
      auto& counts = by_transport[n.transport];
      ++(n.ready ? counts.first : counts.second);
    }
    for (const auto& [transport, counts] : by_transport) {
      set.Add(kClients, With(labels, {{"transport", transport}, {"ready", "true"}}), counts.first);
      set.Add(kClients, With(labels, {{"transport", transport}, {"ready", "false"}}),
              counts.second);
    }
    std::map<std::string, int> ineligible;
    for (const crd::IneligibleNode& n : status.ineligible_nodes) ++ineligible[n.reason];
    for (const auto& [reason, n] : ineligible) {
      set.Add(kIneligible, With(labels, {{"reason", reason}}), n);
    }
    AddConditions(set, kProfilePrefix, labels, status.conditions);
  }
  return std::move(set).Take();
}

}  // namespace rdmastack::statusmetrics
