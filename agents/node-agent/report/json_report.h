#pragma once
// `rdmastack-agent check --output json`: a stable, documented JSON rendering (docs/agent.md) of
// the facts, checks and verdicts. Key order is fixed; arrays keep probe order (sorted by name).

#include <string>

#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::agent {

inline constexpr int kReportSchemaVersion = 1;

std::string RenderJson(const node::NodeFacts& facts, const node::Evaluation& evaluation);

}  // namespace rdmastack::agent
