#include "operator/k8s/forwarding_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::k8s {
namespace {

using ::testing::_;
using ::testing::Return;

// Writes down every call it sees, and refuses those it is told to.
class RecordingClient final : public ForwardingClient {
 public:
  using ForwardingClient::ForwardingClient;
  std::vector<std::string> seen;
  std::vector<std::string> resource_versions;
  bool refuse = false;

 private:
  Status Around(const ApiCall& call, const std::function<Status()>& call_inner) override {
    seen.push_back(std::string(HttpMethod(call.verb)) + " " + Describe(call));
    resource_versions.emplace_back(call.resource_version);
    if (refuse) return PermissionDeniedError("refused: " + Describe(call));
    return call_inner();
  }
};

TEST(ForwardingClientTest, EveryCallPassesAroundOnceWithWhatItIs) {
  ::testing::NiceMock<testing::MockClient> inner;
  const Status gone = NotFoundError("no such object");
  ON_CALL(inner, Get(_, _, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, List(_, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, Watch(_, _, _)).WillByDefault([&](auto&&...) {
    return StatusOr<WatchStreamPtr>(gone);
  });
  ON_CALL(inner, Create(_, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, Update(_, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, UpdateStatus(_, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, Patch(_, _, _, _, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, PatchStatus(_, _, _, _, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, Delete(_, _, _, _)).WillByDefault(Return(gone));
  ON_CALL(inner, CreateSubresource(_, _, _, _, _)).WillByDefault(Return(gone));
  RecordingClient client(inner);
  const ResourceType& cm = kinds::ConfigMap();
  EXPECT_EQ(client.Get(cm, "ns", "a", {.resource_version = "7"}).status().code(),
            StatusCode::kNotFound);
  (void)client.List(cm, "ns", {});
  (void)client.Watch(cm, "ns", {});
  (void)client.Create(cm, JsonObject(), {});
  (void)client.Update(cm, JsonObject(), {});
  (void)client.UpdateStatus(cm, JsonObject(), {});
  (void)client.Patch(cm, "ns", "a", PatchType::kMerge, "{}", {});
  (void)client.PatchStatus(cm, "ns", "a", PatchType::kMerge, "{}", {});
  (void)client.Delete(cm, "ns", "a", {});
  (void)client.CreateSubresource(kinds::ServiceAccount(), "ns", "sa", "token", JsonObject());
  const std::string configmaps = cm.GroupResource();
  const std::string serviceaccounts = kinds::ServiceAccount().GroupResource();
  EXPECT_THAT(client.seen,
              ::testing::ElementsAre(
                  "GET get " + configmaps, "GET list " + configmaps, "GET watch " + configmaps,
                  "POST create " + configmaps, "PUT update " + configmaps,
                  "PUT update " + configmaps + "/status", "PATCH patch " + configmaps,
                  "PATCH patch " + configmaps + "/status", "DELETE delete " + configmaps,
                  "POST create " + serviceaccounts + "/token"));
  EXPECT_EQ(client.resource_versions.front(), "7");
}

TEST(ForwardingClientTest, ARefusedCallNeverReachesTheWrappedClient) {
  ::testing::StrictMock<testing::MockClient> inner;  // any call fails the test
  RecordingClient client(inner);
  client.refuse = true;
  const auto created = client.Create(kinds::ConfigMap(), JsonObject(), {});
  EXPECT_EQ(created.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(created.status().message().find("create"), std::string::npos);
  EXPECT_EQ(client.Watch(kinds::ConfigMap(), "", {}).status().code(),
            StatusCode::kPermissionDenied);
}

TEST(ForwardingClientTest, TheWrappedClientsAnswerComesBackWhole) {
  ::testing::NiceMock<testing::MockClient> inner;
  JsonObject object = JsonObject::Parse(R"({"metadata":{"name":"a"}})").value();
  EXPECT_CALL(inner, Create(_, _, _)).WillOnce(Return(object));
  RecordingClient client(inner);
  const auto created = client.Create(kinds::ConfigMap(), JsonObject(), {});
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->Name(), "a");
}

}  // namespace
}  // namespace rdmastack::k8s
