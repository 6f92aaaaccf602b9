#include "cli/kubectl-rdmastack/tests/fixtures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "crds/types/kinds.h"
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

void LoadFixtureCluster(k8s::testing::FakeClient& api,
                        const std::function<void(k8s::JsonObject&)>& edit) {
  const std::pair<const char*, const k8s::ResourceType*> files[] = {
      {"gatewaypools.json", &crd::kinds::GatewayPool()},
      {"clientprofiles.json", &crd::kinds::ClientProfile()},
      {"rdmanodes.json", &crd::kinds::RdmaNode()},
      {"nodes.json", &k8s::kinds::Node()}};
  for (const auto& [file, type] : files) {
    for (k8s::JsonObject& o : LoadFixtureItems(file)) {
      if (edit) edit(o);
      auto stored = api.Put(*type, std::move(o));
      ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    }
  }
}

Options CommandOptions(Command command, std::string argument, std::string ns, OutputFormat output) {
  Options o;
  o.command = command;
  o.argument = std::move(argument);
  o.namespace_ = std::move(ns);
  o.output = output;
  return o;
}

Snapshot FixtureSnapshot() {
  Snapshot s =
      DecodeSnapshot(LoadFixtureItems("gatewaypools.json"), LoadFixtureItems("clientprofiles.json"),
                     LoadFixtureItems("rdmanodes.json"));
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  return s;
}

}  // namespace rdmastack::plugin::testing
