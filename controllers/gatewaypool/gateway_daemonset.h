#pragma once
// The DaemonSet of one GatewayPool track, following the gateway launch contract (docs/gateway.md
// "Pod contract"): host network, the track's ports, the pinned library copied in by an init
// container, the launcher as entrypoint with env rendered from the spec, root keys from the
// Secret, probes, IPC_LOCK, /dev/infiniband, memory sized from the buffer pool. Pure.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "controllers/common/node_pod_policy.h"
#include "controllers/gatewaypool/track.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

struct GatewayRenderOptions {
  std::map<std::string, std::string> pod_labels;               // e.g. rdmastack.io/simulate=run
  std::vector<std::pair<std::string, std::string>> extra_env;  // appended to the gateway's env
  // Host directories mounted read-only at /host<dir> (beside /host/sys), for fixture hosts.
  std::vector<std::string> host_mounts;
  // Extended resource that grants the RDMA devices (one per gateway); "" = none requested.
  std::string rdma_resource = "rdma/hca_shared_devices_a";
  // Memory above the pinned buffer pool (the gateway's own heap, page cache for the posix backend).
  int64_t memory_headroom_bytes = int64_t{1} << 30;
  // The chart's pull secrets (before the pool's own spec.imagePullSecrets) and priority class.
  controllers::NodePodPolicy node_pods;
  // The operator's client image, which removes a deleted pool's IAM directory (iam_cleanup.h).
  std::string cleanup_image;
};

inline constexpr char kGatewayContainer[] = "gateway";
inline constexpr char kLibraryDir[] = "/opt/rdmastack/cuobjserver";
inline constexpr char kConfigDir[] = "/run/rdmastack-gateway";
inline constexpr char kHealthPath[] = "/_/health";
// Where the gateway sees its s3.tlsSecret (keys: track.h).
inline constexpr char kTlsDir[] = "/etc/rdmastack/s3-tls";
// versitygw's IAM directory in the gateway container (VGW_IAM_DIR).
inline constexpr char kIamDir[] = "/var/lib/rdmastack/iam";
// The node's directory that holds every pool's IAM directory.
inline constexpr char kIamHostRoot[] = "/var/lib/rdmastack/gateway-iam";
// A pool's IAM directory on the node: <root>/<ns>.<pool>.<uid>. The UID makes it this pool's
// alone: a pool deleted and created again under the same name gets a new UID, so an empty
// directory, and never inherits the users of the one before.
inline std::string IamDirName(std::string_view ns, std::string_view pool, std::string_view uid) {
  return std::string(ns) + "." + std::string(pool) + "." + std::string(uid);
}
inline std::string IamHostDir(std::string_view ns, std::string_view pool, std::string_view uid) {
  return std::string(kIamHostRoot) + "/" + IamDirName(ns, pool, uid);
}

// The DaemonSet for `track` of `pool`, carrying the applied-hash annotation. Fails only on a spec
// the schema should have refused (a buffer size that is no quantity, a bad path template), or a
// pool without metadata.uid (never one the API server returns), whose IAM directory would not be
// its own.
StatusOr<k8s::JsonObject> RenderGatewayDaemonSet(const crd::GatewayPool& pool, const Track& track,
                                                 const GatewayRenderOptions& options);

}  // namespace rdmastack::gatewaypool
