#include "agents/node-agent/daemon/probing_source.h"

#include "agents/node-agent/checks/checks.h"
#include "agents/node-agent/daemon/report_proto.h"
#include "agents/node-agent/probe/node_probe.h"

namespace rdmastack::agent {

ProbingReportSource::ProbingReportSource(ProbingSourceOptions options,
                                         std::unique_ptr<DeviceProber> prober)
    : options_(std::move(options)), prober_(std::move(prober)) {}

agent::v1::NodeReport ProbingReportSource::Build(
    const std::optional<agent::v1::Requirements>& requirements) {
  ProbeOptions probe;
  probe.root = options_.root;
  probe.ips_file = options_.ips_file;
  probe.device_prober = prober_.get();
  NodeFacts facts = ProbeNode(probe);
  std::vector<ProfileEvaluation> evaluations;
  for (auto& [profile, req] : RequirementsFromHub(requirements.value_or(agent::v1::Requirements{}),
                                                  options_.default_role)) {
    evaluations.push_back({profile, Evaluate(facts, req)});
  }
  return BuildNodeReport(facts, evaluations, options_.node_name);
}

}  // namespace rdmastack::agent
