#pragma once
// The chart installed with helm into the real control plane, its operator pods on simulated nodes
// (tests/harness/chart/simulated-nodes.yaml): what the chart and the observability e2e share.

#include <string>
#include <vector>

#include "tests/e2e/common/pool_e2e_fixture.h"

namespace rdmastack::testing {

inline constexpr char kReleaseNamespace[] = "rdmastack-system";
inline constexpr char kRelease[] = "rdmastack";

class ChartE2eFixture : public PoolE2eTest {
 protected:
  // Deletes the test's pools and profiles while the operator runs (finalizers), then uninstalls.
  void TearDown() override;

  // helm ARGS against the cluster, in the release namespace.
  CommandResult Helm(std::vector<std::string> args) const;
  // The chart into rdmastack-system with its default values and `extra` helm arguments; returns
  // once the operator Deployment is ready (helm --wait) and a replica holds the lease.
  void Install(const std::vector<std::string>& extra);
  void Uninstall();

  std::vector<std::string> OperatorPods() const;
  // The lease holder's pod (its identity is POD_RANDOM).
  std::string LeaderPod() const;
  // Every operator pod's output.
  std::string OperatorLog() const override;
  // The pool fixture's, plus the release namespace's pods and events (agents, operator), the
  // agents' output and the nodes' labels: a storage node's agent that never reported failed two CI
  // runs of the chart e2e, without a trace there.
  std::string Diagnostics() const;

  bool installed_ = false;
  std::string notes_;  // what helm install printed
};

}  // namespace rdmastack::testing
