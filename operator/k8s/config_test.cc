#include "operator/k8s/config.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "operator/k8s/testing/https_test_server.h"

namespace rdmastack::k8s {
namespace {

using testing::FixturesDir;
using testing::ReadFixture;

std::string Base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// A kubeconfig with one cluster/user/context; `cluster` and `user` are the inner YAML maps.
std::string Kubeconfig(const std::string& cluster, const std::string& user,
                       const std::string& extra = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "clusters:\n- name: c1\n  cluster:\n" +
         cluster + "users:\n- name: u1\n  user:\n" + user +
         "contexts:\n- name: main\n  context:\n    cluster: c1\n    user: u1\n    namespace: "
         "team-a\n" +
         extra;
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("k8s-config-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary | std::ios::trunc) << content;
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(KubeconfigTest, ParsesEveryCredentialForm) {
  const std::string ca = ReadFixture("pki/ca.pem");
  const std::string cert = ReadFixture("pki/client.pem");
  const std::string key = ReadFixture("pki/client-key.pem");
  TempDir dir;
  dir.Write("token", "file-token\n");

  struct Case {
    std::string name;
    std::string yaml;
    std::string base_dir;
    bool want_ca, want_client_cert;
    std::string want_token;
  };
  const std::vector<Case> cases = {
      {"data fields",
       Kubeconfig("    server: https://10.0.0.1:6443\n    certificate-authority-data: " +
                      Base64(ca) + "\n",
                  "    client-certificate-data: " + Base64(cert) +
                      "\n    client-key-data: " + Base64(key) + "\n"),
       "", true, true, ""},
      {"relative files",
       Kubeconfig("    server: https://10.0.0.1:6443/\n    certificate-authority: pki/ca.pem\n",
                  "    client-certificate: pki/client.pem\n    client-key: pki/client-key.pem\n"),
       FixturesDir(), true, true, ""},
      {"bearer token",
       Kubeconfig("    server: https://h:6443\n    certificate-authority: " + FixturesDir() +
                      "/pki/ca.pem\n",
                  "    token: abc.def\n"),
       "", true, false, "abc.def"},
      {"token file", Kubeconfig("    server: https://h:6443\n", "    tokenFile: token\n"),
       dir.path(), false, false, "file-token"},
  };
  for (const auto& c : cases) {
    auto config = ParseKubeconfig(c.yaml, c.base_dir);
    ASSERT_TRUE(config.ok()) << c.name << ": " << config.status().ToString();
    EXPECT_EQ(config->tls.ca_pem.empty(), !c.want_ca) << c.name;
    if (c.want_ca) {
      EXPECT_EQ(config->tls.ca_pem, ca) << c.name;
    }
    EXPECT_EQ(config->tls.client_cert_pem.empty(), !c.want_client_cert) << c.name;
    if (c.want_client_cert) {
      EXPECT_EQ(config->tls.client_key_pem, key) << c.name;
    }
    EXPECT_EQ(config->token != nullptr, !c.want_token.empty()) << c.name;
    if (config->token) {
      EXPECT_EQ(*config->token->Token(), c.want_token) << c.name;
    }
    EXPECT_EQ(config->default_namespace, "team-a") << c.name;
    EXPECT_FALSE(config->tls.insecure_skip_verify) << c.name;
    EXPECT_EQ(config->server.back() == '/', false) << c.name;
    EXPECT_EQ(config->user_agent, "rdmastack-operator/0.1.0");
  }
}

TEST(KubeconfigTest, ContextSelectionAndExplicitInsecure) {
  const std::string yaml =
      Kubeconfig("    server: https://a:1\n", "    token: t1\n",
                 "- name: other\n  context:\n    cluster: c2\n    user: u1\n") +
      "";
  // Add a second cluster by hand (the helper makes one).
  std::string two = yaml;
  two.replace(
      two.find("users:"), 0,
      "- name: c2\n  cluster:\n    server: https://b:2\n    insecure-skip-tls-verify: true\n    "
      "tls-server-name: api.internal\n");
  auto main_ctx = ParseKubeconfig(two, "");
  ASSERT_TRUE(main_ctx.ok()) << main_ctx.status().ToString();
  EXPECT_EQ(main_ctx->server, "https://a:1");
  auto other = ParseKubeconfig(two, "", "other");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->server, "https://b:2");
  EXPECT_TRUE(other->tls.insecure_skip_verify);
  EXPECT_EQ(other->tls.server_name, "api.internal");
  EXPECT_EQ(other->default_namespace, "");
}

TEST(KubeconfigTest, BrokenFilesGiveClearErrors) {
  const std::string ok_cluster = "    server: https://h:6443\n";
  struct Case {
    std::string name;
    std::string yaml;
    StatusCode want_code;
    std::string want_message_part;
  };
  const std::vector<Case> cases = {
      {"not yaml", "clusters: [\n  - {name: x", StatusCode::kInvalidArgument, "not valid YAML"},
      {"a list, not a map", "- a\n- b\n", StatusCode::kInvalidArgument, "not a YAML map"},
      {"empty file", "", StatusCode::kInvalidArgument, "not a YAML map"},
      {"no current-context", "apiVersion: v1\nclusters: []\n", StatusCode::kInvalidArgument,
       "no current-context"},
      {"unknown context", "current-context: nope\ncontexts: []\n", StatusCode::kInvalidArgument,
       "no contexts entry named 'nope'"},
      {"clusters not a list",
       "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters: {}\n",
       StatusCode::kInvalidArgument, "'clusters' is not a list"},
      {"missing server", Kubeconfig("    insecure-skip-tls-verify: false\n", "    token: t\n"),
       StatusCode::kInvalidArgument, "clusters['c1'].cluster.server is missing"},
      {"plain http", Kubeconfig("    server: http://h:8080\n", "    token: t\n"),
       StatusCode::kInvalidArgument, "not an https:// URL"},
      {"bad base64 CA",
       Kubeconfig(ok_cluster + "    certificate-authority-data: '%%%'\n", "    token: t\n"),
       StatusCode::kInvalidArgument, "certificate-authority-data: invalid base64"},
      {"CA that is not PEM",
       Kubeconfig(ok_cluster + "    certificate-authority-data: aGVsbG8=\n", "    token: t\n"),
       StatusCode::kInvalidArgument, "holds no PEM certificate"},
      {"missing CA file",
       Kubeconfig(ok_cluster + "    certificate-authority: /nonexistent/ca.pem\n",
                  "    token: t\n"),
       StatusCode::kNotFound, "cannot read '/nonexistent/ca.pem'"},
      {"cert without key", Kubeconfig(ok_cluster, "    client-certificate: pki/client.pem\n"),
       StatusCode::kInvalidArgument, "must be given together"},
      {"exec plugin", Kubeconfig(ok_cluster, "    exec:\n      command: aws\n"),
       StatusCode::kUnimplemented, "credential plugins are not supported"},
      {"basic auth", Kubeconfig(ok_cluster, "    username: admin\n    password: pw\n"),
       StatusCode::kUnimplemented, "basic auth"},
      {"insecure with CA",
       Kubeconfig(ok_cluster +
                      "    insecure-skip-tls-verify: true\n    certificate-authority: pki/ca.pem\n",
                  "    token: t\n"),
       StatusCode::kInvalidArgument, "contradictory"},
      {"missing token file", Kubeconfig(ok_cluster, "    tokenFile: /nonexistent/token\n"),
       StatusCode::kNotFound, "tokenFile"},
      {"user not listed",
       Kubeconfig(ok_cluster, "    token: t\n")
           .replace(Kubeconfig(ok_cluster, "    token: t\n").find("user: u1"), 8, "user: ghost"),
       StatusCode::kInvalidArgument, "no users entry named 'ghost'"},
  };
  for (const auto& c : cases) {
    auto config = ParseKubeconfig(c.yaml, FixturesDir());
    ASSERT_FALSE(config.ok()) << c.name;
    EXPECT_EQ(config.status().code(), c.want_code) << c.name << ": " << config.status().ToString();
    EXPECT_NE(config.status().message().find(c.want_message_part), std::string::npos)
        << c.name << ": " << config.status().message();
  }
}

TEST(KubeconfigTest, LoadFromFileNamesThePath) {
  auto missing = LoadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/kubeconfig"), std::string::npos);
  TempDir dir;
  const std::string path = dir.Write("config", "current-context: x\n");
  auto broken = LoadKubeconfig(path);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find(path), std::string::npos) << broken.status().message();
}

TEST(Base64Test, DecodesAndRejects) {
  struct Case {
    std::string in;
    bool ok;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"", true, ""},          {"YQ==", true, "a"},       {"YWI=", true, "ab"},
      {"YWJj", true, "abc"},   {"YW\nJj\n", true, "abc"}, {"YQ", true, "a"},
      {"Y", false, ""},        {"YQ=a", false, ""},       {"Y===", false, ""},
      {"*abc", false, ""},     {"YWJj-", false, ""},      {"YQ=", false, ""},
      {"YQ==YWJj", false, ""},
  };
  for (const auto& c : cases) {
    auto got = DecodeBase64(c.in);
    EXPECT_EQ(got.ok(), c.ok) << c.in;
    if (got.ok()) {
      EXPECT_EQ(*got, c.out) << c.in;
    }
  }
}

TEST(Base64Test, RoundTripsLongBinaryInputWrappedAtAnyWidth) {
  std::string binary;
  for (int i = 0; i < 1000; ++i) binary.push_back(static_cast<char>((i * 37) & 0xFF));
  const std::string encoded = Base64(binary);
  for (size_t width : {size_t{1}, size_t{63}, size_t{64}, size_t{76}, encoded.size()}) {
    std::string wrapped;
    for (size_t i = 0; i < encoded.size(); i += width) wrapped += encoded.substr(i, width) + "\r\n";
    auto got = DecodeBase64(wrapped);
    ASSERT_TRUE(got.ok()) << width << ": " << got.status().ToString();
    EXPECT_EQ(*got, binary) << width;
  }
  EXPECT_EQ(DecodeBase64(encoded.substr(0, 500) + "!" + encoded.substr(500)).status().message(),
            "invalid base64 at offset 500");
}

TEST(FileTokenSourceTest, RereadsRotatedTokenAfterRefresh) {
  TempDir dir;
  const std::string path = dir.Write("token", "first\n");
  FakeClock clock;
  FileTokenSource source(path, clock, std::chrono::seconds(60));
  EXPECT_EQ(*source.Token(), "first");
  dir.Write("token", "second");
  EXPECT_EQ(*source.Token(), "first");  // within the refresh period
  clock.Advance(std::chrono::seconds(61));
  EXPECT_EQ(*source.Token(), "second");
  std::filesystem::remove(path);
  clock.Advance(std::chrono::seconds(61));
  EXPECT_EQ(*source.Token(), "second");  // a failed re-read keeps the last good token

  FileTokenSource empty(dir.Write("empty", "  \n"), clock);
  EXPECT_EQ(empty.Token().status().code(), StatusCode::kUnauthenticated);
}

TEST(InClusterConfigTest, ReadsEnvironmentAndMountedFiles) {
  TempDir dir;
  InClusterPaths paths{dir.Write("token", "sa-token"),
                       dir.Write("ca.crt", ReadFixture("pki/ca.pem")),
                       dir.Write("namespace", "rdmastack-system\n")};
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  auto outside = LoadInClusterConfig(paths);
  EXPECT_EQ(outside.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(outside.status().message().find("KUBERNETES_SERVICE_HOST"), std::string::npos);

  ::setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  FakeClock clock;
  auto config = LoadInClusterConfig(paths, clock);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:443");
  EXPECT_EQ(*config->token->Token(), "sa-token");
  EXPECT_EQ(config->default_namespace, "rdmastack-system");
  EXPECT_NE(config->tls.ca_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  dir.Write("token", "rotated");
  clock.Advance(std::chrono::minutes(2));
  EXPECT_EQ(*config->token->Token(), "rotated");

  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  InClusterPaths no_token = paths;
  no_token.token_file = dir.path() + "/absent";
  EXPECT_FALSE(LoadInClusterConfig(no_token, clock).ok());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
}

}  // namespace
}  // namespace rdmastack::k8s
