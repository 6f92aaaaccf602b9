#include "cli/kubectl-rdmastack/tests/fixtures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/harness/cluster_env.h"

namespace rdmastack::plugin::testing {

k8s::JsonObject LoadFixture(const std::string& file) {
  const std::string path =
      rdmastack::testing::SourcePath("cli/kubectl-rdmastack/tests/fixtures/" + file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = k8s::JsonObject::Parse(text.str());
  EXPECT_TRUE(parsed.ok()) << path << ": " << parsed.status().ToString();
  return parsed.ok() ? std::move(*parsed) : k8s::JsonObject();
}

std::vector<k8s::JsonObject> LoadFixtureItems(const std::string& file) {
  return LoadFixture(file).GetArray({"items"});
}

Snapshot FixtureSnapshot() {
  Snapshot s =
      DecodeSnapshot(LoadFixtureItems("gatewaypools.json"), LoadFixtureItems("clientprofiles.json"),
                     LoadFixtureItems("rdmanodes.json"));
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  return s;
}

}  // namespace rdmastack::plugin::testing
