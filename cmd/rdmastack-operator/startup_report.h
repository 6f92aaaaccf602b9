#pragma once
// What the operator logs about itself at start: who the API server says we are (a
// SelfSubjectReview) and which API server we talk to (/version). Both go to the log only; a failure
// is logged, not fatal, so that a restricted identity can still run.

#include <string>

#include "base/status.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"

namespace rdmastack::operator_cmd {

// "system:serviceaccount:rdmastack-system:rdmastack-operator (groups: a, b)"
StatusOr<std::string> WhoAmI(k8s::Client& client);
// gitVersion from /version, e.g. "v1.36.3".
StatusOr<std::string> ApiServerVersion(const k8s::Config& config);

}  // namespace rdmastack::operator_cmd
