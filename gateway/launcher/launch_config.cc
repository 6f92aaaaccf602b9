#include "gateway/launcher/launch_config.h"

#include <arpa/inet.h>

#include <filesystem>

#include "gateway/launcher/cufile_config.h"

namespace rdmastack::gateway {
namespace {

// Port conventions from the field setup: S3 7070 plain / 7070+major for cuObject; RDMA 19099+major.
constexpr uint16_t kHttpS3Port = 7070;
constexpr uint16_t kRdmaPortBase = 19099;

Status ValidateListenAddress(const std::string& addr) {
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, addr.c_str(), &v4) == 1) return OkStatus();
  if (addr.size() > 2 && addr.front() == '[' && addr.back() == ']' &&
      inet_pton(AF_INET6, addr.substr(1, addr.size() - 2).c_str(), &v6) == 1) {
    return OkStatus();
  }
  return InvalidArgumentError("listen address '" + addr +
                              "' must be an IPv4 literal (0.0.0.0, 127.0.0.1) or [IPv6]");
}

Status ValidateHealthPath(const std::string& path) {
  if (path.size() < 2 || path.front() != '/' || path.find_first_of(" ?#") != std::string::npos) {
    return InvalidArgumentError("health path '" + path +
                                "' must start with '/' and contain no "
                                "spaces, '?' or '#' (e.g. /_/health)");
  }
  return OkStatus();
}

}  // namespace

const std::vector<FlagSpec>& RunFlagSpecs() {
  static const std::vector<FlagSpec> specs = {
      {"mode", "RDMASTACK_GW_MODE", false, "rdma (vgwrdma) or http (plain versitygw)"},
      {"gateway-binary", "RDMASTACK_GW_BINARY", false,
       "gateway executable (default /usr/local/bin/vgwrdma or /usr/local/bin/versitygw)"},
      {"listen-address", "RDMASTACK_GW_LISTEN_ADDRESS", false, "S3 listen IP (default 0.0.0.0)"},
      {"s3-port", "RDMASTACK_GW_S3_PORT", false, "S3 port (default 7070 http, 7070+major rdma)"},
      {"gwroot-template", "RDMASTACK_GW_GWROOT_TEMPLATE", false,
       "posix backend root; {node} is replaced by the node name"},
      {"node-name", "NODE_NAME", false, "this node's name (downward API spec.nodeName)"},
      {"create-gwroot", "RDMASTACK_GW_CREATE_GWROOT", true, "create the backend root if missing"},
      {"require-mount", "RDMASTACK_GW_REQUIRE_MOUNT", false,
       "refuse unless the backend root is on another file system than this directory (one on "
       "the node's system disk)"},
      {"metadata", "RDMASTACK_GW_METADATA", false,
       "where the posix backend keeps object metadata: Xattr (user xattrs, checked first), "
       "Sidecar (--sidecar-template) or None (versitygw --nometa); default Xattr"},
      {"sidecar-template", "RDMASTACK_GW_SIDECAR_TEMPLATE", false,
       "metadata Sidecar: the metadata directory; {node} is replaced by the node name"},
      {"health-path", "RDMASTACK_GW_HEALTH_PATH", false, "unauthenticated health path (/_/health)"},
      {"tls-cert", "RDMASTACK_GW_TLS_CERT", false,
       "PEM certificate chain the S3 port serves over HTTPS; reloaded when the file changes"},
      {"tls-key", "RDMASTACK_GW_TLS_KEY", false, "PEM private key of --tls-cert"},
      {"rdma-select", "RDMASTACK_GW_RDMA_SELECT", false,
       "rdma: interface name (bond0) or IPv4 CIDR (100.64.0.0/16) holding the RDMA IP"},
      {"rail", "RDMASTACK_GW_RAIL", false,
       "rdma: the rail this gateway serves (multi-rail pools); its port may be down at start"},
      {"rdma-port", "RDMASTACK_GW_RDMA_PORT", false,
       "rdma: RDMA listen port (default 19099+major)"},
      {"host-root", "RDMASTACK_HOST_ROOT", false, "rdma: where the host's /sys is visible (/)"},
      {"ips-file", "RDMASTACK_GW_IPS_FILE", false,
       "rdma: '<ifname> <ip>/<prefix>' lines instead of getifaddrs (fixtures)"},
      {"server-lib-dir", "RDMASTACK_GW_SERVER_LIB_DIR", false,
       "rdma: directory holding libcuobjserver.so.<version>"},
      {"server-lib-version", "RDMASTACK_GW_SERVER_LIB_VERSION", false,
       "rdma: pinned full library version (1.2.0.68)"},
      {"server-lib-major", "RDMASTACK_GW_SERVER_LIB_MAJOR", false,
       "rdma: pinned library major (1)"},
      {"server-lib-sha256", "RDMASTACK_GW_SERVER_LIB_SHA256", false,
       "rdma: sha256 (hex) the pinned library file must have; unset = not checked"},
      {"gateway-build", "RDMASTACK_GW_BUILD", false,
       "rdma: gateway build name; checked against the compatibility file when set"},
      {"compatibility", "RDMASTACK_GW_COMPATIBILITY_FILE", false,
       "rdma: compatibility data file (/etc/rdmastack/compatibility.yaml)"},
      {"pool-buf-size", "VGW_POOL_BUF_SIZE", false, "rdma: bytes per pinned buffer (1073741824)"},
      {"pool-buf-count", "VGW_POOL_BUF_COUNT", false, "rdma: pinned buffers (4)"},
      {"config-dir", "RDMASTACK_GW_CONFIG_DIR", false,
       "rdma: writable directory for cufile.json (/run/rdmastack-gateway)"},
      {"cufile-log-dir", "RDMASTACK_GW_CUFILE_LOG_DIR", false,
       "rdma: cufile log dir (<config-dir>/log)"},
      {"cufile-log-level", "RDMASTACK_GW_CUFILE_LOG_LEVEL", false,
       "rdma: ERROR|WARN|INFO|DEBUG|TRACE (ERROR)"},
      {"dry-run", "RDMASTACK_GW_DRY_RUN", true,
       "run every check, print the exec plan, do not exec"},
  };
  return specs;
}

