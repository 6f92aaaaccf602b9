#include "operator/runtime/instrumented_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using ::testing::Return;

TEST(InstrumentedClientTest, CountsRequestsByCodeMethodAndHost) {
  ::testing::NiceMock<k8s::testing::MockClient> inner;
  MetricsRegistry metrics;
  InstrumentedClient client(inner, metrics, "127.0.0.1:6443");
  EXPECT_CALL(inner, Get(_, _, _, _))
      .WillOnce(Return(k8s::testing::MakeObject("ns", "a", "1")))
      .WillOnce(Return(k8s::testing::ApiStatus(404, "NotFound", "no")))
      .WillOnce(Return(UnavailableError("connection refused")));
  EXPECT_CALL(inner, Create(_, _, _)).WillOnce(Return(k8s::testing::MakeObject("ns", "a", "1")));
  EXPECT_CALL(inner, Patch(_, _, _, _, _, _))
      .WillOnce(Return(k8s::testing::ApiStatus(409, "Conflict", "changed")));
  for (int i = 0; i < 3; ++i) (void)client.Get(k8s::kinds::ConfigMap(), "ns", "a", {});
  (void)client.Create(k8s::kinds::ConfigMap(), k8s::testing::MakeObject("ns", "a", ""), {});
  (void)client.Patch(k8s::kinds::ConfigMap(), "ns", "a", k8s::PatchType::kMerge, "{}", {});

  struct Case {
    const char* code;
    const char* method;
  };
  const Case cases[] = {
      {"200", "GET"}, {"404", "GET"}, {"<error>", "GET"}, {"201", "POST"}, {"409", "PATCH"}};
  const std::string text = metrics.Render();
  for (const Case& c : cases) {
    const std::string line = std::string("rest_client_requests_total{code=\"") + c.code +
                             "\",host=\"127.0.0.1:6443\",method=\"" + c.method + "\"} 1\n";
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
}

TEST(InstrumentedClientTest, TellsTheReachabilityWhetherEachRequestWasAnsweredFromStorage) {
  ::testing::NiceMock<k8s::testing::MockClient> inner;
  MetricsRegistry metrics;
  FakeClock clock;
  ApiReachability reachability(clock);
  InstrumentedClient client(inner, metrics, "127.0.0.1:6443", &reachability);
  const k8s::ResourceType cm = k8s::kinds::ConfigMap();
  EXPECT_CALL(inner, Patch(_, _, _, _, _, _))
      .WillOnce(Return(UnavailableError("connection refused")))
      .WillOnce(Return(k8s::testing::ApiStatus(409, "Conflict", "changed")));
  EXPECT_CALL(inner, Get(_, _, _, _)).WillRepeatedly(Return(k8s::testing::MakeObject("ns", "a", "1")));
  EXPECT_CALL(inner, Create(_, _, _)).WillRepeatedly(Return(k8s::testing::MakeObject("", "review", "")));
  clock.Advance(std::chrono::seconds(5));
  (void)client.Patch(cm, "ns", "a", k8s::PatchType::kMerge, "{}", {});
  clock.Advance(std::chrono::seconds(5));
  EXPECT_EQ(reachability.AnsweringSince(), clock.WallNow()) << "unanswered: an outage";
  // What the watch cache or the authorizer can answer does not end it.
  (void)client.Get(cm, "ns", "a", {.resource_version = "0"});
  (void)client.Create(k8s::kinds::SubjectAccessReview(), k8s::testing::MakeObject("", "r", ""), {});
  EXPECT_EQ(reachability.AnsweringSince(), clock.WallNow());
  (void)client.Patch(cm, "ns", "a", k8s::PatchType::kMerge, "{}", {});
  const Clock::WallTime answered = clock.WallNow();
  clock.Advance(std::chrono::seconds(5));
  EXPECT_EQ(reachability.AnsweringSince(), answered) << "a conflict is an answer from storage";
  (void)client.Get(cm, "ns", "a", {});  // a quorum read: an answer too
  EXPECT_EQ(reachability.AnsweringSince(), answered);

  // A write that waits 30 s for its answer (etcd frozen) was an outage until then.
  EXPECT_CALL(inner, Update(_, _, _)).WillOnce([&](auto&&...) {
    clock.Advance(std::chrono::seconds(30));
    return k8s::testing::MakeObject("ns", "a", "2");
  });
  (void)client.Update(cm, k8s::testing::MakeObject("ns", "a", "1"), {});
  EXPECT_EQ(reachability.AnsweringSince(), clock.WallNow());
}

}  // namespace
}  // namespace rdmastack::runtime
