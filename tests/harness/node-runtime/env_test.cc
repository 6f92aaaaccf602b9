#include <gtest/gtest.h>

#include "tests/harness/node-runtime/env_list.h"
#include "tests/harness/node-runtime/pod_env.h"
#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

TEST(ExpandKubeVars, FollowsTheKubeletRules) {
  EnvList env;
  env.Set("A", "1");
  env.Set("HOST_IP", "198.18.0.10");
  EXPECT_EQ(ExpandKubeVars("--port=$(HOST_IP):7070", env), "--port=198.18.0.10:7070");
  EXPECT_EQ(ExpandKubeVars("$(MISSING)", env), "$(MISSING)");
  EXPECT_EQ(ExpandKubeVars("$$(A)", env), "$(A)");
  EXPECT_EQ(ExpandKubeVars("$$", env), "$");
  EXPECT_EQ(ExpandKubeVars("cost $5 and $(A", env), "cost $5 and $(A");
  EXPECT_EQ(ExpandKubeVars("$(A)$(A)", env), "11");
  EXPECT_EQ(ExpandKubeVars("trailing $", env), "trailing $");
}

TEST(EnvList, LaterSetReplacesInPlace) {
  EnvList env;
  env.Set("A", "1");
  env.Set("B", "2");
  env.Set("A", "3");
  EXPECT_EQ(env.ToStrings(), (std::vector<std::string>{"A=3", "B=2"}));
}

class PodEnvTest : public ::testing::Test {
 protected:
  PodEnvTest() {
    reader_.secrets["ns/creds"] = {{"access", "AKIA"}, {"secret", "s3cr3t"}};
    reader_.config_maps["ns/settings"] = {{"region", "us-east-1"}, {"mode", "fast"}};
    pod_ = ParseJson(R"({"metadata":{"name":"p","namespace":"ns","uid":"u-1",
        "labels":{"app.kubernetes.io/name":"gw"}},
        "spec":{"nodeName":"stg-node-0","serviceAccountName":"agent"}})");
    facts_ = PodFacts{&pod_, "198.18.200.10", "198.18.200.10"};
  }
  StatusOr<EnvList> Build(const std::string& container_json, EnvList base = {}) {
    return BuildContainerEnv(facts_, ParseJson(container_json), base, reader_);
  }
  FakeObjectReader reader_;
  k8s::JsonObject pod_;
  PodFacts facts_;
};

TEST_F(PodEnvTest, ResolvesValueFromSecretConfigMapAndFields) {
  auto env = Build(R"({"env":[
      {"name":"KEY","valueFrom":{"secretKeyRef":{"name":"creds","key":"access"}}},
      {"name":"REGION","valueFrom":{"configMapKeyRef":{"name":"settings","key":"region"}}},
      {"name":"HOST_IP","valueFrom":{"fieldRef":{"fieldPath":"status.hostIP"}}},
      {"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}},
      {"name":"APP","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app.kubernetes.io/name']"}}},
      {"name":"ADDR","value":"$(HOST_IP):7070"}]})");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->ToStrings(),
            (std::vector<std::string>{"KEY=AKIA", "REGION=us-east-1", "HOST_IP=198.18.200.10",
                                      "NODE=stg-node-0", "APP=gw", "ADDR=198.18.200.10:7070"}));
}

TEST_F(PodEnvTest, EnvFromWithPrefixComesBeforeEnvAndImageEnvIsOverridden) {
  EnvList base;
  base.Set("PATH", "/bin");
  base.Set("mode", "image");
  auto env = Build(R"({"envFrom":[{"configMapRef":{"name":"settings"}},
                                   {"prefix":"S_","secretRef":{"name":"creds"}}],
                       "env":[{"name":"region","value":"eu"}]})",
                   base);
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->ToStrings(), (std::vector<std::string>{"PATH=/bin", "mode=fast", "region=eu",
                                                        "S_access=AKIA", "S_secret=s3cr3t"}));
}

TEST_F(PodEnvTest, MissingSourcesAreErrorsUnlessOptional) {
  auto missing_secret =
      Build(R"({"env":[{"name":"X","valueFrom":{"secretKeyRef":{"name":"nope","key":"k"}}}]})");
  ASSERT_FALSE(missing_secret.ok());
  EXPECT_EQ(missing_secret.status().message(), "secret \"nope\" not found");
  auto missing_key = Build(
      R"({"env":[{"name":"X","valueFrom":{"configMapKeyRef":{"name":"settings","key":"k"}}}]})");
  ASSERT_FALSE(missing_key.ok());
  EXPECT_EQ(missing_key.status().message(), "couldn't find key k in ConfigMap ns/settings");
  auto optional = Build(
      R"({"env":[{"name":"X","valueFrom":{"secretKeyRef":{"name":"nope","key":"k","optional":true}}},
                                   {"name":"Y","valueFrom":{"configMapKeyRef":{"name":"settings","key":"k","optional":true}}}],
                            "envFrom":[{"secretRef":{"name":"nope","optional":true}}]})");
  ASSERT_TRUE(optional.ok()) << optional.status().ToString();
  EXPECT_TRUE(optional->entries().empty());
  auto unsupported =
      Build(R"({"env":[{"name":"X","valueFrom":{"fieldRef":{"fieldPath":"spec.priority"}}}]})");
  ASSERT_FALSE(unsupported.ok());
  EXPECT_NE(unsupported.status().message().find("spec.priority"), std::string::npos);
}

TEST_F(PodEnvTest, FieldRefsCoverTheDownwardApi) {
  EXPECT_EQ(*ResolveFieldRef(facts_, "metadata.name"), "p");
  EXPECT_EQ(*ResolveFieldRef(facts_, "metadata.namespace"), "ns");
  EXPECT_EQ(*ResolveFieldRef(facts_, "metadata.uid"), "u-1");
  EXPECT_EQ(*ResolveFieldRef(facts_, "spec.serviceAccountName"), "agent");
  EXPECT_EQ(*ResolveFieldRef(facts_, "status.podIP"), "198.18.200.10");
  EXPECT_EQ(*ResolveFieldRef(facts_, "metadata.labels"), "app.kubernetes.io/name=\"gw\"");
  EXPECT_EQ(*ResolveFieldRef(facts_, "metadata.annotations['none']"), "");
}

}  // namespace
}  // namespace rdmastack::sim
