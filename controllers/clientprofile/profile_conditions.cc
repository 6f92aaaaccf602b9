#include "controllers/clientprofile/profile_conditions.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

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

ProfileBlocker FindBlocker(const ProfileStatusInputs& in) {
  const crd::ClientProfile& profile = *in.profile;
  const std::string pool =
      profile.metadata.namespace_.value_or("") + "/" + profile.spec.gateway_pool_ref.name;
  if (!in.refused_reason.empty()) return {in.refused_reason, in.refused_message};
  if (!in.pool_found)
    return {"PoolNotFound", "GatewayPool " + pool +
                                " does not exist; create it or fix gatewayPoolRef (nothing is "
                                "deployed until it exists)"};
  if (!in.secret_message.empty()) return {"CredentialsSecretInvalid", in.secret_message};
  if (!in.s3_user_message.empty()) return {"S3UserNotProvisioned", in.s3_user_message};
  if (!in.library_refused.empty()) return {"LibraryRefused", in.library_refused};
  if (in.endpoints == 0)
    return {"PoolNotServing", "GatewayPool " + pool +
                                  " publishes no Ready gateway endpoint; clients keep their last "
                                  "configuration and are not Ready until one answers (see "
                                  "kubectl get gwp)"};
  return {};
}

std::string ClientLibraryRefusal(const std::string& message) {
  static constexpr std::string_view kPrefix = "LibraryRefused: ";
  size_t at = message.rfind(kPrefix);
  while (at != std::string::npos && at != 0 && message[at - 1] != '\n') {
    at = at == 0 ? std::string::npos : message.rfind(kPrefix, at - 1);
  }
  if (at == std::string::npos) return "";
  const size_t from = at + kPrefix.size();
  const size_t end = message.find('\n', from);
  return message.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

crd::Condition NodesEligibleCondition(const ProfileFacts& f) {
  if (f.matched == 0)
    return f.set.Make(kNodesEligible, ConditionStatus::kFalse, "NoNodesMatched",
                      "no node carries every label of nodeSelector");
  if (f.eligible == 0)
    return f.set.Make(kNodesEligible, ConditionStatus::kFalse, "NoEligibleNodes",
                      "none of the " + std::to_string(f.matched) +
                          " matched nodes can use this profile: " + ReasonSummary(f.in.nodes) +
                          "; status.ineligibleNodes says what each lacks");
  if (f.eligible < f.matched)
    return f.set.Make(kNodesEligible, ConditionStatus::kTrue, "SomeNodesIneligible",
                      Fraction(f.eligible, f.matched) +
                          " matched nodes are eligible; ineligible: " + ReasonSummary(f.in.nodes));
  return f.set.Make(kNodesEligible, ConditionStatus::kTrue, "AllNodesEligible",
                    "all " + std::to_string(f.matched) + " matched nodes can use this profile");
}

crd::Condition DegradedCondition(const ProfileFacts& f) {
  if (!f.blocker.reason.empty())
    return f.set.Make(kDegraded, ConditionStatus::kTrue, f.blocker.reason, f.blocker.message);
  return f.set.Make(kDegraded, ConditionStatus::kFalse, "AsExpected",
                    "the pool serves " + std::to_string(f.in.endpoints) + " endpoint" +
                        (f.in.endpoints == 1 ? "" : "s"));
}

crd::Condition ProgressingCondition(const ProfileFacts& f) {
  const bool blocked = !f.blocker.reason.empty();
  if (!blocked && f.ready < f.eligible)
    return f.set.Make(
        kProgressing, ConditionStatus::kTrue, "ClientsStarting",
        Fraction(f.ready, f.eligible) + " client data planes Ready; waiting for " + f.waiting);
  return f.set.Make(
      kProgressing, ConditionStatus::kFalse, blocked ? "Blocked" : "Complete",
      blocked ? "blocked by " + f.blocker.reason : "every eligible node's client is Ready");
}

crd::Condition ReadyCondition(const ProfileFacts& f) {
  if (!f.blocker.reason.empty())
    return f.set.Make(kReady, ConditionStatus::kFalse, f.blocker.reason, f.blocker.message);
  if (f.eligible == 0)
    return f.set.Make(kReady, ConditionStatus::kFalse, "NoEligibleNodes",
                      f.matched == 0 ? "no node matches nodeSelector"
                                     : "no matched node is eligible: " + ReasonSummary(f.in.nodes));
  if (f.ready < f.eligible)
    return f.set.Make(kReady, ConditionStatus::kFalse, "ClientsNotReady",
                      Fraction(f.ready, f.eligible) +
                          " eligible nodes have a Ready client; not yet: " + f.waiting);
  return f.set.Make(kReady, ConditionStatus::kTrue, "AllClientsReady",
                    std::to_string(f.ready) + " node" + (f.ready == 1 ? "" : "s") +
                        " can read and write the pool; workloads select " + f.in.ready_node_label);
}

}  // namespace rdmastack::clientprofile
