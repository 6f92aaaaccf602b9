#include "operator/runtime/serving_cert.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "operator/runtime/testing/http_fetch.h"

namespace rdmastack::runtime {
namespace {

// A fresh directory under the test temp dir holding the given files.
std::string DirWith(const std::map<std::string, std::string>& files) {
  static int counter = 0;
  const auto dir =
      std::filesystem::path(::testing::TempDir()) /
      ("serving-cert-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  for (const auto& [name, content] : files) std::ofstream(dir / name) << content;
  return dir.string();
}

std::string SubjectAltNames(const std::string& cert_pem) {
  BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (cert == nullptr) return "<not a certificate>";
  BIO* out = BIO_new(BIO_s_mem());
  const int at = X509_get_ext_by_NID(cert, NID_subject_alt_name, -1);
  if (at >= 0) X509V3_EXT_print(out, X509_get_ext(cert, at), 0, 0);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(out);
  X509_free(cert);
  return text;
}

void ServeOk(HttpServer& server, const TlsServingCredentials& creds) {
  server.Handle("/x", [](const HttpRequest&) { return HttpResponse{200, "text/plain", "ok"}; });
  const Status s = server.Start("127.0.0.1:0", {.tls = creds});
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(SelfSignedServingCredentialsTest, ServesHttpsThatVerifiesAgainstItselfForItsHosts) {
  auto creds = SelfSignedServingCredentials({"localhost", "127.0.0.1", "::1", "metrics.example"});
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(SubjectAltNames(creds->cert_pem),
            "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, "
            "DNS:metrics.example");
  HttpServer server;
  ServeOk(server, *creds);
  auto verified = testing::HttpFetch(server.port(), "/x", {.tls = true, .ca_pem = creds->cert_pem});
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->body, "ok");

  // Another certificate does not verify it: the check above is a real one.
  auto other = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(
      testing::HttpFetch(server.port(), "/x", {.tls = true, .ca_pem = other->cert_pem}).ok());
}

TEST(SelfSignedServingCredentialsTest, EachCallMakesANewKey) {
  auto a = SelfSignedServingCredentials({"localhost"});
  auto b = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->key_pem, b->key_pem);
  EXPECT_NE(a->cert_pem, b->cert_pem);
  EXPECT_FALSE(SelfSignedServingCredentials({}).ok());
}

TEST(HttpsServingTest, RefusesClientsOlderThanTls12) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  HttpServer server;
  ServeOk(server, *creds);
  EXPECT_TRUE(testing::HttpFetch(server.port(), "/x", {.tls = true}).ok());
  EXPECT_TRUE(
      testing::HttpFetch(server.port(), "/x", {.tls = true, .max_tls_version = TLS1_2_VERSION})
          .ok());
  const auto old =
      testing::HttpFetch(server.port(), "/x", {.tls = true, .max_tls_version = TLS1_1_VERSION});
  EXPECT_FALSE(old.ok());
}

TEST(LoadServingCredentialsTest, ReadsTlsCrtAndTlsKey) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  auto loaded =
      LoadServingCredentials(DirWith({{"tls.crt", creds->cert_pem}, {"tls.key", creds->key_pem}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->cert_pem, creds->cert_pem);
  EXPECT_EQ(loaded->key_pem, creds->key_pem);
}

TEST(LoadServingCredentialsTest, ErrorsNameTheFileAndTheProblem) {
  auto a = SelfSignedServingCredentials({"localhost"});
  auto b = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(a.ok() && b.ok());
  struct Case {
    std::string name;
    std::map<std::string, std::string> files;
    std::string want_file, want_text;
  };
  const Case cases[] = {
      {"missing key", {{"tls.crt", a->cert_pem}}, "tls.key", ""},
      {"not a certificate",
       {{"tls.crt", "hello"}, {"tls.key", a->key_pem}},
       "tls.crt",
       "is not a PEM certificate"},
      {"not a key",
       {{"tls.crt", a->cert_pem}, {"tls.key", a->cert_pem}},
       "tls.key",
       "is not a PEM private key"},
      {"key of another certificate",
       {{"tls.crt", a->cert_pem}, {"tls.key", b->key_pem}},
       "tls.key",
       "does not belong to the certificate in"},
  };
  for (const Case& c : cases) {
    const std::string dir = DirWith(c.files);
    auto got = LoadServingCredentials(dir);
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_NE(got.status().message().find(dir + "/" + c.want_file), std::string::npos)
        << c.name << ": " << got.status().message();
    EXPECT_NE(got.status().message().find(c.want_text), std::string::npos)
        << c.name << ": " << got.status().message();
  }
}

TEST(HttpsServingTest, MismatchedCredentialsFailStart) {
  auto a = SelfSignedServingCredentials({"localhost"});
  auto b = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(a.ok() && b.ok());
  HttpServer server;
  const Status s =
      server.Start("127.0.0.1:0", {.tls = TlsServingCredentials{a->cert_pem, b->key_pem}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
}

}  // namespace
}  // namespace rdmastack::runtime
