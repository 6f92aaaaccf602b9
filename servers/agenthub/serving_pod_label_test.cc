#include "servers/agenthub/serving_pod_label.h"

#include <gtest/gtest.h>

#include "operator/k8s/resource.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::agenthub {
namespace {

using k8s::testing::FakeClient;

k8s::JsonObject PodJson(const std::string& name, const std::string& labels) {
  auto pod = k8s::JsonObject::ParseOwned(R"({"metadata":{"name":")" + name +
                                         R"(","namespace":"ops","labels":)" + labels + "}}");
  EXPECT_TRUE(pod.ok()) << pod.status().ToString();
  return *pod;
}

std::map<std::string, std::string> LabelsOf(const FakeClient& api, const std::string& pod) {
  auto found = api.Find(k8s::kinds::Pod(), "ops", pod);
  return found ? found->Labels() : std::map<std::string, std::string>{};
}

TEST(ServingLabelPatchTest, SetsOrRemovesOnlyTheLabel) {
  EXPECT_EQ(ServingLabelPatch(true),
            R"({"metadata":{"labels":{"rdmastack.io/agent-hub":"serving"}}})");
  EXPECT_EQ(ServingLabelPatch(false), R"({"metadata":{"labels":{"rdmastack.io/agent-hub":null}}})");
}

TEST(StaleServingPodsTest, OtherPodsWithTheLabelWhateverItsValue) {
  const std::vector<k8s::JsonObject> pods = {
      PodJson("me", R"({"rdmastack.io/agent-hub":"serving"})"),
      PodJson("old", R"({"rdmastack.io/agent-hub":"serving"})"),
      PodJson("odd", R"({"rdmastack.io/agent-hub":""})"),
      PodJson("standby", R"({"app":"x"})"),
  };
  EXPECT_EQ(StaleServingPods(pods, "me"), (std::vector<std::string>{"old", "odd"}));
  EXPECT_TRUE(StaleServingPods({}, "me").empty());
}

TEST(ServingPodLabelTest, LeaderTakesTheLabelFromAFormerLeaderThenLabelsItsOwnPod) {
  FakeClient api;
  ASSERT_TRUE(api.Put(k8s::kinds::Pod(),
                      PodJson("old", R"({"app":"op","rdmastack.io/agent-hub":"serving"})"))
                  .ok());
  ASSERT_TRUE(api.Put(k8s::kinds::Pod(), PodJson("me", R"({"app":"op"})")).ok());
  ServingPodLabel label(api, "ops", "me");
  ASSERT_TRUE(label.Set().ok());
  EXPECT_EQ(LabelsOf(api, "me"), (std::map<std::string, std::string>{
                                     {"app", "op"}, {"rdmastack.io/agent-hub", "serving"}}));
  EXPECT_EQ(LabelsOf(api, "old"), (std::map<std::string, std::string>{{"app", "op"}}));
  // The former leader's label goes first: two pods never serve at once on our account.
  EXPECT_EQ(k8s::testing::ToStrings(api.writes()),
            (std::vector<std::string>{"patch Pod ops/old", "patch Pod ops/me"}));

  label.Clear();
  EXPECT_EQ(LabelsOf(api, "me"), (std::map<std::string, std::string>{{"app", "op"}}));
}

TEST(ServingPodLabelTest, AFormerLeaderPodThatIsGoneNeedsNothing) {
  FakeClient api;
  ASSERT_TRUE(
      api.Put(k8s::kinds::Pod(), PodJson("old", R"({"rdmastack.io/agent-hub":"serving"})")).ok());
  ASSERT_TRUE(api.Put(k8s::kinds::Pod(), PodJson("me", "{}")).ok());
  api.FailOn("patch", "Pod", NotFoundError("pods \"old\" not found"), 1);
  ServingPodLabel label(api, "ops", "me");
  ASSERT_TRUE(label.Set().ok());
  EXPECT_EQ(LabelsOf(api, "me").count("rdmastack.io/agent-hub"), 1u);
}

TEST(ServingPodLabelTest, ARefusedPatchIsAnErrorThatNamesThePod) {
  FakeClient api;
  ASSERT_TRUE(api.Put(k8s::kinds::Pod(), PodJson("me", "{}")).ok());
  api.FailOn("patch", "Pod", PermissionDeniedError("pods \"me\" is forbidden"));
  ServingPodLabel label(api, "ops", "me");
  const Status s = label.Set();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("label pod ops/me"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("forbidden"), std::string::npos) << s.ToString();
  label.Clear();  // logged, not fatal
}

TEST(ServingPodLabelTest, OurOwnPodMissingIsAnError) {
  FakeClient api;
  ServingPodLabel label(api, "ops", "me");
  EXPECT_EQ(label.Set().code(), StatusCode::kNotFound);
  label.Clear();  // nothing to take off
}

}  // namespace
}  // namespace rdmastack::agenthub
