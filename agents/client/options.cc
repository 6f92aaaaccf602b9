#include "agents/client/options.h"

#include <unistd.h>

#include "base/duration.h"
#include "base/flag_reader.h"
#include "base/host_dir.h"
#include "base/quantity.h"
#include "node/probe/parsers.h"

namespace rdmastack::client {
namespace {

StatusOr<std::chrono::milliseconds> ParsePositiveDuration(const std::string& flag,
                                                          const std::string& value,
                                                          std::chrono::milliseconds max) {
  auto d = ParseDuration(value);
  if (!d.ok()) return InvalidArgumentError(flag + ": " + d.status().message());
  if (*d <= std::chrono::milliseconds(0) || *d > max) {
    return InvalidArgumentError(flag + " '" + value + "' must be above 0 and at most " +
                                FormatDuration(max));
  }
  return *d;
}

// Paths end up inside written files and in "<dir>/<name>" joins: no trailing slash, no newline.
StatusOr<std::string> ParseDir(const std::string& flag, std::string value) {
  if (value.empty()) return InvalidArgumentError(flag + " must not be empty");
  if (value.find_first_of("\n\r") != std::string::npos) {
    return InvalidArgumentError(flag + " must not contain a line break");
  }
  while (value.size() > 1 && value.back() == '/') value.pop_back();
  return value;
}

// A directory the command removes things in: absolute, and never / itself.
Status CheckBelowRoot(const std::string& flag, const std::string& dir) {
  if (dir.front() == '/' && dir != "/") return OkStatus();
  return InvalidArgumentError(flag + " must be an absolute directory below /, got '" + dir + "'");
}

// A byte budget: a quantity above 0 (`64Mi`).
StatusOr<uint64_t> ParseBudget(const std::string& flag, const std::string& value) {
  auto q = ParseByteQuantity(value);
  if (!q.ok()) return InvalidArgumentError(flag + ": " + q.status().message());
  if (*q <= 0) return InvalidArgumentError(flag + " '" + value + "' must be above 0");
  return static_cast<uint64_t>(*q);
}

Status ParseProfile(const std::string& value) {
  const size_t slash = value.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == value.size() ||
      value.find('/', slash + 1) != std::string::npos ||
      value.find_first_of(" \t\n\r=") != std::string::npos) {
    return InvalidArgumentError("--profile must be NAMESPACE/NAME, got '" + value + "'");
  }
  return OkStatus();
}

}  // namespace

StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args,
                                     const std::string& node_env) {
  RunOptions o;
  o.node = node_env;
  o.requirements.role = node::Role::kClient;
  bool have_modprobe = false;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next,
                               ReadFlag(args, &i, {"--live-probes", "--load-peermem"}));
    const std::string& flag = next.flag;
    const std::string& value = next.value;
    node::Requirements& r = o.requirements;
    if (flag == "--live-probes") {
      o.live_probes = value == "true";
    } else if (flag == "--load-peermem") {
      o.load_peermem = value == "true";
    } else if (flag == "--profile") {
      RDMASTACK_RETURN_IF_ERROR(ParseProfile(value));
      o.profile = value;
    } else if (flag == "--node") {
      if (value.empty()) return InvalidArgumentError("--node must not be empty");
      o.node = value;
    } else if (flag == "--root") {
      RDMASTACK_ASSIGN_OR_RETURN(o.root, ParseDir(flag, value));
    } else if (flag == "--ips-file") {
      o.ips_file = value;
    } else if (flag == "--probes-file") {
      o.probes_file = value;
    } else if (flag == "--transport") {
      RDMASTACK_ASSIGN_OR_RETURN(r.transport, node::ParseTransport(value));
    } else if (flag == "--memory-registration") {
      RDMASTACK_ASSIGN_OR_RETURN(r.registration, node::ParseRegistration(value));
    } else if (flag == "--max-transfer-size") {
      auto q = ParseByteQuantity(value);
      if (!q.ok()) return InvalidArgumentError("--max-transfer-size: " + q.status().message());
      r.max_transfer_bytes = *q;
    } else if (flag == "--max-gpu-nic-distance") {
      if (!node::ParsePathType(value, &r.max_gpu_nic_distance)) {
        return InvalidArgumentError("--max-gpu-nic-distance must be PIX, PXB, PHB or SYS, got '" +
                                    value + "'");
      }
    } else if (flag == "--gid-index") {
      if (value == "Auto") {
        r.gid_index = -1;
      } else if (auto n = node::ParseDecimal(value); n.ok() && *n >= 0 && *n <= 65535) {
        r.gid_index = static_cast<int>(*n);
      } else {
        return InvalidArgumentError("--gid-index must be Auto or 0..65535, got '" + value + "'");
      }
    } else if (flag == "--modprobe-command") {
      o.modprobe_command.clear();
      for (std::string_view word : node::SplitNonEmpty(value, ' ')) {
        o.modprobe_command.emplace_back(word);
      }
      if (o.modprobe_command.empty()) {
        return InvalidArgumentError("--modprobe-command must not be empty");
      }
      have_modprobe = true;
    } else if (flag == "--endpoints-file") {
      if (value.empty()) return InvalidArgumentError("--endpoints-file must not be empty");
      o.endpoints_file = value;
    } else if (flag == "--credentials-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.credentials_dir, ParseDir(flag, value));
    } else if (flag == "--install-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.install_dir, ParseDir(flag, value));
    } else if (flag == "--host-install-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.host_install_dir, ParseDir(flag, value));
    } else if (flag == "--library-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.library_dir, ParseDir(flag, value));
    } else if (flag == "--library-sha256") {
      RDMASTACK_RETURN_IF_ERROR(ParseLibraryDigestFlag(value, &o.library_sha256));
    } else if (flag == "--max-library-file-size") {
      RDMASTACK_ASSIGN_OR_RETURN(o.library_budget.max_file_bytes, ParseBudget(flag, value));
    } else if (flag == "--max-library-size") {
      RDMASTACK_ASSIGN_OR_RETURN(o.library_budget.max_total_bytes, ParseBudget(flag, value));
    } else if (flag == "--state-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.state_dir, ParseDir(flag, value));
    } else if (flag == "--interval") {
      RDMASTACK_ASSIGN_OR_RETURN(o.interval,
                                 ParsePositiveDuration(flag, value, std::chrono::hours(1)));
    } else {
      return InvalidArgumentError("unknown flag " + flag);
    }
  }
  if (o.profile.empty()) return InvalidArgumentError("--profile is required (NAMESPACE/NAME)");
  if (o.install_dir.empty()) return InvalidArgumentError("--install-dir is required");
  if (o.host_install_dir.empty()) o.host_install_dir = o.install_dir;
  if (o.host_install_dir.front() != '/') {
    return InvalidArgumentError(
        "--host-install-dir must be absolute: applications on the host "
        "read it from client.env");
  }
  if (o.node.empty()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) o.node = host;
  }
  if (o.node.empty()) return InvalidArgumentError("--node is required (or set NODE_NAME)");
  if (!have_modprobe) o.modprobe_command = {"chroot", o.root, "modprobe", "nvidia_peermem"};
  return o;
}

