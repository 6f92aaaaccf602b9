#pragma once
// NodeFacts + Evaluation -> the protobuf NodeReport the agent streams, and its content hash; the
// ports' counters -> the PortCounters message sent beside it.

#include <string>
#include <vector>

#include "agents/proto/agenthub.pb.h"
#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::agent {

// One evaluation per requirement the hub sent (profile "" for the gateway/default one).
struct ProfileEvaluation {
  std::string profile;
  node::Evaluation evaluation;
};

// The checks of every evaluation, each id once, in first-seen order. When the evaluations agree
// the result is theirs; when they differ, the most severe status (Fail, Unknown, Warn, Pass) with
// its reason and remedy, and a message naming each evaluation's result ("ns/a: Pass ...; ns/b:
// Fail ..."), so no requirement's failure is hidden behind another's pass.
std::vector<node::CheckResult> MergeChecks(const std::vector<ProfileEvaluation>& evaluations);

agent::v1::NodeReport BuildNodeReport(const node::NodeFacts& facts,
                                      const std::vector<ProfileEvaluation>& evaluations,
                                      const std::string& node_name);

// SHA-256 (hex) of the deterministic serialisation of `report` without content_hash and
// probed_unix_millis: unchanged facts and checks give an unchanged hash.
std::string ContentHash(const agent::v1::NodeReport& report);

// The ports' counters of `facts`, apart from the report (agenthub.proto, PortCounters): one set
// per port that has any, in the facts' order; sampled_unix_millis is left for the sender.
agent::v1::PortCounters BuildPortCounters(const node::NodeFacts& facts);
// SHA-256 (hex) of `counters` without sampled_unix_millis: the daemon sends counters only when
// this differs from what it last sent, so an idle node's counters cost nothing.
std::string CountersHash(const agent::v1::PortCounters& counters);

// Hub requirements -> agent Requirements (gateway first, then one per client profile).
std::vector<std::pair<std::string, node::Requirements>> RequirementsFromHub(
    const agent::v1::Requirements& hub, node::Role default_role);

}  // namespace rdmastack::agent
