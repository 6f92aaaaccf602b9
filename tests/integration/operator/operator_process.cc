#include "tests/integration/operator/operator_process.h"

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

std::string OperatorBinary() {
  return BinaryDir() + "/bin/rdmastack-operator";
}

namespace {
std::vector<std::string> OperatorArgv(std::vector<std::string> args) {
  // The pod webhook listens on a fixed port by default; tests that want it pass their own
  // --webhook-bind-address (the last one wins), the others must not collide on that port.
  args.insert(args.begin(), "--webhook-bind-address=0");
  args.insert(args.begin(), OperatorBinary());
  return args;
}
}  // namespace

OperatorProcess::OperatorProcess(const std::string& name, std::vector<std::string> args)
    : ChildProcess(name, OperatorArgv(std::move(args))) {}

std::string OperatorProcess::Identity(std::chrono::seconds timeout) const {
  static const std::string kBefore = "starting as ";
  std::string identity;
  Eventually(
      [&] {
        const std::string out = Output();
        const size_t at = out.find(kBefore);
        if (at == std::string::npos) return false;
        const size_t end = out.find(' ', at + kBefore.size());
        if (end == std::string::npos) return false;
        identity = out.substr(at + kBefore.size(), end - at - kBefore.size());
        return true;
      },
      timeout);
  return identity;
}

std::vector<std::string> AgentHubTestFlags(const std::string& ns) {
  return {"--agent-namespace=" + ns, "--agent-bind-address=127.0.0.1:0"};
}

}  // namespace rdmastack::testing
