// rdmastack-operator as a user starts it: what it says about itself, its probes, and a bad flag.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/harness/cluster_env.h"
#include "tests/integration/operator/operator_process.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;

uint16_t FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(OperatorStartupTest, SaysWhoItIsAndWhereAndServesProbes) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string ns = UniqueName("opstart");
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  const std::string probes = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  std::vector<std::string> args = {"--kubeconfig", env->kubeconfig, "--metrics-bind-address=0",
                                   "--health-probe-bind-address=" + probes};
  for (auto& flag : AgentHubTestFlags(ns)) args.push_back(std::move(flag));
  OperatorProcess op("startup", args);
  ASSERT_TRUE(op.WaitForOutput("caches synced", 30s)) << op.Output();
  const std::string out = op.Output();
  EXPECT_NE(out.find("rdmastack-operator 0.1.0 starting as "), std::string::npos) << out;
  // The admin kubeconfig of scripts/cluster.sh: CN rdmastack-admin in system:masters.
  EXPECT_NE(out.find("authenticated as rdmastack-admin (groups: system:masters"), std::string::npos)
      << out;
  EXPECT_NE(out.find("API server version v1."), std::string::npos) << out;
  for (const char* path : {"/healthz", "/readyz"}) {
    auto got = RunCommand({"curl", "-sf", "http://" + probes + path});
    EXPECT_EQ(got.exit_code, 0) << path << ": " << got.err;
    EXPECT_EQ(got.out, "ok\n") << path;
  }
  op.Signal(SIGTERM);
  EXPECT_EQ(op.WaitExit(30s), 0) << op.Output();
  env->Kubectl({"delete", "namespace", ns, "--wait=false"});
}

// The binary's metrics flags end in the secure endpoint: HTTPS with a self-signed certificate,
// every scrape reviewed by the API server (the in-process details are in
// tests/integration/metrics).
TEST(OperatorStartupTest, MetricsAreServedOverHttpsOnlyToAuthorisedScrapers) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string ns = UniqueName("opmetrics"), role = ns + "-scraper";
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "serviceaccount", "scraper"}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "serviceaccount", "nobody"}).exit_code, 0);
  ASSERT_EQ(
      env->Kubectl({"create", "clusterrole", role, "--non-resource-url=/metrics", "--verb=get"})
          .exit_code,
      0);
  ASSERT_EQ(env->Kubectl({"create", "clusterrolebinding", role, "--clusterrole=" + role,
                          "--serviceaccount=" + ns + ":scraper"})
                .exit_code,
            0);
  const std::string metrics = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  std::vector<std::string> args = {"--kubeconfig", env->kubeconfig, "--health-probe-bind-address=0",
                                   "--metrics-bind-address=" + metrics};
  for (auto& flag : AgentHubTestFlags(ns)) args.push_back(std::move(flag));
  OperatorProcess op("metrics", args);
  ASSERT_TRUE(op.WaitForOutput("caches synced", 30s)) << op.Output();
  auto scrape = [&](const std::string& token) {
    std::vector<std::string> argv = {
        "curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://" + metrics + "/metrics"};
    if (!token.empty()) argv.insert(argv.end(), {"-H", "Authorization: Bearer " + token});
    return RunCommand(argv).out;
  };
  auto token = [&](const std::string& sa) {
    return RunCommand({env->cluster_script, "token", ns, sa}).out;
  };
  EXPECT_EQ(scrape(""), "401");
  EXPECT_EQ(scrape(token("nobody")), "403");
  EXPECT_EQ(scrape(token("scraper")), "200");
  // Plain HTTP on the TLS port gets no metrics.
  EXPECT_NE(RunCommand({"curl", "-sf", "http://" + metrics + "/metrics"}).exit_code, 0);
  op.Signal(SIGTERM);
  EXPECT_EQ(op.WaitExit(30s), 0) << op.Output();
  env->Kubectl({"delete", "clusterrole,clusterrolebinding", role, "--ignore-not-found"});
  env->Kubectl({"delete", "namespace", ns, "--wait=false"});
}

TEST(OperatorStartupTest, ABadFlagIsOneLineNamingItAndExitCodeTwo) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--log-format=xml"},
                                               {"--metrics-bind-address", "nowhere"},
                                               {"--leader-election-renew-deadline=20s"},
                                               {"--frobnicate"}}) {
    std::vector<std::string> argv = {OperatorBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("rdmastack-operator: ", 0), 0u) << r.err;
  }
}

TEST(OperatorStartupTest, NoClusterConfigurationIsAClearError) {
  const CommandResult r =
      RunCommand({"env", "-u", "KUBECONFIG", "-u", "KUBERNETES_SERVICE_HOST", OperatorBinary(),
                  "--metrics-bind-address=0", "--health-probe-bind-address=0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE((r.out + r.err).find("pass --kubeconfig, set $KUBECONFIG, or run in a pod"),
            std::string::npos)
      << r.out << r.err;
}

TEST(OperatorStartupTest, VersionAndHelp) {
  const CommandResult version = RunCommand({OperatorBinary(), "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, "rdmastack-operator 0.1.0\n");
  const CommandResult help = RunCommand({OperatorBinary(), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--leader-elect"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::testing
