#include "tests/harness/node-runtime/pod_volumes.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {
namespace fs = std::filesystem;

TEST(HostPathBelowRoot, JoinsNormalisedPathsAndRefusesRelativeOnes) {
  EXPECT_EQ(*HostPathBelowRoot("/nodes/a/root", "/"), "/nodes/a/root");
  EXPECT_EQ(*HostPathBelowRoot("/nodes/a/root", "/sys/class/net/"), "/nodes/a/root/sys/class/net");
  EXPECT_EQ(*HostPathBelowRoot("/r", "/a/./b"), "/r/a/b");
  EXPECT_EQ(*HostPathBelowRoot("/r", "/../etc"), "/r/etc");
  EXPECT_FALSE(HostPathBelowRoot("/r", "relative").ok());
}

class PodVolumesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = FreshTestDir("pod-volumes");
    fs::create_directories(base_ / "root" / "sys" / "class");
    reader_.config_maps["ns/kube-root-ca.crt"] = {{"ca.crt", "CA PEM"}};
    reader_.secrets["ns/creds"] = {{"access", "AKIA"}, {"secret", "s3cr3t"}};
  }
  void TearDown() override { fs::remove_all(base_); }

  PodVolumes Make() {
    return PodVolumes((base_ / "root").string(), (base_ / "pod").string(), reader_, tokens_,
                      clock_);
  }
  PodFacts Facts(const k8s::JsonObject& pod) {
    return PodFacts{&pod, "198.18.0.10", "198.18.0.10"};
  }

  fs::path base_;
  FakeClock clock_;
  FakeObjectReader reader_;
  FakeTokenIssuer tokens_{clock_};
};

const char kPod[] = R"({"metadata":{"name":"agent-x","namespace":"ns","uid":"uid-1"},
  "spec":{"nodeName":"gpu-node-0","serviceAccountName":"agent","volumes":[
    {"name":"host","hostPath":{"path":"/","type":"Directory"}},
    {"name":"sys","hostPath":{"path":"/sys/class","type":"Directory"}},
    {"name":"data","hostPath":{"path":"/var/lib/s3","type":"DirectoryOrCreate"}},
    {"name":"scratch","emptyDir":{}},
    {"name":"creds","secret":{"secretName":"creds","items":[{"key":"secret","path":"sk","mode":256}]}},
    {"name":"hub-token","projected":{"sources":[
      {"serviceAccountToken":{"audience":"rdmastack-agenthub","expirationSeconds":600,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"fieldPath":"metadata.namespace"}}]}}]}}]}})";

TEST_F(PodVolumesTest, MaterialisesEveryKindAndMountsThemInPathOrder) {
  const k8s::JsonObject pod = ParseJson(kPod);
  PodVolumes volumes = Make();
  Status s = volumes.Sync(Facts(pod));
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(fs::is_directory(base_ / "root" / "var" / "lib" / "s3"));  // DirectoryOrCreate
  // An emptyDir is writable by any container user (the operator runs as 65532 with /tmp there).
  EXPECT_EQ(fs::status(base_ / "pod" / "scratch").permissions(), fs::perms::all);
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "creds" / "sk"), "s3cr3t");
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "hub-token" / "token"), "token-1");
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "hub-token" / "ca.crt"), "CA PEM");
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "hub-token" / "namespace"), "ns");
  ASSERT_EQ(tokens_.requests.size(), 1u);
  EXPECT_EQ(tokens_.requests[0].audience, "rdmastack-agenthub");
  EXPECT_EQ(tokens_.requests[0].expiration_seconds, 600);
  EXPECT_EQ(tokens_.requests[0].service_account, "agent");
  EXPECT_EQ(tokens_.requests[0].pod_name, "agent-x");
  EXPECT_EQ(tokens_.requests[0].pod_uid, "uid-1");

  auto mounts = volumes.MountsFor(ParseJson(R"({"volumeMounts":[
      {"name":"hub-token","mountPath":"/var/run/secrets/rdmastack/hub"},
      {"name":"host","mountPath":"/host","readOnly":true},
      {"name":"scratch","mountPath":"/data","subPath":"gw"}]})"));
  ASSERT_TRUE(mounts.ok()) << mounts.status().ToString();
  ASSERT_EQ(mounts->size(), 3u);
  EXPECT_EQ((*mounts)[0].target, "/host");
  EXPECT_EQ((*mounts)[0].source, (base_ / "root").string());
  EXPECT_TRUE((*mounts)[0].read_only);
  EXPECT_EQ((*mounts)[1].target, "/data");
  EXPECT_EQ((*mounts)[1].source, (base_ / "pod" / "scratch" / "gw").string());
  EXPECT_TRUE(fs::is_directory((*mounts)[1].source));
  EXPECT_EQ((*mounts)[2].target, "/var/run/secrets/rdmastack/hub");
}

TEST_F(PodVolumesTest, TokenRenewedAfterEightyPercentOfItsLifetimeAndSecretChangesPropagate) {
  const k8s::JsonObject pod = ParseJson(kPod);
  PodVolumes volumes = Make();
  ASSERT_TRUE(volumes.Sync(Facts(pod)).ok());
  clock_.Advance(std::chrono::seconds(479));  // 600 s lifetime: renew from 480 s
  ASSERT_TRUE(volumes.Sync(Facts(pod)).ok());
  EXPECT_EQ(tokens_.requests.size(), 1u);
  clock_.Advance(std::chrono::seconds(1));
  reader_.secrets["ns/creds"]["secret"] = "rotated";
  ASSERT_TRUE(volumes.Sync(Facts(pod)).ok());
  EXPECT_EQ(tokens_.requests.size(), 2u);
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "hub-token" / "token"), "token-2");
  EXPECT_EQ(ReadTestFile(base_ / "pod" / "creds" / "sk"), "rotated");
}

TEST_F(PodVolumesTest, ProblemsNameTheVolume) {
  PodVolumes volumes = Make();
  auto fails = [&](const std::string& volume_json, const std::string& want) {
    const k8s::JsonObject pod = ParseJson(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},
        "spec":{"volumes":[)" + volume_json +
                                          "]}}");
    Status s = volumes.Sync(Facts(pod));
    ASSERT_FALSE(s.ok()) << volume_json;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  };
  fails(R"({"name":"v","hostPath":{"path":"/missing","type":"Directory"}})",
        "volume v: hostPath type check failed: " + (base_ / "root" / "missing").string() +
            " is not a directory");
  fails(R"({"name":"pvc","persistentVolumeClaim":{"claimName":"c"}})",
        "volume pvc: type persistentVolumeClaim is not supported on simulated nodes");
  fails(R"({"name":"s","secret":{"secretName":"absent"}})",
        "volume s: secret \"absent\" not found");
  fails(R"({"name":"k","secret":{"secretName":"creds","items":[{"key":"nokey","path":"x"}]}})",
        "couldn't find key nokey in Secret ns/creds");
  auto unknown =
      volumes.MountsFor(ParseJson(R"({"volumeMounts":[{"name":"zzz","mountPath":"/z"}]})"));
  EXPECT_FALSE(unknown.ok());
}

TEST_F(PodVolumesTest, OptionalSourcesMayBeAbsent) {
  const k8s::JsonObject pod = ParseJson(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},
      "spec":{"volumes":[{"name":"o","secret":{"secretName":"absent","optional":true}}]}})");
  PodVolumes volumes = Make();
  Status s = volumes.Sync(Facts(pod));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace rdmastack::sim
