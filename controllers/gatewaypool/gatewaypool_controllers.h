#pragma once
// Registers the GatewayPool controller with a manager: its informers (pools, nodes, RdmaNodes,
// Secrets without their values, the pools' DaemonSets, pods, Services and EndpointSlices, and the
// compatibility ConfigMap when one is configured) and what each change re-reconciles.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "controllers/common/node_cache.h"
#include "controllers/gatewaypool/gateway_daemonset.h"
#include "operator/runtime/manager.h"

namespace rdmastack::gatewaypool {

struct GatewayPoolControllerOptions {
  GatewayRenderOptions render;
  std::string compatibility_file;       // "" = the built-in copy
  std::string compatibility_configmap;  // "namespace/name"; wins over the file
  // Changes of what a pool owns (pods, its DaemonSets, Service, EndpointSlices) are gathered for
  // this long before the pool is reconciled, so that a rollout over many nodes writes its
  // endpoints and status in batches rather than once per pod. It is also the most that a pod's
  // change waits to reach the EndpointSlices.
  Clock::Duration pod_batch = std::chrono::seconds(2);
  // The same while the pool is upgrading: each node's move takes several passes (new pod Ready,
  // endpoint published, old pod gone), and the batch would add to every one of them.
  Clock::Duration upgrade_batch = std::chrono::milliseconds(250);
  // How a node's new gateway is checked before clients move to it during an upgrade: "s3" (the
  // operator's signed ListBuckets against the node) or "pod-ready" (the pod's Ready condition).
  std::string upgrade_validation = "s3";
};

class GatewayPoolControllers {
 public:
  static StatusOr<std::unique_ptr<GatewayPoolControllers>> Create(
      runtime::Manager& manager, Clock& clock, controllers::NodeCache& nodes,
      GatewayPoolControllerOptions options);
  ~GatewayPoolControllers();

  // The sha256 the current compatibility data pins for libcuobjclient.so.<version>, "" when it
  // pins none or the data cannot be read (the ClientProfile controller renders it for the
  // clients). Valid while this object lives.
  std::function<std::string(std::string_view version)> ClientLibrarySha256() const;

 private:
  GatewayPoolControllers();
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace rdmastack::gatewaypool
