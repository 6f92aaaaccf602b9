#include "operator/runtime/leader_election.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "operator/runtime/testing/fake_lease_server.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using ::testing::_;
using k8s::testing::ApiStatus;
using ::testing::Invoke;

using testing::FakeLeaseServer;

class LeaderElectionTest : public ::testing::Test {
 protected:
  LeaderElectionConfig Config(const std::string& id) {
    LeaderElectionConfig c;
    c.lease_namespace = "ns";
    c.lease_name = "lock";
    c.identity = id;
    return c;
  }
  FakeClock clock_;
  ::testing::NiceMock<k8s::testing::MockClient> client_;
  FakeLeaseServer server_{client_};
};

TEST(LeaderElectionConfigTest, ValidationTable) {
  struct Case {
    Clock::Duration lease, renew, retry;
    bool ok;
  };
  const Case cases[] = {{15s, 10s, 2s, true},
                        {10s, 10s, 2s, false},
                        {15s, 2s, 2s, false},
                        {15s, 10s, 9s, false},
                        {15s, 10s, 0s, false},
                        // Under a second the Lease would say 0: others would take it at once.
                        {900ms, 600ms, 100ms, false},
                        {1s, 600ms, 100ms, true}};
  for (const Case& c : cases) {
    LeaderElectionConfig config{"ns", "lock", "me", c.lease, c.renew, c.retry, true};
    EXPECT_EQ(ValidateLeaderElectionConfig(config).ok(), c.ok);
  }
  EXPECT_FALSE(ValidateLeaderElectionConfig({"", "lock", "me"}).ok());
  EXPECT_FALSE(ValidateLeaderElectionConfig({"ns", "lock", ""}).ok());
}

TEST_F(LeaderElectionTest, CreatesAMissingLeaseAndBecomesLeader) {
  LeaderElector e(client_, clock_, Config("a"));
  EXPECT_TRUE(e.TryAcquireOrRenew());
  EXPECT_TRUE(e.IsLeader());
  const LeaseRecord r = server_.Record();
  EXPECT_EQ(r.holder, "a");
  EXPECT_EQ(r.lease_duration_seconds, 15);
  EXPECT_EQ(r.lease_transitions, 0);
  EXPECT_EQ(r.renew_time, "2023-11-14T22:13:20.000000Z");  // FakeClock's wall start
}

TEST_F(LeaderElectionTest, AFractionalLeaseDurationIsWrittenRoundedUp) {
  LeaderElectionConfig c = Config("a");
  c.lease_duration = 1500ms;
  c.renew_deadline = 1s;
  c.retry_period = 200ms;
  ASSERT_TRUE(ValidateLeaderElectionConfig(c).ok());
  LeaderElector e(client_, clock_, c);
  EXPECT_TRUE(e.TryAcquireOrRenew());
  EXPECT_EQ(server_.Record().lease_duration_seconds, 2);
}

TEST_F(LeaderElectionTest, RenewKeepsAcquireTimeAndTransitions) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());
  const LeaseRecord first = server_.Record();
  clock_.Advance(2s);
  ASSERT_TRUE(e.TryAcquireOrRenew());
  const LeaseRecord second = server_.Record();
  EXPECT_EQ(second.acquire_time, first.acquire_time);
  EXPECT_NE(second.renew_time, first.renew_time);
  EXPECT_EQ(second.lease_transitions, 0);
}

TEST_F(LeaderElectionTest, LiveHolderBlocksUntilItsLeaseExpiresOnOurClock) {
  server_.SetHolder("other", 15, "2001-01-01T00:00:00.000000Z");  // renewTime is not trusted
  LeaderElector e(client_, clock_, Config("b"));
  struct Step {
    Clock::Duration advance;
    bool want;
  };
  // The record was first seen at t=0; it is valid for 15 s of our time (expired at exactly 15 s).
  const Step steps[] = {{0s, false}, {10s, false}, {4999ms, false}, {1ms, true}};
  for (const Step& s : steps) {
    clock_.Advance(s.advance);
    EXPECT_EQ(e.TryAcquireOrRenew(), s.want);
  }
  const LeaseRecord r = server_.Record();
  EXPECT_EQ(r.holder, "b");
  EXPECT_EQ(r.lease_transitions, 1);
}

