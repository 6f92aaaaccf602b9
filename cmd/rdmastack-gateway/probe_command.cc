#include "cmd/rdmastack-gateway/probe_command.h"

#include <iostream>

#include "base/clock.h"
#include "gateway/launcher/refusal.h"

namespace rdmastack::gateway {
namespace {

const std::vector<FlagSpec>& ProbeFlagSpecs() {
  static const std::vector<FlagSpec> specs = {
      {"endpoint", "RDMASTACK_PROBE_ENDPOINT", false,
       "gateway S3 endpoint, http://HOST:PORT or https://HOST:PORT"},
      {"ca-file", "RDMASTACK_PROBE_CA_FILE", false,
       "https: PEM CA bundle for the gateway certificate (system trust store)"},
      {"tls-name", "RDMASTACK_PROBE_TLS_NAME", false,
       "https: the name or IP the certificate must be for (default: the endpoint's host)"},
      {"region", "VGW_REGION", false, "SigV4 region (us-east-1)"},
      {"health-path", "RDMASTACK_GW_HEALTH_PATH", false, "unauthenticated health path (/_/health)"},
      {"timeout-ms", "RDMASTACK_PROBE_TIMEOUT_MS", false, "per-request deadline (5000)"},
  };
  return specs;
}

int Fail(RefusalClass cls, const std::string& message) {
  std::cerr << "rdmastack-gateway probe: " << RefusalClassName(cls) << ": " << message << std::endl;
  return static_cast<int>(cls);
}

}  // namespace

int ProbeExitCode(s3::ProbeOutcome outcome) {
  switch (outcome) {
    case s3::ProbeOutcome::kHealthy: return 0;
    case s3::ProbeOutcome::kCredentialsRejected: return 10;
    case s3::ProbeOutcome::kConnectionRefused: return 11;
    case s3::ProbeOutcome::kTimeout: return 12;
    case s3::ProbeOutcome::kBadResponse: return 13;
  }
  return 13;
}

StatusOr<s3::Credentials> CredentialsFromEnvironment(const Environment& env) {
  s3::Credentials root{FirstNonEmpty(env, {"ROOT_ACCESS_KEY_ID", "ROOT_ACCESS_KEY"}),
                       FirstNonEmpty(env, {"ROOT_SECRET_ACCESS_KEY", "ROOT_SECRET_KEY"})};
  if (!root.access_key_id.empty() && !root.secret_access_key.empty()) return root;
  s3::Credentials aws{FirstNonEmpty(env, {"AWS_ACCESS_KEY_ID"}),
                      FirstNonEmpty(env, {"AWS_SECRET_ACCESS_KEY"})};
  if (!aws.access_key_id.empty() && !aws.secret_access_key.empty()) return aws;
  return UnauthenticatedError(
      "no keys in the environment; set ROOT_ACCESS_KEY_ID and "
      "ROOT_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)");
}

int RunProbeCommand(const std::vector<std::string>& args, const Environment& env) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: rdmastack-gateway probe --endpoint URL [flags]\n"
                << FlagUsage(ProbeFlagSpecs());
      return 0;
    }
  }
  StatusOr<ParsedFlags> flags = ParseFlags(ProbeFlagSpecs(), args, env);
  if (!flags.ok()) return Fail(RefusalClass::kUsage, flags.status().message());
  std::optional<std::string> url = flags->Get("endpoint");
  if (!url) return Fail(RefusalClass::kUsage, "--endpoint (RDMASTACK_PROBE_ENDPOINT) is required");
  StatusOr<s3::Endpoint> endpoint = s3::ParseEndpoint(*url);
  if (!endpoint.ok()) return Fail(RefusalClass::kUsage, endpoint.status().message());
  StatusOr<uint64_t> timeout_ms =
      ParseUnsigned("--timeout-ms", flags->Get("timeout-ms").value_or("5000"), 1, 600000);
  if (!timeout_ms.ok()) return Fail(RefusalClass::kUsage, timeout_ms.status().message());
  StatusOr<s3::Credentials> credentials = CredentialsFromEnvironment(env);
  if (!credentials.ok()) return Fail(RefusalClass::kCredentials, credentials.status().message());

  s3::BeastHttpTransport transport(
      s3::TlsOptions{.ca_file = flags->Get("ca-file").value_or(""),
                     .verify_name = flags->Get("tls-name").value_or("")});
  s3::S3Client client(transport, *endpoint, *credentials,
                      flags->Get("region").value_or("us-east-1"), RealClock::Instance(),
                      std::chrono::milliseconds(*timeout_ms));
  s3::ProbeResult result =
      s3::RunReadinessProbe(client, flags->Get("health-path").value_or("/_/health"));
  if (result.outcome == s3::ProbeOutcome::kHealthy) {
    std::cout << result.message << std::endl;
    return 0;
  }
  std::cerr << "rdmastack-gateway probe: " << result.message << std::endl;
  return ProbeExitCode(result.outcome);
}

}  // namespace rdmastack::gateway
