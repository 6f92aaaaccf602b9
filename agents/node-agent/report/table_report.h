#pragma once
// `rdmastack-agent check --output table`: failures first, each followed by its remedy.

#include <string>

#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::agent {

std::string RenderTable(const node::NodeFacts& facts, const node::Evaluation& evaluation);

}  // namespace rdmastack::agent
