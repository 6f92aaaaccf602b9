#include "controllers/gatewaypool/gatewaypool_controllers.h"

#include "controllers/common/cache_transforms.h"
#include "controllers/common/named_watches.h"
#include "controllers/common/render.h"
#include "controllers/gatewaypool/compatibility_source.h"
#include "controllers/gatewaypool/gateway_validator.h"
#include "controllers/gatewaypool/gatewaypool_reconciler.h"
#include "controllers/gatewaypool/pool_index.h"
#include "controllers/gatewaypool/track.h"
#include "crds/types/kinds.h"

namespace rdmastack::gatewaypool {

struct GatewayPoolControllers::Parts {
  std::unique_ptr<CompatibilitySource> compatibility;
  std::unique_ptr<GatewayValidator> validator;
  std::unique_ptr<GatewayPoolReconciler> reconciler;
};

GatewayPoolControllers::GatewayPoolControllers() : parts_(std::make_unique<Parts>()) {}
GatewayPoolControllers::~GatewayPoolControllers() = default;

std::function<std::string(std::string_view)> GatewayPoolControllers::ClientLibrarySha256() const {
  const CompatibilitySource* source = parts_->compatibility.get();
  return [source](std::string_view version) -> std::string {
    StatusOr<std::shared_ptr<const compat::CompatibilityMatrix>> m = source->Current();
    if (!m.ok()) return "";
    const compat::ClientLibrary* lib = (*m)->FindClientLibrary(version);
    return lib == nullptr ? "" : lib->sha256;
  };
}

StatusOr<std::unique_ptr<GatewayPoolControllers>> GatewayPoolControllers::Create(
    runtime::Manager& manager, Clock& clock, controllers::NodeCache& node_cache,
    GatewayPoolControllerOptions options) {
  std::unique_ptr<GatewayPoolControllers> self(new GatewayPoolControllers());
  Parts& parts = *self->parts_;
  runtime::Informer& pools = controllers::CachedInformer(manager, crd::kinds::GatewayPool());
  RDMASTACK_RETURN_IF_ERROR(controllers::AddIndexes(pools, PoolIndexes()));
  runtime::Informer& nodes = node_cache.informer();
  runtime::Informer& rdmanodes = controllers::CachedInformer(manager, crd::kinds::RdmaNode());
  // Namespaced kinds: from the served namespaces only when the admin lists them.
  const std::vector<std::string>& served = options.render.node_pods.tenancy.namespaces;
  using controllers::CachedIn;
  // Secrets by name only: those the pools name (named_watches.h).
  const controllers::NamespacedCache secrets = controllers::SecretsByName(manager, served);
  const controllers::NamespacedCache daemonsets =
      CachedIn(manager, served, k8s::kinds::DaemonSet(), OwnedSelector());
  const controllers::NamespacedCache pods =
      CachedIn(manager, served, k8s::kinds::Pod(), OwnedSelector(), controllers::PodReadiness());
  const controllers::NamespacedCache services =
      CachedIn(manager, served, k8s::kinds::Service(), OwnedSelector());
  const controllers::NamespacedCache slices =
      CachedIn(manager, served, k8s::kinds::EndpointSlice(), OwnedSelector());

  const runtime::Store* configmaps = nullptr;
  std::string configmap_key;
  runtime::Informer* configmap_informer = nullptr;
  if (!options.compatibility_configmap.empty()) {
    const runtime::Request ref = runtime::Request::FromKey(options.compatibility_configmap);
    if (ref.ns.empty() || ref.name.empty())
      return InvalidArgumentError("--compatibility-configmap must be NAMESPACE/NAME, not '" +
                                  options.compatibility_configmap + "'");
    runtime::InformerOptions o;
    o.type = k8s::kinds::ConfigMap();
    o.ns = ref.ns;
    o.field_selector = "metadata.name=" + ref.name;
    configmap_informer = &manager.cache().Get(o);
    configmaps = &configmap_informer->store();
    configmap_key = ref.Key();
  }
  RDMASTACK_ASSIGN_OR_RETURN(
      parts.compatibility,
      CompatibilitySource::Create(options.compatibility_file, configmaps, configmap_key));

  if (options.upgrade_validation == "s3") {
    parts.validator = MakeS3Validator(std::chrono::seconds(3));
  } else if (options.upgrade_validation == "pod-ready") {
    parts.validator = MakePodReadyValidator();
  } else {
    return InvalidArgumentError("--upgrade-validation must be s3 or pod-ready, not '" +
                                options.upgrade_validation + "'");
  }
  GatewayPoolStores stores{pools.store(), nodes.store(), rdmanodes.store(),
                           secrets,       daemonsets,    pods,
                           services,      slices,        node_cache.coverage()};
  parts.reconciler = std::make_unique<GatewayPoolReconciler>(
      manager.client(), manager.events(), clock, manager.api_reachability(), stores,
      *parts.compatibility, options.render, *parts.validator);
  runtime::Controller& controller = manager.NewController("gatewaypool", *parts.reconciler);

  // Not for our own status writes: each would start another pass at once and, during a rollout,
  // chain status writes at the API server's pace instead of the batch's.
  controller.Watch(pools, runtime::EnqueueSelf(), runtime::NotStatusOnly());
  // A pool's spec or its deletion can make or end a collision with a pool on one of its nodes
  // (pool_conflict.h): the newer one must hear of it.
  controller.Watch(pools, EnqueuePoolsSharingNodes(pools.store(), nodes.store()),
                   runtime::NotStatusOnly());
  secrets.Watch(controller, runtime::EnqueueAllInNamespace(pools.store()));
  if (configmap_informer != nullptr)
    controller.Watch(*configmap_informer, runtime::EnqueueAll(pools.store()));
  // What the pool owns changes in bursts during a rollout (pods turning Ready, the DaemonSet's
  // status, our own EndpointSlice writes): gather those changes for a moment and reconcile once.
  runtime::WatchOptions gathered;
  gathered.batch = [&pools, batch = options.pod_batch,
                    upgrade_batch = options.upgrade_batch](const runtime::Request& r) {
    const runtime::ObjectPtr pool = pools.store().Get(r.Key());
    return pool != nullptr && pool->Has({"status", "currentUpgrade"}) ? upgrade_batch : batch;
  };
  // Node labels, cordons and agent verdicts change one node at a time, a thousand at once when the
  // pool's own label writes come back: the pools of that node (pool_index.h), gathered the same
  // way.
  runtime::WatchOptions node_changes = gathered;
  node_changes.predicate =
      runtime::UpdatesWhere([](const k8s::JsonObject& old, const k8s::JsonObject& now) {
        return old.Labels() != now.Labels() || old.Annotations() != now.Annotations() ||
               old.GetBool({"spec", "unschedulable"}) != now.GetBool({"spec", "unschedulable"});
      });
  controller.Watch(nodes, EnqueuePoolsOfNode(pools.store()), node_changes);
  controller.Watch(rdmanodes, controllers::EnqueueOwnersOfRdmaNode(pools.store(), nodes.store()),
                   gathered);
  runtime::WatchOptions owned = gathered;
  owned.on_delete = [&parts](const k8s::JsonObject& o) { parts.reconciler->ObjectDeleted(o); };
  for (const controllers::NamespacedCache* cache : {&daemonsets, &pods, &services, &slices})
    cache->Watch(controller, runtime::EnqueueByLabel(kPoolLabel), owned);
  return self;
}

}  // namespace rdmastack::gatewaypool
