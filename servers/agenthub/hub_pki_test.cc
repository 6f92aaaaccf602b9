// The hub's CA and serving certificates, read back with OpenSSL, and when to renew them.
#include "servers/agenthub/hub_pki.h"

#include <gtest/gtest.h>

namespace rdmastack::agenthub {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const Clock::WallTime kNow{seconds(1'800'000'000)};

TEST(HubPkiTest, ServingCertificateCarriesTheNamesAndChainsToTheCa) {
  auto ca = MakeCertificateAuthority("test-ca", kNow, hours(24));
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  auto serving =
      IssueServingCertificate(*ca, {"agenthub.test", "198.18.0.1", "::1"}, kNow, minutes(30));
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  EXPECT_NE(serving->key_pem.find("PRIVATE KEY"), std::string::npos);

  auto facts = InspectCertificate(serving->cert_pem);
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->hosts, (std::vector<std::string>{"agenthub.test", "198.18.0.1", "::1"}));
  EXPECT_EQ(facts->not_after, kNow + minutes(30));
  EXPECT_EQ(facts->not_before, kNow - minutes(1));
  EXPECT_TRUE(CheckKeyAndCertificate(*serving).ok());
  EXPECT_TRUE(SignedBy(serving->cert_pem, ca->cert_pem));

  auto other_ca = MakeCertificateAuthority("other", kNow, hours(24));
  ASSERT_TRUE(other_ca.ok());
  EXPECT_FALSE(SignedBy(serving->cert_pem, other_ca->cert_pem));
  auto ca_facts = InspectCertificate(ca->cert_pem);
  ASSERT_TRUE(ca_facts.ok());
  EXPECT_EQ(ca_facts->not_after, kNow + hours(24));
}

TEST(HubPkiTest, MismatchedKeyAndBadPemAreNamed) {
  auto ca = MakeCertificateAuthority("test-ca", kNow, hours(24));
  ASSERT_TRUE(ca.ok());
  auto one = IssueServingCertificate(*ca, {"a.test"}, kNow, hours(1));
  auto two = IssueServingCertificate(*ca, {"a.test"}, kNow, hours(1));
  ASSERT_TRUE(one.ok() && two.ok());
  Status mismatch = CheckKeyAndCertificate({two->key_pem, one->cert_pem});
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.message().find("tls.key does not belong to the certificate in tls.crt"),
            std::string::npos);
  EXPECT_NE(CheckKeyAndCertificate({one->key_pem, "garbage"}).message().find("tls.crt"),
            std::string::npos);
  EXPECT_NE(CheckKeyAndCertificate({"garbage", one->cert_pem}).message().find("tls.key"),
            std::string::npos);
  EXPECT_FALSE(InspectCertificate("nope").ok());
  EXPECT_FALSE(IssueServingCertificate(*ca, {}, kNow, hours(1)).ok());
}

TEST(HubPkiTest, RenewalAtTheFractionOrWhenNamesChange) {
  CertificateFacts cert;
  cert.not_before = kNow;
  cert.not_after = kNow + hours(90);
  cert.hosts = {"b.test", "10.0.0.1"};
  const std::vector<std::string> same = {"10.0.0.1", "b.test"};  // order does not matter
  EXPECT_FALSE(NeedsRenewal(cert, same, kNow + hours(59), 2.0 / 3));
  EXPECT_TRUE(NeedsRenewal(cert, same, kNow + hours(60), 2.0 / 3));
  EXPECT_TRUE(NeedsRenewal(cert, same, kNow + hours(91), 2.0 / 3));
  EXPECT_TRUE(NeedsRenewal(cert, {"b.test"}, kNow, 2.0 / 3));
  EXPECT_TRUE(NeedsRenewal(cert, {"b.test", "10.0.0.1", "c.test"}, kNow, 2.0 / 3));
}

}  // namespace
}  // namespace rdmastack::agenthub
