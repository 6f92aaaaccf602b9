#include "operator/runtime/leader_fenced_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/k8s/call_context.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using ::testing::_;
using ::testing::Invoke;

class LeaderFencedClientTest : public ::testing::Test {
 protected:
  LeaderFencedClientTest() {
    ON_CALL(inner_, Create(_, _, _)).WillByDefault(Invoke([this](auto&&...) {
      seen_deadline_ = k8s::CurrentCallContext().deadline;
      return StatusOr<k8s::JsonObject>(k8s::JsonObject());
    }));
  }
  FakeClock clock_;
  ::testing::NiceMock<k8s::testing::MockClient> inner_;
  std::optional<Clock::TimePoint> valid_until_;
  std::optional<k8s::SteadyTime> seen_deadline_;
  LeaderFencedClient client_{inner_, clock_, [this] { return valid_until_; }};
};

TEST_F(LeaderFencedClientTest, WritesOnlyWhileLeadingAndNeverPastTheLeadership) {
  EXPECT_CALL(inner_, Create(_, _, _)).Times(1);
  // Not leading: refused without a request.
  auto refused = client_.Create(k8s::kinds::ConfigMap(), k8s::JsonObject(), {});
  EXPECT_EQ(refused.status().code(), StatusCode::kAborted);
  EXPECT_NE(refused.status().message().find("leader lease"), std::string::npos);

  // Leading for 3 more seconds: the write goes out, bounded by that time.
  valid_until_ = clock_.Now() + 3s;
  const auto before = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_.Create(k8s::kinds::ConfigMap(), k8s::JsonObject(), {}).ok());
  ASSERT_TRUE(seen_deadline_.has_value());
  EXPECT_GE(*seen_deadline_, before + 3s - 50ms);
  EXPECT_LE(*seen_deadline_, std::chrono::steady_clock::now() + 3s);

  // The leadership ran out (e.g. the process was stopped past the renew deadline): refused.
  clock_.Advance(3s);
  EXPECT_EQ(client_.Create(k8s::kinds::ConfigMap(), k8s::JsonObject(), {}).status().code(),
            StatusCode::kAborted);
}

TEST_F(LeaderFencedClientTest, EveryWriteVerbIsFencedAndReadsAreNot) {
  EXPECT_CALL(inner_, Update(_, _, _)).Times(0);
  EXPECT_CALL(inner_, UpdateStatus(_, _, _)).Times(0);
  EXPECT_CALL(inner_, Patch(_, _, _, _, _, _)).Times(0);
  EXPECT_CALL(inner_, PatchStatus(_, _, _, _, _, _)).Times(0);
  EXPECT_CALL(inner_, Delete(_, _, _, _)).Times(0);
  EXPECT_CALL(inner_, CreateSubresource(_, _, _, _, _)).Times(0);
  const auto& cm = k8s::kinds::ConfigMap();
  EXPECT_FALSE(client_.Update(cm, k8s::JsonObject(), {}).ok());
  EXPECT_FALSE(client_.UpdateStatus(cm, k8s::JsonObject(), {}).ok());
  EXPECT_FALSE(client_.Patch(cm, "ns", "a", k8s::PatchType::kApply, "{}", {}).ok());
  EXPECT_FALSE(client_.PatchStatus(cm, "ns", "a", k8s::PatchType::kMerge, "{}", {}).ok());
  EXPECT_FALSE(client_.Delete(cm, "ns", "a", {}).ok());
  EXPECT_FALSE(client_.CreateSubresource(cm, "ns", "a", "token", k8s::JsonObject()).ok());

  EXPECT_CALL(inner_, Get(_, _, _, _))
      .WillOnce(::testing::Return(StatusOr<k8s::JsonObject>(k8s::JsonObject())));
  EXPECT_CALL(inner_, List(_, _, _))
      .WillOnce(::testing::Return(StatusOr<k8s::ObjectList>(k8s::ObjectList())));
  EXPECT_TRUE(client_.Get(cm, "ns", "a", {}).ok());
  EXPECT_TRUE(client_.List(cm, "ns", {}).ok());
}

}  // namespace
}  // namespace rdmastack::runtime
