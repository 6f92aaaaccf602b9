// Fuzzes what kubectl rdmastack bench reads from the bench pod's log (BenchReportFromLog): the
// pod runs the profile's library too, so any bytes may stand where the report should. Whatever
// they are, parsing never crashes, and a report it accepts renders and goes back to JSON and
// parses again to the same table.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/s3/bench_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  rdmastack::StatusOr<rdmastack::s3::BenchReport> report = rdmastack::s3::BenchReportFromLog(log);
  if (!report.ok()) return 0;
  const std::string table = rdmastack::s3::RenderBenchTable(*report);
  rdmastack::StatusOr<rdmastack::s3::BenchReport> again =
      rdmastack::s3::BenchReportFromJson(rdmastack::s3::BenchReportToJson(*report));
  if (!again.ok() || rdmastack::s3::RenderBenchTable(*again) != table) std::abort();
  return 0;
}
