// The skeleton every owner reconciler runs on: what Reconcile does before Pass and Cleanup, and
// how a pass ends (Events, status, then the pass's error).
#include "controllers/common/reconcile_skeleton.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controllers/common/testing/fake_caches.h"
#include "controllers/common/testing/recorded_events.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::controllers {
namespace {

constexpr char kFinalizer[] = "test.rdmastack.io/cleanup";

crd::Condition Ready(crd::ConditionStatus status, const std::string& reason) {
  crd::Condition c;
  c.type = "Ready";
  c.status = status;
  c.reason = reason;
  c.message = reason + " message";
  c.last_transition_time = "2026-01-01T00:00:00Z";
  return c;
}

// A pool reconciler reduced to the skeleton: its pass publishes `next_status` and returns
// `pass_error`; what ran is logged in `calls`.
class SkeletonReconciler final : public OwnerReconciler<crd::GatewayPool, crd::GatewayPoolStatus> {
 public:
  SkeletonReconciler(k8s::Client& client, runtime::EventRecorder& events,
                     const runtime::Store& pools)
      : OwnerReconciler(
            client, events, {pools, crd::kinds::GatewayPool(), kFinalizer}, "test",
            {{"Ready", crd::ConditionStatus::kTrue, runtime::EventType::kNormal, "Ready"},
             {"Ready", crd::ConditionStatus::kFalse, runtime::EventType::kWarning, "Fail",
              "Quiet"}},
            [](const crd::GatewayPoolStatus&) { return std::string("summary"); }) {}

  std::vector<std::string> calls;
  crd::GatewayPoolStatus next_status;
  Status pass_error = OkStatus();

 private:
  StatusOr<runtime::Result> Pass(const k8s::JsonObject& object,
                                 const crd::GatewayPool& pool) override {
    calls.push_back("pass " + object.Key());
    RDMASTACK_RETURN_IF_ERROR(status_writer().Publish(object, pool, next_status, pass_error));
    return runtime::Result{};
  }
  StatusOr<runtime::Result> Cleanup(const k8s::JsonObject& object,
                                    const crd::GatewayPool&) override {
    calls.push_back("cleanup " + object.Key());
    RDMASTACK_RETURN_IF_ERROR(
        writer().RemoveFinalizer(crd::kinds::GatewayPool(), object, kFinalizer));
    return runtime::Result{};
  }
};

class ReconcileSkeletonTest : public ::testing::Test {
 protected:
  void PutPool(std::vector<std::string> finalizers = {}) {
    k8s::JsonObject pool;
    pool.SetName("p");
    pool.SetNamespace("ns");
    for (const std::string& f : finalizers)
      (void)pool.Append({"metadata", "finalizers"}, *k8s::JsonObject::Parse("\"" + f + "\""));
    ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), pool).ok());
  }
  std::vector<std::string> Reconcile(Status* error = nullptr) {
    caches_.Sync();
    api_.ClearActions();
    auto result = reconciler_.Reconcile({"ns", "p"});
    if (error != nullptr) {
      *error = result.status();
    } else {
      EXPECT_TRUE(result.ok()) << result.status().ToString();
    }
    return k8s::testing::ToStrings(api_.writes());
  }

  k8s::testing::FakeClient api_;
  testing::FakeCaches caches_{api_};
  testing::RecordedEvents events_;
  SkeletonReconciler reconciler_{api_, events_, caches_.Store(crd::kinds::GatewayPool())};
};

TEST_F(ReconcileSkeletonTest, AnObjectNotInTheCacheIsNotTouched) {
  EXPECT_EQ(Reconcile(), std::vector<std::string>{});
  EXPECT_TRUE(reconciler_.calls.empty());
}

TEST_F(ReconcileSkeletonTest, TheFinalizerGoesOnBeforeThePass) {
  PutPool();
  reconciler_.next_status.conditions = {Ready(crd::ConditionStatus::kTrue, "Fine")};
  EXPECT_EQ(Reconcile(),
            (std::vector<std::string>{"patch GatewayPool ns/p", "apply/status GatewayPool ns/p"}));
  EXPECT_EQ(reconciler_.calls, std::vector<std::string>{"pass ns/p"});
  EXPECT_EQ(api_.Find(crd::kinds::GatewayPool(), "ns", "p")->Finalizers(),
            std::vector<std::string>{kFinalizer});
  EXPECT_EQ(events_.events(), std::vector<std::string>{"Normal Fine ns/p"});
  // Again with nothing new: no write, no event.
  EXPECT_EQ(Reconcile(), std::vector<std::string>{});
  EXPECT_EQ(events_.events().size(), 1u);
}

