// The commands end to end over an in-memory API server: what they read, what they print, their
// exit codes, and that they never write.
#include "cli/kubectl-rdmastack/commands.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/kubectl-rdmastack/tests/fixtures.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::plugin {
namespace {

using testing::CommandOptions;
using testing::kCluster;
using testing::kNow;
using testing::LoadFixtureItems;

using k8s::testing::FakeClient;

// The fixtures in the in-memory API server.
void LoadFixtures(FakeClient& api) {
  testing::LoadFixtureCluster(api);
}

// What the command asked the API server, in order.
std::vector<std::string> Calls(const FakeClient& api) {
  return k8s::testing::ToStrings(api.actions());
}

TEST(CommandsTest, StatusReadsThreeKindsAndWritesNothing) {
  FakeClient client;
  LoadFixtures(client);
  const CommandResult r = RunStatus(client, CommandOptions(Command::kStatus), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("GATEWAYPOOLS\nNAMESPACE   NAME ", 0), 0u) << r.out;
  EXPECT_EQ(Calls(client),
            (std::vector<std::string>{"list GatewayPool", "list ClientProfile", "list RdmaNode"}));
  EXPECT_TRUE(client.writes().empty());
}

TEST(CommandsTest, StatusInOneNamespace) {
  FakeClient client;
  LoadFixtures(client);
  const CommandResult r =
      RunStatus(client, CommandOptions(Command::kStatus, "", "ml"), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("No ClientProfiles found in namespace ml."), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("kvcache "), std::string::npos) << r.out;
  EXPECT_EQ(Calls(client), (std::vector<std::string>{"list GatewayPool ml/",
                                                     "list ClientProfile ml/", "list RdmaNode"}));
}

TEST(CommandsTest, ApiErrorIsOneLineAndExitOne) {
  FakeClient client;
  LoadFixtures(client);
  client.FailOn("", "GatewayPool", k8s::ApiErrorFromResponse(404, "404 page not found").ToStatus());
  for (Command c : {Command::kStatus, Command::kWhy}) {
    const CommandResult r = c == Command::kStatus
                                ? RunStatus(client, CommandOptions(c), kCluster, kNow)
                                : RunWhy(client, CommandOptions(c, "gpu-node-0"), kCluster, kNow);
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
      RunUpgrade(client, CommandOptions(Command::kUpgrade, "archive", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CRDs are not installed"), std::string::npos) << r.err;
}

TEST(CommandsTest, UnreachableServer) {
  FakeClient client;
  LoadFixtures(client);
  client.FailOn("", "GatewayPool",
                UnavailableError("connecting failed (https://127.0.0.1:6443): Connection refused"));
  const CommandResult r = RunStatus(client, CommandOptions(Command::kStatus), kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err,
      "error: cannot reach the API server at https://127.0.0.1:6443, from kubeconfig /k, context "
      "dev: connecting failed (https://127.0.0.1:6443): Connection refused; check that the "
      "cluster is up and that --kubeconfig/--context point at it\n");
}

TEST(CommandsTest, WhyExitCodes) {
  FakeClient client;
  LoadFixtures(client);
  EXPECT_EQ(RunWhy(client, CommandOptions(Command::kWhy, "gpu-node-0"), kCluster, kNow).exit_code,
            0);
  EXPECT_EQ(RunWhy(client, CommandOptions(Command::kWhy, "stg-node-2"), kCluster, kNow).exit_code,
            1);
  const CommandResult json = RunWhy(
      client, CommandOptions(Command::kWhy, "stg-node-2", "", OutputFormat::kJson), kCluster, kNow);
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.out.rfind("{\n    \"kind\": \"RdmastackWhy\"", 0), 0u) << json.out;
  // No Node was asked for: the RdmaNode exists.
  for (const std::string& call : Calls(client)) EXPECT_NE(call.rfind("get Node", 0), 0u);
  EXPECT_TRUE(client.writes().empty());
}

TEST(CommandsTest, WhyUnknownNodeAsksWhetherTheNodeExists) {
  FakeClient client;
  LoadFixtures(client);
  const CommandResult missing =
      RunWhy(client, CommandOptions(Command::kWhy, "stg-node-9"), kCluster, kNow);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("There is no Node named \"stg-node-9\" either"), std::string::npos)
      << missing.out;
  EXPECT_NE(missing.out.find("Close names: stg-node-0, stg-node-1, stg-node-2"), std::string::npos);

  // A Node without an RdmaNode: nothing selects it, or its agent cannot reach the operator.
  FakeClient without_agent;
  LoadFixtures(without_agent);
  without_agent.Erase(crd::kinds::RdmaNode(), "", "gpu-node-0");
  const CommandResult exists =
      RunWhy(without_agent, CommandOptions(Command::kWhy, "gpu-node-0"), kCluster, kNow);
  EXPECT_EQ(exists.exit_code, 1);
  EXPECT_NE(exists.out.find("The Node gpu-node-0 exists."), std::string::npos) << exists.out;
  EXPECT_NE(exists.out.find("--field-selector spec.nodeName=gpu-node-0"), std::string::npos);

  FakeClient forbidden;
  LoadFixtures(forbidden);
  forbidden.FailOn("", "Node",
                   k8s::ApiErrorFromResponse(403, R"({"reason":"Forbidden"})").ToStatus());
  const CommandResult unknown =
      RunWhy(forbidden, CommandOptions(Command::kWhy, "cpu-node-7"), kCluster, kNow);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.out.find("Check the name (kubectl get nodes)."), std::string::npos)
      << unknown.out;
}

TEST(CommandsTest, UpgradeUsesTheContextNamespace) {
  FakeClient client;
  LoadFixtures(client);
  const CommandResult r =
      RunUpgrade(client, CommandOptions(Command::kUpgrade, "archive"), "ml", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Pool:       GatewayPool ml/archive\n", 0), 0u) << r.out;
  EXPECT_EQ(Calls(client), (std::vector<std::string>{"get GatewayPool ml/archive", "list Node"}));
  EXPECT_EQ(UpgradeNamespace(CommandOptions(Command::kUpgrade, "x"), ""), "default");
  EXPECT_EQ(UpgradeNamespace(CommandOptions(Command::kUpgrade, "x", "a"), "b"), "a");
  EXPECT_EQ(UpgradeNamespace(CommandOptions(Command::kUpgrade, "x"), "b"), "b");
}

TEST(CommandsTest, UpgradeOfAMissingPoolNamesCloseOnes) {
  FakeClient client;
  LoadFixtures(client);
  const CommandResult r =
      RunUpgrade(client, CommandOptions(Command::kUpgrade, "archiv", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: no GatewayPool \"archiv\" in namespace ml; close names: archive\n");
  const CommandResult elsewhere =
      RunUpgrade(client, CommandOptions(Command::kUpgrade, "archive"), "", kCluster, kNow);
  EXPECT_EQ(elsewhere.err,
            "error: no GatewayPool \"archive\" in namespace default (it has none); pass -n "
            "NAMESPACE\n");
}

TEST(CommandsTest, UpgradeWithoutNodeAccessStillShowsThePool) {
  FakeClient client;
  LoadFixtures(client);
  client.FailOn(
      "", "Node",
      k8s::ApiErrorFromResponse(403, R"({"kind":"Status","reason":"Forbidden","code":403,)"
                                     R"("message":"nodes is forbidden"})")
          .ToStatus());
  const CommandResult r =
      RunUpgrade(client, CommandOptions(Command::kUpgrade, "archive", "ml"), "", kCluster, kNow);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Note: per-node phases are not shown: forbidden to list nodes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("stg-node-4: NewGatewayNotReady"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rdmastack::plugin
