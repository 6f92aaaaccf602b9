#include "lib/s3/readiness_probe.h"

namespace rdmastack::s3 {
namespace {

// Every message starts with the outcome's name, so the one line a probe prints says the class.
ProbeResult Classified(ProbeOutcome outcome, std::string_view detail) {
  return {outcome, std::string(ProbeOutcomeName(outcome)) + " " + std::string(detail)};
}

ProbeResult FromTransport(const Status& status, std::string_view step) {
  std::string what = "(" + std::string(step) + "): " + status.message();
  switch (status.code()) {
    case StatusCode::kUnavailable:
      return Classified(ProbeOutcome::kConnectionRefused,
                        what + "; is the gateway running and listening on this port?");
    case StatusCode::kDeadlineExceeded:
      return Classified(ProbeOutcome::kTimeout,
                        what +
                            "; the gateway did not answer in time (overloaded, or a hung "
                            "backend mount?)");
    default:
      return Classified(ProbeOutcome::kBadResponse, what + "; is this endpoint an S3 gateway?");
  }
}

std::string Snippet(std::string_view body) {
  std::string s(body.substr(0, 120));
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

std::string_view ProbeOutcomeName(ProbeOutcome outcome) {
  switch (outcome) {
    case ProbeOutcome::kHealthy: return "healthy";
    case ProbeOutcome::kCredentialsRejected: return "credentials rejected";
    case ProbeOutcome::kConnectionRefused: return "connection refused";
    case ProbeOutcome::kTimeout: return "timeout";
    case ProbeOutcome::kBadResponse: return "bad response";
  }
  return "unknown";
}

ProbeResult RunReadinessProbe(const S3Client& client, const std::string& health_path) {
  const std::string where = client.endpoint().ToString();
  StatusOr<HttpResponse> health = client.GetUnsigned(health_path, kProbeReadLimit);
  if (!health.ok()) return FromTransport(health.status(), "health " + health_path);
  if (health->status != 200) {
    return Classified(ProbeOutcome::kBadResponse,
                      "(health " + health_path + "): " + where + " answered HTTP " +
                          std::to_string(health->status) + "; start the gateway with VGW_HEALTH=" +
                          health_path + " or pass --health-path");
  }

  StatusOr<HttpResponse> list =
      client.Send({.method = "GET", .path = "/", .response_limit = kProbeReadLimit});
  if (!list.ok()) return FromTransport(list.status(), "ListBuckets");
  if (list->status == 403) {
    std::string code = S3ErrorCode(list->body);
    return Classified(ProbeOutcome::kCredentialsRejected,
                      "(403" + (code.empty() ? "" : " " + code) + ") by " + where +
                          "; check ROOT_ACCESS_KEY_ID/ROOT_SECRET_ACCESS_KEY against the "
                          "gateway's root keys and the region");
  }
  if (list->status != 200) {
    std::string code = S3ErrorCode(list->body);
    return Classified(ProbeOutcome::kBadResponse,
                      "(ListBuckets): " + where + " answered HTTP " + std::to_string(list->status) +
                          (code.empty() ? "" : " " + code) + "; see the gateway log");
  }
  if (list->body.find("ListAllMyBucketsResult") == std::string::npos) {
    return Classified(ProbeOutcome::kBadResponse,
                      "(ListBuckets): " + where +
                          " answered 200 without a ListAllMyBucketsResult (" + Snippet(list->body) +
                          "); is this an S3 gateway?");
  }
  return {ProbeOutcome::kHealthy, "healthy: " + where + " health and signed ListBuckets OK"};
}

}  // namespace rdmastack::s3
