#pragma once
// What integration tests know about the running local control plane (scripts/cluster.sh). The
// test runner (scripts/test.sh) exports RDMASTACK_KUBECONFIG and RDMASTACK_KUBECTL; without them
// an integration test skips, unless RDMASTACK_REQUIRE_CLUSTER=1 makes that a failure.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "operator/k8s/client.h"

namespace rdmastack::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv (no shell) with optional stdin; captures stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_data = "");

struct ClusterEnv {
  std::string kubeconfig;
  std::string kubectl;
  std::string cluster_script;  // scripts/cluster.sh

  // kubectl --kubeconfig <admin> args...
  CommandResult Kubectl(std::vector<std::string> args, const std::string& stdin_data = "") const;
  // Same, as another kubeconfig (a ServiceAccount's).
  CommandResult KubectlAs(const std::string& kubeconfig, std::vector<std::string> args,
                          const std::string& stdin_data = "") const;
  // An API client as the admin, made at first use and shared by every thread of the process: for
  // the reads a test repeats (polls, watchers). Each kubectl process costs about 40 ms of CPU,
  // and they were the largest CPU cost of CI's e2e phase after the API servers
  // (docs/development.md, "CI"). Null, with the reason logged, when the kubeconfig is unusable.
  k8s::Client* Api() const;
};

// kubectl apply --server-side of crds/*.yaml, then waits until they are Established. The
// operator's informers need them (its caches never sync without them).
CommandResult InstallCrds(const ClusterEnv& env);

// Returns nullptr when no cluster is configured (the caller then skips).
const ClusterEnv* GetClusterEnv();

// Polls `condition` until it holds or `timeout` passes (every 250 ms, every 500 ms after the first
// 5 s); returns its last value.
bool Eventually(const std::function<bool()>& condition, std::chrono::seconds timeout);

// A fresh namespace per test, deleted (without waiting) at the end.
std::string UniqueName(const std::string& prefix);

// The build tree: RDMASTACK_BINARY_DIR if set, else the parent of the directory holding the test
// executable (rdmastack_test puts every test binary in <build>/tests).
std::string BinaryDir();

// The source tree: RDMASTACK_SOURCE_DIR (ctest sets it) if set, else the tree this was built from.
std::string SourceDir();

// Absolute path of a file in the source tree.
std::string SourcePath(const std::string& relative);

}  // namespace rdmastack::testing

// Use at the top of every integration test body.
#define RDMASTACK_REQUIRE_CLUSTER(env_var)                                                      \
  const ::rdmastack::testing::ClusterEnv* env_var = ::rdmastack::testing::GetClusterEnv();      \
  do {                                                                                          \
    if (env_var == nullptr) {                                                                   \
      const char* req = std::getenv("RDMASTACK_REQUIRE_CLUSTER");                               \
      if (req != nullptr && std::string(req) == "1") FAIL() << "no cluster configured";         \
      GTEST_SKIP() << "no cluster: run through scripts/test.sh or export RDMASTACK_KUBECONFIG"; \
    }                                                                                           \
  } while (0)
