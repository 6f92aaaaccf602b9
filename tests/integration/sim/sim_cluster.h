#pragma once
// What the simulated-node tests need on top of ClusterEnv: the node table cluster.sh wrote, pods'
// fields through kubectl, and the processes inside a node's network namespace.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tests/harness/cluster_env.h"
#include "tests/harness/node-runtime/node_table.h"

namespace rdmastack::testing {

// The simulated nodes of the running cluster (RDMASTACK_SIM_NODES), or empty.
sim::NodeTable SimulatedNodes();

// A namespace for one test, deleted at the end.
class TestNamespace {
 public:
  explicit TestNamespace(const ClusterEnv& env, const std::string& prefix);
  ~TestNamespace();
  const std::string& name() const { return name_; }
  // kubectl apply -n <ns> -f - ; failures are test failures.
  void Apply(const std::string& yaml) const;
  // kubectl get pod NAME -o jsonpath=EXPR in this namespace ("" when it fails).
  std::string PodField(const std::string& pod, const std::string& jsonpath) const;
  // Names of the pods with this label selector.
  std::vector<std::string> Pods(const std::string& selector) const;
  // cluster.sh logs -n <ns> POD [CONTAINER]
  CommandResult Logs(const std::string& pod, const std::string& container = "") const;

 private:
  const ClusterEnv& env_;
  std::string name_;
};

// The chart's agent ServiceAccount (charts/rdmastack, templates/agent-serviceaccount.yaml,
// rendered by the helm of RDMASTACK_HELM) applied into `ns`; failures are test failures.
void ApplyChartAgentServiceAccount(const TestNamespace& ns);

// A port nothing listens on, on `address` (e.g. the host's address on the nodes' bridge).
uint16_t FreePortOn(const std::string& address);

// Host PIDs of the processes inside network namespace `netns`, less the node's kube-proxy.
std::vector<pid_t> ProcessesInNetns(const std::string& netns);
// The host PID in a containerID "rdmastack-sim://<pid>", or -1.
pid_t PidOfContainerId(const std::string& container_id);
bool ProcessAlive(pid_t pid);
// "NAME=value" entries of a process's environment.
std::vector<std::string> ProcessEnv(pid_t pid);
// True when process `pid` is in network namespace `netns` (/run/netns/<netns>).
bool InNetns(pid_t pid, const std::string& netns);

}  // namespace rdmastack::testing
