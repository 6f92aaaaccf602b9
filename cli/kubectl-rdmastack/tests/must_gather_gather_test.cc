// The gather steps over an in-memory API server: what goes where, that failures are recorded and
// the run goes on, that nothing is written to the cluster, and that a Secret's value quoted in
// an event, a pod's env or a log is not in any file of the bundle.
#include <gtest/gtest.h>

#include <map>

#include "cli/kubectl-rdmastack/must_gather/gather.h"
#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::plugin {
namespace {

using k8s::testing::FakeClient;
using k8s::testing::JsonText;

constexpr char kGatherSecret[] = "Zq8v-known-secret-value-31";

void Put(FakeClient& api, const k8s::ResourceType& type, const std::string& json) {
  auto stored = api.Put(type, JsonText(json));
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
}

void LoadCluster(FakeClient& api) {
  const std::string v(kGatherSecret);
  Put(api, crd::kinds::GatewayPool(), R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"GatewayPool",
      "metadata":{"name":"archive","namespace":"ml"},
      "spec":{"s3":{"credentialsSecret":{"name":"creds"}}},
      "status":{"conditions":[{"type":"Ready","status":"False","reason":"NoEligibleNodes"}]}})");
  Put(api, crd::kinds::RdmaNode(), R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"RdmaNode",
      "metadata":{"name":"stg-node-0"},"status":{"agent":{"version":"0.1.0"}}})");
  Put(api, k8s::kinds::Node(), R"({"metadata":{"name":"stg-node-0","labels":{
      "rdmastack.io/gateway-capable":"true","kubernetes.io/hostname":"stg-node-0"},
      "annotations":{"upgrade.gwp.rdmastack.io/ml.archive":"{}","other.io/x":"y"}}})");
  Put(api, k8s::kinds::Secret(),
      R"({"metadata":{"name":"creds","namespace":"ml"},"type":"Opaque",
      "data":{"secretAccessKey":")" +
          k8s::EncodeBase64(v) + R"("}})");
  Put(api, k8s::kinds::Event(),
      R"({"metadata":{"name":"e1","namespace":"ml"},
      "involvedObject":{"kind":"GatewayPool","name":"archive"},
      "message":"gateway said: bad key )" +
          v + R"("})");
  Put(api, k8s::kinds::Event(), R"({"metadata":{"name":"e2","namespace":"default"},
      "involvedObject":{"kind":"Node","name":"stg-node-0"},"message":"NodeReady"})");
  Put(api, k8s::kinds::Pod(),
      R"({"metadata":{"name":"rdmastack-agent-x","namespace":"rdmastack-system",
      "labels":{"app.kubernetes.io/name":"rdmastack-agent"}},
      "spec":{"containers":[{"name":"agent","image":"ghcr.io/rdmastack/agent:0.1.0",
        "env":[{"name":"NOTE","value":"copied )" +
          v + R"("}]}]},
      "status":{"containerStatuses":[{"name":"agent","restartCount":1}]}})");
  Put(api, k8s::kinds::Pod(), R"({"metadata":{"name":"unrelated","namespace":"rdmastack-system"},
      "spec":{"containers":[{"name":"c"}]}})");
  Put(api, k8s::kinds::DaemonSet(),
      R"({"metadata":{"name":"rdmastack-agent","namespace":"rdmastack-system",
      "labels":{"app.kubernetes.io/name":"rdmastack-agent"}},
      "spec":{"template":{"spec":{"containers":[{"name":"agent","image":"ghcr.io/rdmastack/agent:0.1.0"}]}}}})");
}

// /version and the agent's current log answer; its previous log is refused as the API server
// refuses a log it cannot reach.
StatusOr<std::string> RawGet(const std::string& path, std::vector<std::string>* asked) {
  asked->push_back(path);
  if (path == "/version") return std::string(R"({"gitVersion":"v1.36.3"})");
  if (path.find("/pods/rdmastack-agent-x/log") != std::string::npos &&
      path.find("previous=true") == std::string::npos)
    return std::string("2026-12-05T10:00:00Z agent started, key ") + kGatherSecret + "\n";
  return k8s::ApiErrorFromResponse(
             502, R"({"kind":"Status","status":"Failure","reason":"InternalError","code":502,
                 "message":"dial tcp 198.18.0.10:10250: connect: connection refused"})")
      .ToStatus();
}

std::map<std::string, std::string> RunGather(FakeClient& api, std::vector<std::string>* asked,
                                             std::vector<bundle::Failure>* failures,
                                             std::vector<std::string>* progress) {
  bundle::Bundle b("root", {});
  GatherContext ctx;
  ctx.api.client = &api;
  ctx.api.get = [asked](const std::string& path) { return RawGet(path, asked); };
  ctx.options.plugin_version = "0.1.0";
  ctx.bundle = &b;
  ctx.progress = [progress](const std::string& line) { progress->push_back(line); };
  Gather(ctx);
  *failures = b.failures();
  std::map<std::string, std::string> files;
  for (ArchiveEntry& e : b.Finish(ctx.scrubber)) files[e.path.substr(5)] = std::move(e.content);
  return files;
}

