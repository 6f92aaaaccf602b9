#pragma once
// What `rdmastack-gateway run` is told, from flags or the environment (the DaemonSet sets env).

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "gateway/launcher/backend_metadata.h"
#include "gateway/launcher/flags.h"
#include "gateway/launcher/library_pin.h"

namespace rdmastack::gateway {

enum class GatewayMode { kRdma, kHttp };

struct LaunchConfig {
  GatewayMode mode = GatewayMode::kRdma;
  std::string gateway_binary;
  std::string listen_address = "0.0.0.0";
  uint16_t s3_port = 0;
  std::string gwroot_template;
  std::string node_name;
  bool create_gwroot = false;
  // When set, the backend root must be on another file system than this directory.
  std::string require_mount_apart_from;
  MetadataMode metadata = MetadataMode::kXattr;
  // Sidecar only: the metadata directory, {node} replaced as in the root's template.
  std::string sidecar_template;
  std::string health_path = "/_/health";
  bool dry_run = false;
  // HTTPS on the S3 port: PEM certificate chain and key (both or neither). The launcher then
  // stays as the gateway's parent and has it reload them when the files change (tls_reload.h).
  std::string tls_cert;
  std::string tls_key;

  // rdma mode only
  std::string rdma_select;
  // The rail this gateway serves in a multi-rail pool, "" otherwise. A rail's port may be down at
  // start: the gateway starts anyway (the pool withdraws the rail's endpoints until the link is
  // up), so one dead rail does not keep the node's other rails from serving.
  std::string rail;
  uint16_t rdma_port = 0;
  std::string host_root = "/";
  std::string ips_file;
  LibraryPin library;
  std::string gateway_build;       // name in the compatibility file; "" = skip that check
  std::string compatibility_file;  // used when gateway_build is set
  uint64_t pool_buf_size = 1ull << 30;
  uint64_t pool_buf_count = 4;
  std::string config_dir = "/run/rdmastack-gateway";
  std::string cufile_log_dir;  // default <config_dir>/log
  std::string cufile_log_level = "ERROR";

  uint64_t PoolBytes() const { return pool_buf_size * pool_buf_count; }
};

const std::vector<FlagSpec>& RunFlagSpecs();

// Usage errors (InvalidArgument) say which flag/env is wrong.
StatusOr<LaunchConfig> ParseLaunchConfig(const std::vector<std::string>& args,
                                         const Environment& env);

}  // namespace rdmastack::gateway
