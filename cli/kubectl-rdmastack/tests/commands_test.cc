// The commands end to end over an in-memory API server: what they read, what they print, their
// exit codes, and that they never write.
#include "cli/kubectl-rdmastack/commands.h"

#include <gtest/gtest.h>

#include <map>

#include "cli/kubectl-rdmastack/tests/fixtures.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {
namespace {

using testing::kNow;
using testing::LoadFixtureItems;

const ClusterInfo kCluster{"https://127.0.0.1:6443", "kubeconfig /k, context dev"};

Status NotFoundStatus(const k8s::ResourceType& type, std::string_view name) {
  return k8s::ApiErrorFromResponse(
             404, R"({"kind":"Status","reason":"NotFound","code":404,"message":")" +
                      type.GroupResource() + " \\\"" + std::string(name) +
                      R"(\" not found","details":{"name":")" + std::string(name) + "\"}}")
      .ToStatus();
}

class FakeClient : public k8s::Client {
 public:
  FakeClient() {
    objects_["gatewaypools"] = LoadFixtureItems("gatewaypools.json");
    objects_["clientprofiles"] = LoadFixtureItems("clientprofiles.json");
    objects_["rdmanodes"] = LoadFixtureItems("rdmanodes.json");
    objects_["nodes"] = LoadFixtureItems("nodes.json");
  }

  // Every call on `plural` fails with `status`.
  void Fail(const std::string& plural, Status status) { failures_[plural] = std::move(status); }
  void Remove(const std::string& plural, std::string_view name) {
    std::erase_if(objects_[plural], [name](const k8s::JsonObject& o) { return o.Name() == name; });
  }
  int writes() const { return writes_; }
  const std::vector<std::string>& calls() const { return calls_; }

