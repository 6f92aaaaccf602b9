#include "tests/integration/sim/sim_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rdmastack::testing {

sim::NodeTable SimulatedNodes() {
  const char* path = std::getenv("RDMASTACK_SIM_NODES");
  if (path == nullptr || *path == '\0') return {};
  auto table = sim::LoadNodeTable(path);
  return table.ok() ? *table : sim::NodeTable{};
}

TestNamespace::TestNamespace(const ClusterEnv& env, const std::string& prefix)
    : env_(env), name_(UniqueName(prefix)) {
  CommandResult r = env_.Kubectl({"create", "namespace", name_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

void ApplyChartAgentServiceAccount(const TestNamespace& ns) {
  const char* helm = std::getenv("RDMASTACK_HELM");
  ASSERT_NE(helm, nullptr) << "RDMASTACK_HELM (scripts/cluster.sh env) names the helm binary";
  CommandResult chart =
      RunCommand({helm, "template", "rdmastack", SourcePath("charts/rdmastack"), "-n", ns.name(),
                  "--show-only", "templates/agent-serviceaccount.yaml"});
  ASSERT_EQ(chart.exit_code, 0) << chart.err;
  ns.Apply(chart.out);
}

uint16_t FreePortOn(const std::string& address) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TestNamespace::~TestNamespace() {
  env_.Kubectl({"delete", "namespace", name_, "--wait=false"});
}

void TestNamespace::Apply(const std::string& yaml) const {
  CommandResult r = env_.Kubectl({"apply", "-n", name_, "-f", "-"}, yaml);
  EXPECT_EQ(r.exit_code, 0) << r.err << "\n" << yaml;
}

std::string TestNamespace::PodField(const std::string& pod, const std::string& jsonpath) const {
  CommandResult r = env_.Kubectl({"get", "pod", pod, "-n", name_, "-o", "jsonpath=" + jsonpath});
  return r.exit_code == 0 ? r.out : "";
}

std::vector<std::string> TestNamespace::Pods(const std::string& selector) const {
  CommandResult r = env_.Kubectl({"get", "pods", "-n", name_, "-l", selector, "-o",
                                  "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"});
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

CommandResult TestNamespace::Logs(const std::string& pod, const std::string& container) const {
  std::vector<std::string> argv = {env_.cluster_script, "logs", "-n", name_, pod};
  if (!container.empty()) argv.push_back(container);
  return RunCommand(argv);
}

std::vector<pid_t> ProcessesInNetns(const std::string& netns) {
  std::vector<pid_t> out;
  CommandResult r = RunCommand({"ip", "netns", "pids", netns});
  std::istringstream lines(r.out);
  for (long pid; lines >> pid;) {
    // The node's kube-proxy (scripts/lib/sim_services.sh) is the cluster's Service plumbing, not
    // a pod: it lives as long as the node.
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name == "kube-proxy") continue;
    out.push_back(static_cast<pid_t>(pid));
  }
  return out;
}

pid_t PidOfContainerId(const std::string& container_id) {
  const std::string prefix = "rdmastack-sim://";
  if (container_id.rfind(prefix, 0) != 0) return -1;
  return static_cast<pid_t>(std::atol(container_id.c_str() + prefix.size()));
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip, state;
  stat >> skip >> skip >> state;
  return state != "Z";
}

std::vector<std::string> ProcessEnv(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::vector<std::string> out;
  for (std::string e; std::getline(in, e, '\0');) out.push_back(e);
  return out;
}

bool InNetns(pid_t pid, const std::string& netns) {
  struct stat mine {
  }, theirs{};
  return ::stat(("/proc/" + std::to_string(pid) + "/ns/net").c_str(), &mine) == 0 &&
         ::stat(("/run/netns/" + netns).c_str(), &theirs) == 0 && mine.st_ino == theirs.st_ino &&
         mine.st_dev == theirs.st_dev;
}

}  // namespace rdmastack::testing
