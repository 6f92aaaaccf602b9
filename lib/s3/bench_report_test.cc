#include "lib/s3/bench_report.h"

#include <gtest/gtest.h>

namespace rdmastack::s3 {
namespace {

BenchStep Step(std::string transport, int streams, std::string op, double gbps, int objects = 4) {
  BenchStep s;
  s.transport = std::move(transport);
  s.streams = streams;
  s.op = std::move(op);
  s.bytes = static_cast<uint64_t>(gbps * 1e9);
  s.seconds = 1.0;
  s.objects = objects;
  s.verified = objects;
  return s;
}

// The field report's shape: RDMA 3.21 -> 6.04 -> 7.05 -> 7.34 GB/s GET over 1, 2, 4, 8 streams.
BenchReport SeedShaped() {
  BenchReport r;
  r.node = "gpu-1";
  r.endpoint = "http://198.18.0.10:7071";
  r.pool = "demo/kvcache";
  r.bucket = "kv";
  r.prefix = ".rdmastack-bench/abc/";
  r.object_bytes = 64ull << 20;
  r.objects_per_stream = 4;
  const double http_get[] = {2.28, 4.3, 6.6, 7.02}, http_put[] = {1.0, 1.9, 2.0, 2.05};
  const double rdma_get[] = {3.21, 6.04, 7.05, 7.34}, rdma_put[] = {1.8, 3.4, 3.6, 3.7};
  const int counts[] = {1, 2, 4, 8};
  for (int i = 0; i < 4; ++i) {
    r.steps.push_back(Step("http", counts[i], "PUT", http_put[i]));
    r.steps.push_back(Step("http", counts[i], "GET", http_get[i]));
    r.steps.push_back(Step("cuobject", counts[i], "PUT", rdma_put[i]));
    r.steps.push_back(Step("cuobject", counts[i], "GET", rdma_get[i]));
  }
  r.left_behind = 0;
  return r;
}

TEST(BenchReportTest, TheKneeIsWhereTheNextCountAddsLessThanTenPercent) {
  const BenchReport r = SeedShaped();
  EXPECT_EQ(Knee(r, "cuobject", "GET"), 4);  // 7.05 -> 7.34 is +4%
  EXPECT_EQ(Knee(r, "http", "GET"), 4);      // 6.6 -> 7.02 is +6%
  EXPECT_EQ(Knee(r, "http", "PUT"), 2);      // 1.9 -> 2.0 is +5%
  EXPECT_EQ(Knee(r, "http", "GET", 0.05), std::nullopt) << "every step gains 5% or more";
  EXPECT_EQ(Knee(r, "nfs", "GET"), std::nullopt);
}

TEST(BenchReportTest, TheTableShowsRatesChecksumsRatioKneeAndCleanUp) {
  BenchReport r = SeedShaped();
  r.steps[1].verified = 3;  // http GET at 1 stream
  r.steps[1].failed = 1;
  const std::string table = RenderBenchTable(r);
  EXPECT_NE(table.find("node gpu-1 -> http://198.18.0.10:7071 (pool demo/kvcache)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("64 MiB objects, 4 per stream"), std::string::npos) << table;
  EXPECT_NE(table.find("http             1     1.000     2.280  3/4 verified, 1 FAILED"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("cuobject         8     3.700     7.340  4/4 verified"), std::string::npos)
      << table;
  EXPECT_NE(table.find("RDMA/HTTP at 1 stream: PUT 1.80x, GET 1.41x"), std::string::npos) << table;
  EXPECT_NE(table.find("knee (cuobject): PUT at 2 streams, GET at 4 streams"), std::string::npos)
      << table;
  EXPECT_NE(table.find("nothing left under the prefix"), std::string::npos) << table;
  EXPECT_FALSE(r.AllVerified());
  EXPECT_TRUE(SeedShaped().AllVerified());
}

TEST(BenchReportTest, AnHttpOnlyRunSaysWhyTheOtherTransportIsMissing) {
  BenchReport r = SeedShaped();
  std::erase_if(r.steps, [](const BenchStep& s) { return s.transport == "cuobject"; });
  r.unavailable = {{"cuobject", "not available: fake client library"}};
  r.left_behind = 2;
  const std::string table = RenderBenchTable(r);
  EXPECT_NE(table.find("cuobject         -         -         -  not available: fake client "
                       "library"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("RDMA/HTTP: not measured (no cuObject rows)"), std::string::npos) << table;
  EXPECT_NE(table.find("clean-up: 2 objects left under kv/.rdmastack-bench/abc/"),
            std::string::npos)
      << table;
}

TEST(BenchReportTest, JsonRoundTripsAndTheLogsLastMarkedLineIsTheReport) {
  BenchReport r = SeedShaped();
  r.unavailable = {{"cuobject", "x \"quoted\""}};
  r.error = "";
  StatusOr<BenchReport> back = BenchReportFromJson(BenchReportToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(RenderBenchTable(*back), RenderBenchTable(r));

  const std::string log = "bench: 1 stream: ...\n" + std::string(kBenchReportMarker) +
                          R"({"steps":[]})" + "\n" + std::string(kBenchReportMarker) +
                          BenchReportToJson(r) + "\n";
  StatusOr<BenchReport> from_log = BenchReportFromLog(log);
  ASSERT_TRUE(from_log.ok()) << from_log.status().message();
  EXPECT_EQ(from_log->steps.size(), r.steps.size());
  // A marker inside another line (a tenant's log text) is not a report.
  EXPECT_FALSE(BenchReportFromLog("echo " + std::string(kBenchReportMarker) + "{}").ok());
  EXPECT_FALSE(
      BenchReportFromJson(R"({"steps":[{"transport":"http","op":"DEL","streams":1}]})").ok());
  EXPECT_FALSE(BenchReportFromJson("[1]").ok());
}

TEST(BenchReportTest, StreamCountsAreAscendingAndBounded) {
  EXPECT_EQ(ParseStreamCounts("1,2,4,8").value(), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(ParseStreamCounts("3").value(), (std::vector<int>{3}));
  for (const char* bad : {"", "0", "1,,2", "2,1", "1,1", "257", "a", "1, 2", "-1"})
    EXPECT_FALSE(ParseStreamCounts(bad).ok()) << bad;
}

}  // namespace
}  // namespace rdmastack::s3
