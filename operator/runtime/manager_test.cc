#include "operator/runtime/manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

#include "operator/runtime/testing/counting_reconciler.h"
#include "operator/runtime/testing/fake_lease_server.h"
#include "operator/runtime/testing/http_fetch.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

std::pair<int, std::string> HttpGet(uint16_t port, const std::string& target) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  stream.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::empty_body> req(http::verb::get, target, 11);
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return {static_cast<int>(res.result_int()), res.body()};
}

class ManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ON_CALL(client_, List(_, _, _))
        .WillByDefault(Return(k8s::testing::MakeList({k8s::testing::MakeObject("ns", "a", "1")}, "1")));
    ON_CALL(client_, Watch(_, _, _)).WillByDefault(Invoke([&](auto&&...) {
      return feed_.NewStream();
    }));
  }
  static ManagerOptions Options(bool leader_election = false) {
    ManagerOptions o;
    o.health_probe_bind_address = "127.0.0.1:0";
    o.metrics.bind_address = "127.0.0.1:0";
    o.metrics.secure = false;  // the secure path: SecureMetricsReviewThroughTheInstrumentedClient
    o.api_host = "127.0.0.1:6443";
    if (leader_election) o.leader_election = LeaderElectionConfig{"ns", "lock", "me"};
    return o;
  }

  // A manager with one ConfigMap controller, running on its own thread.
  class Running {
   public:
    Running(ManagerTest& t, ManagerOptions options,
            const std::function<void(Manager&)>& before_run = nullptr)
        : manager(t.client_, t.clock_, std::move(options)) {
      if (before_run) before_run(manager);
      InformerOptions io;
      io.reflector.initial_sync = ReflectorOptions::InitialSync::kWatchCacheList;  // the mocks list
      io.type = k8s::kinds::ConfigMap();
      manager.NewController("cm", t.reconciler_).Watch(manager.cache().Get(io), EnqueueSelf());
      thread_ = std::thread([this] {
        result_ = manager.Run();
        done = true;
      });
    }
    ~Running() {
      if (thread_.joinable()) (void)Stop();
    }
    Status Stop() {
      manager.RequestStop();
      return Join();
    }
    Status Join() {
      thread_.join();
      return result_;
    }
    Manager manager;
    std::atomic<bool> done{false};

   private:
    Status result_ = UnknownError("not run");
    std::thread thread_;
  };

  FakeClock clock_;
  ::testing::NiceMock<k8s::testing::MockClient> client_;
  k8s::testing::WatchFeed feed_;
  testing::CountingReconciler reconciler_;
};

TEST_F(ManagerTest, SyncsCachesRunsControllersServesProbesAndStops) {
  Running run(*this, Options());
  Manager& m = run.manager;
  while (reconciler_.calls.load() < 1) std::this_thread::yield();
  EXPECT_TRUE(m.Ready());
  EXPECT_TRUE(m.Leading());
  EXPECT_EQ(HttpGet(m.health_probe_port(), "/healthz").first, 200);
  EXPECT_EQ(HttpGet(m.health_probe_port(), "/readyz"), std::make_pair(200, std::string("ok\n")));
  EXPECT_EQ(HttpGet(m.health_probe_port(), "/metrics").first, 404);  // metrics are served apart
  const std::string metrics = HttpGet(m.metrics_port(), "/metrics").second;
  for (const char* want :
       {"controller_runtime_reconcile_total{controller=\"cm\",result=\"success\"} 1",
        "controller_runtime_reconcile_errors_total{controller=\"cm\"} 0",
        "controller_runtime_reconcile_time_seconds_count{controller=\"cm\"} 1",
        "workqueue_depth{name=\"cm\"} 0", "workqueue_adds_total{name=\"cm\"} 1",
        "workqueue_retries_total{name=\"cm\"} 0",
        "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"}"}) {
    EXPECT_NE(metrics.find(want), std::string::npos) << want << "\n" << metrics;
  }
  const Status result = run.Stop();
  EXPECT_TRUE(result.ok()) << result.ToString();
  EXPECT_FALSE(m.Ready());
}

TEST_F(ManagerTest, StandbyIsReadyButDoesNotReconcileAndStopsCleanly) {
  testing::FakeLeaseServer lease(client_);
  lease.SetHolder("other", 15, "t");
  Running run(*this, Options(/*leader_election=*/true));
  while (!run.manager.Ready()) std::this_thread::yield();
  EXPECT_EQ(HttpGet(run.manager.health_probe_port(), "/readyz").second, "ok (standby)\n");
  EXPECT_FALSE(run.manager.Leading());
  EXPECT_TRUE(run.Stop().ok());
  EXPECT_EQ(reconciler_.calls.load(), 0);
  EXPECT_EQ(lease.Record().holder, "other");  // a standby never writes the lease
}

