#include "operator/runtime/controller.h"

#include <gtest/gtest.h>
#include <time.h>

#include <deque>
#include <thread>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;

// Returns scripted outcomes in order and records the requests it saw.
class ScriptedReconciler : public Reconciler {
 public:
  StatusOr<Result> Reconcile(const Request& request) override {
    std::lock_guard<std::mutex> l(mu);
    seen.push_back(request.Key());
    if (outcomes.empty()) return Result{};
    auto next = std::move(outcomes.front());
    outcomes.pop_front();
    return next;
  }
  std::mutex mu;
  std::deque<StatusOr<Result>> outcomes;
  std::vector<std::string> seen;
};

class ControllerTest : public ::testing::Test {
 protected:
  // Runs every item that is ready now; returns how many were processed.
  int RunReady() {
    int n = 0;
    while (controller_.queue().Len() > 0) {
      EXPECT_TRUE(controller_.ProcessNextItem());
      ++n;
    }
    return n;
  }
  double Metric(const std::string& line_prefix) {
    const std::string text = metrics_.Render();
    const size_t at = text.find(line_prefix + " ");
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + line_prefix.size() + 1));
  }

  // An informer of `type` over `client` that lists `objects` and then follows `feed`.
  std::unique_ptr<Informer> ListingInformer(k8s::testing::MockClient& client, k8s::testing::WatchFeed& feed,
                                            const k8s::ResourceType& type,
                                            std::vector<k8s::JsonObject> objects) {
    EXPECT_CALL(client, List(::testing::_, ::testing::_, ::testing::_))
        .WillOnce(::testing::Return(k8s::testing::MakeList(std::move(objects), "1")));
    EXPECT_CALL(client, Watch(::testing::_, ::testing::_, ::testing::_))
        .WillRepeatedly(::testing::Invoke([&feed](auto&&...) { return feed.NewStream(); }));
    InformerOptions o;
    o.reflector.initial_sync = ReflectorOptions::InitialSync::kWatchCacheList;  // the mocks list
    o.type = type;
    return std::make_unique<Informer>(client, clock_, o);
  }

  FakeClock clock_;
  MetricsRegistry metrics_;
  ScriptedReconciler reconciler_;
  Controller controller_{"pool", reconciler_, clock_, &metrics_};
};

TEST_F(ControllerTest, ResultHandlingTable) {
  struct Case {
    const char* what;
    StatusOr<Result> outcome;
    // When (after the reconcile) the key is due again; nullopt = never.
    std::optional<Clock::Duration> requeued_after;
  };
  const Case cases[] = {
      {"success", Result{}, std::nullopt},
      {"requeue after", Result{45s}, 45s},
      {"error: rate-limited retry", UnavailableError("apiserver down"), 5ms},
      {"terminal error: no retry", TerminalError(InvalidArgumentError("bad spec")), std::nullopt},
  };
  for (const Case& c : cases) {
    reconciler_.outcomes.push_back(c.outcome);
    controller_.queue().Add("ns/" + std::string(c.what));
    ASSERT_EQ(RunReady(), 1) << c.what;
    if (!c.requeued_after) {
      clock_.Advance(2000s);
      EXPECT_EQ(controller_.queue().TryGet(), std::nullopt) << c.what;
      continue;
    }
    clock_.Advance(*c.requeued_after - 1ms);
    EXPECT_EQ(controller_.queue().TryGet(), std::nullopt) << c.what;
    clock_.Advance(1ms);
    EXPECT_EQ(RunReady(), 1) << c.what;  // the requeued key (reconciles successfully)
  }
  EXPECT_EQ(Metric("controller_runtime_reconcile_total{controller=\"pool\",result=\"success\"}"),
            3);
  EXPECT_EQ(
      Metric("controller_runtime_reconcile_total{controller=\"pool\",result=\"requeue_after\"}"),
      1);
  EXPECT_EQ(Metric("controller_runtime_reconcile_total{controller=\"pool\",result=\"error\"}"), 2);
  EXPECT_EQ(Metric("controller_runtime_reconcile_errors_total{controller=\"pool\"}"), 2);
  EXPECT_EQ(Metric("controller_runtime_terminal_reconcile_errors_total{controller=\"pool\"}"), 1);
  EXPECT_EQ(Metric("rdmastack_reconcile_errors_total{controller=\"pool\",reason=\"Unavailable\"}"),
            1);
  EXPECT_EQ(
      Metric("rdmastack_reconcile_errors_total{controller=\"pool\",reason=\"InvalidArgument\"}"),
      1);
  EXPECT_EQ(Metric("controller_runtime_reconcile_time_seconds_count{controller=\"pool\"}"), 6);
}

