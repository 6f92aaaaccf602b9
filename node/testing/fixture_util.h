#pragma once
// Helpers for tests that run the agent over tests/fixtures/nodes/<profile>.

#include <string>

#include "node/probe/device_prober.h"
#include "node/probe/node_probe.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::node::testing {

using ::rdmastack::testing::SourceDir;

inline std::string FixtureDir(const std::string& profile) {
  return ::rdmastack::testing::SourcePath("tests/fixtures/nodes/" + profile);
}

// Probes a fixture the way `check --root P/root --ips-file P/ips.txt --probes-file P/probes.txt`
// does.
inline NodeFacts ProbeFixture(const std::string& profile) {
  const std::string dir = FixtureDir(profile);
  auto prober = MakeFileDeviceProber(dir + "/probes.txt");
  ProbeOptions opts;
  opts.root = dir + "/root";
  opts.ips_file = dir + "/ips.txt";
  opts.device_prober = prober.ok() ? prober->get() : nullptr;
  return ProbeNode(opts);
}

}  // namespace rdmastack::node::testing
