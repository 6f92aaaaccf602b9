// The harness script's behaviour on repeated and bad input: harmless repeats, one-line errors
// that name the cause (and the log, for builds).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {
namespace {

int CountNewlines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(ClusterScriptTest, UpOnRunningClusterIsHarmless) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto r = RunCommand({env->cluster_script, "up"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("already up"), std::string::npos) << r.err;
  EXPECT_EQ(RunCommand({env->cluster_script, "status"}).exit_code, 0);
}

TEST(ClusterScriptTest, DownWithNothingRunningIsHarmless) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto r = RunCommand({"env", "RDMASTACK_CLUSTER=" + UniqueName("idle"), env->cluster_script, "down"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nothing running"), std::string::npos) << r.err;
}

TEST(ClusterScriptTest, PortInUseIsOneLineNamingThePort) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  // Hold the apiserver port of a cluster at offset 900.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(6443 + 900);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  auto r = RunCommand({"env", "RDMASTACK_CLUSTER=" + UniqueName("busy"), "RDMASTACK_PORT_OFFSET=900",
                       env->cluster_script, "up"});
  close(fd);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("port 127.0.0.1:7343 is already in use"), std::string::npos) << r.err;
  EXPECT_EQ(CountNewlines(r.err), 1) << r.err;
}

TEST(ClusterScriptTest, FailedBuildStepNamesStepAndLog) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string cache = "/tmp/" + UniqueName("badcache");
  auto r = RunCommand({"env", "RDMASTACK_CACHE=" + cache, "CP_ETCD_VERSION=v0.0.1-does-not-exist",
                       env->cluster_script, "build"});
  EXPECT_NE(r.exit_code, 0);
  const std::string log = cache + "/etcd-v0.0.1-does-not-exist/build.log";
  EXPECT_NE(r.err.find("error: build step 'etcd go get' failed; see " + log), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(log));
  std::filesystem::remove_all(cache);
}

TEST(ClusterScriptTest, TokenBoundToPodAuthenticatesAsServiceAccount) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string ns = UniqueName("tok");
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"create", "serviceaccount", "agent", "-n", ns}).exit_code, 0);
  auto pod = env->Kubectl({"run", "p", "-n", ns, "--image=registry.invalid/p:1", "--overrides",
                           R"({"spec":{"serviceAccountName":"agent"}})"});
  ASSERT_EQ(pod.exit_code, 0) << pod.err;
  auto tok = RunCommand({env->cluster_script, "token", ns, "agent", "--bound-pod", "p"});
  ASSERT_EQ(tok.exit_code, 0) << tok.err;
  std::string token = tok.out.substr(0, tok.out.find_last_not_of("\n") + 1);
  ASSERT_FALSE(token.empty());
  const std::string review = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" +
                             token + R"("}})";
  auto r = env->Kubectl({"create", "-f", "-", "-o", "jsonpath={.status.authenticated} {.status.user.username} "
                         "{.status.user.extra.authentication\\.kubernetes\\.io/pod-name}"},
                        review);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "true system:serviceaccount:" + ns + ":agent [\"p\"]");
  env->Kubectl({"delete", "namespace", ns, "--wait=false"});
}

}  // namespace
}  // namespace rdmastack::testing
