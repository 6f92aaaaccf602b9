// The hub's certificates against the real API server: the generated CA and serving certificate
// rotate under connected agents; a user Secret wins; a restart writes nothing; and the TLS the
// hub speaks (versions, suites) is what docs/agenthub.md says.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "operator/k8s/api_error.h"
#include "servers/agenthub/hub_pki.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/agenthub/hub_fixture.h"

namespace rdmastack::agenthub::testing {
namespace {

using std::chrono::seconds;

class AgentHubCertificatesTest : public HubFixture {};

// The certificate the hub presented on a call's connection.
std::string PresentedCertificate(const grpc::ClientContext& context) {
  const auto auth = context.auth_context();
  if (!auth) return "";
  const auto values = auth->FindPropertyValues("x509_pem_cert");
  return values.empty() ? "" : std::string(values.front().data(), values.front().size());
}

TEST_F(AgentHubCertificatesTest, RotationKeepsConnectedAgentsAndNewHandshakesGetTheNewCertificate) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub([](AgentHubOptions& o) {
    o.certificates.serving_validity = seconds(20);
    o.certificates.renew_fraction = 0.5;
    o.certificates.check_interval = seconds(1);
    o.certificate_refresh_seconds = 1;
  }));
  const std::string ca = PublishedCa();
  const std::string first_cert = hub_->certificates().cert_pem();
  const std::string uid_a = CreatePod("agent-a", node_a_);
  const std::string uid_b = CreatePod("agent-b", node_b_);
  AgentCall early = AgentCall::Open(TlsChannel(ca), node_a_, BoundToken("agent-a", uid_a));
  pb::HubMessage m;
  ASSERT_TRUE(early.Read(&m) && m.has_ack());
  EXPECT_EQ(PresentedCertificate(*early.context), first_cert);

  // Renewal at half of 22 s (20 s plus 2 s of backdating), checked every second.
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] { return hub_->certificates().cert_pem() != first_cert; }, seconds(40)));
  const std::string second_cert = hub_->certificates().cert_pem();
  // gRPC re-reads the identity file every second: a new connection soon gets the new
  // certificate, verified with the same published CA.
  std::string presented;
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] {
        AgentCall late =
            AgentCall::Open(TlsChannel(PublishedCa()), node_b_, BoundToken("agent-b", uid_b));
        pb::HubMessage ack;
        if (!late.Read(&ack) || !ack.has_ack()) return false;
        presented = PresentedCertificate(*late.context);
        late.stream->WritesDone();
        (void)late.Drain();
        return presented == second_cert || presented == hub_->certificates().cert_pem();
      },
      seconds(15)))
      << "new connections still get the first certificate";
  EXPECT_NE(presented, first_cert);
  EXPECT_EQ(PublishedCa(), ca);

  // The agent connected before the rotation is still served on its connection.
  ASSERT_TRUE(early.stream->Write(Report(node_a_, "after-rotation")));
  ASSERT_TRUE(early.Read(&m));
  EXPECT_EQ(m.ack().report_hash(), "after-rotation");
  EXPECT_TRUE(sink_.WaitFor("report " + node_a_ + " after-rotation", seconds(5)));
  const auto log = sink_.Log();
  EXPECT_EQ(std::count(log.begin(), log.end(), "disconnected " + node_a_ + " agent-a"), 0);

  // The Secret holds the certificate being served.
  auto secret = admin_->Get(k8s::kinds::Secret(), ns_, "rdmastack-agenthub-generated-tls");
  ASSERT_TRUE(secret.ok());
  auto stored = k8s::DecodeBase64(secret->GetString({"data", "tls.crt"}).value_or(""));
  ASSERT_TRUE(stored.ok());
  EXPECT_NE(*stored, first_cert);
  early.stream->WritesDone();
  EXPECT_TRUE(early.Drain().ok());
}

TEST_F(AgentHubCertificatesTest, AUserSecretIsServedAndItsCaPublished) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const auto now = std::chrono::system_clock::now();
  auto user_ca = MakeCertificateAuthority("user-ca", now, std::chrono::hours(24));
  ASSERT_TRUE(user_ca.ok());
  auto serving = IssueServingCertificate(*user_ca, {"127.0.0.1"}, now, std::chrono::hours(1));
  ASSERT_TRUE(serving.ok());
  auto secret = k8s::JsonObject::Parse(
      R"({"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "stringData": {}})");
  secret->SetName("rdmastack-agenthub-tls");
  secret->SetNamespace(ns_);
  (void)secret->SetString({"stringData", "tls.crt"}, serving->cert_pem);
  (void)secret->SetString({"stringData", "tls.key"}, serving->key_pem);
  (void)secret->SetString({"stringData", "ca.crt"}, user_ca->cert_pem);
  ASSERT_TRUE(admin_->Create(k8s::kinds::Secret(), *secret).ok());

  ASSERT_NO_FATAL_FAILURE(StartHub());
  EXPECT_EQ(hub_->certificates().source(), "Secret " + ns_ + "/rdmastack-agenthub-tls");
  EXPECT_EQ(PublishedCa(), user_ca->cert_pem);
  const std::string uid = CreatePod("agent-a", node_a_);
  AgentCall call =
      AgentCall::Open(TlsChannel(user_ca->cert_pem), node_a_, BoundToken("agent-a", uid));
  pb::HubMessage m;
  ASSERT_TRUE(call.Read(&m)) << call.Drain().error_message();
  EXPECT_EQ(PresentedCertificate(*call.context), serving->cert_pem);
  EXPECT_TRUE(k8s::IsNotFound(
      admin_->Get(k8s::kinds::Secret(), ns_, "rdmastack-agenthub-generated-tls").status()));
  call.stream->WritesDone();
  EXPECT_TRUE(call.Drain().ok());
}

