#pragma once
// Registers the ClientProfile controller with a manager: its informers (profiles, pools, nodes,
// RdmaNodes, Secrets without their values, the pools' EndpointSlices, and the profiles' client
// DaemonSets, ConfigMaps and pods) and what each change re-reconciles.

#include <memory>

#include "base/clock.h"
#include "controllers/clientprofile/client_workload.h"
#include "controllers/common/node_cache.h"
#include "lib/s3/versitygw_admin.h"
#include "operator/runtime/manager.h"

namespace rdmastack::clientprofile {

struct ClientProfileControllerOptions {
  ClientRenderOptions render;
  // Node and agent changes arrive a node at a time (a thousand at once when our own label writes
  // come back): they are gathered this long before the profiles are reconciled.
  Clock::Duration node_batch = std::chrono::seconds(2);
  // The pool's endpoints and the clients' pods: short, because during a pool upgrade the clients'
  // configuration should follow each node's switch promptly.
  Clock::Duration endpoint_batch = std::chrono::milliseconds(250);
  // The most the operator reads of one answer of a gateway's admin API (list-users, ListBuckets,
  // a bucket policy): a gateway is a tenant's image (s3::VersitygwAdmin).
  uint64_t gateway_answer_max_bytes = s3::kDefaultMaxAnswerBytes;
};

class ClientProfileControllers {
 public:
  ClientProfileControllers(runtime::Manager& manager, Clock& clock, controllers::NodeCache& nodes,
                           ClientProfileControllerOptions options);
  ~ClientProfileControllers();
  ClientProfileControllers(const ClientProfileControllers&) = delete;
  ClientProfileControllers& operator=(const ClientProfileControllers&) = delete;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace rdmastack::clientprofile
