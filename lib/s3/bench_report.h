#pragma once
// What `rdmastack-client bench` measured and how `kubectl rdmastack bench` shows it: the field
// report's table (GB/s of PUT and GET per stream count per transport, the RDMA/HTTP ratio, the
// knee where more streams stop paying) and its JSON form, which the bench pod prints and the
// plugin reads back from the pod's log. Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::s3 {

inline constexpr std::string_view kTransportHttp = "http";
inline constexpr std::string_view kTransportCuObject = "cuobject";

// One transport at one stream count, one direction: every stream moved its objects.
struct BenchStep {
  std::string transport;  // kTransportHttp, kTransportCuObject
  int streams = 0;
  std::string op;  // "PUT" or "GET"
  uint64_t bytes = 0;
  double seconds = 0;  // wall time from the first request to the last answer
  int objects = 0;     // objects moved
  int verified = 0;    // GET: bodies whose SHA-256 matched what was PUT; PUT: ETags accepted
  int failed = 0;      // requests that failed or bodies that did not match
  // Sum of rates: bytes over the wall time, in GB/s (10^9 bytes), as the field report gives it.
  double GBps() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0; }
};

struct BenchReport {
  std::string node;      // where the bench pod ran
  std::string endpoint;  // the gateway it measured
  std::string pool;
  std::string bucket;
  std::string prefix;  // the run's own prefix; every object under it is removed afterwards
  uint64_t object_bytes = 0;
  int objects_per_stream = 0;
  std::vector<BenchStep> steps;
  // Transports the node's client has that were not measured, and why.
  std::vector<std::pair<std::string, std::string>> unavailable;
  int left_behind = -1;  // objects still under the prefix after clean-up (-1: not checked)
  std::string error;     // the run stopped early: why ("" when it finished)

  bool AllVerified() const;
};

// "1,2,4,8" -> {1,2,4,8}: ascending, each 1..256, at most 16 counts.
StatusOr<std::vector<int>> ParseStreamCounts(std::string_view text);

// The knee of a transport's `op`: the first stream count after which the next count adds less
// than `gain` (0.10 = 10%) to the sum of rates. nullopt with fewer than two counts, or when every
// step still gains (the knee is beyond the largest count measured).
std::optional<int> Knee(const BenchReport& report, std::string_view transport, std::string_view op,
                        double gain = 0.10);

// The table a person reads (ends with a newline).
std::string RenderBenchTable(const BenchReport& report);

// One line of JSON, and back. Parse errors say what is wrong.
std::string BenchReportToJson(const BenchReport& report);
StatusOr<BenchReport> BenchReportFromJson(std::string_view json);

// The bench pod's stdout holds log lines and one line starting with this marker, then the JSON.
inline constexpr std::string_view kBenchReportMarker = "rdmastack-bench-report: ";
// The report from a bench pod's log: the last marked line.
StatusOr<BenchReport> BenchReportFromLog(std::string_view log);

}  // namespace rdmastack::s3
