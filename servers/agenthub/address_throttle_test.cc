#include "servers/agenthub/address_throttle.h"

#include <gtest/gtest.h>

#include "base/sha256.h"

namespace rdmastack::agenthub {
namespace {

AdmissionDecision Refusal(StatusCode code, const char* reason) {
  AdmissionDecision d;
  d.code = code;
  d.reason = reason;
  return d;
}
const AdmissionDecision kAccepted{};

// A Hello from `address` that proves nothing before its review.
HelloKey Unproven(const std::string& address, const std::string& node = "") {
  return HelloKey{.address = address, .node_name = node};
}

// An agent's Hello: its token's digest and the pod its claims name.
HelloKey AgentHello(const std::string& address, const std::string& node, const std::string& pod,
                    const std::string& token) {
  return HelloKey{
      .address = address, .node_name = node, .token_pod_uid = pod, .token_digest = Sha256(token)};
}

AdmissionDecision AcceptedAs(const std::string& node, const std::string& pod_uid) {
  AdmissionDecision d;
  d.identity.node_name = node;
  d.identity.pod_uid = pod_uid;
  return d;
}

// Admits and ends a Hello with `decision`; false when the throttle refused it unreviewed.
bool Try(AddressThrottle& t, const HelloKey& hello, const AdmissionDecision& decision) {
  const AddressThrottle::Admission a = t.Admit(hello);
  if (a.refusal) return false;
  t.Done(hello, a.lane, decision);
  return true;
}

TEST(PeerAddressTest, DropsTheSchemeAndThePort) {
  EXPECT_EQ(PeerAddress("ipv4:198.18.50.11:40122"), "198.18.50.11");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:5000"), "::1");
  EXPECT_EQ(PeerAddress("ipv6:%5Bfd00::7%5D:5000"), "fd00::7");
  EXPECT_EQ(PeerAddress("unix:/run/x.sock"), "unix:/run/x.sock");
  EXPECT_EQ(PeerAddress(""), "");
}

// What a Hello offers is read only within its bounds: a token of a megabyte is not digested.
TEST(HelloKeyTest, ReadsTheClaimsOfATokenWithinItsBounds) {
  // {"kubernetes.io":{"pod":{"uid":"u-1"}}} as a JWT payload (the signature is not read).
  const std::string token = "e30.eyJrdWJlcm5ldGVzLmlvIjp7InBvZCI6eyJ1aWQiOiJ1LTEifX19.sig";
  const HelloKey key = HelloKeyOf("ipv4:10.0.0.1:5000", "node-1", token);
  EXPECT_EQ(key.address, "10.0.0.1");
  EXPECT_EQ(key.node_name, "node-1");
  EXPECT_EQ(key.token_pod_uid, "u-1");
  EXPECT_EQ(key.token_digest, Sha256(token));
  const HelloKey huge =
      HelloKeyOf("ipv4:10.0.0.1:5000", std::string(300, 'n'), std::string(kMaxTokenBytes + 1, 't'));
  EXPECT_EQ(huge.node_name, "");
  EXPECT_EQ(huge.token_digest, "");
  EXPECT_EQ(HelloKeyOf("ipv4:10.0.0.1:5000", "node-1", "not-a-jwt").token_pod_uid, "");
}

TEST(AddressThrottleTest, PendingHellosPerAddressAreBounded) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 2, .max_failures_per_minute = 10}, clock);
  const HelloKey a = Unproven("10.0.0.1"), b = Unproven("10.0.0.2");
  EXPECT_FALSE(t.Admit(a).refusal);
  EXPECT_FALSE(t.Admit(a).refusal);
  const auto third = t.Admit(a).refusal;
  ASSERT_TRUE(third);
  EXPECT_EQ(third->code, StatusCode::kResourceExhausted);
  EXPECT_EQ(third->reason, kReasonTooManyPending);
  EXPECT_FALSE(t.Admit(b).refusal) << "another address is not affected";
  t.Done(a, AddressThrottle::Lane::kAddress, kAccepted);
  EXPECT_FALSE(t.Admit(a).refusal) << "a slot is free again";
  t.Done(a, AddressThrottle::Lane::kAddress, kAccepted);
  t.Done(a, AddressThrottle::Lane::kAddress, kAccepted);
  t.Done(b, AddressThrottle::Lane::kAddress, kAccepted);
  EXPECT_EQ(t.tracked(), 0u) << "an address with nothing pending and no failures is forgotten";
}

