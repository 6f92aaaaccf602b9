// rdmastack-gateway against a real versitygw on loopback (posix backend in a temp dir):
// the launcher starts it (http mode), the probe passes, a wrong secret is reported as a 403,
// objects round-trip through SigV4 with the same checksum, and SIGTERM to the launcher's pid
// stops the gateway (exec keeps the pid). Transport failures are checked against raw sockets.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "agents/client/bench.h"
#include "controllers/clientprofile/s3_user.h"
#include "controllers/clientprofile/s3_user_sync.h"
#include "gateway/launcher/test_paths.h"
#include "lib/s3/crypto.h"
#include "lib/s3/s3_client.h"
#include "lib/s3/versitygw_admin.h"
#include "tests/harness/cluster_env.h"
#include "tests/integration/gateway/gateway_process.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;
using rdmastack::testing::CommandResult;
using rdmastack::testing::RunCommand;
using testing::FindVersitygw;
using testing::FreeLoopbackPort;
using testing::GatewayBinary;
using testing::GatewayProcess;

constexpr char kAccess[] = "rdmastack-it-access";
constexpr char kSecret[] = "rdmastack-it-secret-0123456789";

#define REQUIRE_VERSITYGW(var)                                                        \
  const std::string var = FindVersitygw();                                            \
  do {                                                                                \
    if (var.empty()) {                                                                \
      const char* req = std::getenv("RDMASTACK_REQUIRE_VERSITYGW");                   \
      if (req != nullptr && std::string(req) == "1") FAIL() << "versitygw not found"; \
      GTEST_SKIP() << "versitygw not found: set RDMASTACK_VERSITYGW or run "          \
                      "'source scripts/lib/components.sh; build_versitygw'";          \
    }                                                                                 \
  } while (0)

std::string TempDir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("gw-it-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string ReadFile(const std::string& path) {
  return testing::ReadWholeFile(path);
}

// Launches versitygw through the launcher; the gateway root is <dir>/gw-{node}.
// With `tls`, a self-signed certificate for 127.0.0.1 is made with the openssl CLI and handed to
// the launcher (--tls-cert/--tls-key), which then supervises versitygw to reload it.
// A self-signed certificate for 127.0.0.1 at <prefix>.crt and <prefix>.key (openssl CLI).
bool MakeCertificate(const std::string& prefix, const std::string& cn) {
  return RunCommand({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                     "-subj", "/CN=" + cn, "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
                     prefix + ".key", "-out", prefix + ".crt"})
             .exit_code == 0;
}

struct RunningGateway {
  std::string dir;
  int port = -1;
  bool tls = false;
  GatewayProcess process;
  std::string log;

  std::string CertFile() const { return dir + "/tls.crt"; }

  bool Start(const std::string& versitygw, const std::string& tag, bool with_tls = false) {
    dir = TempDir(tag);
    port = FreeLoopbackPort();
    log = dir + "/gateway.log";
    tls = with_tls;
    std::vector<std::string> args = {GatewayBinary(),
                                     "run",
                                     "--mode",
                                     "http",
                                     "--gateway-binary",
                                     versitygw,
                                     "--listen-address",
                                     "127.0.0.1",
                                     "--s3-port",
                                     std::to_string(port),
                                     "--gwroot-template",
                                     dir + "/gw-{node}",
                                     "--create-gwroot"};
    std::vector<std::string> env = {std::string("ROOT_ACCESS_KEY_ID=") + kAccess,
                                    std::string("ROOT_SECRET_ACCESS_KEY=") + kSecret,
                                    "NODE_NAME=it-node", "VGW_QUIET=true", "PATH=/usr/bin:/bin",
                                    // As the gateway DaemonSet sets it: the internal IAM.
                                    "VGW_IAM_DIR=" + dir + "/iam", "VGW_IAM_CACHE_DISABLE=true"};
    fs::create_directories(dir + "/iam");
    if (tls) {
      if (!MakeCertificate(dir + "/tls", "rdmastack-it")) return false;
      args.insert(args.end(), {"--tls-cert", CertFile(), "--tls-key", dir + "/tls.key"});
    }
    return port > 0 && process.Start(args, env, log) &&
           process.WaitHealthy(Endpoint(), "/_/health", std::chrono::seconds(30),
                               tls ? CertFile() : "");
  }
  std::string Endpoint() const {
    return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port);
  }
};

