#include "tests/harness/node-runtime/runtime_options.h"

#include <gtest/gtest.h>

namespace rdmastack::sim {
namespace {

std::vector<std::string> Required() {
  return {"--kubeconfig", "k", "--nodes",   "n", "--images", "i",
          "--state-dir",  "s", "--log-dir", "l"};
}

TEST(RuntimeOptions, ParsesEveryFlag) {
  auto args = Required();
  for (const char* a :
       {"--var", "BUILD_DIR=/b", "--var", "X=a=b", "--api-forward",
        "198.18.200.1:6643=127.0.0.1:6643", "--restart-backoff", "500ms", "--restart-backoff-max",
        "2m", "--volume-resync", "5s", "--kubernetes-service", "10.96.0.1:443", "--cluster-dns",
        "10.96.0.10", "--cluster-domain", "k.local"}) {
    args.push_back(a);
  }
  auto o = ParseRuntimeOptions(args);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->vars.at("BUILD_DIR"), "/b");
  EXPECT_EQ(o->vars.at("X"), "a=b");
  EXPECT_EQ(o->api_listen->host, "198.18.200.1");
  EXPECT_EQ(o->api_target->port, 6643);
  EXPECT_EQ(o->restart_backoff, std::chrono::milliseconds(500));
  EXPECT_EQ(o->restart_backoff_max, std::chrono::minutes(2));
  EXPECT_EQ(o->volume_resync, std::chrono::seconds(5));
  EXPECT_EQ(o->kubernetes_service->host, "10.96.0.1");
  EXPECT_EQ(o->kubernetes_service->port, 443);
  EXPECT_EQ(o->cluster_dns, "10.96.0.10");
  EXPECT_EQ(o->cluster_domain, "k.local");
}

TEST(RuntimeOptions, CheckImagesNeedsOnlyTheImageTable) {
  auto o = ParseRuntimeOptions({"--check-images", "--images", "i", "--var", "A=b"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->check_images);
  EXPECT_EQ(o->vars.at("A"), "b");
  EXPECT_EQ(ParseRuntimeOptions({"--check-images"}).status().message(),
            "--check-images needs --images");
  EXPECT_FALSE(ParseRuntimeOptions(Required())->check_images);
}

TEST(RuntimeOptions, ServingLogsTakesAllFourKubeletFlags) {
  auto args = Required();
  args.insert(args.end(), {"--kubelet-port", "10497", "--kubelet-pki", "/p", "--kubelet-client-ca",
                           "/ca.crt", "--kubelet-client-name", "kube-apiserver-kubelet-client"});
  auto o = ParseRuntimeOptions(args);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->kubelet_port, 10497);
  EXPECT_EQ(o->kubelet_pki, "/p");
  EXPECT_EQ(o->kubelet_client_ca, "/ca.crt");
  EXPECT_EQ(o->kubelet_client_name, "kube-apiserver-kubelet-client");
  EXPECT_EQ(ParseRuntimeOptions(Required())->kubelet_port, 0);  // no log server

  args = Required();
  args.insert(args.end(), {"--kubelet-port", "10497"});
  EXPECT_EQ(ParseRuntimeOptions(args).status().message(),
            "serving logs needs all of --kubelet-port, --kubelet-pki, --kubelet-client-ca and "
            "--kubelet-client-name");
  args = Required();
  args.insert(args.end(), {"--kubelet-port", "70000"});
  EXPECT_EQ(ParseRuntimeOptions(args).status().message(),
            "--kubelet-port wants a port (1-65535), got '70000'");
}

TEST(RuntimeOptions, BadInputSaysWhatIsWrong) {
  auto missing = ParseRuntimeOptions({"--kubeconfig", "k"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "--nodes is required");
  auto args = Required();
  args.insert(args.end(), {"--restart-backoff", "10 seconds"});
  EXPECT_EQ(ParseRuntimeOptions(args).status().message(),
            "--restart-backoff: not a duration: '10 seconds' (use e.g. 500ms, 15s, 2m, 1h, 1m30s)");
  args = Required();
  args.insert(args.end(), {"--api-forward", "1.2.3.4:5"});
  EXPECT_NE(ParseRuntimeOptions(args).status().message().find("LISTEN_IP:PORT=TARGET_IP:PORT"),
            std::string::npos);
  EXPECT_EQ(ParseRuntimeOptions({"--bogus", "x"}).status().message(), "unknown flag --bogus");
  EXPECT_EQ(ParseRuntimeOptions({"--nodes"}).status().message(), "--nodes needs a value");
}

}  // namespace
}  // namespace rdmastack::sim
