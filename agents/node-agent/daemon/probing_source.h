#pragma once
// The production ReportSource: probe the host, evaluate every requirement the hub sent, build
// the NodeReport.

#include <memory>
#include <string>

#include "agents/node-agent/checks/check.h"
#include "agents/node-agent/daemon/agent_daemon.h"
#include "agents/node-agent/probe/device_prober.h"

namespace rdmastack::agent {

struct ProbingSourceOptions {
  std::string root = "/";
  std::string ips_file;
  std::string node_name;
  Role default_role = Role::kClient;  // used until the hub sends requirements
};

class ProbingReportSource final : public ReportSource {
 public:
  ProbingReportSource(ProbingSourceOptions options, std::unique_ptr<DeviceProber> prober);
  agent::v1::NodeReport Build(const std::optional<agent::v1::Requirements>& requirements) override;

 private:
  ProbingSourceOptions options_;
  std::unique_ptr<DeviceProber> prober_;
};

}  // namespace rdmastack::agent
