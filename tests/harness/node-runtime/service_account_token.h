#pragma once
// Projected ServiceAccount tokens: a TokenRequest bound to the pod (so the token dies with it and
// a TokenReview names the pod and its node), with the audience and lifetime the pod asks for,
// renewed as the kubelet renews them: after 80% of the lifetime, or after 24 hours.

#include <chrono>
#include <string>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::k8s {
class Client;
}

namespace rdmastack::sim {

struct TokenRequestSpec {
  std::string ns;
  std::string service_account;
  std::string audience;  // empty = the API server's own audiences
  int64_t expiration_seconds = 3600;
  std::string pod_name;
  std::string pod_uid;
};

struct IssuedToken {
  std::string token;
  Clock::WallTime issued_at;
  Clock::WallTime expires_at;
};

class TokenIssuer {
 public:
  virtual ~TokenIssuer() = default;
  virtual StatusOr<IssuedToken> Issue(const TokenRequestSpec& spec) = 0;
};

class ApiTokenIssuer final : public TokenIssuer {
 public:
  ApiTokenIssuer(k8s::Client& client, Clock& clock) : client_(client), clock_(clock) {}
  StatusOr<IssuedToken> Issue(const TokenRequestSpec& spec) override;

 private:
  k8s::Client& client_;
  Clock& clock_;
};

bool TokenNeedsRefresh(const IssuedToken& token, Clock::WallTime now);

// "2026-12-01T04:50:00Z" (RFC 3339, UTC, seconds).
std::string FormatTimestamp(Clock::WallTime t);
StatusOr<Clock::WallTime> ParseTimestamp(const std::string& text);

}  // namespace rdmastack::sim
