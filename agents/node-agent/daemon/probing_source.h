#pragma once
// The production ReportSource: probe the host, evaluate every requirement the hub sent, build
// the NodeReport.

#include <functional>
#include <memory>
#include <string>

#include "agents/node-agent/daemon/agent_daemon.h"
#include "node/checks/check.h"
#include "node/probe/device_prober.h"

namespace rdmastack::agent {

struct ProbingSourceOptions {
  std::string root = "/";
  std::string ips_file;
  std::string node_name;
  node::Role default_role = node::Role::kClient;  // used until the hub sends requirements
};

// Makes the DeviceProber for one probe. A fresh one per probe means the vendor libraries a live
// prober dlopens (NVML, libibverbs and its provider) are loaded only while probing: on a real
// H200 host NVML alone kept ~19 MiB resident in the idle daemon when it stayed loaded.
using DeviceProberFactory = std::function<StatusOr<std::unique_ptr<node::DeviceProber>>()>;

class ProbingReportSource final : public ReportSource {
 public:
  ProbingReportSource(ProbingSourceOptions options, DeviceProberFactory make_prober);
  ProbeResult Build(const std::optional<agent::v1::Requirements>& requirements) override;

 private:
  ProbingSourceOptions options_;
  DeviceProberFactory make_prober_;
};

}  // namespace rdmastack::agent