// Someone deletes the Lease: its holder makes it again at its next renewal and leads on; a
// candidate that saw the holder waits out a lease duration of absence first, so the two never
// both lead.
TEST_F(LeaderElectionTest, ADeletedLeaseIsMadeAgainByItsHolderWhileOthersWaitItOut) {
  LeaderElector leader(client_, clock_, Config("a"));
  LeaderElector standby(client_, clock_, Config("b"));
  ASSERT_TRUE(leader.TryAcquireOrRenew());
  EXPECT_FALSE(standby.TryAcquireOrRenew());
  auto delete_lease = [&] {
    std::lock_guard<std::mutex> l(server_.mu);
    server_.lease.reset();
  };

  delete_lease();
  clock_.Advance(1s);
  EXPECT_FALSE(standby.TryAcquireOrRenew()) << "a held it a second ago";
  EXPECT_EQ(server_.Record().holder, "") << "nothing made";
  clock_.Advance(1s);
  EXPECT_TRUE(leader.TryAcquireOrRenew()) << "the holder makes it again";
  EXPECT_EQ(server_.Record().holder, "a");
  EXPECT_FALSE(standby.TryAcquireOrRenew());

  // Gone again, and the holder is gone too: the standby takes it after a lease duration.
  delete_lease();
  EXPECT_FALSE(standby.TryAcquireOrRenew());
  clock_.Advance(14s);
  EXPECT_FALSE(standby.TryAcquireOrRenew());
  clock_.Advance(1s);
  EXPECT_TRUE(standby.TryAcquireOrRenew());
  EXPECT_EQ(server_.Record().holder, "b");
}

TEST_F(LeaderElectionTest, HolderThatKeepsRenewingIsNeverDisplaced) {
  server_.SetHolder("other", 15, "t0");
  LeaderElector e(client_, clock_, Config("b"));
  for (int i = 1; i <= 20; ++i) {
    EXPECT_FALSE(e.TryAcquireOrRenew());
    clock_.Advance(2s);
    server_.SetHolder("other", 15, "t" + std::to_string(i));  // a change restarts our timer
  }
  EXPECT_EQ(e.ObservedLeader(), "other");
}

// A Lease someone else made (a Helm chart, with its release's labels and annotations) is taken,
// renewed and released with its metadata intact.
TEST_F(LeaderElectionTest, EmptyLeaseMadeByAChartKeepsItsMetadata) {
  k8s::JsonObject made;
  made.SetNamespace("ns");
  made.SetName("lock");
  made.SetLabel("app.kubernetes.io/managed-by", "Helm");
  (void)made.SetString({"metadata", "annotations", "meta.helm.sh/release-name"}, "rdmastack");
  made.SetResourceVersion("7");
  server_.lease = made;
  server_.rv = 7;
  LeaderElector a(client_, clock_, Config("a"));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  ASSERT_TRUE(a.TryAcquireOrRenew());
  ASSERT_TRUE(a.Release().ok());
  EXPECT_EQ(server_.updates, 3);
  EXPECT_EQ(server_.lease->Label("app.kubernetes.io/managed-by").value_or(""), "Helm");
  EXPECT_EQ(server_.lease->GetString({"metadata", "annotations", "meta.helm.sh/release-name"}),
            "rdmastack");
}

TEST_F(LeaderElectionTest, ReleasedLeaseIsTakenAtOnce) {
  LeaderElector a(client_, clock_, Config("a"));
  LeaderElector b(client_, clock_, Config("b"));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  EXPECT_FALSE(b.TryAcquireOrRenew());
  ASSERT_TRUE(a.Release().ok());
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(server_.Record().holder, "");
  EXPECT_EQ(server_.Record().lease_duration_seconds, 1);
  EXPECT_TRUE(b.TryAcquireOrRenew());
  EXPECT_EQ(server_.Record().lease_transitions, 1);
}

TEST_F(LeaderElectionTest, ConflictingWriteLosesTheRace) {
  server_.SetHolder("", 15, "released");
  LeaderElector a(client_, clock_, Config("a"));
  // Another candidate takes the lease between our read and our write.
  EXPECT_CALL(client_, Get(_, _, _, _)).WillOnce(Invoke([&](auto&&...) {
    auto current = server_.Get();
    server_.SetHolder("other", 15, "x");
    return current;
  }));
  EXPECT_FALSE(a.TryAcquireOrRenew());  // stale resourceVersion -> Conflict
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(server_.Record().holder, "other");
}

TEST_F(LeaderElectionTest, TheLeaderRenewsWithOneUpdateAndNoRead) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());  // Get (404), Create
  EXPECT_CALL(client_, Get(_, _, _, _)).Times(0);
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(2s);
    ASSERT_TRUE(e.TryAcquireOrRenew());
  }
  std::lock_guard<std::mutex> l(server_.mu);
  EXPECT_EQ(server_.updates, 3);
  EXPECT_EQ(server_.deadlines.size(), 5u);  // 2 to acquire, 1 per renewal
}

TEST_F(LeaderElectionTest, ALeaderWhoseLeaseWasTakenReadsItAndStepsDown) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());
  server_.SetHolder("other", 15, "t1");  // e.g. after a long pause of ours
  clock_.Advance(2s);
  EXPECT_FALSE(e.TryAcquireOrRenew());  // the optimistic write conflicts; the read shows "other"
  EXPECT_FALSE(e.IsLeader());
  EXPECT_EQ(e.ObservedLeader(), "other");
  EXPECT_EQ(server_.Record().holder, "other");
}

