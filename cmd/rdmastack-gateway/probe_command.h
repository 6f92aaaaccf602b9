#pragma once
// `rdmastack-gateway probe --endpoint URL [--region R]`: the readiness check as a command, for the
// pod's exec probe and for the operator's validation step. Exit 0 when healthy; otherwise one line
// on stderr and an exit code per failure class (see docs/gateway.md).

#include <string>
#include <vector>

#include "gateway/launcher/flags.h"
#include "lib/s3/readiness_probe.h"
#include "lib/s3/sigv4.h"

namespace rdmastack::gateway {

int ProbeExitCode(s3::ProbeOutcome outcome);

// Root keys (ROOT_ACCESS_KEY_ID/ROOT_SECRET_ACCESS_KEY or their aliases), else the AWS_* pair.
StatusOr<s3::Credentials> CredentialsFromEnvironment(const Environment& env);

int RunProbeCommand(const std::vector<std::string>& args, const Environment& env);

}  // namespace rdmastack::gateway
