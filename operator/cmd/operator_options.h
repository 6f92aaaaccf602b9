#pragma once
// Command-line flags of rdmastack-operator, named as kubebuilder-generated operators name them.
// Parsing is pure (unit-tested); main.cc acts on the result.

#include <chrono>
#include <string>
#include <vector>

#include "operator/base/logging.h"
#include "operator/base/status.h"

namespace rdmastack::operator_cmd {

struct OperatorOptions {
  std::string kubeconfig;  // "" = in-cluster config, else $KUBECONFIG
  bool leader_elect = false;
  std::string leader_election_namespace;  // "" = the pod's namespace, else rdmastack-system
  std::string leader_election_id = "rdmastack-operator";
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  std::chrono::milliseconds graceful_shutdown_timeout{30'000};
  std::string metrics_bind_address = ":8443";  // "0" disables
  bool metrics_secure = true;
  std::string metrics_cert_dir;                     // "" = self-signed certificate made at start-up
  std::string health_probe_bind_address = ":8081";  // "0" disables
  std::string agent_bind_address = ":9443";
  std::string log_level = "info";
  LogFormat log_format = LogFormat::kText;
  bool show_version = false;
  bool show_help = false;
};

// `args` excludes the program name. Accepts --flag=value and --flag value; a boolean flag alone
// means true. Every error is one line that names the flag.
StatusOr<OperatorOptions> ParseOperatorOptions(const std::vector<std::string>& args);

extern const char* const kOperatorUsage;

}  // namespace rdmastack::operator_cmd