TEST(MustGatherTest, GathersEachPartRecordsFailuresAndLeaksNoSecretValue) {
  FakeClient api;
  LoadCluster(api);
  std::vector<std::string> asked, progress;
  std::vector<bundle::Failure> failures;
  const auto files = RunGather(api, &asked, &failures, &progress);

  for (const char* path :
       {"SUMMARY.md", "versions.json", "crds.json",
        "objects/gatewaypools.rdmastack.io/ml/archive.json",
        "objects/rdmanodes.rdmastack.io/stg-node-0.json", "nodes/stg-node-0.json",
        "secrets/ml.json", "events/namespaces/ml.json", "events/nodes.json",
        "objects/pods/rdmastack-system/rdmastack-agent-x.json",
        "objects/daemonsets.apps/rdmastack-system/rdmastack-agent.json",
        "logs/rdmastack-system/rdmastack-agent-x/agent.log",
        "logs/rdmastack-system/rdmastack-agent-x/agent.previous.log"}) {
    EXPECT_EQ(files.count(path), 1u) << path;
  }
  EXPECT_EQ(files.count("objects/pods/rdmastack-system/unrelated.json"), 0u);
  EXPECT_NE(files.at("objects/gatewaypools.rdmastack.io/ml/archive.json").find("NoEligibleNodes"),
            std::string::npos);
  // The node's rdmastack keys, not the others.
  const std::string& node = files.at("nodes/stg-node-0.json");
  EXPECT_NE(node.find("rdmastack.io/gateway-capable"), std::string::npos) << node;
  EXPECT_NE(node.find("upgrade.gwp.rdmastack.io/ml.archive"), std::string::npos) << node;
  EXPECT_EQ(node.find("kubernetes.io/hostname"), std::string::npos) << node;
  EXPECT_EQ(node.find("other.io"), std::string::npos) << node;
  const std::string& versions = files.at("versions.json");
  for (const char* want :
       {"v1.36.3", "\"stg-node-0\": \"0.1.0\"",
        "\"rdmastack-system/rdmastack-agent/agent\": \"ghcr.io/rdmastack/agent:0.1.0\""})
    EXPECT_NE(versions.find(want), std::string::npos) << want << " not in " << versions;
  EXPECT_NE(files.at("secrets/ml.json").find("secretAccessKey"), std::string::npos);
  EXPECT_NE(files.at("logs/rdmastack-system/rdmastack-agent-x/agent.log").find("agent started"),
            std::string::npos);
  // The log that failed says why in its place, and the summary lists it.
  EXPECT_NE(files.at("logs/rdmastack-system/rdmastack-agent-x/agent.previous.log")
                .find("502 InternalError: dial tcp 198.18.0.10:10250: connect: connection refused"),
            std::string::npos);
  const std::string& summary = files.at("SUMMARY.md");
  EXPECT_NE(summary.find("- logs: rdmastack-system/rdmastack-agent-x/agent (previous): 502 "
                         "InternalError: dial tcp"),
            std::string::npos)
      << summary;
  // The CRDs are not in the fake server: recorded, and the run went on to the steps after.
  EXPECT_NE(summary.find("- CRDs: get customresourcedefinitions/gatewaypools.rdmastack.io: 404"),
            std::string::npos)
      << summary;
  EXPECT_EQ(failures.size(), 4u);  // three CRDs and one previous log

  for (const auto& [path, content] : files) {
    EXPECT_EQ(content.find(kGatherSecret), std::string::npos) << path << ":\n" << content;
    EXPECT_EQ(content.find(k8s::EncodeBase64(kGatherSecret)), std::string::npos) << path;
  }
  EXPECT_TRUE(api.writes().empty());
  EXPECT_EQ(progress.size(), 9u);
}

TEST(MustGatherTest, ANamespaceScopesPoolsAndProfilesButNotNodes) {
  FakeClient api;
  LoadCluster(api);
  std::vector<std::string> asked, progress;
  std::vector<bundle::Failure> failures;
  bundle::Bundle b("root", {});
  GatherContext ctx;
  ctx.api.client = &api;
  ctx.api.get = [&asked](const std::string& path) { return RawGet(path, &asked); };
  ctx.options.namespace_ = "other";
  ctx.bundle = &b;
  ctx.progress = [](const std::string&) {};
  Gather(ctx);
  std::map<std::string, std::string> files;
  for (ArchiveEntry& e : b.Finish(ctx.scrubber)) files[e.path.substr(5)] = std::move(e.content);
  EXPECT_EQ(files.count("objects/gatewaypools.rdmastack.io/ml/archive.json"), 0u);
  EXPECT_EQ(files.count("secrets/ml.json"), 0u);
  EXPECT_EQ(files.count("secrets/other.json"), 1u);  // the namespace asked for, pool or not
  EXPECT_EQ(files.count("objects/rdmanodes.rdmastack.io/stg-node-0.json"), 1u);
  EXPECT_EQ(files.count("nodes/stg-node-0.json"), 1u);
}

}  // namespace
}  // namespace rdmastack::plugin
