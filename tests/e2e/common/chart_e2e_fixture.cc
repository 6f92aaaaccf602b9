#include "tests/e2e/common/chart_e2e_fixture.h"

#include <sstream>

namespace rdmastack::testing {

using namespace std::chrono_literals;

void ChartE2eFixture::TearDown() {
  // What the test made goes while the operator still runs, so that finalizers are honoured.
  if (env_ != nullptr && ns_ != nullptr && installed_) {
    for (const char* kind : {"clientprofiles", "gatewaypools"})
      env_->Kubectl({"delete", kind, "--all", "-n", ns_->name(), "--timeout=60s"});
  }
  PoolE2eTest::TearDown();
  if (env_ != nullptr && installed_) Uninstall();
}

CommandResult ChartE2eFixture::Helm(std::vector<std::string> args) const {
  const char* helm = std::getenv("RDMASTACK_HELM");
  if (helm == nullptr) return {1, "", "RDMASTACK_HELM is not set (scripts/cluster.sh env)"};
  args.insert(args.begin(), helm);
  args.insert(args.end(), {"--kubeconfig", env_->kubeconfig, "-n", kReleaseNamespace});
  return RunCommand(args);
}

void ChartE2eFixture::Install(const std::vector<std::string>& extra) {
  Uninstall();  // what an interrupted run left
  std::vector<std::string> args = {"install",
                                   kRelease,
                                   SourcePath("charts/rdmastack"),
                                   "--create-namespace",
                                   "-f",
                                   SourcePath("tests/harness/chart/simulated-nodes.yaml"),
                                   "--wait",
                                   "--timeout=180s"};
  args.insert(args.end(), extra.begin(), extra.end());
  CommandResult r = Helm(args);
  installed_ = true;
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << OperatorLog()
                            << Get({"get", "pods", "-n", kReleaseNamespace, "-o", "wide"});
  notes_ = r.out;
  ASSERT_TRUE(Eventually([&] { return !LeaderPod().empty(); }, 60s)) << OperatorLog();
}

void ChartE2eFixture::Uninstall() {
  Helm({"uninstall", kRelease, "--wait", "--timeout=60s", "--ignore-not-found"});
  env_->Kubectl({"delete", "namespace", kReleaseNamespace, "--ignore-not-found", "--wait=true",
                 "--timeout=60s"});
  installed_ = false;
}

std::vector<std::string> ChartE2eFixture::OperatorPods() const {
  std::istringstream in(Get({"get", "pods", "-n", kReleaseNamespace, "-l",
                             "app.kubernetes.io/name=rdmastack-operator", "-o",
                             "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"}));
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

std::string ChartE2eFixture::LeaderPod() const {
  const std::string holder = Get({"get", "lease", "rdmastack-operator", "-n", kReleaseNamespace,
                                  "-o", "jsonpath={.spec.holderIdentity}"});
  return holder.substr(0, holder.find('_'));
}

std::string ChartE2eFixture::OperatorLog() const {
  if (env_ == nullptr) return "";
  std::string out;
  for (const std::string& pod : OperatorPods()) {
    CommandResult r = RunCommand({env_->cluster_script, "logs", "-n", kReleaseNamespace, pod});
    out += "--- operator pod " + pod + "\n" + r.out + r.err;
  }
  return out;
}

std::string ChartE2eFixture::Diagnostics() const {
  std::string out = PoolE2eTest::Diagnostics() +
                    Get({"get", "pods", "-n", kReleaseNamespace, "-o", "wide"}) +
                    Get({"get", "ds", "-n", kReleaseNamespace, "-o", "yaml"}) +
                    Get({"get", "events", "-n", kReleaseNamespace, "--sort-by=.lastTimestamp"}) +
                    Get({"get", "nodes", "--show-labels"});
  std::istringstream agents(
      Get({"get", "pods", "-n", kReleaseNamespace, "-l", "app.kubernetes.io/name=rdmastack-agent",
           "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"}));
  for (std::string pod; std::getline(agents, pod);) {
    if (pod.empty()) continue;
    CommandResult r = RunCommand({env_->cluster_script, "logs", "-n", kReleaseNamespace, pod});
    out += "--- agent pod " + pod + "\n" + r.out + r.err;
  }
  return out;
}

}  // namespace rdmastack::testing
