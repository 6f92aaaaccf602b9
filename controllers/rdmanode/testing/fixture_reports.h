#pragma once
// Real agent reports for tests: the agent's own probe, checks and report builder run over a
// fixture tree (tests/fixtures/nodes/<fixture>), as `rdmastack-agent run` would send them.

#include <string>

#include "agents/proto/agenthub.pb.h"
#include "node/probe/facts.h"

namespace rdmastack::rdmanode::testing {

agent::v1::Requirements GatewayRequirements();
// One client requirement for ClientProfile `profile` ("ns/name"); transport Auto.
agent::v1::Requirements ClientRequirements(const std::string& profile,
                                           int64_t max_transfer_bytes = 0);

// The facts the agent's probe reads from `fixture`.
node::NodeFacts FixtureFacts(const std::string& fixture);

// The report the agent on `node` would send for `fixture` under `requirements`.
agent::v1::NodeReport FixtureReport(const std::string& fixture,
                                    const agent::v1::Requirements& requirements,
                                    const std::string& node = "node-0");

// The port counters the agent would send beside that report.
agent::v1::PortCounters FixtureCounters(const std::string& fixture);

}  // namespace rdmastack::rdmanode::testing