TEST(AddressThrottleTest, RefusedHellosThrottleTheAddressForTheRestOfTheMinute) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 0, .max_failures_per_minute = 3}, clock);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        Try(t, Unproven("10.0.0.1"), Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected)))
        << i;
    clock.Advance(std::chrono::seconds(10));
  }
  const auto throttled = t.Admit(Unproven("10.0.0.1")).refusal;
  ASSERT_TRUE(throttled);
  EXPECT_EQ(throttled->reason, kReasonAddressThrottled);
  EXPECT_EQ(throttled->message,
            "3 Hellos from 10.0.0.1 were refused within a minute (the last: TokenRejected); "
            "Hellos from this address are refused for 30 s more; fix the agent's token or pod and "
            "let it retry");
  // An API outage is not the address's fault.
  EXPECT_TRUE(
      Try(t, Unproven("10.0.0.9"), Refusal(StatusCode::kUnavailable, kReasonReviewUnavailable)));
  EXPECT_TRUE(
      Try(t, Unproven("10.0.0.9"), Refusal(StatusCode::kUnavailable, kReasonReviewUnavailable)));
  // The minute that began with the first refusal ends.
  clock.Advance(std::chrono::seconds(30));
  EXPECT_TRUE(Try(t, Unproven("10.0.0.1"), kAccepted));
  t.Sweep();
  EXPECT_EQ(t.tracked(), 0u);
}

// The agent of node-1 was accepted from 10.0.0.1; then a tenant's pod on the same host network
// fails Hellos from that address (claiming node-1, or made-up tokens) until the address is
// throttled. The agent reconnects, with the token accepted before or with its pod's refreshed
// token: it is reviewed, not refused. The neighbour stays throttled.
TEST(AddressThrottleTest, ANeighboursFailuresDoNotLockOutTheAgentAcceptedBefore) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 4, .max_failures_per_minute = 5}, clock);
  const HelloKey agent = AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-1");
  ASSERT_TRUE(Try(t, agent, AcceptedAs("node-1", "pod-uid-1")));
  EXPECT_EQ(t.known_agents(), 1u);

  for (int i = 0; i < 20; ++i) {
    const HelloKey neighbour = AgentHello("10.0.0.1", "node-1", "", "made-up-" + std::to_string(i));
    Try(t, neighbour, Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected));
  }
  const auto neighbour = t.Admit(Unproven("10.0.0.1", "node-1")).refusal;
  ASSERT_TRUE(neighbour) << "an unproven Hello from the address is still throttled";
  EXPECT_EQ(neighbour->reason, kReasonAddressThrottled);

  const AddressThrottle::Admission same_token = t.Admit(agent);
  EXPECT_FALSE(same_token.refusal) << same_token.refusal->message;
  EXPECT_EQ(same_token.lane, AddressThrottle::Lane::kKnownAgent);
  t.Done(agent, same_token.lane, AcceptedAs("node-1", "pod-uid-1"));

  const HelloKey refreshed = AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-2");
  const AddressThrottle::Admission fresh = t.Admit(refreshed);
  EXPECT_FALSE(fresh.refusal);
  t.Done(refreshed, fresh.lane, AcceptedAs("node-1", "pod-uid-1"));
  // Several at once (a stream being replaced) are not held to the address's pending limit.
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(t.Admit(refreshed).refusal) << i;
  EXPECT_EQ(t.Admit(refreshed).refusal->reason, kReasonTooManyPending)
      << "the known agent has a pending limit of its own";
}

