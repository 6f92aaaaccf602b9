#pragma once
// Golden files: a rendering compared with a reviewed copy under the source tree.
// RDMASTACK_UPDATE_GOLDEN=1 rewrites the copy (then review the diff).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

inline void ExpectMatchesGolden(const std::string& relative_path, const std::string& got) {
  const std::string path = SourcePath(relative_path);
  const char* update = std::getenv("RDMASTACK_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") std::ofstream(path) << got;
  std::ifstream in(path);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << relative_path
                             << ": rewrite with RDMASTACK_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace rdmastack::testing
