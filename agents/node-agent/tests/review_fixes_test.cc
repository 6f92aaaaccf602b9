// Fixes from the issue-12 review: checks of several client profiles are merged without losing a
// failure; commands are answered with what was really done; a device prober that cannot run is a
// check result; TLS offers only TLS 1.2+ with ECDHE + AEAD suites.
#include <gtest/gtest.h>

#include <regex>

#include "agents/node-agent/daemon/agent_daemon.h"
#include "agents/node-agent/daemon/probing_source.h"
#include "agents/node-agent/daemon/report_proto.h"
#include "agents/node-agent/transport/tls_socket.h"
#include "node/checks/checks.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::agent {
namespace {

const v1::Check* FindCheck(const v1::NodeReport& r, const std::string& id) {
  for (const auto& c : r.checks()) {
    if (c.id() == id) return &c;
  }
  return nullptr;
}

// The field report's A6000: 192Mi transfers fit its BAR1, 224Mi do not. Two profiles ask for
// each; the 224Mi one's failure must show whichever profile comes first (the 192Mi one only
// warns that BAR1 is small).
TEST(ReviewFixesTest, SeveralClientProfilesLoseNoCheck) {
  const node::NodeFacts facts =
      node::testing::ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
  node::Requirements small;
  small.max_transfer_bytes = 192LL << 20;
  node::Requirements large = small;
  large.max_transfer_bytes = 224LL << 20;
  for (bool small_first : {true, false}) {
    std::vector<ProfileEvaluation> evals = {{"ml/small", node::Evaluate(facts, small)},
                                            {"ml/large", node::Evaluate(facts, large)}};
    if (!small_first) std::swap(evals[0], evals[1]);
    const v1::NodeReport r = BuildNodeReport(facts, evals, "gpu-node-0");
    const v1::Check* bar1 = FindCheck(r, "gpu.bar1");
    ASSERT_NE(bar1, nullptr);
    EXPECT_EQ(bar1->status(), v1::Check::FAIL);
    EXPECT_EQ(bar1->reason(), "Bar1TooSmall");
    EXPECT_NE(bar1->message().find("ml/small: Warn"), std::string::npos) << bar1->message();
    EXPECT_NE(bar1->message().find("ml/large: Fail"), std::string::npos) << bar1->message();
    // Checks on which the profiles agree stay as they are, once.
    const v1::Check* devices = FindCheck(r, "rdma.devices");
    ASSERT_NE(devices, nullptr);
    EXPECT_EQ(devices->message().find("ml/"), std::string::npos);
    int n = 0;
    for (const auto& c : r.checks()) n += c.id() == "rdma.devices";
    EXPECT_EQ(n, 1);
  }
}

TEST(ReviewFixesTest, CommandsAreAnsweredWithWhatWasDone) {
  v1::Command reprobe;
  reprobe.set_id("c1");
  reprobe.set_kind(v1::Command::REPROBE);
  auto r = AnswerCommand(reprobe);
  EXPECT_EQ(r.id(), "c1");
  EXPECT_TRUE(r.ok());

  v1::Command self_test;
  self_test.set_id("c2");
  self_test.set_kind(v1::Command::SELF_TEST);
  r = AnswerCommand(self_test);
  EXPECT_EQ(r.id(), "c2");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message().find("not implemented"), std::string::npos) << r.message();

  v1::Command unknown;
  unknown.set_id("c3");
  unknown.set_kind(static_cast<v1::Command::Kind>(7));
  r = AnswerCommand(unknown);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message().find("unknown command kind 7"), std::string::npos) << r.message();
}

TEST(ReviewFixesTest, AProberThatCannotRunIsACheckResult) {
  const std::string dir = node::testing::FixtureDir("storage-cx6-ib-ipoib-bond0-el8-inbox");
  ProbingSourceOptions options;
  options.root = dir + "/root";
  options.ips_file = dir + "/ips.txt";
  options.node_name = "stg-node-0";
  ProbingReportSource source(options, [] {
    return StatusOr<std::unique_ptr<node::DeviceProber>>(
        UnavailableError("dlopen libibverbs.so.1: cannot open shared object file"));
  });
  const v1::NodeReport r = source.Build(std::nullopt).report;
  const v1::Check* errors = FindCheck(r, "probe.read-errors");
  ASSERT_NE(errors, nullptr);
  EXPECT_EQ(errors->status(), v1::Check::UNKNOWN);
  EXPECT_NE(errors->message().find("libibverbs.so.1"), std::string::npos) << errors->message();
}

// What a ClientHello of the agent carries, read back from OpenSSL after its version and
// security-level filters: TLS 1.3's AEAD suites and TLS 1.2 ECDHE + AEAD, nothing older.
TEST(ReviewFixesTest, TlsOffersOnlyTls12And13WithEcdheAndAead) {
  auto offer = transport::AgentTlsOffer();
  ASSERT_TRUE(offer.ok()) << offer.status().ToString();
  EXPECT_EQ(offer->min_version, "TLSv1.2");
  EXPECT_EQ(offer->max_version, "TLSv1.3");
  const std::regex tls13("TLS_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)");
  const std::regex tls12(
      "TLS_ECDHE_(ECDSA|RSA)_WITH_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)");
  int n13 = 0, n12 = 0;
  for (const std::string& suite : offer->cipher_suites) {
    if (std::regex_match(suite, tls13)) {
      ++n13;
    } else if (std::regex_match(suite, tls12)) {
      ++n12;
    } else {
      ADD_FAILURE() << "offered: " << suite;
    }
  }
  EXPECT_EQ(n13, 3);
  EXPECT_EQ(n12, 6);
}

TEST(ReviewFixesTest, CaBundleNeedsACertificateAndEveryBlockMustParse) {
  EXPECT_EQ(transport::ValidateCaBundle("hello\n").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(transport::ValidateCaBundle("").code(), StatusCode::kInvalidArgument);
  const Status garbage = transport::ValidateCaBundle(
      "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(garbage.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(garbage.message().find("no PEM certificate"), std::string::npos) << garbage.message();
}

}  // namespace
}  // namespace rdmastack::agent
