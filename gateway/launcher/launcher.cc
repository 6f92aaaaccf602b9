#include "gateway/launcher/launcher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "base/atomic_file.h"
#include "base/host_dir.h"
#include "gateway/launcher/backend_metadata.h"
#include "gateway/launcher/cufile_config.h"
#include "gateway/launcher/gwroot.h"
#include "gateway/launcher/library_pin.h"
#include "gateway/launcher/rdma_address.h"
#include "gateway/launcher/tls_reload.h"
#include "lib/compat/compatibility.h"
#include "lib/compat/library_digest.h"

namespace rdmastack::gateway {
namespace {

Status PrepareConfigDir(const LaunchConfig& config) {
  for (const std::string& dir : {config.config_dir, config.cufile_log_dir}) {
    const std::string path = std::filesystem::absolute(dir).lexically_normal().string();
    if (StatusOr<HostDir> d = HostDir::Open(path, /*create=*/true); !d.ok()) {
      return PermissionDeniedError("cannot create " + dir + ": " + d.status().message() +
                                   "; mount a writable directory (emptyDir) at --config-dir");
    }
  }
  return OkStatus();
}

// The declared pair must be allowed by the compatibility file, as the operator checked it.
Status CheckDeclaredCompatibility(const LaunchConfig& config) {
  if (config.gateway_build.empty()) return OkStatus();
  StatusOr<compat::CompatibilityMatrix> matrix =
      compat::LoadCompatibilityFile(config.compatibility_file);
  if (!matrix.ok()) return matrix.status();
  Status s = matrix->CheckGatewayLibrary(config.gateway_build, config.library.full_version);
  if (s.ok()) return s;
  return Status(s.code(), "compatibility file " + config.compatibility_file + ": " + s.message() +
                              "; deploy a gateway build listed for libcuobjserver " +
                              config.library.full_version);
}

// rdma mode: the declared pair, the library pins, the node's RDMA address and the memory lock.
// Yields the RDMA IPv4 the gateway will bind, or the first refusal.
std::variant<std::string, Refusal> CheckRdmaNode(const LaunchConfig& config, const LauncherIo& io) {
  if (Status s = CheckDeclaredCompatibility(config); !s.ok()) {
    return Refuse(RefusalClass::kLibraryPin, s);
  }
  if (Status s = VerifyLibraryPin(config.library, config.gateway_binary); !s.ok()) {
    return Refuse(RefusalClass::kLibraryPin, s);
  }
  if (Status s = VerifyLibraryBytes(config.library); !s.ok()) {
    return Refuse(compat::IsLibraryDigestMismatch(s) ? RefusalClass::kLibraryDigest
                                                     : RefusalClass::kLibraryPin,
                  s);
  }
  StatusOr<RdmaSelector> selector = ParseRdmaSelector(config.rdma_select);
  if (!selector.ok()) return Refuse(RefusalClass::kUsage, selector.status());
  StatusOr<RdmaAddress> address = ProbeRdmaAddress(*selector, config.host_root, config.ips_file,
                                                   /*allow_port_down=*/!config.rail.empty());
  if (!address.ok()) return Refuse(RefusalClass::kRdmaAddress, address.status());
  if (!address->port_down.empty()) {
    // The pool withdraws this rail's endpoints while its link is down (RailDown); the node's
    // other rails serve meanwhile.
    std::fprintf(stderr, "rdmastack-gateway: rail %s starts with its link down: %s\n",
                 config.rail.c_str(), address->port_down.c_str());
  }

  StatusOr<MemlockFacts> memlock = io.read_memlock();
  if (!memlock.ok()) return Refuse(RefusalClass::kMemoryLock, memlock.status());
  if (Status s = CheckMemlock(*memlock, config.PoolBytes()); !s.ok()) {
    return Refuse(RefusalClass::kMemoryLock, s);
  }
  return address->ipv4;
}

// Xattr: the root's file system keeps user attributes. Sidecar: the metadata directory, apart
// from the root, under the same mount rule, made like the root. None: nothing to check.
std::variant<BackendDirs, Refusal> PrepareMetadata(const LaunchConfig& config,
                                                   const std::string& gwroot) {
  BackendDirs dirs{gwroot, ""};
  if (config.metadata == MetadataMode::kXattr) {
    StatusOr<HostDir> root = HostDir::Open(gwroot, /*create=*/false);
    if (!root.ok()) return Refuse(RefusalClass::kFilesystem, root.status());
    Status s = CheckUserXattr(*root);
    if (s.code() == StatusCode::kFailedPrecondition)
      return Refuse(RefusalClass::kBackendMetadata, s);
    if (!s.ok()) return Refuse(RefusalClass::kFilesystem, s);
    return dirs;
  }
  if (config.metadata != MetadataMode::kSidecar) return dirs;
  StatusOr<std::string> sidecar = ExpandGwrootTemplate(config.sidecar_template, config.node_name);
  if (!sidecar.ok())
    return Refuse(RefusalClass::kUsage,
                  Status(sidecar.status().code(),
                         "--sidecar-template: " + std::string(sidecar.status().message())));
  if (Status s = CheckSidecarApart(gwroot, *sidecar); !s.ok())
    return Refuse(RefusalClass::kUsage, s);
  if (!config.require_mount_apart_from.empty()) {
    if (Status s = CheckMountedApartFrom(*sidecar, config.require_mount_apart_from); !s.ok())
      return Refuse(RefusalClass::kFilesystem, s);
  }
  if (Status s = EnsureGwroot(*sidecar, config.create_gwroot); !s.ok())
    return Refuse(RefusalClass::kFilesystem,
                  Status(s.code(), "metadata sidecar: " + std::string(s.message())));
  dirs.sidecar = *sidecar;
  return dirs;
}

}  // namespace

Status CheckRootCredentials(const Environment& env) {
  const bool access = !FirstNonEmpty(env, {"ROOT_ACCESS_KEY_ID", "ROOT_ACCESS_KEY"}).empty();
  const bool secret = !FirstNonEmpty(env, {"ROOT_SECRET_ACCESS_KEY", "ROOT_SECRET_KEY"}).empty();
  if (access && secret) return OkStatus();
  std::string missing = !access && !secret ? "ROOT_ACCESS_KEY_ID and ROOT_SECRET_ACCESS_KEY"
                        : !access          ? "ROOT_ACCESS_KEY_ID"
                                           : "ROOT_SECRET_ACCESS_KEY";
  return UnauthenticatedError(
      missing +
      " not set; put the gateway root keys in the environment "
      "from the credentials Secret (secretKeyRef), never on the command line");
}

ExecPlan BuildExecPlan(const LaunchConfig& config, const BackendDirs& backend,
                       const std::string& rdma_ip, const Environment& env) {
  ExecPlan plan;
  plan.binary = config.gateway_binary;
  // Global flags precede the backend subcommand and its flags precede the root, as urfave/cli
  // requires.
  plan.argv = {config.gateway_binary, "--port",
               config.listen_address + ":" + std::to_string(config.s3_port), "posix"};
  if (config.metadata == MetadataMode::kSidecar) {
    plan.argv.insert(plan.argv.end(), {"--sidecar", backend.sidecar});
  } else if (config.metadata == MetadataMode::kNone) {
    plan.argv.push_back("--nometa");
  }
  plan.argv.push_back(backend.root);
  plan.env_overrides["VGW_HEALTH"] = config.health_path;
  if (!config.tls_cert.empty()) {
    plan.env_overrides["VGW_CERT"] = config.tls_cert;
    plan.env_overrides["VGW_KEY"] = config.tls_key;
  }
  if (config.mode == GatewayMode::kHttp) return plan;

  plan.cufile_json_path = config.config_dir + "/cufile.json";
  plan.env_overrides["VGW_RDMA_IP"] = rdma_ip;
  plan.env_overrides["VGW_RDMA_PORT"] = std::to_string(config.rdma_port);
  plan.env_overrides["VGW_POOL_BUF_SIZE"] = std::to_string(config.pool_buf_size);
  plan.env_overrides["VGW_POOL_BUF_COUNT"] = std::to_string(config.pool_buf_count);
  plan.env_overrides["CUFILE_ENV_PATH_JSON"] = plan.cufile_json_path;
  std::string ld = config.library.dir;
  if (auto it = env.find("LD_LIBRARY_PATH"); it != env.end() && !it->second.empty()) {
    ld += ":" + it->second;
  }
  plan.env_overrides["LD_LIBRARY_PATH"] = ld;
  return plan;
}

PrepareResult PrepareLaunch(const LaunchConfig& config, const Environment& env,
                            const LauncherIo& io) {
  if (Status s = CheckRootCredentials(env); !s.ok()) return Refuse(RefusalClass::kCredentials, s);

  StatusOr<std::string> gwroot = ExpandGwrootTemplate(config.gwroot_template, config.node_name);
  if (!gwroot.ok()) return Refuse(RefusalClass::kUsage, gwroot.status());
  if (!config.require_mount_apart_from.empty()) {
    if (Status s = CheckMountedApartFrom(*gwroot, config.require_mount_apart_from); !s.ok())
      return Refuse(RefusalClass::kFilesystem, s);
  }
  if (Status s = EnsureGwroot(*gwroot, config.create_gwroot); !s.ok()) {
    return Refuse(RefusalClass::kFilesystem, s);
  }
  std::variant<BackendDirs, Refusal> backend = PrepareMetadata(config, *gwroot);
  if (Refusal* r = std::get_if<Refusal>(&backend)) return *r;
  if (!config.tls_cert.empty()) {
    if (auto tls = CheckTlsFiles({config.tls_cert, config.tls_key}); !tls.ok())
      return Refuse(RefusalClass::kTls, tls.status());
  }
  if (::access(config.gateway_binary.c_str(), X_OK) != 0) {
    return Refusal{RefusalClass::kExec, "gateway binary " + config.gateway_binary +
                                            " is not executable (" + std::strerror(errno) +
                                            "); fix --gateway-binary or the image"};
  }

  std::string rdma_ip;
  if (config.mode == GatewayMode::kHttp) {
    if (Status s = VerifyPlainGateway(config.gateway_binary); !s.ok()) {
      return Refuse(RefusalClass::kLibraryPin, s);
    }
  } else {
    std::variant<std::string, Refusal> node = CheckRdmaNode(config, io);
    if (Refusal* r = std::get_if<Refusal>(&node)) return *r;
    rdma_ip = std::get<std::string>(node);
  }

  ExecPlan plan = BuildExecPlan(config, std::get<BackendDirs>(backend), rdma_ip, env);
  if (!plan.cufile_json_path.empty()) {
    if (Status s = PrepareConfigDir(config); !s.ok()) return Refuse(RefusalClass::kFilesystem, s);
    std::string json = RenderCufileJson({rdma_ip, config.cufile_log_dir, config.cufile_log_level});
    if (Status s = WriteFileAtomically(plan.cufile_json_path, json); !s.ok()) {
      if (s.code() == StatusCode::kPermissionDenied) {
        s = Status(s.code(),
                   s.message() + "; mount a writable directory (emptyDir) at --config-dir");
      }
      return Refuse(RefusalClass::kFilesystem, s);
    }
  }
  return plan;
}

std::string DescribePlan(const ExecPlan& plan) {
  std::string out = "exec " + plan.binary + "\n";
  for (size_t i = 0; i < plan.argv.size(); ++i) {
    out += "argv[" + std::to_string(i) + "] " + plan.argv[i] + "\n";
  }
  for (const auto& [k, v] : plan.env_overrides) out += "env " + k + "=" + v + "\n";
  return out;
}

Refusal ExecGateway(const ExecPlan& plan, const Environment& env) {
  Environment merged = env;
  for (const auto& [k, v] : plan.env_overrides) merged[k] = v;
  std::vector<std::string> env_strings;
  env_strings.reserve(merged.size());
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = plan.argv;
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execve(plan.binary.c_str(), argv.data(), envp.data());
  return Refusal{RefusalClass::kExec, "cannot execute " + plan.binary + ": " +
                                          std::strerror(errno) + "; check the image contents"};
}

int RunLauncher(const std::vector<std::string>& args, const Environment& env) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: rdmastack-gateway run [flags]\n" << FlagUsage(RunFlagSpecs());
      return 0;
    }
  }
  StatusOr<LaunchConfig> config = ParseLaunchConfig(args, env);
  if (!config.ok()) {
    Refusal r = Refuse(RefusalClass::kUsage, config.status());
    std::cerr << r.ToLine() << std::endl;
    return r.exit_code();
  }
  PrepareResult prepared = PrepareLaunch(*config, env);
  if (const Refusal* r = std::get_if<Refusal>(&prepared)) {
    std::cerr << r->ToLine() << std::endl;
    return r->exit_code();
  }
  const ExecPlan& plan = std::get<ExecPlan>(prepared);
  if (config->dry_run) {
    std::cout << DescribePlan(plan);
    return 0;
  }
  if (!config->tls_cert.empty()) {
    return SuperviseWithTlsReload(plan, env, {config->tls_cert, config->tls_key},
                                  std::chrono::seconds(2));
  }
  Refusal failed = ExecGateway(plan, env);
  std::cerr << failed.ToLine() << std::endl;
  return failed.exit_code();
}

}  // namespace rdmastack::gateway
