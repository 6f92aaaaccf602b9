#include "controllers/clientprofile/profile_conditions.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "crds/types/reasons.h"

namespace rdmastack::clientprofile {

namespace reasons = crd::reasons;

std::string Fraction(size_t a, size_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

namespace {

using crd::ConditionStatus;

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
    return {reasons::kPoolNotFound,
            "GatewayPool " + pool +
                " does not exist; create it or fix gatewayPoolRef (nothing is "
                "deployed until it exists)"};
  if (!in.secret_message.empty()) return {reasons::kCredentialsSecretInvalid, in.secret_message};
  if (!in.s3_user_message.empty()) return {reasons::kS3UserNotProvisioned, in.s3_user_message};
  if (!in.library_refused.empty()) return {in.library_refused.reason, in.library_refused.message};
  if (in.endpoints == 0)
    return {reasons::kPoolNotServing,
            "GatewayPool " + pool +
                " publishes no Ready gateway endpoint; clients keep their last "
                "configuration and are not Ready until one answers (see "
                "kubectl get gwp)"};
  return {};
}

LibraryRefusal ClientLibraryRefusal(const std::string& message) {
  // A line of its own that starts with the reason: the client's last words, not a log line that
  // mentions one.
  LibraryRefusal last;
  size_t line = 0;
  while (line <= message.size()) {
    size_t end = message.find('\n', line);
    if (end == std::string::npos) end = message.size();
    const std::string_view text(message.data() + line, end - line);
    for (std::string_view reason : {"LibraryRefused", "LibraryDigestMismatch"}) {
      if (text.size() > reason.size() + 1 && text.substr(0, reason.size()) == reason &&
          text.substr(reason.size(), 2) == ": ") {
        last = {std::string(reason), std::string(text.substr(reason.size() + 2))};
      }
    }
    line = end + 1;
  }
  return last;
}

crd::Condition NodesEligibleCondition(const ProfileFacts& f) {
  if (f.matched == 0)
    return f.set.Make(kNodesEligible, ConditionStatus::kFalse, reasons::kNoNodesMatched,
                      "no node carries every label of nodeSelector");
  if (f.eligible == 0)
    return f.set.Make(kNodesEligible, ConditionStatus::kFalse, reasons::kNoEligibleNodes,
                      "none of the " + std::to_string(f.matched) +
                          " matched nodes can use this profile: " + ReasonSummary(f.in.nodes) +
                          "; status.ineligibleNodes says what each lacks");
  if (f.eligible < f.matched)
    return f.set.Make(kNodesEligible, ConditionStatus::kTrue, reasons::kSomeNodesIneligible,
                      Fraction(f.eligible, f.matched) +
                          " matched nodes are eligible; ineligible: " + ReasonSummary(f.in.nodes));
  return f.set.Make(kNodesEligible, ConditionStatus::kTrue, reasons::kAllNodesEligible,
                    "all " + std::to_string(f.matched) + " matched nodes can use this profile");
}

crd::Condition DegradedCondition(const ProfileFacts& f) {
  if (!f.blocker.reason.empty())
    return f.set.Make(kDegraded, ConditionStatus::kTrue, f.blocker.reason, f.blocker.message);
  return f.set.Make(kDegraded, ConditionStatus::kFalse, reasons::kAsExpected,
                    "the pool serves " + std::to_string(f.in.endpoints) + " endpoint" +
                        (f.in.endpoints == 1 ? "" : "s"));
}

crd::Condition ProgressingCondition(const ProfileFacts& f) {
  const bool blocked = !f.blocker.reason.empty();
  if (!blocked && f.ready < f.eligible)
    return f.set.Make(
        kProgressing, ConditionStatus::kTrue, reasons::kClientsStarting,
        Fraction(f.ready, f.eligible) + " client data planes Ready; waiting for " + f.waiting);
  return f.set.Make(
      kProgressing, ConditionStatus::kFalse, blocked ? reasons::kBlocked : reasons::kComplete,
      blocked ? "blocked by " + f.blocker.reason : "every eligible node's client is Ready");
}

crd::Condition ReadyCondition(const ProfileFacts& f) {
  if (!f.blocker.reason.empty())
    return f.set.Make(kReady, ConditionStatus::kFalse, f.blocker.reason, f.blocker.message);
  if (f.eligible == 0)
    return f.set.Make(kReady, ConditionStatus::kFalse, reasons::kNoEligibleNodes,
                      f.matched == 0 ? "no node matches nodeSelector"
                                     : "no matched node is eligible: " + ReasonSummary(f.in.nodes));
  if (f.ready < f.eligible)
    return f.set.Make(kReady, ConditionStatus::kFalse, reasons::kClientsNotReady,
                      Fraction(f.ready, f.eligible) +
                          " eligible nodes have a Ready client; not yet: " + f.waiting);
  return f.set.Make(kReady, ConditionStatus::kTrue, reasons::kAllClientsReady,
                    std::to_string(f.ready) + " node" + (f.ready == 1 ? "" : "s") +
                        " can read and write the pool; workloads select " + f.in.ready_node_label);
}

}  // namespace rdmastack::clientprofile