TEST_F(LeaderElectionTest, ReleaseWithoutLeadershipWritesNothing) {
  LeaderElector a(client_, clock_, Config("a"));
  EXPECT_TRUE(a.Release().ok());
  EXPECT_EQ(server_.updates, 0);
}

TEST_F(LeaderElectionTest, RenewLoopGivesUpAfterTheRenewDeadline) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());
  const Clock::TimePoint acquired = clock_.Now();
  std::atomic<bool> done{false};
  bool still_leading = true;
  Clock::TimePoint lost_at{};
  std::thread renewer([&] {
    still_leading = e.RenewUntilLostOrStopped();
    lost_at = clock_.Now();
    done = true;
  });
  // Renewals succeed at 2 s and 4 s, then the API server goes away.
  const auto step = 100ms;
  while (!done.load()) {
    if (clock_.Now() - acquired >= 5s) {
      std::lock_guard<std::mutex> l(server_.mu);
      server_.down = true;
    }
    // The renewer acts on each step before time moves on (it has finished once it stops sleeping).
    clock_.AdvanceAndWaitForSleeper(step, 1000ms);
  }
  renewer.join();
  EXPECT_FALSE(still_leading);
  EXPECT_FALSE(e.IsLeader());
  // Last success at 4 s; lost at the first retry tick 10 s later (renew deadline).
  EXPECT_GE(lost_at - acquired, 14s);
  EXPECT_LE(lost_at - acquired, 14s + 4 * step);
}

TEST_F(LeaderElectionTest, StopEndsAcquireAndRenewLoops) {
  server_.SetHolder("other", 15, "t");
  LeaderElector e(client_, clock_, Config("b"));
  std::thread t([&] { EXPECT_FALSE(e.Acquire()); });
  e.Stop();
  t.join();
  EXPECT_TRUE(e.RenewUntilLostOrStopped());  // already stopped: returns at once
}

TEST_F(LeaderElectionTest, EveryRequestOfARenewalEndsByTheRenewDeadline) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());
  clock_.Advance(2s);
  const auto renew_started = std::chrono::steady_clock::now();
  ASSERT_TRUE(e.TryAcquireOrRenew());
  std::lock_guard<std::mutex> l(server_.mu);
  ASSERT_FALSE(server_.deadlines.empty());
  for (const auto& deadline : server_.deadlines) {
    ASSERT_TRUE(deadline.has_value());
    EXPECT_LE(*deadline, renew_started + 10s + 100ms);
  }
}

// A server that accepts connections but never answers: each renewal attempt ends at its deadline,
// the last one at the renew deadline, and then nothing more is sent.
TEST_F(LeaderElectionTest, HangingServerEndsLeadershipAtTheRenewDeadline) {
  LeaderElector e(client_, clock_, Config("a"));
  ASSERT_TRUE(e.TryAcquireOrRenew());
  const Clock::TimePoint acquired = clock_.Now();
  ASSERT_EQ(e.LeadershipValidUntil(), acquired + 10s);
  size_t requests_before = 0;
  {
    std::lock_guard<std::mutex> l(server_.mu);
    requests_before = server_.deadlines.size();
    server_.hang = true;
    server_.hang_clock = &clock_;
  }
  std::atomic<bool> done{false};
  bool still_leading = true;
  std::thread renewer([&] {
    still_leading = e.RenewUntilLostOrStopped();
    done = true;
  });
  while (!done.load()) clock_.AdvanceAndWaitForSleeper(100ms, 1000ms);
  renewer.join();
  const Clock::TimePoint lost_at = clock_.Now();
  EXPECT_FALSE(still_leading);
  EXPECT_FALSE(e.LeadershipValidUntil().has_value());
  // The first renewal (2 s after acquiring) hangs until the renew deadline; the lease is given up
  // there, not a request timeout later.
  EXPECT_LE(lost_at - acquired, 10s + 200ms);
  std::lock_guard<std::mutex> l(server_.mu);
  EXPECT_EQ(server_.deadlines.size(), requests_before + 1);  // one hung Update; nothing after it
}

TEST_F(LeaderElectionTest, StopAbortsARequestInFlight) {
  std::atomic<bool> in_request{false};
  ON_CALL(client_, Get(_, _, _, _))
      .WillByDefault(Invoke([&](auto&&...) -> StatusOr<k8s::JsonObject> {
        auto cancellation = k8s::CurrentCallContext().cancellation;
        if (!cancellation) return UnavailableError("no cancellation");
        in_request = true;
        cancellation->WaitFor(std::chrono::hours(1));
        return CancelledError("cancelled");
      }));
  LeaderElector e(client_, clock_, Config("a"));
  std::thread t([&] { EXPECT_FALSE(e.Acquire()); });
  while (!in_request.load()) std::this_thread::sleep_for(1ms);
  e.Stop();
  t.join();
}

}  // namespace
}  // namespace rdmastack::runtime
