#include "controllers/gatewaypool/gateway_validator.h"

#include "controllers/gatewaypool/gateway_daemonset.h"
#include "crds/types/reasons.h"
#include "lib/s3/readiness_probe.h"
#include "lib/s3/s3_client.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;

namespace {

std::string ReasonOf(s3::ProbeOutcome outcome) {
  switch (outcome) {
    case s3::ProbeOutcome::kCredentialsRejected: return reasons::kValidationCredentialsRejected;
    case s3::ProbeOutcome::kConnectionRefused: return reasons::kValidationConnectionRefused;
    case s3::ProbeOutcome::kTimeout: return reasons::kValidationTimeout;
    default: return reasons::kValidationBadResponse;
  }
}

class S3Validator final : public GatewayValidator {
 public:
  explicit S3Validator(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  bool NeedsCredentials() const override { return true; }
  Validation Validate(const ValidationTarget& t) override {
    s3::Endpoint endpoint{t.tls ? "https" : "http", t.ip, static_cast<uint16_t>(t.port)};
    s3::BeastHttpTransport transport(s3::TlsOptions{.ca_pem = t.ca_pem});
    s3::S3Client client(transport, endpoint, {t.access_key_id, t.secret_access_key}, t.region,
                        clock_, timeout_);
    const s3::ProbeResult probe = s3::RunReadinessProbe(client, kHealthPath);
    Validation v;
    v.ok = probe.outcome == s3::ProbeOutcome::kHealthy;
    if (!v.ok) {
      v.reason = ReasonOf(probe.outcome);
      v.message = "the operator's signed ListBuckets against " + endpoint.ToString() +
                  " failed: " + probe.message;
    }
    return v;
  }

 private:
  std::chrono::milliseconds timeout_;
  RealClock clock_;
};

class PodReadyValidator final : public GatewayValidator {
 public:
  bool NeedsCredentials() const override { return false; }
  Validation Validate(const ValidationTarget&) override { return {true, "", ""}; }
};

}  // namespace

std::unique_ptr<GatewayValidator> MakeS3Validator(std::chrono::milliseconds timeout) {
  return std::make_unique<S3Validator>(timeout);
}

std::unique_ptr<GatewayValidator> MakePodReadyValidator() {
  return std::make_unique<PodReadyValidator>();
}

}  // namespace rdmastack::gatewaypool
