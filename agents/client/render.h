#pragma once
// The files the client data plane installs on the host for applications, rendered from what the
// node decided and what the pool publishes. Pure functions from ClientConfig to file contents,
// so each rendering is tested exactly; writing them is installer.h's job.

#include <string>
#include <vector>

#include "agents/client/endpoints.h"
#include "agents/client/node_plan.h"

namespace rdmastack::client {

struct ClientConfig {
  std::string profile;           // ns/name
  std::string host_install_dir;  // the install directory as the host's applications see it
  std::string transport;         // GPUDirect | HostMemory
  std::string registration;      // GPUDirect: DMABuf | PeerMem
  std::vector<std::string> rdma_devices;
  std::string rdma_device;
  int gid_index = 0;
  PoolEndpoints pool;
};

// plan must be capable.
ClientConfig MakeClientConfig(const NodePlan& plan, const PoolEndpoints& pool,
                              const std::string& profile, const std::string& host_install_dir);

// cufile.json and cuobj.json (the same text: libcuobjclient <= 1.3 reads CUFILE_ENV_PATH_JSON,
// >= 1.4 CUOBJ_ENV_PATH_JSON). rdma_dev_addr_list names the client's own devices;
// rdma_peer_type only with GPU-direct.
std::string RenderCuobjJson(const ClientConfig& config);
// {"pool","region","endpoints":["http://a:7071",...]}: the pool's S3 URLs for applications.
std::string RenderEndpointsJson(const ClientConfig& config);
// KEY=VALUE lines for applications (docker --env-file, systemd EnvironmentFile, `set -a; .`).
std::string RenderClientEnv(const ClientConfig& config);
// An https pool's CA, for applications (AWS_CA_BUNDLE) and the client's own check.
inline constexpr const char* kCaBundleFile = "ca-bundle.pem";

struct RenderedFile {
  std::string name;  // relative to the install directory
  std::string content;
};
// cufile.json, cuobj.json, endpoints.json, client.env, in that order; then ca-bundle.pem for an
// https pool with a CA.
std::vector<RenderedFile> RenderInstallFiles(const ClientConfig& config);

// Names RenderInstallFiles produces, and the directories the installer owns (lib/, log/).
const std::vector<std::string>& InstalledFileNames();
inline constexpr const char* kLibDir = "lib";
inline constexpr const char* kLogDir = "log";

}  // namespace rdmastack::client