TEST_F(AgentHubCertificatesTest, ARestartWithValidCertificatesWritesNothing) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub());
  const std::string cert = hub_->certificates().cert_pem();
  hub_->Stop();
  hub_.reset();
  const auto since = std::chrono::system_clock::now();
  ASSERT_NO_FATAL_FAILURE(StartHub());
  EXPECT_EQ(hub_->certificates().cert_pem(), cert);
  std::this_thread::sleep_for(seconds(2));  // the audit log is written as requests complete
  int writes = 0;
  for (const auto& w : rdmastack::testing::WritesByAgent(rdmastack::testing::ReadAuditedWrites(),
                                                         hub_user_agent_)) {
    if (w.received >= since) {
      ++writes;
      ADD_FAILURE() << w.verb << " " << w.resource << " " << w.name;
    }
  }
  EXPECT_EQ(writes, 0);
}

// One TLS handshake with OpenSSL against the hub, offering ALPN h2 as gRPC clients do.
struct Handshake {
  bool ok = false;
  std::string version, cipher, error;
};
Handshake TryHandshake(int port, const std::string& ca_pem, int min_version, int max_version,
                       const char* tls12_ciphers) {
  Handshake out;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_security_level(ctx, 0);  // let the client offer old versions; the hub must refuse
  SSL_CTX_set_min_proto_version(ctx, min_version);
  SSL_CTX_set_max_proto_version(ctx, max_version);
  if (tls12_ciphers != nullptr) SSL_CTX_set_cipher_list(ctx, tls12_ciphers);
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  static const unsigned char kAlpn[] = {2, 'h', '2'};
  SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof(kAlpn));
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    SSL_set1_host(ssl, "127.0.0.1");
    out.ok = SSL_connect(ssl) == 1;
    if (out.ok) {
      out.version = SSL_get_version(ssl);
      out.cipher = SSL_get_cipher_name(ssl);
    } else {
      char text[256];
      ERR_error_string_n(ERR_get_error(), text, sizeof(text));
      out.error = text;
    }
    SSL_free(ssl);
  }
  ERR_clear_error();
  close(fd);
  X509_free(ca);
  BIO_free(bio);
  SSL_CTX_free(ctx);
  return out;
}

TEST_F(AgentHubCertificatesTest, SpeaksOnlyTls12WithEcdheAeadAndTls13) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub());
  const std::string ca = PublishedCa();
  const int port = hub_->port();
  struct Case {
    const char* name;
    int min, max;
    const char* ciphers;
    bool ok;
  };
  const Case cases[] = {
      {"TLS 1.0/1.1", TLS1_VERSION, TLS1_1_VERSION, "ALL:@SECLEVEL=0", false},
      {"TLS 1.2 CBC (ECDHE-ECDSA-AES128-SHA)", TLS1_2_VERSION, TLS1_2_VERSION,
       "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384", false},
      {"TLS 1.2 static ECDH/RSA key exchange (AES128-GCM-SHA256)", TLS1_2_VERSION, TLS1_2_VERSION,
       "AES128-GCM-SHA256", false},
      {"TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256", TLS1_2_VERSION, TLS1_2_VERSION,
       "ECDHE-ECDSA-AES128-GCM-SHA256", true},
      {"TLS 1.2 ECDHE-ECDSA-AES256-GCM-SHA384", TLS1_2_VERSION, TLS1_2_VERSION,
       "ECDHE-ECDSA-AES256-GCM-SHA384", true},
      {"TLS 1.3", TLS1_3_VERSION, TLS1_3_VERSION, nullptr, true},
  };
  for (const auto& c : cases) {
    const Handshake h = TryHandshake(port, ca, c.min, c.max, c.ciphers);
    std::printf("%-58s -> %s %s %s\n", c.name, h.ok ? "ok" : "refused", h.version.c_str(),
                h.ok ? h.cipher.c_str() : h.error.c_str());
    EXPECT_EQ(h.ok, c.ok) << c.name << ": " << h.version << " " << h.cipher << " " << h.error;
  }
}

}  // namespace
}  // namespace rdmastack::agenthub::testing