StatusOr<LaunchConfig> ParseLaunchConfig(const std::vector<std::string>& args,
                                         const Environment& env) {
  RDMASTACK_ASSIGN_OR_RETURN(ParsedFlags f, ParseFlags(RunFlagSpecs(), args, env));
  LaunchConfig c;
  std::string mode = f.Get("mode").value_or("");
  if (mode == "rdma") {
    c.mode = GatewayMode::kRdma;
  } else if (mode == "http") {
    c.mode = GatewayMode::kHttp;
  } else {
    return InvalidArgumentError("--mode (RDMASTACK_GW_MODE) must be rdma or http, got '" + mode +
                                "'");
  }
  const bool rdma = c.mode == GatewayMode::kRdma;
  auto required = [&](const std::string& name) -> StatusOr<std::string> {
    std::optional<std::string> v = f.Get(name);
    if (!v || v->empty()) {
      std::string env_name;
      for (const FlagSpec& s : RunFlagSpecs()) {
        if (s.name == name) env_name = s.env;
      }
      return InvalidArgumentError("--" + name + " (" + env_name + ") is required" +
                                  (rdma ? " in rdma mode" : ""));
    }
    return *v;
  };

  c.gateway_binary = f.Get("gateway-binary")
                         .value_or(rdma ? "/usr/local/bin/vgwrdma" : "/usr/local/bin/versitygw");
  c.listen_address = f.Get("listen-address").value_or("0.0.0.0");
  RDMASTACK_RETURN_IF_ERROR(ValidateListenAddress(c.listen_address));
  RDMASTACK_ASSIGN_OR_RETURN(c.gwroot_template, required("gwroot-template"));
  c.node_name = f.Get("node-name").value_or("");
  c.create_gwroot = f.Switch("create-gwroot");
  c.require_mount_apart_from = f.Get("require-mount").value_or("");
  RDMASTACK_ASSIGN_OR_RETURN(c.metadata, ParseMetadataMode(f.Get("metadata").value_or("Xattr")));
  c.sidecar_template = f.Get("sidecar-template").value_or("");
  if ((c.metadata == MetadataMode::kSidecar) == c.sidecar_template.empty())
    return InvalidArgumentError(
        "--sidecar-template (RDMASTACK_GW_SIDECAR_TEMPLATE) goes with --metadata Sidecar, and "
        "only with it: give both, or neither");
  c.health_path = f.Get("health-path").value_or("/_/health");
  RDMASTACK_RETURN_IF_ERROR(ValidateHealthPath(c.health_path));
  c.tls_cert = f.Get("tls-cert").value_or("");
  c.tls_key = f.Get("tls-key").value_or("");
  if (c.tls_cert.empty() != c.tls_key.empty())
    return InvalidArgumentError(
        "--tls-cert (RDMASTACK_GW_TLS_CERT) and --tls-key (RDMASTACK_GW_TLS_KEY) go together: "
        "give both for HTTPS, or neither");
  c.dry_run = f.Switch("dry-run");

  if (rdma) {
    RDMASTACK_ASSIGN_OR_RETURN(c.rdma_select, required("rdma-select"));
    c.rail = f.Get("rail").value_or("");
    RDMASTACK_ASSIGN_OR_RETURN(c.library.dir, required("server-lib-dir"));
    RDMASTACK_ASSIGN_OR_RETURN(c.library.full_version, required("server-lib-version"));
    RDMASTACK_ASSIGN_OR_RETURN(std::string major, required("server-lib-major"));
    RDMASTACK_ASSIGN_OR_RETURN(uint64_t major_value,
                               ParseUnsigned("--server-lib-major", major, 1, 99));
    c.library.major = static_cast<int>(major_value);
    c.library.sha256 = f.Get("server-lib-sha256").value_or("");
    RDMASTACK_RETURN_IF_ERROR(ValidateLibraryPin(c.library));
    c.gateway_build = f.Get("gateway-build").value_or("");
    c.compatibility_file = f.Get("compatibility").value_or("/etc/rdmastack/compatibility.yaml");
    // The probe library resolves paths below "/", so relative ones are made absolute here.
    c.host_root = std::filesystem::absolute(f.Get("host-root").value_or("/")).string();
    c.ips_file = f.Get("ips-file").value_or("");
    if (!c.ips_file.empty()) c.ips_file = std::filesystem::absolute(c.ips_file).string();
    RDMASTACK_ASSIGN_OR_RETURN(
        c.pool_buf_size,
        ParseUnsigned("--pool-buf-size", f.Get("pool-buf-size").value_or("1073741824"), 4096,
                      1ull << 40));
    RDMASTACK_ASSIGN_OR_RETURN(
        c.pool_buf_count,
        ParseUnsigned("--pool-buf-count", f.Get("pool-buf-count").value_or("4"), 1, 4096));
    c.config_dir = f.Get("config-dir").value_or("/run/rdmastack-gateway");
    c.cufile_log_dir = f.Get("cufile-log-dir").value_or(c.config_dir + "/log");
    c.cufile_log_level = f.Get("cufile-log-level").value_or("ERROR");
    RDMASTACK_RETURN_IF_ERROR(ValidateCufileLogLevel(c.cufile_log_level));
    RDMASTACK_ASSIGN_OR_RETURN(
        uint64_t rdma_port,
        ParseUnsigned("--rdma-port",
                      f.Get("rdma-port").value_or(std::to_string(kRdmaPortBase + c.library.major)),
                      1, 65535));
    c.rdma_port = static_cast<uint16_t>(rdma_port);
  }
  std::string default_s3 = std::to_string(rdma ? kHttpS3Port + c.library.major : kHttpS3Port);
  RDMASTACK_ASSIGN_OR_RETURN(
      uint64_t s3_port,
      ParseUnsigned("--s3-port", f.Get("s3-port").value_or(default_s3), 1, 65535));
  c.s3_port = static_cast<uint16_t>(s3_port);
  return c;
}

}  // namespace rdmastack::gateway