// A known agent is one node's: the same token or pod claimed for another node, or another pod
// claimed for this node, proves nothing and is judged by the address.
TEST(AddressThrottleTest, OnlyTheNodeAndPodAcceptedTogetherPassAThrottledAddress) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 4, .max_failures_per_minute = 2}, clock);
  ASSERT_TRUE(Try(t, AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-1"),
                  AcceptedAs("node-1", "pod-uid-1")));
  for (int i = 0; i < 2; ++i)
    Try(t, Unproven("10.0.0.1"), Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected));
  EXPECT_TRUE(t.Admit(AgentHello("10.0.0.1", "node-2", "pod-uid-1", "token-1")).refusal);
  EXPECT_TRUE(t.Admit(AgentHello("10.0.0.1", "node-1", "pod-uid-2", "token-9")).refusal);
  EXPECT_FALSE(t.Admit(AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-3")).refusal);
  // A node that is gone forgets its agent.
  t.Forget("node-1");
  EXPECT_EQ(t.known_agents(), 0u);
  EXPECT_TRUE(t.Admit(AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-1")).refusal);
}

// Someone who knows the agent pod's uid forges tokens that claim it: each forgery costs a review
// and is charged to the known agent, so after the minute's budget only the very token accepted
// before passes the address; the forgeries cost nothing more.
TEST(AddressThrottleTest, ForgedClaimsOfAKnownAgentAreChargedToItAndThrottled) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 4, .max_failures_per_minute = 3}, clock);
  const HelloKey agent = AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-1");
  ASSERT_TRUE(Try(t, agent, AcceptedAs("node-1", "pod-uid-1")));
  int reviewed = 0;
  for (int i = 0; i < 20; ++i) {
    const HelloKey forged =
        AgentHello("10.0.0.1", "node-1", "pod-uid-1", "forged" + std::to_string(i));
    if (Try(t, forged, Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected))) ++reviewed;
  }
  // The known agent's 3, after which the address (charged as well) is throttled too.
  EXPECT_EQ(reviewed, 3);
  const AddressThrottle::Admission same_token = t.Admit(agent);
  EXPECT_FALSE(same_token.refusal);
  EXPECT_EQ(same_token.lane, AddressThrottle::Lane::kKnownAgent);
  t.Done(agent, same_token.lane, AcceptedAs("node-1", "pod-uid-1"));
  clock.Advance(std::chrono::minutes(1));
  EXPECT_FALSE(t.Admit(AgentHello("10.0.0.1", "node-1", "pod-uid-1", "token-2")).refusal)
      << "a new minute, a new budget";
}

// A new pod of the node's agent (a DaemonSet update) replaces the old one once accepted.
TEST(AddressThrottleTest, TheNodesNewAgentPodReplacesTheOld) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 4, .max_failures_per_minute = 1}, clock);
  ASSERT_TRUE(Try(t, AgentHello("10.0.0.1", "node-1", "old-pod", "t-old"),
                  AcceptedAs("node-1", "old-pod")));
  ASSERT_TRUE(Try(t, AgentHello("10.0.0.1", "node-1", "new-pod", "t-new"),
                  AcceptedAs("node-1", "new-pod")));
  Try(t, Unproven("10.0.0.1"), Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected));
  EXPECT_TRUE(t.Admit(AgentHello("10.0.0.1", "node-1", "old-pod", "t-old")).refusal);
  EXPECT_FALSE(t.Admit(AgentHello("10.0.0.1", "node-1", "new-pod", "t-new2")).refusal);
  EXPECT_EQ(t.known_agents(), 1u);
}

TEST(AddressThrottleTest, ZeroLimitsLetEverythingThrough) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 0, .max_failures_per_minute = 0}, clock);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(t.Admit(Unproven("127.0.0.1")).refusal);
  for (int i = 0; i < 100; ++i)
    t.Done(Unproven("127.0.0.1"), AddressThrottle::Lane::kAddress,
           Refusal(StatusCode::kInvalidArgument, kReasonMalformedHello));
  EXPECT_FALSE(t.Admit(Unproven("127.0.0.1")).refusal);
}

TEST(AddressThrottleTest, TrackedAddressesAndKnownAgentsAreBounded) {
  FakeClock clock;
  AddressThrottle t(
      {.max_pending = 1, .max_failures_per_minute = 1, .max_addresses = 2, .max_known_agents = 1},
      clock);
  EXPECT_FALSE(t.Admit(Unproven("a")).refusal);
  EXPECT_FALSE(t.Admit(Unproven("b")).refusal);
  const auto third = t.Admit(Unproven("c")).refusal;
  ASSERT_TRUE(third);
  EXPECT_EQ(third->reason, kReasonTooManyPending);
  t.Done(Unproven("a"), AddressThrottle::Lane::kAddress, AcceptedAs("node-1", "p1"));
  t.Done(Unproven("b"), AddressThrottle::Lane::kAddress, AcceptedAs("node-2", "p2"));
  EXPECT_EQ(t.known_agents(), 1u);
}

}  // namespace
}  // namespace rdmastack::agenthub