StatusOr<ReadyOptions> ParseReadyOptions(const std::vector<std::string>& args) {
  ReadyOptions o;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {}));
    if (next.flag == "--state-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.state_dir, ParseDir(next.flag, next.value));
    } else if (next.flag == "--max-age") {
      RDMASTACK_ASSIGN_OR_RETURN(
          o.max_age, ParsePositiveDuration(next.flag, next.value, std::chrono::hours(24)));
    } else {
      return InvalidArgumentError("unknown flag " + next.flag);
    }
  }
  return o;
}

StatusOr<UninstallOptions> ParseUninstallOptions(const std::vector<std::string>& args) {
  UninstallOptions o;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {}));
    if (next.flag == "--install-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.install_dir, ParseDir(next.flag, next.value));
    } else if (next.flag == "--state-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.state_dir, ParseDir(next.flag, next.value));
    } else if (next.flag == "--interval") {
      RDMASTACK_ASSIGN_OR_RETURN(
          o.interval, ParsePositiveDuration(next.flag, next.value, std::chrono::hours(1)));
    } else {
      return InvalidArgumentError("unknown flag " + next.flag);
    }
  }
  if (o.install_dir.empty()) return InvalidArgumentError("--install-dir is required");
  // Only ever a profile's own directory: never the install root or a path outside it.
  RDMASTACK_RETURN_IF_ERROR(CheckBelowRoot("--install-dir", o.install_dir));
  return o;
}

StatusOr<RemoveDirOptions> ParseRemoveDirOptions(const std::vector<std::string>& args) {
  RemoveDirOptions o;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {}));
    if (next.flag == "--root") {
      RDMASTACK_ASSIGN_OR_RETURN(o.root, ParseDir(next.flag, next.value));
    } else if (next.flag == "--name") {
      if (Status plain = CheckPlainName(next.value); !plain.ok())
        return InvalidArgumentError("--name: " + std::string(plain.message()));
      o.name = next.value;
    } else if (next.flag == "--state-dir") {
      RDMASTACK_ASSIGN_OR_RETURN(o.state_dir, ParseDir(next.flag, next.value));
    } else if (next.flag == "--interval") {
      RDMASTACK_ASSIGN_OR_RETURN(
          o.interval, ParsePositiveDuration(next.flag, next.value, std::chrono::hours(1)));
    } else {
      return InvalidArgumentError("unknown flag " + next.flag);
    }
  }
  if (o.root.empty() || o.name.empty())
    return InvalidArgumentError("--root and --name are required");
  RDMASTACK_RETURN_IF_ERROR(CheckBelowRoot("--root", o.root));
  return o;
}

}  // namespace rdmastack::client
