#include "agents/node-agent/daemon/probing_source.h"

#include <malloc.h>

#include <optional>

#include "agents/node-agent/daemon/report_proto.h"
#include "node/checks/checks.h"
#include "node/probe/node_probe.h"

namespace rdmastack::agent {

ProbingReportSource::ProbingReportSource(ProbingSourceOptions options,
                                         DeviceProberFactory make_prober)
    : options_(std::move(options)), make_prober_(std::move(make_prober)) {}

ProbeResult ProbingReportSource::Build(const std::optional<agent::v1::Requirements>& requirements) {
  node::NodeFacts facts;
  {
    auto prober = make_prober_();
    std::optional<node::ProbeIssue> prober_failed;
    if (!prober.ok()) {
      // The sysfs facts still count; the verbs/NVML facts stay unknown, and the report says why
      // (probe.read-errors) instead of leaving them silently unknown.
      prober_failed =
          node::ProbeIssue{"probes", "device prober",
                           "the verbs/NVML probe could not run: " + prober.status().ToString()};
      prober = node::MakeNullDeviceProber();
    }
    node::ProbeOptions probe;
    probe.root = options_.root;
    probe.ips_file = options_.ips_file;
    probe.device_prober = prober->get();
    facts = node::ProbeNode(probe);
    if (prober_failed) facts.issues.push_back(std::move(*prober_failed));
  }
  // The probe's transient allocations (and NVML's, freed at nvmlShutdown) go back to the system
  // instead of staying in the heap of a process that idles for a minute between probes.
  malloc_trim(0);
  std::vector<ProfileEvaluation> evaluations;
  for (auto& [profile, req] : RequirementsFromHub(requirements.value_or(agent::v1::Requirements{}),
                                                  options_.default_role)) {
    evaluations.push_back({profile, node::Evaluate(facts, req)});
  }
  return {BuildNodeReport(facts, evaluations, options_.node_name), BuildPortCounters(facts)};
}

}  // namespace rdmastack::agent
