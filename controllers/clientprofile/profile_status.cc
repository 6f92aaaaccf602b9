#include "controllers/clientprofile/profile_status.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "controllers/clientprofile/profile_conditions.h"
#include "controllers/common/conditions.h"

namespace rdmastack::clientprofile {
namespace {

// "n1, n2, ...": the first five of `nodes` whose client is not Ready.
std::string Waiting(const std::vector<const NodeOutcome*>& nodes) {
  std::string waiting;
  size_t count = 0;
  for (const NodeOutcome* n : nodes) {
    if (n->ready) continue;
    if (++count <= 5) waiting += (waiting.empty() ? "" : ", ") + n->name;
  }
  if (count > 5) waiting += ", ...";
  return waiting;
}

}  // namespace

crd::ClientProfileStatus ComputeProfileStatus(const ProfileStatusInputs& in) {
  const crd::ClientProfile& profile = *in.profile;
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

  const ProfileFacts f{
      in, matched, eligible, ready, Waiting(listed_eligible), FindBlocker(in), conditions};
  s.conditions = {NodesEligibleCondition(f), DegradedCondition(f), ProgressingCondition(f),
                  ReadyCondition(f)};
  return s;
}

}  // namespace rdmastack::clientprofile
