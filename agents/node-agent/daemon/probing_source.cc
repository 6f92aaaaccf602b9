#include "agents/node-agent/daemon/probing_source.h"

#include <malloc.h>

#include "agents/node-agent/checks/checks.h"
#include "agents/node-agent/daemon/report_proto.h"
#include "agents/node-agent/probe/node_probe.h"

namespace rdmastack::agent {

ProbingReportSource::ProbingReportSource(ProbingSourceOptions options,
                                         DeviceProberFactory make_prober)
    : options_(std::move(options)), make_prober_(std::move(make_prober)) {}

agent::v1::NodeReport ProbingReportSource::Build(
    const std::optional<agent::v1::Requirements>& requirements) {
  NodeFacts facts;
  {
    auto prober = make_prober_();
    if (!prober.ok()) prober = MakeNullDeviceProber();  // sysfs facts still count
    ProbeOptions probe;
    probe.root = options_.root;
    probe.ips_file = options_.ips_file;
    probe.device_prober = prober->get();
    facts = ProbeNode(probe);
  }
  // The probe's transient allocations (and NVML's, freed at nvmlShutdown) go back to the system
  // instead of staying in the heap of a process that idles for a minute between probes.
  malloc_trim(0);
  std::vector<ProfileEvaluation> evaluations;
  for (auto& [profile, req] : RequirementsFromHub(requirements.value_or(agent::v1::Requirements{}),
                                                  options_.default_role)) {
    evaluations.push_back({profile, Evaluate(facts, req)});
  }
  return BuildNodeReport(facts, evaluations, options_.node_name);
}

}  // namespace rdmastack::agent