// The CPU histogram counts what the reconciling thread computes, not what it waits for: a pass
// that sleeps 100 ms adds next to nothing, one that computes for 30 ms adds at least that.
TEST(ControllerCpuTest, TheCpuHistogramCountsComputeNotWaiting) {
  struct Timed : Reconciler {
    StatusOr<Result> Reconcile(const Request& request) override {
      if (request.name == "sleeps") {
        std::this_thread::sleep_for(100ms);
      } else {
        timespec from{}, now{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &from);
        do {
          ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        } while ((now.tv_sec - from.tv_sec) * 1000000000L + (now.tv_nsec - from.tv_nsec) <
                 30000000L);
      }
      return Result{};
    }
  } reconciler;
  FakeClock clock;
  MetricsRegistry metrics;
  Controller controller("pool", reconciler, clock, &metrics);
  auto cpu_sum = [&] {
    const std::string series = "rdmastack_reconcile_cpu_seconds_sum{controller=\"pool\"} ";
    const std::string text = metrics.Render();
    const size_t at = text.find(series);
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + series.size()));
  };
  controller.queue().Add("ns/sleeps");
  ASSERT_TRUE(controller.ProcessNextItem());
  EXPECT_LT(cpu_sum(), 0.01) << "a sleep is not CPU";
  controller.queue().Add("ns/computes");
  ASSERT_TRUE(controller.ProcessNextItem());
  EXPECT_GE(cpu_sum(), 0.03);
}

TEST_F(ControllerTest, RepeatedErrorsBackOffExponentiallyAndSuccessForgets) {
  for (int i = 0; i < 3; ++i) reconciler_.outcomes.push_back(UnavailableError("down"));
  controller_.queue().Add("ns/a");
  ASSERT_EQ(RunReady(), 1);  // failure 1
  for (Clock::Duration wait : {5ms, 10ms, 20ms}) {
    clock_.Advance(wait - 1ms);
    ASSERT_EQ(controller_.queue().TryGet(), std::nullopt);
    clock_.Advance(1ms);
    ASSERT_TRUE(controller_.ProcessNextItem());  // failures 2 and 3, then success
  }
  EXPECT_EQ(reconciler_.seen.size(), 4u);
  EXPECT_EQ(controller_.queue().NumRequeues("ns/a"), 0);
  clock_.Advance(1h);
  EXPECT_EQ(controller_.queue().TryGet(), std::nullopt);
}

TEST_F(ControllerTest, ThrowingReconcilerIsRetriedLikeAnError) {
  class Thrower : public Reconciler {
   public:
    StatusOr<Result> Reconcile(const Request&) override { throw std::runtime_error("bug"); }
  } thrower;
  Controller c("throw", thrower, clock_, &metrics_);
  c.queue().Add("ns/a");
  ASSERT_TRUE(c.ProcessNextItem());
  EXPECT_EQ(c.queue().NumRequeues("ns/a"), 1);
  EXPECT_EQ(c.queue().NumWaiting(), 1u);
}

TEST_F(ControllerTest, WatchMapsEventsThroughPredicateAndMapper) {
  ::testing::NiceMock<k8s::testing::MockClient> client;
  k8s::testing::WatchFeed feed;
  k8s::JsonObject child = k8s::testing::MakeObject("ns", "child", "1");
  (void)child.Append(
      {"metadata", "ownerReferences"},
      k8s::JsonObject::Parse(
          R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"GatewayPool","name":"pool-a","uid":"u","controller":true})")
          .value());
  auto owned = ListingInformer(client, feed, k8s::kinds::ConfigMap(), {child});
  Informer& informer = *owned;
  controller_.Watch(informer, EnqueueOwner("rdmastack.io", "GatewayPool"));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + 1h));
  informer.Stop();
  EXPECT_EQ(controller_.queue().TryGet(), "ns/pool-a");
}

