// The operator runs informers on its custom resources: install the CRDs once before any test
// starts an operator process.
#include <gtest/gtest.h>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {
namespace {

class CrdsEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const ClusterEnv* env = GetClusterEnv();
    if (env == nullptr) return;  // each test skips (or fails) on its own
    const CommandResult r = InstallCrds(*env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

// gtest owns registered environments.
[[maybe_unused]] ::testing::Environment* const kCrds = ::testing::AddGlobalTestEnvironment(
    new CrdsEnvironment);  // NOLINT(cppcoreguidelines-owning-memory)

}  // namespace
}  // namespace rdmastack::testing
