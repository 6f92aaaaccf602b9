#pragma once
// Entry point of the probe library (CMake target rdmastack_node_probe): reads every fact of a
// node below a host root into NodeFacts. Never throws and never aborts on strange input; what it
// cannot read ends up in NodeFacts::issues with the path.
//
//   ProbeOptions opts;
//   opts.root = "/host";
//   NodeFacts facts = ProbeNode(opts);
//   auto binding = FindRdmaPortForIpv4(facts, "10.10.0.11");   // see ip_lookup.h

#include <string>

#include "node/probe/device_prober.h"
#include "node/probe/facts.h"

namespace rdmastack::node {

struct ProbeOptions {
  std::string root = "/";
  // "<ifname> <ipv4>/<prefix>" lines; empty = the live network namespace (getifaddrs).
  std::string ips_file;
  // Verbs/NVML facts. nullptr = none (everything they provide stays unknown).
  DeviceProber* device_prober = nullptr;
};

NodeFacts ProbeNode(const ProbeOptions& options);

}  // namespace rdmastack::node