TEST_F(ControllerTest, GenerationPredicateDropsStatusOnlyUpdates) {
  ::testing::NiceMock<k8s::testing::MockClient> client;
  k8s::testing::WatchFeed feed;
  auto owned = ListingInformer(client, feed, k8s::kinds::ConfigMap(),
                               {k8s::testing::MakeObject("ns", "p", "1", 1)});
  Informer& informer = *owned;
  controller_.Watch(informer, EnqueueSelf(), GenerationChanged());
  // A second handler tells the test when each event has been dispatched.
  std::atomic<int> updates{0};
  informer.AddEventHandler(
      {nullptr, [&](const ObjectPtr&, const ObjectPtr&) { ++updates; }, nullptr});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + 1h));
  ASSERT_EQ(controller_.queue().TryGet(), "ns/p");  // the add
  controller_.queue().Done("ns/p");
  feed.Push(k8s::WatchEventType::kModified, k8s::testing::MakeObject("ns", "p", "2", 1));  // status only
  while (updates.load() < 1) std::this_thread::yield();
  EXPECT_EQ(controller_.queue().TryGet(), std::nullopt);
  feed.Push(k8s::WatchEventType::kModified, k8s::testing::MakeObject("ns", "p", "3", 2));  // spec change
  while (updates.load() < 2) std::this_thread::yield();
  EXPECT_EQ(controller_.queue().TryGet(), "ns/p");
  informer.Stop();
}

// A batched watch queues its requests after the batch delay, and a delete is seen by the
// on_delete hook even when the predicate drops it.
TEST_F(ControllerTest, BatchedWatchDelaysRequestsAndTellsOfDeletes) {
  ::testing::NiceMock<k8s::testing::MockClient> client;
  k8s::testing::WatchFeed feed;
  k8s::JsonObject pod = k8s::testing::MakeObject("ns", "pod-1", "1");
  pod.SetLabel("owner", "pool-a");
  auto owned = ListingInformer(client, feed, k8s::kinds::Pod(), {pod});
  Informer& informer = *owned;
  WatchOptions watch;
  watch.batch = [](const Request& r) { return r.name == "pool-a" ? 5s : 0s; };
  Predicate no_deletes;
  no_deletes.del = [](const k8s::JsonObject&) { return false; };
  watch.predicate = no_deletes;
  std::vector<std::string> deleted;
  std::atomic<int> deletes{0};
  watch.on_delete = [&](const k8s::JsonObject& gone) {
    deleted.emplace_back(gone.Name());
    ++deletes;
  };
  controller_.Watch(informer, EnqueueByLabel("owner"), std::move(watch));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + 1h));
  EXPECT_EQ(controller_.queue().TryGet(), std::nullopt);  // waits for the batch
  clock_.Advance(5s);
  for (int i = 0; i < 1000 && controller_.queue().Len() == 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(controller_.queue().TryGet(), "ns/pool-a");
  controller_.queue().Done("ns/pool-a");
  feed.Push(k8s::WatchEventType::kDeleted, k8s::testing::MakeObject("ns", "pod-1", "2"));
  while (deletes.load() < 1) std::this_thread::yield();
  EXPECT_EQ(deleted, std::vector<std::string>{"pod-1"});
  clock_.Advance(1h);
  EXPECT_EQ(controller_.queue().TryGet(), std::nullopt);  // the predicate dropped the delete
  informer.Stop();
}

TEST_F(ControllerTest, WorkersDrainOnStop) {
  Controller c("drain", reconciler_, RealClock::Instance(), nullptr, ControllerOptions{3, nullptr});
  for (int i = 0; i < 20; ++i) c.queue().Add("ns/k" + std::to_string(i));
  c.Start();
  while (c.queue().Len() > 0) std::this_thread::yield();
  EXPECT_TRUE(c.Stop(5s));
  EXPECT_FALSE(c.ProcessNextItem());
  EXPECT_EQ(reconciler_.seen.size(), 20u);
}

// A reconcile that outlives the drain period is waited for, not abandoned: when Stop returns no
// worker is left running code that uses the controller or the reconciler.
TEST(ControllerStopTest, StopJoinsAReconcileThatOutlivesTheDrain) {
  struct SlowReconciler : Reconciler {
    StatusOr<Result> Reconcile(const Request&) override {
      started = true;
      std::this_thread::sleep_for(300ms);
      finished = true;
      return Result{};
    }
    std::atomic<bool> started{false};
    std::atomic<bool> finished{false};
  } slow;
  Controller c("slow", slow, RealClock::Instance(), nullptr);
  c.queue().Add("ns/a");
  c.Start();
  while (!slow.started.load()) std::this_thread::yield();
  EXPECT_FALSE(c.Stop(0s));           // not drained within the (zero) drain period...
  EXPECT_TRUE(slow.finished.load());  // ...but the worker was joined
}

}  // namespace
}  // namespace rdmastack::runtime
