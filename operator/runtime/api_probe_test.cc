#include "operator/runtime/api_probe.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "operator/runtime/api_reachability.h"
#include "operator/runtime/instrumented_client.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;

TEST(ApiProbeTest, ReadsTheNamedLeaseFromStorageEveryPeriodUntilStopped) {
  ::testing::NiceMock<k8s::testing::MockClient> client;
  std::atomic<int> probes{0};
  std::promise<void> three;
  EXPECT_CALL(client, Get(_, _, _, _))
      .WillRepeatedly([&](const k8s::ResourceType& type, std::string_view ns, std::string_view name,
                          const k8s::GetOptions& options) {
        EXPECT_EQ(type.kind, "Lease");
        EXPECT_EQ(ns, "ops");
        EXPECT_EQ(name, "lock");
        EXPECT_EQ(options.resource_version, "") << "a quorum read, which etcd must answer";
        EXPECT_TRUE(k8s::CurrentCallContext().deadline.has_value()) << "every probe is bounded";
        if (++probes == 3) three.set_value();
        return StatusOr<k8s::JsonObject>(k8s::testing::ApiStatus(404, "NotFound", "no lease"));
      });
  ApiProbe probe(client,
                 {.ns = "ops", .lease_name = "lock", .period = std::chrono::milliseconds(1)});
  std::thread runner([&] { probe.RunUntilStopped(); });
  three.get_future().wait();
  probe.Stop();
  runner.join();
  const int after_stop = probes.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(probes.load(), after_stop) << "no probe after Stop";
}

// The point of the probe: with etcd frozen its read hangs, and the drain clock sees an outage
// though nothing else asked the server anything.
TEST(ApiProbeTest, AProbeThatHangsShowsAsAnOutageAndStopAbortsIt) {
  ::testing::NiceMock<k8s::testing::MockClient> inner;
  MetricsRegistry metrics;
  FakeClock clock;
  ApiReachability reachability(clock);
  InstrumentedClient client(inner, metrics, "127.0.0.1:6443", &reachability);
  const Clock::WallTime before = clock.WallNow();
  std::promise<void> hanging;
  EXPECT_CALL(inner, Get(_, _, _, _)).WillOnce([&](auto&&...) {
    clock.Advance(std::chrono::seconds(30));
    hanging.set_value();
    const bool cancelled =
        k8s::CurrentCallContext().cancellation->WaitFor(std::chrono::seconds(60));
    EXPECT_TRUE(cancelled) << "Stop aborts the probe in flight";
    return StatusOr<k8s::JsonObject>(CancelledError("stopped"));
  });
  ApiProbe probe(client,
                 {.ns = "ops", .lease_name = "lock", .period = std::chrono::milliseconds(1)});
  std::thread runner([&] { probe.RunUntilStopped(); });
  hanging.get_future().wait();
  EXPECT_EQ(reachability.AnsweringSince(), clock.WallNow()) << "a storage read hung 30 s";
  EXPECT_NE(clock.WallNow(), before);
  probe.Stop();
  runner.join();
}

}  // namespace
}  // namespace rdmastack::runtime