// The lead precondition (the operator's: its CRDs are current) holds a process back from leading
// while it fails, says why once per distinct reason, and lets it lead once it holds.
TEST_F(ManagerTest, AFailingLeadPreconditionKeepsTheProcessFromLeadingUntilItHolds) {
  std::atomic<int> checks{0};
  std::atomic<bool> current{false};
  ManagerOptions options = Options();
  options.api_probe = ApiProbeConfig{"ns", "lock"};
  options.lead_precondition = [&]() -> Status {
    ++checks;
    return current ? OkStatus() : FailedPreconditionError("CRD x is at schema revision none");
  };
  options.lead_precondition_reason = "CRDsOutdated";
  options.lead_precondition_retry = std::chrono::milliseconds(5);
  std::vector<std::string> events;
  std::mutex events_mu;
  ON_CALL(client_, Create(_, _, _))
      .WillByDefault(Invoke([&](auto&&, const k8s::JsonObject& o, auto&&) {
        std::lock_guard l(events_mu);
        events.push_back(o.GetString({"reason"}).value_or("") + " " +
                         o.GetString({"note"}).value_or(o.GetString({"message"}).value_or("")));
        return StatusOr<k8s::JsonObject>(o);
      }));
  Running run(*this, std::move(options));
  while (checks.load() < 5) std::this_thread::yield();
  EXPECT_FALSE(run.manager.Leading());
  EXPECT_EQ(reconciler_.calls.load(), 0) << "no controller runs";
  current = true;
  while (reconciler_.calls.load() < 1) std::this_thread::yield();
  EXPECT_TRUE(run.manager.Leading());
  EXPECT_TRUE(run.Stop().ok());
  std::lock_guard l(events_mu);
  ASSERT_EQ(std::count_if(events.begin(), events.end(),
                          [](const std::string& e) { return e.rfind("CRDsOutdated ", 0) == 0; }),
            1)
      << ::testing::PrintToString(events);
}

TEST_F(ManagerTest, LeaderReleasesTheLeaseOnStop) {
  testing::FakeLeaseServer lease(client_);
  Running run(*this, Options(/*leader_election=*/true));
  while (reconciler_.calls.load() < 1) std::this_thread::yield();
  EXPECT_TRUE(run.manager.Leading());
  EXPECT_EQ(lease.Record().holder, "me");
  EXPECT_NE(HttpGet(run.manager.metrics_port(), "/metrics")
                .second.find("leader_election_master_status{name=\"lock\"} 1"),
            std::string::npos);
  EXPECT_TRUE(run.Stop().ok());
  EXPECT_EQ(lease.Record().holder, "");
  EXPECT_EQ(lease.Record().lease_duration_seconds, 1);
}

TEST_F(ManagerTest, LosingTheLeaseEndsRunWithAborted) {
  testing::FakeLeaseServer lease(client_);
  Running run(*this, Options(/*leader_election=*/true));
  while (!run.manager.Leading()) std::this_thread::yield();
  {
    std::lock_guard<std::mutex> l(lease.mu);
    lease.down = true;
  }
  while (!run.done.load()) {
    clock_.Advance(500ms);
    std::this_thread::sleep_for(1ms);
  }
  const Status result = run.Join();
  EXPECT_EQ(result.code(), StatusCode::kAborted);
  EXPECT_EQ(result.message(), "leader election lost");
}

