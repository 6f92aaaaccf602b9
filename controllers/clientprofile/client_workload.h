#pragma once
// What a ClientProfile runs on its nodes (pure): the client data-plane DaemonSet, scheduled onto
// the nodes the operator labels eligible, and the ConfigMap with the pool's ready S3 endpoints
// that every client pod mounts and follows (docs/operator.md "GPU clients").

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controllers/common/node_pod_policy.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::clientprofile {

// Where the client writes its configuration and library on the host, one directory per profile
// (InstallDir). No pod mounts this root: each client, uninstall and workload pod mounts its own
// profile's directory only, so nothing a profile's library image steers the client into can
// reach another profile's files.
inline constexpr char kHostInstallRoot[] = "/var/lib/rdmastack/client";
// Where the client and uninstall containers see their profile's directory (--install-dir); the
// host's path goes in --host-install-dir, for the files applications read.
inline constexpr char kInstallMountPath[] = "/var/lib/rdmastack-client/install";
inline constexpr char kEndpointsKey[] = "endpoints.json";
inline constexpr char kClientContainer[] = "client";

struct ClientRenderOptions {
  std::string image;                              // the rdmastack-client program
  std::map<std::string, std::string> pod_labels;  // e.g. rdmastack.io/simulate=run
  std::vector<std::string> extra_args;            // appended to `rdmastack-client run`
  // The sha256 the compatibility data pins for libcuobjclient.so.<version> ("" = not pinned):
  // rendered as --library-sha256, so the client refuses other bytes (LibraryDigestMismatch).
  std::function<std::string(std::string_view version)> client_library_sha256;
  controllers::NodePodPolicy node_pods;  // pull secrets and priority class (the chart's)
  // What the library image may put on each node: bytes per file and per image, rendered as
  // --max-library-file-size / --max-library-size (0 = the client's default).
  int64_t library_max_file_bytes = 0;
  int64_t library_max_bytes = 0;
};

std::string DaemonSetName(std::string_view profile);
std::string UninstallDaemonSetName(std::string_view profile);
std::string EndpointsConfigMapName(std::string_view profile);
std::string InstallDir(std::string_view ns, std::string_view profile);

// One endpoint a client may send S3 requests to.
struct PoolEndpoint {
  std::string node, address;
  int32_t s3_port = 0;
  std::string library_version;
  std::string rail;  // a multi-rail pool's rail (its slice's label); "" otherwise
  friend bool operator==(const PoolEndpoint&, const PoolEndpoint&) = default;
};
// The ready (and not terminating) endpoints of the pool's EndpointSlices, sorted, one per
// address and port. During a rolling upgrade a node moves from its old port to its new one when
// the operator switches it.
std::vector<PoolEndpoint> ReadyEndpoints(const std::vector<const k8s::JsonObject*>& slices);

// An https pool (s3.tlsSecret) is published with scheme https and `ca_bundle` (its CA, PEM).
k8s::JsonObject RenderEndpointsConfigMap(const crd::ClientProfile& profile,
                                         const crd::GatewayPool& pool,
                                         const std::vector<PoolEndpoint>& endpoints,
                                         const std::string& ca_bundle = "");

// The client DaemonSet, carrying the applied-hash annotation. Fails only on a spec the schema
// should have refused (a maxTransferSize that is no quantity).
StatusOr<k8s::JsonObject> RenderClientDaemonSet(const crd::ClientProfile& profile,
                                                const ClientRenderOptions& options);

// The uninstall DaemonSet (node_retirement.h): `rdmastack-client uninstall` on the nodes whose
// profile label is `uninstall`, Ready once the profile's directory there is empty. Runs as root
// with every capability dropped and only the profile's directory mounted (which therefore stays
// on the host, empty).
k8s::JsonObject RenderUninstallDaemonSet(const crd::ClientProfile& profile,
                                         const ClientRenderOptions& options);

}  // namespace rdmastack::clientprofile
