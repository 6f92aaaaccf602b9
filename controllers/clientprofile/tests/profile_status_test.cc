// ComputeProfileStatus: conditions, counts and the bounded node lists.
#include "controllers/clientprofile/profile_status.h"

#include <gtest/gtest.h>

#include "controllers/clientprofile/profile_conditions.h"
#include "controllers/common/conditions.h"
#include "crds/schema/testing/status_expectations.h"

namespace rdmastack::clientprofile {
namespace {

using std::chrono::seconds;

const Clock::WallTime kT0{seconds(1'764'576'000)};

crd::ClientProfile Profile() {
  crd::ClientProfile p;
  p.metadata.name = "kvcache-gpudirect";
  p.metadata.namespace_ = "ml";
  p.metadata.generation = 3;
  p.spec.gateway_pool_ref.name = "kvcache";
  return p;
}

NodeOutcome Eligible(std::string name, std::string transport, std::string registration,
                     bool ready) {
  NodeOutcome n;
  n.name = std::move(name);
  n.eligibility.eligible = true;
  n.eligibility.reason = "Eligible";
  n.eligibility.transport = std::move(transport);
  n.eligibility.memory_registration = std::move(registration);
  n.eligibility.gid_index = 0;
  n.eligibility.message = "why";
  n.ready = ready;
  return n;
}

NodeOutcome Ineligible(std::string name, std::string reason) {
  NodeOutcome n;
  n.name = std::move(name);
  n.eligibility.reason = std::move(reason);
  n.eligibility.message = "what to do";
  return n;
}

ProfileStatusInputs Inputs(const crd::ClientProfile& p, std::vector<NodeOutcome> nodes) {
  ProfileStatusInputs in;
  in.profile = &p;
  in.now = kT0;
  in.pool_found = true;
  in.endpoints = 2;
  in.nodes = std::move(nodes);
  in.ready_node_label = "rdmastack.io/client.ml.kvcache-gpudirect=ready";
  return in;
}

// ComputeProfileStatus, and every status a case computes must be one the API server accepts as
// it is.
crd::ClientProfileStatus Computed(const ProfileStatusInputs& in) {
  crd::ClientProfileStatus s = ComputeProfileStatus(in);
  crd::testing::ExpectValidStatus(s);
  return s;
}

const crd::Condition& Cond(const crd::ClientProfileStatus& s, const char* type) {
  const crd::Condition* c = controllers::FindCondition(s.conditions, type);
  EXPECT_NE(c, nullptr) << type;
  static const crd::Condition kMissing;
  return c != nullptr ? *c : kMissing;
}

TEST(ProfileStatusTest, EveryEligibleNodeReady) {
  const crd::ClientProfile p = Profile();
  const auto s = Computed(Inputs(
      p, {Eligible("gpu-node-0", "GPUDirect", "PeerMem", true),
          Eligible("gpu-node-1", "GPUDirect", "DMABuf", true),
          Ineligible("gpu-node-2", "GpuNicTooFar"), Ineligible("gpu-node-3", "NoRdmaDevice")}));
  EXPECT_EQ(Cond(s, kReady).status, crd::ConditionStatus::kTrue);
  EXPECT_EQ(Cond(s, kReady).reason, "AllClientsReady");
  EXPECT_NE(Cond(s, kReady).message.find("rdmastack.io/client.ml.kvcache-gpudirect=ready"),
            std::string::npos);
  EXPECT_EQ(Cond(s, kNodesEligible).reason, "SomeNodesIneligible");
  EXPECT_NE(Cond(s, kNodesEligible).message.find("GpuNicTooFar x1 (gpu-node-2)"), std::string::npos)
      << Cond(s, kNodesEligible).message;
  EXPECT_EQ(Cond(s, kDegraded).status, crd::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(s, kProgressing).status, crd::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(s, kReady).observed_generation, 3);
  ASSERT_TRUE(s.node_counts.has_value());
  EXPECT_EQ(s.node_counts->eligible_of_matched, "2/4");
  EXPECT_EQ(s.node_counts->ready_of_eligible, "2/2");
  EXPECT_EQ(s.transport, "GPUDirect");  // one transport, two registrations
  ASSERT_EQ(s.transports.size(), 2u);
  EXPECT_EQ(s.transports[0].memory_registration, "DMABuf");
  ASSERT_EQ(s.ineligible_nodes.size(), 2u);
  EXPECT_EQ(s.ineligible_nodes[0].node, "gpu-node-2");
  EXPECT_EQ(s.ineligible_nodes[0].reason, "GpuNicTooFar");
  EXPECT_EQ(s.endpoints, 2);
}

TEST(ProfileStatusTest, NodesStillStartingAreListedFirst) {
  const crd::ClientProfile p = Profile();
  const auto s = Computed(Inputs(
      p, {Eligible("a", "GPUDirect", "DMABuf", true), Eligible("b", "HostMemory", "", false)}));
  EXPECT_EQ(Cond(s, kReady).reason, "ClientsNotReady");
  EXPECT_EQ(Cond(s, kProgressing).status, crd::ConditionStatus::kTrue);
  EXPECT_NE(Cond(s, kProgressing).message.find("waiting for b"), std::string::npos);
  EXPECT_EQ(s.transport, "Mixed");
  ASSERT_EQ(s.eligible_nodes.size(), 2u);
  EXPECT_EQ(s.eligible_nodes[0].node, "b");
  EXPECT_FALSE(s.eligible_nodes[0].ready);
  EXPECT_FALSE(s.eligible_nodes[0].memory_registration.has_value());
}

TEST(ProfileStatusTest, MissingPoolBlocksEverything) {
  const crd::ClientProfile p = Profile();
  ProfileStatusInputs in = Inputs(p, {Eligible("a", "GPUDirect", "DMABuf", false)});
  in.pool_found = false;
  in.endpoints = 0;
  const auto s = Computed(in);
  EXPECT_EQ(Cond(s, kReady).reason, "PoolNotFound");
  EXPECT_EQ(Cond(s, kDegraded).status, crd::ConditionStatus::kTrue);
  EXPECT_NE(Cond(s, kDegraded).message.find("GatewayPool ml/kvcache does not exist"),
            std::string::npos);
  EXPECT_EQ(Cond(s, kProgressing).reason, "Blocked");
}

TEST(ProfileStatusTest, PoolWithoutEndpoints) {
  const crd::ClientProfile p = Profile();
  ProfileStatusInputs in = Inputs(p, {Eligible("a", "GPUDirect", "DMABuf", false)});
  in.endpoints = 0;
  const auto s = Computed(in);
  EXPECT_EQ(Cond(s, kReady).reason, "PoolNotServing");
  EXPECT_EQ(Cond(s, kDegraded).reason, "PoolNotServing");
}

TEST(ProfileStatusTest, RefusedSpecAndSecretProblemsAreNamed) {
  const crd::ClientProfile p = Profile();
  ProfileStatusInputs in = Inputs(p, {Eligible("a", "HostMemory", "", true)});
  in.secret_message = "Secret ml/client-keys (credentialsSecret) does not exist";
  EXPECT_EQ(Cond(Computed(in), kReady).reason, "CredentialsSecretInvalid");
  in.refused_reason = "RootCredentialsRefused";
  in.refused_message = "names the pool's root keys";
  const auto s = Computed(in);
  EXPECT_EQ(Cond(s, kReady).reason, "RootCredentialsRefused");
  EXPECT_EQ(Cond(s, kDegraded).message, "names the pool's root keys");
}

TEST(ProfileStatusTest, AnS3UserMissingOnAGatewayIsDegradedAndShown) {
  const crd::ClientProfile p = Profile();
  ProfileStatusInputs in = Inputs(p, {Eligible("a", "HostMemory", "", true)});
  in.s3_user = crd::S3UserStatus{"p-s3-user", "RSAAAAAAAA0000000001", std::nullopt, 1, "1/2"};
  EXPECT_EQ(Cond(Computed(in), kDegraded).status, crd::ConditionStatus::kFalse);
  in.s3_user_message = "1 of 2 gateways do not have the S3 user yet: gateway on s1: HTTP 403";
  const auto s = Computed(in);
  EXPECT_EQ(Cond(s, kDegraded).reason, "S3UserNotProvisioned");
  EXPECT_EQ(Cond(s, kReady).reason, "S3UserNotProvisioned");
  EXPECT_EQ(Cond(s, kReady).message, in.s3_user_message);
  ASSERT_TRUE(s.s3_user.has_value());
  EXPECT_EQ(s.s3_user->gateways_of_endpoints, "1/2");
}

// A client that refused the library image stops with one line; the profile shows it, naming
// the node and the offending entries, as Degraded and not Ready.
TEST(ProfileStatusTest, ALibraryImageAClientRefusedIsDegradedWithTheClientsWords) {
  const std::string log =
      "2026-12-06 05:00:00.000 I device probes: recorded\n"
      "LibraryRefused: the library image is refused: 'libx.so' -> '/etc/shadow' leaves the "
      "image. Nothing from the image is installed\n";
  auto text = [](const std::string& message) {
    const LibraryRefusal r = ClientLibraryRefusal(message);
    return r.reason.empty() ? "" : r.reason + "|" + r.message;
  };
  EXPECT_EQ(text(log),
            "LibraryRefused|the library image is refused: 'libx.so' -> '/etc/shadow' leaves the "
            "image. Nothing from the image is installed");
  EXPECT_EQ(text("LibraryRefused: first\nLibraryRefused: last"), "LibraryRefused|last");
  EXPECT_EQ(text("LibraryRefused: first\nLibraryDigestMismatch: libc.so: want a, found b\n"),
            "LibraryDigestMismatch|libc.so: want a, found b");
  EXPECT_EQ(text("readiness: not ready (LibraryRefused): x"), "");
  EXPECT_EQ(text("a log line that says LibraryRefused: in its middle"), "");
  EXPECT_EQ(text("LibraryRefused:no space"), "");
  EXPECT_EQ(text(""), "");

  const crd::ClientProfile p = Profile();
  ProfileStatusInputs in = Inputs(p, {Eligible("a", "HostMemory", "", false)});
  in.library_refused = ClientLibraryRefusal(log);
  in.library_refused.message =
      "the client on node a refused clientLibrary.image: " + in.library_refused.message;
  const auto s = Computed(in);
  EXPECT_EQ(Cond(s, kDegraded).status, crd::ConditionStatus::kTrue);
  EXPECT_EQ(Cond(s, kDegraded).reason, "LibraryRefused");
  EXPECT_EQ(Cond(s, kReady).reason, "LibraryRefused");
  EXPECT_NE(Cond(s, kReady).message.find("node a"), std::string::npos);
  EXPECT_NE(Cond(s, kReady).message.find("'libx.so' -> '/etc/shadow'"), std::string::npos);

  in.library_refused = {"LibraryDigestMismatch", "the client on node a refused it: other bytes"};
  const auto pinned = Computed(in);
  EXPECT_EQ(Cond(pinned, kDegraded).reason, "LibraryDigestMismatch");
  EXPECT_EQ(Cond(pinned, kReady).reason, "LibraryDigestMismatch");
}

TEST(ProfileStatusTest, NoneEligibleOrMatched) {
  const crd::ClientProfile p = Profile();
  auto s = Computed(Inputs(p, {Ineligible("a", "Bar1TooSmall"), Ineligible("b", "Bar1TooSmall")}));
  EXPECT_EQ(Cond(s, kNodesEligible).status, crd::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(s, kNodesEligible).reason, "NoEligibleNodes");
  EXPECT_NE(Cond(s, kNodesEligible).message.find("Bar1TooSmall x2 (a, b)"), std::string::npos);
  EXPECT_EQ(Cond(s, kReady).reason, "NoEligibleNodes");
  EXPECT_FALSE(s.transport.has_value());
  s = Computed(Inputs(p, {}));
  EXPECT_EQ(Cond(s, kNodesEligible).reason, "NoNodesMatched");
}

TEST(ProfileStatusTest, ListsAreBoundedAndTimesStable) {
  crd::ClientProfile p = Profile();
  std::vector<NodeOutcome> nodes;
  for (int i = 0; i < 100; ++i) {
    nodes.push_back(Eligible("e" + std::to_string(i), "HostMemory", "", i % 2 == 0));
    nodes.push_back(Ineligible("i" + std::to_string(i), "LinkDown"));
  }
  ProfileStatusInputs in = Inputs(p, nodes);
  for (int i = 0; i < 40; ++i)
    in.retiring.push_back({"r" + std::to_string(i), "HeldByPods", {"app"}});
  const auto first = Computed(in);
  EXPECT_EQ(first.eligible_nodes.size(), kMaxListedNodes);
  EXPECT_EQ(first.ineligible_nodes.size(), kMaxListedNodes);
  ASSERT_EQ(first.retiring_nodes.size(), kMaxListedNodes);
  EXPECT_EQ(first.retiring_nodes[0].node, "r0");
  EXPECT_EQ(first.retiring_nodes[0].pods, std::vector<std::string>{"app"});
  EXPECT_EQ(first.node_counts->matched, 200);
  EXPECT_EQ(first.node_counts->ready, 50);
  // Recomputed later with the same facts: equal, so the reconciler writes nothing.
  p.status = first;
  in.now = kT0 + seconds(30);
  EXPECT_EQ(Computed(in), first);
}

}  // namespace
}  // namespace rdmastack::clientprofile
