#include "agents/node-agent/cli/check_command.h"

#include "agents/node-agent/checks/checks.h"
#include "agents/node-agent/probe/node_probe.h"
#include "agents/node-agent/report/json_report.h"
#include "agents/node-agent/report/table_report.h"

namespace rdmastack::agent {

StatusOr<std::unique_ptr<DeviceProber>> MakeProber(const std::string& root,
                                                   const std::string& probes_file, bool live_probes,
                                                   const LiveProberOptions& live) {
  if (!probes_file.empty()) return MakeFileDeviceProber(probes_file);
  // The live libraries describe this machine; only trust them for a fixture root when asked.
  if (root == "/" || live_probes) return MakeLiveDeviceProber(live);
  return MakeNullDeviceProber();
}

StatusOr<CheckRun> RunCheck(const CheckOptions& options) {
  RDMASTACK_ASSIGN_OR_RETURN(auto prober,
                             MakeProber(options.root, options.probes_file, options.live_probes));
  ProbeOptions probe;
  probe.root = options.root;
  probe.ips_file = options.ips_file;
  probe.device_prober = prober.get();
  CheckRun run;
  run.facts = ProbeNode(probe);
  run.evaluation = Evaluate(run.facts, options.requirements);
  run.rendered = options.output == OutputFormat::kJson ? RenderJson(run.facts, run.evaluation)
                                                       : RenderTable(run.facts, run.evaluation);
  return run;
}

}  // namespace rdmastack::agent
