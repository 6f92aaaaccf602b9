#pragma once
// `rdmastack-client bench`: PUT and GET throughput of the profile's pool as an application pod on
// a GPU node sees it. `kubectl rdmastack bench` runs it in a Job whose pod is labelled with the
// profile, so the admission webhook gives it what an application gets (the node's client
// configuration, the profile's S3 user keys, the RDMA device, node affinity to Ready clients). It
// writes under a prefix of its own in one of the profile's buckets (the profile's user may not
// make buckets), removes every object it wrote, and prints the report (lib/s3/bench_report.h).

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "lib/s3/bench_report.h"
#include "lib/s3/http.h"
#include "lib/s3/sigv4.h"

namespace rdmastack::client {

struct BenchOptions {
  std::string config_dir;  // the injected client configuration ($RDMASTACK_CLIENT_CONFIG_DIR)
  std::string endpoint;    // "" = the first of <config_dir>/endpoints.json
  std::string bucket;      // one of the profile's buckets
  std::string prefix;      // "" = .rdmastack-bench/<random>/
  uint64_t object_bytes = uint64_t{8} << 20;
  int objects_per_stream = 4;
  std::vector<int> streams = {1, 2, 4};
  std::string node;                            // for the report (NODE_NAME)
  std::chrono::milliseconds timeout{120'000};  // per request
};

// args exclude the program name and the command word; `env` gives NODE_NAME and
// RDMASTACK_CLIENT_CONFIG_DIR defaults.
StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args,
                                         const std::string& node_env,
                                         const std::string& config_dir_env);

// What the pool and the node's client give the bench.
struct BenchTarget {
  s3::Endpoint endpoint;
  std::string pool;
  std::string region;
  std::string ca_file;  // HTTPS pools: the installed CA bundle
  // Transports of the node's client that this bench does not measure, and why.
  std::vector<std::pair<std::string, std::string>> unavailable;
};

// Reads <config_dir>/endpoints.json and looks at <config_dir>/lib for libcuobjclient.
StatusOr<BenchTarget> ReadBenchTarget(const BenchOptions& options);

// Why the cuObject transport is not measured with the libcuobjclient in `lib_dir`.
std::string CuObjectUnavailable(const std::string& lib_dir);

// The measurement: for each stream count, every stream PUTs its objects, then GETs them back and
// compares each body's SHA-256 with what it sent, then the step's objects are deleted (not
// timed). At the end the prefix is listed to count what is left. Stops at the first step whose
// requests fail (report.error says why), still cleaning up.
s3::BenchReport RunBench(s3::HttpTransport& transport, const Clock& clock,
                         const BenchTarget& target, const s3::Credentials& credentials,
                         const BenchOptions& options);

// The command: the report's table on stderr, the marked JSON line on stdout. Exit 0 when every
// checksum matched and nothing was left behind, 1 otherwise, 2 on usage errors.
int BenchCommand(const std::vector<std::string>& args);

}  // namespace rdmastack::client
