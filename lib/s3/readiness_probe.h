#pragma once
// The gateway readiness check: the unauthenticated health path must answer 200, then a
// SigV4-signed ListBuckets with the root keys must answer 200 with a ListAllMyBucketsResult.
// This proves the listener, the credentials and a readdir of the gateway root in one go.

#include <string>

#include "lib/s3/s3_client.h"

namespace rdmastack::s3 {

// The probe judges an answer by its status and its first bytes (a ListAllMyBucketsResult opens
// the document), so it reads no more than this of each: a gateway with many buckets still
// passes, and one that answers without end costs 64 KiB.
inline constexpr BodyLimit kProbeReadLimit{64 * 1024, BodyLimit::Over::kKeepPrefix};

enum class ProbeOutcome {
  kHealthy,
  kCredentialsRejected,  // 403 from ListBuckets
  kConnectionRefused,    // nothing listening / unreachable
  kTimeout,
  kBadResponse,  // wrong status, not HTTP, or not a ListBuckets answer
};

struct ProbeResult {
  ProbeOutcome outcome = ProbeOutcome::kBadResponse;
  std::string message;  // one line: what is wrong and what to do
};

std::string_view ProbeOutcomeName(ProbeOutcome outcome);

ProbeResult RunReadinessProbe(const S3Client& client, const std::string& health_path);

}  // namespace rdmastack::s3
