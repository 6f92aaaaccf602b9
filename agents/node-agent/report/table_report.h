#pragma once
// `rdmastack-agent check --output table`: failures first, each followed by its remedy.

#include <string>

#include "agents/node-agent/checks/check.h"
#include "agents/node-agent/probe/facts.h"

namespace rdmastack::agent {

std::string RenderTable(const NodeFacts& facts, const Evaluation& evaluation);

}  // namespace rdmastack::agent
