#include "controllers/clientprofile/profile_status.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "controllers/common/conditions.h"

namespace rdmastack::clientprofile {
namespace {

using crd::ConditionStatus;

std::string Fraction(size_t a, size_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

// "Bar1TooSmall x2 (gpu-node-0, gpu-node-4), NoRdmaDevice x1 (gpu-node-3)": the reasons of the
// ineligible nodes, most frequent first, a few names each.
std::string ReasonSummary(const std::vector<NodeOutcome>& nodes) {
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& n : nodes) {
    if (!n.eligibility.eligible) by_reason[n.eligibility.reason].push_back(n.name);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> sorted(by_reason.begin(),
                                                                       by_reason.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::string out;
  for (const auto& [reason, names] : sorted) {
    out += (out.empty() ? "" : ", ") + reason + " x" + std::to_string(names.size()) + " (";
    for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
    out += names.size() > 3 ? ", ...)" : ")";
  }
  return out;
}

}  // namespace

crd::ClientProfileStatus ComputeProfileStatus(const ProfileStatusInputs& in) {
  const crd::ClientProfile& profile = *in.profile;
  const std::string ns = profile.metadata.namespace_.value_or("");
  const std::string pool = ns + "/" + profile.spec.gateway_pool_ref.name;
  crd::ClientProfileStatus s;
  s.observed_generation = profile.metadata.generation;
  const controllers::ConditionSetter conditions(
      profile.status ? &profile.status->conditions : nullptr, in.now,
      profile.metadata.generation.value_or(0));

  size_t eligible = 0, ready = 0;
  std::map<std::pair<std::string, std::string>, int32_t> transports;
  std::vector<const NodeOutcome*> listed_eligible;
  for (const auto& n : in.nodes) {
    const Eligibility& e = n.eligibility;
    if (!e.eligible) {
      if (s.ineligible_nodes.size() < kMaxListedNodes)
        s.ineligible_nodes.push_back({n.name, e.reason, e.message});
      continue;
    }
    ++eligible;
    ready += n.ready ? 1 : 0;
    ++transports[{e.transport, e.memory_registration}];
    listed_eligible.push_back(&n);
  }
  // Nodes that are not Ready first: they are the ones to look at.
  std::stable_sort(
      listed_eligible.begin(), listed_eligible.end(),
      [](const NodeOutcome* a, const NodeOutcome* b) { return !a->ready && b->ready; });
  for (size_t i = 0; i < listed_eligible.size() && i < kMaxListedNodes; ++i) {
    const NodeOutcome& n = *listed_eligible[i];
    const Eligibility& e = n.eligibility;
    s.eligible_nodes.push_back(
        {n.name, e.transport,
         e.memory_registration.empty() ? std::nullopt : std::optional(e.memory_registration),
         e.gid_index, n.ready, e.message});
  }
  for (const auto& [key, count] : transports) {
    s.transports.push_back(
        {key.first, key.second.empty() ? std::nullopt : std::optional(key.second), count});
  }
  if (transports.size() == 1) {
    s.transport = transports.begin()->first.first;
  } else if (transports.size() > 1) {
    const bool one = std::all_of(transports.begin(), transports.end(), [&](const auto& t) {
      return t.first.first == transports.begin()->first.first;
    });
    s.transport = one ? transports.begin()->first.first : "Mixed";
  }
  const size_t matched = in.nodes.size();
  s.node_counts = crd::ClientProfileNodeCounts{
      static_cast<int32_t>(matched), static_cast<int32_t>(eligible), static_cast<int32_t>(ready),
      Fraction(eligible, matched), Fraction(ready, eligible)};
  s.ready_node_label = in.ready_node_label;
  s.endpoints = in.endpoints;
  for (size_t i = 0; i < in.retiring.size() && i < kMaxListedNodes; ++i)
    s.retiring_nodes.push_back(in.retiring[i]);
  s.s3_user = in.s3_user;

  // NodesEligible
  const std::string summary = ReasonSummary(in.nodes);
  if (matched == 0) {
    s.conditions.push_back(conditions.Make(kNodesEligible, ConditionStatus::kFalse,
                                           "NoNodesMatched",
                                           "no node carries every label of nodeSelector"));
  } else if (eligible == 0) {
    s.conditions.push_back(conditions.Make(
        kNodesEligible, ConditionStatus::kFalse, "NoEligibleNodes",
        "none of the " + std::to_string(matched) + " matched nodes can use this profile: " +
            summary + "; status.ineligibleNodes says what each lacks"));
  } else if (eligible < matched) {
    s.conditions.push_back(conditions.Make(
        kNodesEligible, ConditionStatus::kTrue, "SomeNodesIneligible",
        Fraction(eligible, matched) + " matched nodes are eligible; ineligible: " + summary));
  } else {
    s.conditions.push_back(
        conditions.Make(kNodesEligible, ConditionStatus::kTrue, "AllNodesEligible",
                        "all " + std::to_string(matched) + " matched nodes can use this profile"));
  }

  // Degraded: something outside the nodes keeps the clients from working.
  std::string bad_reason, bad_message;
  if (!in.refused_reason.empty()) {
    bad_reason = in.refused_reason;
    bad_message = in.refused_message;
  } else if (!in.pool_found) {
    bad_reason = "PoolNotFound";
    bad_message = "GatewayPool " + pool +
                  " does not exist; create it or fix gatewayPoolRef (nothing is deployed until "
                  "it exists)";
  } else if (!in.secret_message.empty()) {
    bad_reason = "CredentialsSecretInvalid";
    bad_message = in.secret_message;
  } else if (!in.s3_user_message.empty()) {
    bad_reason = "S3UserNotProvisioned";
    bad_message = in.s3_user_message;
  } else if (in.endpoints == 0) {
    bad_reason = "PoolNotServing";
    bad_message = "GatewayPool " + pool +
                  " publishes no Ready gateway endpoint; clients keep their last configuration "
                  "and are not Ready until one answers (see kubectl get gwp)";
  }
  s.conditions.push_back(
      bad_reason.empty()
          ? conditions.Make(kDegraded, ConditionStatus::kFalse, "AsExpected",
                            "the pool serves " + std::to_string(in.endpoints) + " endpoint" +
                                (in.endpoints == 1 ? "" : "s"))
          : conditions.Make(kDegraded, ConditionStatus::kTrue, bad_reason, bad_message));

  // Progressing: client pods still starting on eligible nodes.
  std::string waiting;
  size_t waiting_count = 0;
  for (const NodeOutcome* n : listed_eligible) {
    if (n->ready) continue;
    if (++waiting_count <= 5) waiting += (waiting.empty() ? "" : ", ") + n->name;
  }
  if (waiting_count > 5) waiting += ", ...";
  const bool progressing = bad_reason.empty() && ready < eligible;
  s.conditions.push_back(
      progressing ? conditions.Make(kProgressing, ConditionStatus::kTrue, "ClientsStarting",
                                    Fraction(ready, eligible) +
                                        " client data planes Ready; waiting for " + waiting)
                  : conditions.Make(kProgressing, ConditionStatus::kFalse,
                                    bad_reason.empty() ? "Complete" : "Blocked",
                                    bad_reason.empty() ? "every eligible node's client is Ready"
                                                       : "blocked by " + bad_reason));

  // Ready: every eligible node can do I/O to the pool.
  if (!bad_reason.empty()) {
    s.conditions.push_back(
        conditions.Make(kReady, ConditionStatus::kFalse, bad_reason, bad_message));
  } else if (eligible == 0) {
    s.conditions.push_back(conditions.Make(
        kReady, ConditionStatus::kFalse, "NoEligibleNodes",
        matched == 0 ? "no node matches nodeSelector" : "no matched node is eligible: " + summary));
  } else if (ready < eligible) {
    s.conditions.push_back(conditions.Make(
        kReady, ConditionStatus::kFalse, "ClientsNotReady",
        Fraction(ready, eligible) + " eligible nodes have a Ready client; not yet: " + waiting));
  } else {
    s.conditions.push_back(conditions.Make(
        kReady, ConditionStatus::kTrue, "AllClientsReady",
        std::to_string(ready) + " node" + (ready == 1 ? "" : "s") +
            " can read and write the pool; workloads select " + in.ready_node_label));
  }
  return s;
}

}  // namespace rdmastack::clientprofile
