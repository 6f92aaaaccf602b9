#pragma once
// The operator's own check of a node's new gateway before clients are moved to it: an
// authenticated, read-only request (the gateway's health path, then a SigV4 ListBuckets with the
// pool's keys). Nothing is ever written to the backend. An interface so that clusters where the
// operator cannot reach the gateways, and the kwok benchmark (whose pods have no process behind
// them), can use the pod's Ready condition instead.

#include <chrono>
#include <memory>
#include <string>

#include "controllers/gatewaypool/upgrade_plan.h"

namespace rdmastack::gatewaypool {

struct ValidationTarget {
  std::string ip;
  int32_t port = 0;
  std::string region;
  std::string access_key_id;
  std::string secret_access_key;
  // s3.tlsSecret: HTTPS, the certificate verified against this CA (PEM; empty = system trust).
  bool tls = false;
  std::string ca_pem;
};

class GatewayValidator {
 public:
  virtual ~GatewayValidator() = default;
  // Whether it needs the pool's keys (read from the Secret only when it does).
  virtual bool NeedsCredentials() const = 0;
  virtual Validation Validate(const ValidationTarget& target) = 0;
};

// The signed ListBuckets over HTTP, or HTTPS with the pool's CA (the pool's s3 listener).
std::unique_ptr<GatewayValidator> MakeS3Validator(std::chrono::milliseconds timeout);
// Trusts the pod's Ready condition alone (the gateway's own readiness probe signs the same
// request on the node): for clusters where the operator cannot reach the gateways' host network.
std::unique_ptr<GatewayValidator> MakePodReadyValidator();

}  // namespace rdmastack::gatewaypool
