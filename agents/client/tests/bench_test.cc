// rdmastack-client bench over an in-memory S3 (the real gateway: the versitygw integration test
// and the workload e2e).
#include "agents/client/bench.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "agents/client/tests/test_util.h"

namespace rdmastack::client {
namespace {

namespace fs = std::filesystem;
using testing::FakeClientLibrary;
using testing::WriteFile;

// Objects by path; GET can answer other bytes than were PUT (a corrupting path).
class MemoryS3 final : public s3::HttpTransport {
 public:
  StatusOr<s3::HttpResponse> RoundTrip(const s3::Endpoint&, const s3::HttpRequest& request,
                                       std::chrono::milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string path = request.target.substr(0, request.target.find('?'));
    s3::HttpResponse r;
    r.status = 200;
    if (request.method == "PUT") {
      objects_[path] = request.body;
    } else if (request.method == "DELETE") {
      if (!keep_on_delete_) objects_.erase(path);
      r.status = 204;
    } else if (request.target.find("list-type=2") != std::string::npos) {
      // prefix=<encoded>: the bench's prefixes encode only '/'.
      std::string prefix = request.target.substr(request.target.find("prefix=") + 7);
      prefix = prefix.substr(0, prefix.find('&'));
      for (size_t at; (at = prefix.find("%2F")) != std::string::npos;) prefix.replace(at, 3, "/");
      r.body = "<ListBucketResult>";
      for (const auto& [p, body] : objects_) {
        if (p.rfind(path + "/" + prefix, 0) == 0)
          r.body += "<Key>" + p.substr(path.size() + 1) + "</Key>";
      }
      r.body += "</ListBucketResult>";
    } else if (auto it = objects_.find(path); it != objects_.end()) {
      r.body = it->second;
      if (corrupt_ && !r.body.empty()) r.body.back() ^= 1;
    } else {
      r.status = 404;
    }
    ++requests_[request.method];
    return r;
  }
  std::mutex mu_;
  std::map<std::string, std::string> objects_;
  std::map<std::string, int> requests_;
  bool corrupt_ = false;
  bool keep_on_delete_ = false;
};

BenchOptions Small() {
  BenchOptions o;
  o.bucket = "kv";
  o.prefix = ".rdmastack-bench/t/";
  o.object_bytes = 64 << 10;
  o.objects_per_stream = 2;
  o.streams = {1, 2, 4};
  o.node = "gpu-0";
  return o;
}

BenchTarget Target() {
  BenchTarget t;
  t.endpoint = s3::Endpoint{"http", "198.18.0.10", 7071};
  t.pool = "ml/kvcache";
  t.region = "us-east-1";
  return t;
}

TEST(BenchTest, EveryObjectIsVerifiedAndRemovedAndOthersAreLeftAlone) {
  MemoryS3 s3;
  s3.objects_["/kv/theirs"] = "an object of the profile's application";
  const s3::BenchReport r = RunBench(s3, RealClock::Instance(), Target(), {"AK", "SK"}, Small());
  ASSERT_EQ(r.steps.size(), 6u);
  for (const s3::BenchStep& s : r.steps) {
    EXPECT_EQ(s.objects, s.streams * 2) << s.op << " " << s.streams;
    EXPECT_EQ(s.bytes, uint64_t{64 << 10} * static_cast<uint64_t>(s.objects));
    EXPECT_EQ(s.failed, 0);
  }
  EXPECT_TRUE(r.AllVerified()) << r.error;
  EXPECT_EQ(r.left_behind, 0);
  EXPECT_EQ(s3.requests_["PUT"], 14);
  EXPECT_EQ(s3.objects_.size(), 1u) << "only the application's object is left";
  EXPECT_EQ(s3.objects_.count("/kv/theirs"), 1u);
  EXPECT_EQ(r.endpoint, "http://198.18.0.10:7071");
}

TEST(BenchTest, AnObjectReadBackWithOtherBytesFailsItsChecksumAndStopsTheRun) {
  MemoryS3 s3;
  s3.corrupt_ = true;
  const s3::BenchReport r = RunBench(s3, RealClock::Instance(), Target(), {"AK", "SK"}, Small());
  ASSERT_EQ(r.steps.size(), 2u) << "stopped after the first stream count";
  EXPECT_EQ(r.steps[1].verified, 0);
  EXPECT_EQ(r.steps[1].failed, 2);
  EXPECT_FALSE(r.AllVerified());
  EXPECT_NE(r.error.find("SHA-256 differs"), std::string::npos) << r.error;
  EXPECT_EQ(r.left_behind, 0) << "the clean-up still runs";
}

TEST(BenchTest, ObjectsTheGatewayKeptAreCountedAsLeftBehind) {
  MemoryS3 s3;
  s3.keep_on_delete_ = true;
  BenchOptions o = Small();
  o.streams = {1};
  const s3::BenchReport r = RunBench(s3, RealClock::Instance(), Target(), {"AK", "SK"}, o);
  EXPECT_EQ(r.left_behind, 2);
}

TEST(BenchTest, OptionsAreBoundedAndSayWhatIsWrong) {
  auto parse = [](std::vector<std::string> args) {
    return ParseBenchOptions(args, "gpu-0", "/etc/rdmastack/client");
  };
  auto ok = parse({"--bucket", "kvc", "--size", "1Mi", "--streams", "1,2,8"});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->object_bytes, uint64_t{1} << 20);
  EXPECT_EQ(ok->streams, (std::vector<int>{1, 2, 8}));
  EXPECT_EQ(ok->prefix.rfind(".rdmastack-bench/", 0), 0u) << ok->prefix;
  EXPECT_NE(parse({"--bucket", "kvc"})->prefix, ok->prefix) << "each run has its own prefix";
  const std::pair<std::vector<std::string>, const char*> bad[] = {
      {{}, "--bucket is required"},
      {{"--bucket", "KVC"}, "not an S3 bucket name"},
      {{"--bucket", "kv"}, "not an S3 bucket name"},
      {{"--bucket", "kvc", "--size", "512Mi"}, "from 1Ki to 256Mi"},
      {{"--bucket", "kvc", "--size", "128Mi", "--streams", "8"}, "within 1Gi"},
      {{"--bucket", "kvc", "--prefix", "/abs/"}, "--prefix"},
      {{"--bucket", "kvc", "--prefix", "a/../b/"}, "--prefix"},
      {{"--bucket", "kvc", "--objects-per-stream", "0"}, "from 1 to 64"},
      {{"--bucket", "kvc", "--streams", "4,2"}, "ascending"},
      {{"--bucket", "kvc", "--rm", "x"}, "unknown flag --rm"},
  };
  for (const auto& [args, want] : bad) {
    auto r = parse(args);
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
  }
  EXPECT_NE(ParseBenchOptions({"--bucket", "kvc"}, "", "")
                .status()
                .message()
                .find("RDMASTACK_CLIENT_CONFIG_DIR"),
            std::string::npos);
}

class BenchTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bench-target-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "lib");
  }
  void TearDown() override { fs::remove_all(dir_); }
  BenchOptions Options() {
    BenchOptions o = Small();
    o.config_dir = dir_.string();
    return o;
  }
  fs::path dir_;
};

