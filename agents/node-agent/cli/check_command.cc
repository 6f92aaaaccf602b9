#include "agents/node-agent/cli/check_command.h"

#include "agents/node-agent/report/json_report.h"
#include "agents/node-agent/report/table_report.h"
#include "node/checks/checks.h"
#include "node/probe/node_probe.h"

namespace rdmastack::agent {

StatusOr<CheckRun> RunCheck(const CheckOptions& options) {
  RDMASTACK_ASSIGN_OR_RETURN(
      auto prober, node::MakeProber(options.root, options.probes_file, options.live_probes));
  node::ProbeOptions probe;
  probe.root = options.root;
  probe.ips_file = options.ips_file;
  probe.device_prober = prober.get();
  CheckRun run;
  run.facts = node::ProbeNode(probe);
  run.evaluation = node::Evaluate(run.facts, options.requirements);
  run.rendered = options.output == OutputFormat::kJson ? RenderJson(run.facts, run.evaluation)
                                                       : RenderTable(run.facts, run.evaluation);
  return run;
}

}  // namespace rdmastack::agent