CommandResult Probe(const std::string& endpoint, const std::string& secret,
                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {"env",
                                   "-i",
                                   std::string("ROOT_ACCESS_KEY_ID=") + kAccess,
                                   "ROOT_SECRET_ACCESS_KEY=" + secret,
                                   GatewayBinary(),
                                   "probe",
                                   "--endpoint",
                                   endpoint};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunCommand(argv);
}

class VersitygwTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string versitygw = FindVersitygw();
    if (versitygw.empty()) return;
    gateway_ = new RunningGateway();
    started_ = gateway_->Start(versitygw, "shared");
  }
  static void TearDownTestSuite() {
    if (gateway_ != nullptr) {
      int status = 0;
      gateway_->process.SignalAndWait(SIGTERM, std::chrono::seconds(30), &status);
      fs::remove_all(gateway_->dir);
    }
    delete gateway_;  // NOLINT: suite-lifetime fixture shared by the tests below
    gateway_ = nullptr;
  }
  void SetUp() override {
    if (gateway_ != nullptr) {
      ASSERT_TRUE(started_) << "gateway did not become healthy; log:\n" << ReadFile(gateway_->log);
    }
  }
  s3::S3Client Client(const std::string& secret = kSecret) { return UserClient({kAccess, secret}); }
  s3::S3Client UserClient(const s3::Credentials& keys) {
    return s3::S3Client(transport_,
                        s3::Endpoint{"http", "127.0.0.1", static_cast<uint16_t>(gateway_->port)},
                        keys, "us-east-1", RealClock::Instance(), std::chrono::seconds(10));
  }
  // The HTTP status of a signed request (0 when it did not get an answer).
  int StatusOf(const s3::Credentials& keys, const std::string& method, const std::string& path,
               const std::string& body = "") {
    StatusOr<s3::HttpResponse> r =
        UserClient(keys).Send({.method = method, .path = path, .body = body});
    return r.ok() ? r->status : 0;
  }

  static inline RunningGateway* gateway_ = nullptr;
  static inline bool started_ = false;
  s3::BeastHttpTransport transport_;
};

TEST_F(VersitygwTest, LauncherExecsTheGatewayInPlace) {
  REQUIRE_VERSITYGW(versitygw);
  // exec keeps the pid: the launcher's child pid now runs versitygw itself.
  EXPECT_EQ(gateway_->process.Executable(), fs::canonical(versitygw).string());
  EXPECT_TRUE(fs::is_directory(gateway_->dir + "/gw-it-node"));
}

TEST_F(VersitygwTest, ProbeSucceeds) {
  REQUIRE_VERSITYGW(versitygw);
  CommandResult r = Probe(gateway_->Endpoint(), kSecret);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "healthy: " + gateway_->Endpoint() + " health and signed ListBuckets OK\n");
}