TEST_F(BenchTargetTest, TheFirstEndpointOfTheInstalledFileAndWhyCuObjectIsNotMeasured) {
  WriteFile(dir_ / "endpoints.json",
            R"({"pool":"ml/kvcache","region":"eu-1","endpoints":["http://198.18.0.10:7071",)"
            R"("http://198.18.0.11:7071"]})");
  StatusOr<BenchTarget> t = ReadBenchTarget(Options());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->endpoint.ToString(), "http://198.18.0.10:7071");
  EXPECT_EQ(t->region, "eu-1");
  ASSERT_EQ(t->unavailable.size(), 1u);
  EXPECT_EQ(t->unavailable[0].second,
            "not available: no libcuobjclient installed for this profile on the node");

  // The harness's stand-in library is named as such; a chosen endpoint must be the pool's.
  fs::copy_file(FakeClientLibrary(), dir_ / "lib/libcuobjclient.so.1");
  BenchOptions o = Options();
  o.endpoint = "http://198.18.0.11:7071";
  t = ReadBenchTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->endpoint.host, "198.18.0.11");
  EXPECT_NE(t->unavailable[0].second.find("fake client library"), std::string::npos)
      << t->unavailable[0].second;
  o.endpoint = "http://10.0.0.1:80";
  EXPECT_NE(ReadBenchTarget(o).status().message().find("not one of the pool's"), std::string::npos);
}

TEST_F(BenchTargetTest, NoConfigurationOrNoEndpointSaysWhy) {
  EXPECT_NE(ReadBenchTarget(Options()).status().message().find("has not written this node's"),
            std::string::npos);
  WriteFile(dir_ / "endpoints.json", R"({"pool":"ml/kvcache","endpoints":[]})");
  EXPECT_NE(ReadBenchTarget(Options()).status().message().find("lists no endpoint"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmastack::client