// The agent hub's contract: it runs only while this process leads, starts before the
// controllers and stops before they drain.
TEST_F(ManagerTest, LeaderRunnablesRunOnlyWhileLeading) {
  testing::FakeLeaseServer lease(client_);
  lease.SetHolder("other", 15, "t");
  std::atomic<int> starts{0}, stops{0};
  std::atomic<int> reconciles_at_start{-1};
  ManagerOptions options = Options(/*leader_election=*/true);
  Running run(*this, options, [&](Manager& m) {
    m.AddLeaderRunnable({"hub",
                         [&] {
                           reconciles_at_start = reconciler_.calls.load();
                           ++starts;
                           return OkStatus();
                         },
                         [&] { ++stops; }});
  });
  while (!run.manager.Ready()) std::this_thread::yield();
  EXPECT_EQ(starts.load(), 0);  // standby
  lease.SetHolder("", 1, "t");  // released by the other holder
  while (reconciler_.calls.load() < 1) {
    clock_.Advance(500ms);
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(starts.load(), 1);
  EXPECT_EQ(reconciles_at_start.load(), 0);
  EXPECT_EQ(stops.load(), 0);
  EXPECT_TRUE(run.Stop().ok());
  EXPECT_EQ(stops.load(), 1);
}

// The pod webhook's contract: it runs on a standby as on the leader, and stops before the lease
// is handed back (its certificate writes must not follow the release).
TEST_F(ManagerTest, RunnablesRunOnEveryReplicaAndStopBeforeTheLeaseIsReleased) {
  testing::FakeLeaseServer lease(client_);
  lease.SetHolder("other", 15, "t");
  std::atomic<int> starts{0};
  std::string holder_at_stop;
  Running run(*this, Options(/*leader_election=*/true), [&](Manager& m) {
    m.AddRunnable({"webhook",
                   [&] {
                     ++starts;
                     return OkStatus();
                   },
                   [&] { holder_at_stop = lease.Record().holder; }});
  });
  while (!run.manager.Ready()) std::this_thread::yield();
  EXPECT_EQ(starts.load(), 1);  // a standby runs it too
  lease.SetHolder("", 1, "t");
  while (!run.manager.Leading()) {
    clock_.Advance(500ms);
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(starts.load(), 1);
  EXPECT_TRUE(run.Stop().ok());
  EXPECT_EQ(holder_at_stop, "me");       // stopped while the lease was still ours
  EXPECT_EQ(lease.Record().holder, "");  // then released
}

TEST_F(ManagerTest, FailingLeaderRunnableFailsRunAndStopsTheStartedOnes) {
  testing::FakeLeaseServer lease(client_);
  std::vector<std::string> calls;
  std::mutex mu;
  auto note = [&](std::string what) {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back(std::move(what));
  };
  Running run(*this, Options(/*leader_election=*/true), [&](Manager& m) {
    m.AddLeaderRunnable({"first",
                         [&] {
                           note("start first");
                           return OkStatus();
                         },
                         [&] { note("stop first"); }});
    m.AddLeaderRunnable({"second",
                         [&] {
                           note("start second");
                           return FailedPreconditionError("no certificate");
                         },
                         [&] { note("stop second"); }});
  });
  const Status result = run.Join();
  EXPECT_EQ(result.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(result.message().find("second"), std::string::npos) << result.ToString();
  EXPECT_THAT(calls, ::testing::ElementsAre("start first", "start second", "stop first"));
  EXPECT_EQ(reconciler_.calls.load(), 0);  // no controller started
  EXPECT_EQ(lease.Record().holder, "");    // the lease is handed back
}

TEST_F(ManagerTest, InvalidBindAddressFailsRun) {
  ManagerOptions probes = Options();
  probes.health_probe_bind_address = "nonsense";
  Manager a(client_, clock_, probes);
  const Status sa = a.Run();
  EXPECT_EQ(sa.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sa.message().find("health probe bind address"), std::string::npos) << sa.ToString();

  ManagerOptions metrics = Options();
  metrics.metrics.bind_address = "nonsense";
  Manager b(client_, clock_, metrics);
  const Status sb = b.Run();
  EXPECT_EQ(sb.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sb.message().find("metrics bind address"), std::string::npos) << sb.ToString();
}

TEST_F(ManagerTest, ZeroDisablesServing) {
  ManagerOptions o = Options();
  o.health_probe_bind_address = "0";
  o.metrics.bind_address = "0";
  Running run(*this, o);
  while (reconciler_.calls.load() < 1) std::this_thread::yield();
  EXPECT_EQ(run.manager.health_probe_port(), 0);
  EXPECT_EQ(run.manager.metrics_port(), 0);
  EXPECT_TRUE(run.Stop().ok());
}

// The manager's metrics server reviews scrapes through its instrumented client: the reviews are
// counted in rest_client_requests_total like every other API call.
TEST_F(ManagerTest, SecureMetricsReviewThroughTheInstrumentedClient) {
  ON_CALL(client_, Create(_, _, _))
      .WillByDefault(Invoke([](const k8s::ResourceType& type, const k8s::JsonObject&,
                               const k8s::WriteOptions&) -> StatusOr<k8s::JsonObject> {
        if (type == k8s::kinds::TokenReview()) {
          return k8s::JsonObject::Parse(
              R"({"status":{"authenticated":true,"user":{"username":"scraper"}}})");
        }
        return k8s::JsonObject::Parse(R"({"status":{"allowed":true}})");
      }));
  ManagerOptions o = Options();
  o.metrics.secure = true;
  Running run(*this, o);
  while (reconciler_.calls.load() < 1) std::this_thread::yield();
  const uint16_t port = run.manager.metrics_port();
  auto anonymous = testing::HttpFetch(port, "/metrics", {.tls = true});
  ASSERT_TRUE(anonymous.ok()) << anonymous.status().ToString();
  EXPECT_EQ(anonymous->status, 401);
  auto plain = testing::HttpFetch(port, "/metrics");
  EXPECT_FALSE(plain.ok() && plain->status == 200);  // no plain HTTP on the secure port
  auto scrape = testing::HttpFetch(port, "/metrics", {.tls = true, .bearer_token = "t"});
  ASSERT_TRUE(scrape.ok()) << scrape.status().ToString();
  EXPECT_EQ(scrape->status, 200);
  EXPECT_NE(
      scrape->body.find(
          "rest_client_requests_total{code=\"201\",host=\"127.0.0.1:6443\",method=\"POST\"} 2"),
      std::string::npos)
      << scrape->body;
  EXPECT_TRUE(run.Stop().ok());
}

}  // namespace
}  // namespace rdmastack::runtime