TEST_F(ReconcileSkeletonTest, AFailedPassStillWritesItsStatusFirst) {
  PutPool({kFinalizer});
  reconciler_.next_status.conditions = {Ready(crd::ConditionStatus::kFalse, "Broken")};
  reconciler_.pass_error = k8s::ApiErrorFromResponse(500, "boom").ToStatus();
  Status error;
  EXPECT_EQ(Reconcile(&error), std::vector<std::string>{"apply/status GatewayPool ns/p"});
  EXPECT_TRUE(k8s::IsInternalError(error)) << error.ToString();
  EXPECT_EQ(events_.events(), std::vector<std::string>{"Warning Broken ns/p"});
  // A rule's quiet reason records nothing.
  reconciler_.next_status.conditions = {Ready(crd::ConditionStatus::kFalse, "Quiet")};
  reconciler_.pass_error = OkStatus();
  EXPECT_EQ(Reconcile(), std::vector<std::string>{"apply/status GatewayPool ns/p"});
  EXPECT_EQ(events_.events().size(), 1u);
}

// A status the API server would refuse (a node listed twice, a message over maxLength) is
// written fitted; the next pass computes the same status, finds the cache holding its fitted
// form, and writes nothing.
TEST_F(ReconcileSkeletonTest, AStatusThatWouldNotFitIsWrittenFittedAndOnlyOnce) {
  PutPool({kFinalizer});
  reconciler_.next_status.conditions = {Ready(crd::ConditionStatus::kFalse, "Broken")};
  reconciler_.next_status.failing_nodes = {
      {"a", "NewGatewayNotReady", std::string(3000, 'x'), std::nullopt},
      {"a", "GatewayCrashLooping", "again", std::nullopt}};
  EXPECT_EQ(Reconcile(), std::vector<std::string>{"apply/status GatewayPool ns/p"});
  auto stored = crd::ParseResource<crd::GatewayPool>(
      api_.Find(crd::kinds::GatewayPool(), "ns", "p")->value());
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->status->failing_nodes.size(), 1u);
  EXPECT_EQ(stored->status->failing_nodes[0].reason, "NewGatewayNotReady");
  EXPECT_EQ(stored->status->failing_nodes[0].message->size(), 1024u + 2);  // "…" is 3 bytes
  EXPECT_EQ(Reconcile(), std::vector<std::string>{});
}

TEST_F(ReconcileSkeletonTest, DeletionRunsTheCleanupOnlyWhileTheFinalizerIsOn) {
  PutPool({kFinalizer, "someone.else/keep"});
  ASSERT_TRUE(api_.Delete(crd::kinds::GatewayPool(), "ns", "p").ok());
  EXPECT_EQ(Reconcile(), std::vector<std::string>{"patch GatewayPool ns/p"});
  EXPECT_EQ(reconciler_.calls, std::vector<std::string>{"cleanup ns/p"});
  EXPECT_EQ(api_.Find(crd::kinds::GatewayPool(), "ns", "p")->Finalizers(),
            std::vector<std::string>{"someone.else/keep"});
  // Ours is gone: another pass leaves it to the other finalizer's owner.
  EXPECT_EQ(Reconcile(), std::vector<std::string>{});
  EXPECT_EQ(reconciler_.calls.size(), 1u);
}

TEST_F(ReconcileSkeletonTest, AnObjectThatDoesNotParseIsATerminalError) {
  k8s::JsonObject pool;
  pool.SetName("p");
  pool.SetNamespace("ns");
  (void)pool.SetString({"spec"}, "not an object");
  ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), pool).ok());
  Status error;
  EXPECT_EQ(Reconcile(&error), std::vector<std::string>{});
  EXPECT_TRUE(runtime::IsTerminalError(error)) << error.ToString();
  EXPECT_TRUE(reconciler_.calls.empty());
}

}  // namespace
}  // namespace rdmastack::controllers
