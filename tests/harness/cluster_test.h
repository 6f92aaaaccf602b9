#pragma once
// A test fixture on the harness cluster: skips without one, installs the CRDs, and holds a client
// with the cluster's admin kubeconfig. Benchmarks that drive the real operator derive from it.

#include <gtest/gtest.h>

#include "operator/k8s/client.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

class ClusterWithCrdsTest : public ::testing::Test {
 protected:
  void SetUp() override;

  const ClusterEnv* env_ = nullptr;
  k8s::ClientPtr admin_;
};

}  // namespace rdmastack::testing
