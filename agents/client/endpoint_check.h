#pragma once
// Does the pool answer this node? Up to a bounded number of the pool's endpoints are asked per
// pass, in parallel, each with a short deadline: with S3 keys a SigV4-signed ListBuckets after
// the health path (the gateway's own readiness probe, lib/s3), without keys the
// unauthenticated health path must answer 200. Larger pools are covered over several passes.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "lib/s3/http.h"
#include "lib/s3/sigv4.h"

namespace rdmastack::client {

// Every client node checks this many per pass: a thousand GPU nodes at the default 10 s interval
// send the pool 300 small requests a second, not 800.
inline constexpr size_t kMaxEndpointsPerPass = 3;
inline constexpr const char* kHealthPath = "/_/health";

struct EndpointCheckOptions {
  std::optional<s3::Credentials> credentials;  // nullopt: health path only
  std::string region = "us-east-1";
  std::chrono::milliseconds timeout{2000};
  size_t max_per_pass = kMaxEndpointsPerPass;
};

struct EndpointCheckResult {
  size_t checked = 0;
  size_t reachable = 0;
  std::string first_reachable;  // URL
  std::string first_failure;    // "URL: why", one line
};

// Checks urls[first], urls[first + 1], ... (wrapping), at most options.max_per_pass of them.
EndpointCheckResult CheckEndpoints(s3::HttpTransport& transport, const Clock& clock,
                                   const std::vector<std::string>& urls, size_t first,
                                   const EndpointCheckOptions& options);

// accessKeyId and secretAccessKey from a mounted Secret (trailing newlines dropped).
StatusOr<s3::Credentials> ReadCredentialsDir(const std::string& dir);

}  // namespace rdmastack::client