  StatusOr<k8s::JsonObject> Get(const k8s::ResourceType& type, std::string_view ns,
                                std::string_view name, const k8s::GetOptions&) override {
    calls_.push_back("get " + type.plural + " " + k8s::ObjectKey(ns, name));
    if (auto f = failures_.find(type.plural); f != failures_.end()) return f->second;
    for (const k8s::JsonObject& o : objects_[type.plural]) {
      if (o.Name() == name && o.Namespace() == ns) return o;
    }
    return NotFoundStatus(type, name);
  }
  StatusOr<k8s::ObjectList> List(const k8s::ResourceType& type, std::string_view ns,
                                 const k8s::ListOptions&) override {
    calls_.push_back("list " + type.plural + (ns.empty() ? "" : " -n " + std::string(ns)));
    if (auto f = failures_.find(type.plural); f != failures_.end()) return f->second;
    k8s::ObjectList list;
    for (const k8s::JsonObject& o : objects_[type.plural]) {
      if (ns.empty() || o.Namespace() == ns) list.items.push_back(o);
    }
    return list;
  }
  StatusOr<k8s::WatchStreamPtr> Watch(const k8s::ResourceType&, std::string_view,
                                      const k8s::WatchOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> Create(const k8s::ResourceType&, const k8s::JsonObject&,
                                   const k8s::WriteOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> Update(const k8s::ResourceType&, const k8s::JsonObject&,
                                   const k8s::WriteOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> UpdateStatus(const k8s::ResourceType&, const k8s::JsonObject&,
                                         const k8s::WriteOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> Patch(const k8s::ResourceType&, std::string_view, std::string_view,
                                  k8s::PatchType, std::string_view,
                                  const k8s::PatchOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> PatchStatus(const k8s::ResourceType&, std::string_view,
                                        std::string_view, k8s::PatchType, std::string_view,
                                        const k8s::PatchOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> Delete(const k8s::ResourceType&, std::string_view, std::string_view,
                                   const k8s::DeleteOptions&) override {
    return Write();
  }
  StatusOr<k8s::JsonObject> CreateSubresource(const k8s::ResourceType&, std::string_view,
                                              std::string_view, std::string_view,
                                              const k8s::JsonObject&) override {
    return Write();
  }

 private:
  Status Write() {
    ++writes_;
    return UnimplementedError("the plugin must not write");
  }

  std::map<std::string, std::vector<k8s::JsonObject>> objects_;
  std::map<std::string, Status> failures_;
  std::vector<std::string> calls_;
  int writes_ = 0;
};

Options Make(Command command, std::string argument = "", std::string ns = "",
             OutputFormat output = OutputFormat::kTable) {
  Options o;
  o.command = command;
  o.argument = std::move(argument);
  o.namespace_ = std::move(ns);
  o.output = output;
  return o;
}

TEST(CommandsTest, StatusReadsThreeKindsAndWritesNothing) {
  FakeClient client;
  const CommandResult r = RunStatus(client, Make(Command::kStatus), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("GATEWAYPOOLS\nNAMESPACE   NAME ", 0), 0u) << r.out;
  EXPECT_EQ(client.calls(), (std::vector<std::string>{"list gatewaypools", "list clientprofiles",
                                                      "list rdmanodes"}));
  EXPECT_EQ(client.writes(), 0);
}

TEST(CommandsTest, StatusInOneNamespace) {
  FakeClient client;
  const CommandResult r = RunStatus(client, Make(Command::kStatus, "", "ml"), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("No ClientProfiles found in namespace ml."), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("kvcache "), std::string::npos) << r.out;
  EXPECT_EQ(client.calls(),
            (std::vector<std::string>{"list gatewaypools -n ml", "list clientprofiles -n ml",
                                      "list rdmanodes"}));
}

TEST(CommandsTest, ApiErrorIsOneLineAndExitOne) {
  FakeClient client;
  client.Fail("gatewaypools", k8s::ApiErrorFromResponse(404, "404 page not found").ToStatus());
  for (Command c : {Command::kStatus, Command::kWhy}) {
    const CommandResult r = c == Command::kStatus
                                ? RunStatus(client, Make(c), kCluster, kNow)
                                : RunWhy(client, Make(c, "gpu-node-0"), kCluster, kNow);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("error: the API server at https://127.0.0.1:6443 does not serve "
                          "gatewaypools.rdmastack.io: the rdmastack CRDs are not installed",
                          0),
              0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  }
  const CommandResult r =
      RunUpgrade(client, Make(Command::kUpgrade, "archive", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CRDs are not installed"), std::string::npos) << r.err;
}

TEST(CommandsTest, UnreachableServer) {
  FakeClient client;
  client.Fail("gatewaypools",
              UnavailableError("connecting failed (https://127.0.0.1:6443): Connection refused"));
  const CommandResult r = RunStatus(client, Make(Command::kStatus), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err,
      "error: cannot reach the API server at https://127.0.0.1:6443, from kubeconfig /k, context "
      "dev: connecting failed (https://127.0.0.1:6443): Connection refused; check that the "
      "cluster is up and that --kubeconfig/--context point at it\n");
}

TEST(CommandsTest, WhyExitCodes) {
  FakeClient client;
  EXPECT_EQ(RunWhy(client, Make(Command::kWhy, "gpu-node-0"), kCluster, kNow).exit_code, 0);
  EXPECT_EQ(RunWhy(client, Make(Command::kWhy, "stg-node-2"), kCluster, kNow).exit_code, 1);
  const CommandResult json =
      RunWhy(client, Make(Command::kWhy, "stg-node-2", "", OutputFormat::kJson), kCluster, kNow);
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.out.rfind("{\n    \"kind\": \"RdmastackWhy\"", 0), 0u) << json.out;
  // No Node was asked for: the RdmaNode exists.
  for (const std::string& call : client.calls()) EXPECT_NE(call.rfind("get nodes", 0), 0u);
  EXPECT_EQ(client.writes(), 0);
}

TEST(CommandsTest, WhyUnknownNodeAsksWhetherTheNodeExists) {
  FakeClient client;
  const CommandResult missing = RunWhy(client, Make(Command::kWhy, "stg-node-9"), kCluster, kNow);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("There is no Node named \"stg-node-9\" either"), std::string::npos)
      << missing.out;
  EXPECT_NE(missing.out.find("Close names: stg-node-0, stg-node-1, stg-node-2"), std::string::npos);

  // A Node without an RdmaNode: nothing selects it, or its agent cannot reach the operator.
  FakeClient without_agent;
  without_agent.Remove("rdmanodes", "gpu-node-0");
  const CommandResult exists =
      RunWhy(without_agent, Make(Command::kWhy, "gpu-node-0"), kCluster, kNow);
  EXPECT_EQ(exists.exit_code, 1);
  EXPECT_NE(exists.out.find("The Node gpu-node-0 exists."), std::string::npos) << exists.out;
  EXPECT_NE(exists.out.find("--field-selector spec.nodeName=gpu-node-0"), std::string::npos);

  FakeClient forbidden;
  forbidden.Fail("nodes", k8s::ApiErrorFromResponse(403, R"({"reason":"Forbidden"})").ToStatus());
  const CommandResult unknown =
      RunWhy(forbidden, Make(Command::kWhy, "cpu-node-7"), kCluster, kNow);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.out.find("Check the name (kubectl get nodes)."), std::string::npos)
      << unknown.out;
}

TEST(CommandsTest, UpgradeUsesTheContextNamespace) {
  FakeClient client;
  const CommandResult r =
      RunUpgrade(client, Make(Command::kUpgrade, "archive"), "ml", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Pool:       GatewayPool ml/archive\n", 0), 0u) << r.out;
  EXPECT_EQ(client.calls(),
            (std::vector<std::string>{"get gatewaypools ml/archive", "list nodes"}));
  EXPECT_EQ(UpgradeNamespace(Make(Command::kUpgrade, "x"), ""), "default");
  EXPECT_EQ(UpgradeNamespace(Make(Command::kUpgrade, "x", "a"), "b"), "a");
  EXPECT_EQ(UpgradeNamespace(Make(Command::kUpgrade, "x"), "b"), "b");
}

TEST(CommandsTest, UpgradeOfAMissingPoolNamesCloseOnes) {
  FakeClient client;
  const CommandResult r =
      RunUpgrade(client, Make(Command::kUpgrade, "archiv", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: no GatewayPool \"archiv\" in namespace ml; close names: archive\n");
  const CommandResult elsewhere =
      RunUpgrade(client, Make(Command::kUpgrade, "archive"), "", kCluster, kNow);
  EXPECT_EQ(elsewhere.err,
            "error: no GatewayPool \"archive\" in namespace default (it has none); pass -n "
            "NAMESPACE\n");
}

TEST(CommandsTest, UpgradeWithoutNodeAccessStillShowsThePool) {
  FakeClient client;
  client.Fail("nodes",
              k8s::ApiErrorFromResponse(403, R"({"kind":"Status","reason":"Forbidden","code":403,)"
                                             R"("message":"nodes is forbidden"})")
                  .ToStatus());
  const CommandResult r =
      RunUpgrade(client, Make(Command::kUpgrade, "archive", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Note: per-node phases are not shown: forbidden to list nodes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("stg-node-4: NewGatewayNotReady"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rdmastack::plugin
