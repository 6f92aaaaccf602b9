#include "tests/harness/node-runtime/service_account_token.h"

#include <ctime>

#include "operator/k8s/client.h"

namespace rdmastack::sim {

StatusOr<IssuedToken> ApiTokenIssuer::Issue(const TokenRequestSpec& spec) {
  k8s::JsonObject body;
  (void)body.SetString({"apiVersion"}, "authentication.k8s.io/v1");
  (void)body.SetString({"kind"}, "TokenRequest");
  if (!spec.audience.empty()) {
    k8s::JsonObject audience;
    audience.document().SetString(spec.audience.c_str(),
                                  static_cast<rapidjson::SizeType>(spec.audience.size()),
                                  audience.document().GetAllocator());
    (void)body.Append({"spec", "audiences"}, audience);
  }
  (void)body.SetInt({"spec", "expirationSeconds"}, spec.expiration_seconds);
  (void)body.SetString({"spec", "boundObjectRef", "apiVersion"}, "v1");
  (void)body.SetString({"spec", "boundObjectRef", "kind"}, "Pod");
  (void)body.SetString({"spec", "boundObjectRef", "name"}, spec.pod_name);
  (void)body.SetString({"spec", "boundObjectRef", "uid"}, spec.pod_uid);
  const Clock::WallTime now = clock_.WallNow();
  StatusOr<k8s::JsonObject> response = client_.CreateSubresource(
      k8s::kinds::ServiceAccount(), spec.ns, spec.service_account, "token", body);
  if (!response.ok()) {
    return response.status().WithContext("TokenRequest for serviceaccount " + spec.ns + "/" +
                                         spec.service_account);
  }
  IssuedToken issued;
  issued.token = response->GetString({"status", "token"}).value_or("");
  if (issued.token.empty()) return InternalError("TokenRequest returned no token");
  issued.issued_at = now;
  auto expiry = ParseTimestamp(response->GetString({"status", "expirationTimestamp"}).value_or(""));
  issued.expires_at = expiry.ok() ? *expiry : now + std::chrono::seconds(spec.expiration_seconds);
  return issued;
}

bool TokenNeedsRefresh(const IssuedToken& token, Clock::WallTime now) {
  const auto lifetime = token.expires_at - token.issued_at;
  return now >= token.issued_at + lifetime * 8 / 10 ||
         now >= token.issued_at + std::chrono::hours(24);
}

std::string FormatTimestamp(Clock::WallTime t) {
  const std::time_t secs =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

StatusOr<Clock::WallTime> ParseTimestamp(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return InvalidArgumentError("bad timestamp '" + text + "'");
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace rdmastack::sim