TEST_F(VersitygwTest, WrongSecretIsCredentialsRejected) {
  REQUIRE_VERSITYGW(versitygw);
  CommandResult r = Probe(gateway_->Endpoint(), "not-the-secret");
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_EQ(r.err.rfind("rdmastack-gateway probe: credentials rejected (403", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(VersitygwTest, WrongHealthPathIsBadResponse) {
  REQUIRE_VERSITYGW(versitygw);
  CommandResult r = Probe(gateway_->Endpoint(), kSecret, {"--health-path", "/_/other"});
  EXPECT_EQ(r.exit_code, 13) << r.err;
  EXPECT_NE(r.err.find("bad response (health /_/other)"), std::string::npos) << r.err;
}

TEST_F(VersitygwTest, ObjectRoundTripKeepsChecksum) {
  REQUIRE_VERSITYGW(versitygw);
  s3::S3Client client = Client();
  StatusOr<s3::HttpResponse> made = client.Send({.method = "PUT", .path = "/it-bucket"});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_EQ(made->status, 200) << made->body;

  std::mt19937_64 rng(20260929);
  std::string payload(3 * 1024 * 1024 + 17, '\0');
  for (char& c : payload) c = static_cast<char>(rng());
  const std::string key = "/it-bucket/dir/hello world+1.bin";  // exercises path encoding
  StatusOr<s3::HttpResponse> put = client.Send({.method = "PUT", .path = key, .body = payload});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  ASSERT_EQ(put->status, 200) << put->body;

  // An object is larger than the 1 MiB an S3 call reads by default.
  StatusOr<s3::HttpResponse> get =
      client.Send({.method = "GET", .path = key, .response_limit = {.max_bytes = payload.size()}});
  ASSERT_TRUE(get.ok()) << get.status().ToString();
  ASSERT_EQ(get->status, 200) << get->body.substr(0, 200);
  EXPECT_EQ(get->body.size(), payload.size());
  EXPECT_EQ(Sha256Hex(get->body), Sha256Hex(payload));
  // The posix backend stores the object as a plain file under the gateway root.
  EXPECT_EQ(Sha256Hex(ReadFile(gateway_->dir + "/gw-it-node/it-bucket/dir/hello world+1.bin")),
            Sha256Hex(payload));

  StatusOr<s3::HttpResponse> forbidden = Client("bad").Send({.method = "GET", .path = key});
  ASSERT_TRUE(forbidden.ok());
  EXPECT_EQ(forbidden->status, 403);
}

// A ClientProfile's S3 user (spec.s3User) as the operator keeps it on one gateway: it reaches the
// profile's buckets and nothing else, a rotation keeps the previous key working until it is
// dropped, and the removal leaves the buckets, their objects and other users' grants untouched.
TEST_F(VersitygwTest, AProfilesS3UserReachesItsBucketsOnlyAndGoesWithoutTouchingData) {
  REQUIRE_VERSITYGW(versitygw);
  s3::S3Client root = Client();
  const s3::VersitygwAdmin admin(root);
  const s3::Credentials root_keys{kAccess, kSecret};
  ASSERT_EQ(StatusOf(root_keys, "PUT", "/it-other"), 200);
  ASSERT_EQ(StatusOf(root_keys, "PUT", "/it-other/x", "root's"), 200);
  // Somebody else's grant on a bucket the profile will use, made before the profile.
  const s3::Credentials other{"ITOTHERUSER000000001", "other-secret-0123456789"};
  ASSERT_TRUE(admin.CreateUser(other).ok());
  ASSERT_EQ(StatusOf(root_keys, "PUT", "/it-kv"), 200);
  const std::string theirs =
      R"({"Version":"2012-10-17","Statement":[{"Sid":"owner","Effect":"Allow",)"
      R"("Principal":{"AWS":["ITOTHERUSER000000001"]},"Action":["s3:GetObject"],)"
      R"("Resource":["arn:aws:s3:::it-kv/*"]}]})";
  ASSERT_TRUE(admin.PutBucketPolicy("it-kv", theirs).ok());

  const std::string prefix = clientprofile::S3UserKeyPrefix("ml", "kvcache");
  auto k1 = clientprofile::NewS3UserKeys(prefix);
  ASSERT_TRUE(k1.ok());
  clientprofile::S3UserGrant grant{
      prefix, clientprofile::S3UserStatementId("ml", "kvcache"), *k1, "", {"it-kv", "it-made"}};
  Status synced = clientprofile::SyncS3UserGrant(admin, grant);
  ASSERT_TRUE(synced.ok()) << synced.ToString();
  EXPECT_EQ(StatusOf(*k1, "PUT", "/it-kv/obj", "user's"), 200);
  EXPECT_EQ(StatusOf(*k1, "GET", "/it-kv/obj"), 200);
  EXPECT_EQ(StatusOf(*k1, "PUT", "/it-made/obj", "made"), 200) << "a missing bucket is made";
  EXPECT_EQ(StatusOf(*k1, "GET", "/it-other/x"), 403);
  EXPECT_EQ(StatusOf(*k1, "PUT", "/it-other/y", "no"), 403);
  EXPECT_EQ(StatusOf(*k1, "PUT", "/it-new-bucket"), 403);
  // Again with nothing changed: nothing to do, same result.
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  EXPECT_EQ(StatusOf(*k1, "GET", "/it-kv/obj"), 200);

  // Rotation: both keys work during the grace; then only the new one.
  auto k2 = clientprofile::NewS3UserKeys(prefix);
  ASSERT_TRUE(k2.ok());
  grant.current = *k2;
  grant.previous_access_key = k1->access_key_id;
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  EXPECT_EQ(StatusOf(*k2, "GET", "/it-kv/obj"), 200);
  EXPECT_EQ(StatusOf(*k1, "GET", "/it-kv/obj"), 200);
  grant.previous_access_key.clear();
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  EXPECT_EQ(StatusOf(*k2, "GET", "/it-kv/obj"), 200);
  EXPECT_EQ(StatusOf(*k1, "GET", "/it-kv/obj"), 403);
  // A bucket dropped from the list loses the grant.
  grant.buckets = {"it-kv"};
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  EXPECT_EQ(StatusOf(*k2, "GET", "/it-made/obj"), 403);
  EXPECT_EQ(StatusOf(*k2, "GET", "/it-kv/obj"), 200);

  // Removal: the user goes, the data and the other grant stay.
  grant.current.reset();
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  EXPECT_EQ(StatusOf(*k2, "GET", "/it-kv/obj"), 403);
  auto users = admin.ListUsers();
  ASSERT_TRUE(users.ok());
  EXPECT_EQ(users->size(), 1u);
  EXPECT_EQ(users->count(other.access_key_id), 1u);
  auto obj = root.Send({.method = "GET", .path = "/it-kv/obj"});
  ASSERT_TRUE(obj.ok());
  EXPECT_EQ(obj->body, "user's");
  EXPECT_EQ(StatusOf(root_keys, "GET", "/it-made/obj"), 200);
  auto policy = admin.GetBucketPolicy("it-kv");
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find("ITOTHERUSER000000001"), std::string::npos) << *policy;
  EXPECT_EQ(policy->find(grant.statement_id), std::string::npos) << *policy;
  EXPECT_EQ(StatusOf(other, "GET", "/it-kv/obj"), 200) << "the other user's grant works";
}

// rdmastack-client bench's measurement against real versitygw, with only a profile's S3 user
// (role user: it may not make buckets): every object verified, every one removed, the
// application's own object and the bucket left as they were.
TEST_F(VersitygwTest, TheBenchMeasuresWithAProfilesUserAndLeavesOnlyWhatWasThere) {
  REQUIRE_VERSITYGW(versitygw);
  s3::S3Client root = Client();
  const s3::VersitygwAdmin admin(root);
  const std::string prefix = clientprofile::S3UserKeyPrefix("ml", "bench");
  auto keys = clientprofile::NewS3UserKeys(prefix);
  ASSERT_TRUE(keys.ok());
  clientprofile::S3UserGrant grant{
      prefix, clientprofile::S3UserStatementId("ml", "bench"), *keys, "", {"it-bench"}};
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, grant).ok());
  ASSERT_EQ(StatusOf(*keys, "PUT", "/it-bench/app-object", "the application's"), 200);

  client::BenchOptions options;
  options.bucket = "it-bench";
  options.prefix = ".rdmastack-bench/it/";
  options.object_bytes = 256 << 10;
  options.objects_per_stream = 2;
  options.streams = {1, 2, 4};
  client::BenchTarget target;
  target.endpoint = s3::Endpoint{"http", "127.0.0.1", static_cast<uint16_t>(gateway_->port)};
  target.region = "us-east-1";
  const s3::BenchReport report =
      client::RunBench(transport_, RealClock::Instance(), target, *keys, options);
  std::printf("%s", s3::RenderBenchTable(report).c_str());
  ASSERT_EQ(report.steps.size(), 6u) << report.error;
  EXPECT_TRUE(report.AllVerified()) << report.error;
  for (const s3::BenchStep& step : report.steps) EXPECT_GT(step.GBps(), 0) << step.op;
  EXPECT_EQ(report.left_behind, 0);

  auto listed = root.Send({.method = "GET", .path = "/it-bench", .query = {{"list-type", "2"}}});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(s3::XmlElementTexts(listed->body, "Key"), std::vector<std::string_view>{"app-object"})
      << listed->body;
  auto buckets = root.Send({.method = "GET", .path = "/"});
  ASSERT_TRUE(buckets.ok());
  EXPECT_EQ(buckets->body.find(".rdmastack-bench"), std::string::npos) << "no bucket was made";
}

// What failed a CI run: a bucket outlives its gateway's IAM (a pool made again on the same
// backend) and keeps a statement of a profile whose user is gone; versitygw then refuses every
// policy naming that user (MalformedPolicy). The next profile's grant drops such statements.
TEST_F(VersitygwTest, AStatementOfAGoneProfileDoesNotBlockTheNextProfilesGrant) {
  REQUIRE_VERSITYGW(versitygw);
  s3::S3Client root = Client();
  const s3::VersitygwAdmin admin(root);
  auto old_keys = clientprofile::NewS3UserKeys(clientprofile::S3UserKeyPrefix("old", "p"));
  ASSERT_TRUE(old_keys.ok());
  clientprofile::S3UserGrant old{clientprofile::S3UserKeyPrefix("old", "p"),
                                 clientprofile::S3UserStatementId("old", "p"),
                                 *old_keys,
                                 "",
                                 {"it-shared"}};
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, old).ok());
  // Its IAM goes (not through the operator): the user is deleted, the statement stays.
  ASSERT_TRUE(admin.DeleteUser(old_keys->access_key_id).ok());
  auto stale = admin.GetBucketPolicy("it-shared");
  ASSERT_TRUE(stale.ok());
  ASSERT_NE(stale->find(old.statement_id), std::string::npos);

  auto keys = clientprofile::NewS3UserKeys(clientprofile::S3UserKeyPrefix("new", "p"));
  ASSERT_TRUE(keys.ok());
  clientprofile::S3UserGrant next{clientprofile::S3UserKeyPrefix("new", "p"),
                                  clientprofile::S3UserStatementId("new", "p"),
                                  *keys,
                                  "",
                                  {"it-shared"}};
  Status synced = clientprofile::SyncS3UserGrant(admin, next);
  ASSERT_TRUE(synced.ok()) << synced.ToString();
  EXPECT_EQ(StatusOf(*keys, "PUT", "/it-shared/obj", "new"), 200);
  auto policy = admin.GetBucketPolicy("it-shared");
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(policy->find(old.statement_id), std::string::npos) << *policy;
  next.current.reset();
  ASSERT_TRUE(clientprofile::SyncS3UserGrant(admin, next).ok());
}

TEST(VersitygwLifecycle, SigtermToLauncherPidStopsGateway) {
  REQUIRE_VERSITYGW(versitygw);
  RunningGateway gw;
  ASSERT_TRUE(gw.Start(versitygw, "sigterm")) << ReadFile(gw.log);
  int status = 0;
  ASSERT_TRUE(gw.process.SignalAndWait(SIGTERM, std::chrono::seconds(30), &status))
      << "gateway still running 30 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) || WIFSIGNALED(status));
  EXPECT_NE(ReadFile(gw.log).find("shutting down"), std::string::npos) << ReadFile(gw.log);
  CommandResult r = Probe(gw.Endpoint(), kSecret);
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_NE(r.err.find("connection refused"), std::string::npos) << r.err;
  fs::remove_all(gw.dir);
}

TEST(VersitygwTls, ProbeVerifiesTheGatewayCertificate) {
  REQUIRE_VERSITYGW(versitygw);
  RunningGateway gw;
  ASSERT_TRUE(gw.Start(versitygw, "tls", /*with_tls=*/true)) << ReadFile(gw.log);
  CommandResult ok = Probe(gw.Endpoint(), kSecret, {"--ca-file", gw.CertFile()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "healthy: " + gw.Endpoint() + " health and signed ListBuckets OK\n");

  CommandResult untrusted = Probe(gw.Endpoint(), kSecret);
  EXPECT_EQ(untrusted.exit_code, 13) << untrusted.err;
  EXPECT_NE(untrusted.err.find("TLS failed during TLS handshake"), std::string::npos)
      << untrusted.err;
  EXPECT_NE(untrusted.err.find("--ca-file"), std::string::npos) << untrusted.err;

  CommandResult rejected = Probe(gw.Endpoint(), "wrong", {"--ca-file", gw.CertFile()});
  EXPECT_EQ(rejected.exit_code, 10) << rejected.err;
  int status = 0;
  EXPECT_TRUE(gw.process.SignalAndWait(SIGTERM, std::chrono::seconds(30), &status));
  fs::remove_all(gw.dir);
}

// A certificate replaced on disk (as the kubelet swaps a Secret volume) is served within a few
// seconds: the launcher notices and versitygw reloads on its SIGHUP, without a restart. A key
// that does not match its certificate is never loaded.
TEST(VersitygwTls, ARotatedCertificateIsServedWithoutARestart) {
  REQUIRE_VERSITYGW(versitygw);
  RunningGateway gw;
  ASSERT_TRUE(gw.Start(versitygw, "tls-rotate", /*with_tls=*/true)) << ReadFile(gw.log);
  const std::string next = gw.dir + "/next";
  ASSERT_TRUE(MakeCertificate(next, "rdmastack-it-next"));
  EXPECT_NE(Probe(gw.Endpoint(), kSecret, {"--ca-file", next + ".crt"}).exit_code, 0)
      << "the next certificate is not served yet";
  // Half a rotation first: the new certificate with the old key. It must not be loaded.
  fs::copy_file(next + ".crt", gw.dir + "/tmp.crt");
  fs::rename(gw.dir + "/tmp.crt", gw.CertFile());
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_NE(ReadFile(gw.log).find("not reloading TLS"), std::string::npos) << ReadFile(gw.log);
  // Then the key: the pair is whole and is reloaded.
  fs::copy_file(next + ".key", gw.dir + "/tmp.key");
  fs::rename(gw.dir + "/tmp.key", gw.dir + "/tls.key");
  const pid_t pid_before = gw.process.pid();
  bool served = false;
  for (int i = 0; i < 40 && !served; ++i) {
    served = Probe(gw.Endpoint(), kSecret, {"--ca-file", next + ".crt"}).exit_code == 0;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_TRUE(served) << ReadFile(gw.log);
  EXPECT_NE(ReadFile(gw.log).find("TLS files changed, reloading"), std::string::npos)
      << ReadFile(gw.log);
  EXPECT_EQ(gw.process.pid(), pid_before);
  int status = 0;
  ASSERT_TRUE(gw.process.SignalAndWait(SIGTERM, std::chrono::seconds(30), &status));
  EXPECT_NE(ReadFile(gw.log).find("shutting down"), std::string::npos)
      << "SIGTERM reached versitygw through the launcher:\n"
      << ReadFile(gw.log);
  fs::remove_all(gw.dir);
}

TEST(VersitygwTls, AKeyThatIsNotTheCertificatesIsRefused) {
  REQUIRE_VERSITYGW(versitygw);
  const std::string dir = TempDir("tls-mismatch");
  ASSERT_TRUE(MakeCertificate(dir + "/a", "a"));
  ASSERT_TRUE(MakeCertificate(dir + "/b", "b"));
  CommandResult r =
      RunCommand({"env", "-i", std::string("ROOT_ACCESS_KEY_ID=") + kAccess,
                  std::string("ROOT_SECRET_ACCESS_KEY=") + kSecret, GatewayBinary(), "run",
                  "--mode", "http", "--gateway-binary", versitygw, "--gwroot-template", dir + "/gw",
                  "--create-gwroot", "--tls-cert", dir + "/a.crt", "--tls-key", dir + "/b.key"});
  EXPECT_EQ(r.exit_code, 71) << r.err;
  EXPECT_NE(r.err.find("refused (tls): " + dir + "/b.key does not belong to the certificate in " +
                       dir + "/a.crt"),
            std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(VersitygwLifecycle, LauncherRefusalNeverStartsTheGateway) {
  REQUIRE_VERSITYGW(versitygw);
  std::string dir = TempDir("refuse");
  CommandResult r =
      RunCommand({"env", "-i", std::string("ROOT_ACCESS_KEY_ID=") + kAccess, GatewayBinary(), "run",
                  "--mode", "http", "--gateway-binary", versitygw, "--gwroot-template", dir});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("ROOT_SECRET_ACCESS_KEY not set"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// A loopback listener that accepts and then either stays silent or answers garbage.
class FakePeer {
 public:
  explicit FakePeer(std::string reply) : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)::recv(c, buf, sizeof(buf), 0);
      if (!reply_.empty()) (void)::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
      while (!stop_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ::close(c);
    });
  }
  ~FakePeer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string Endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(ProbeTransport, SilentPeerIsTimeout) {
  FakePeer peer("");
  CommandResult r = Probe(peer.Endpoint(), kSecret, {"--timeout-ms", "300"});
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_EQ(r.err.rfind("rdmastack-gateway probe: timeout", 0), 0u) << r.err;
}

TEST(ProbeTransport, NonHttpPeerIsBadResponse) {
  FakePeer peer("SSH-2.0-OpenSSH_9.2\r\n");
  CommandResult r = Probe(peer.Endpoint(), kSecret, {"--timeout-ms", "2000"});
  EXPECT_EQ(r.exit_code, 13) << r.err;
  EXPECT_EQ(r.err.rfind("rdmastack-gateway probe: bad response", 0), 0u) << r.err;
}

TEST(ProbeTransport, NothingListeningIsConnectionRefused) {
  CommandResult r = Probe("http://127.0.0.1:" + std::to_string(FreeLoopbackPort()), kSecret);
  EXPECT_EQ(r.exit_code, 11) << r.err;
}

}  // namespace
}  // namespace rdmastack::gateway
