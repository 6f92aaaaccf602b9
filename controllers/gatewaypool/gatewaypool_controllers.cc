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

namespace {

// What the controller reads. Namespaced kinds come from the served namespaces only when the
// admin lists them.
struct Informers {
  runtime::Informer* pools = nullptr;
  runtime::Informer* nodes = nullptr;
  runtime::Informer* rdmanodes = nullptr;
  controllers::NamespacedCache secrets;  // by name only: those the pools name (named_watches.h)
  controllers::NamespacedCache daemonsets;
  controllers::NamespacedCache pods;
  controllers::NamespacedCache services;
  controllers::NamespacedCache slices;
};

StatusOr<Informers> OpenInformers(runtime::Manager& manager, controllers::NodeCache& node_cache,
                                  const std::vector<std::string>& served) {
  using controllers::CachedIn;
  runtime::Informer& pools = controllers::CachedInformer(manager, crd::kinds::GatewayPool());
  RDMASTACK_RETURN_IF_ERROR(controllers::AddIndexes(pools, PoolIndexes()));
  runtime::Informer& nodes = node_cache.informer();
  runtime::Informer& rdmanodes = controllers::CachedInformer(manager, crd::kinds::RdmaNode());
  return Informers{
      &pools,
      &nodes,
      &rdmanodes,
      controllers::SecretsByName(manager, served),
      CachedIn(manager, served, k8s::kinds::DaemonSet(), OwnedSelector()),
      CachedIn(manager, served, k8s::kinds::Pod(), OwnedSelector(), controllers::PodReadiness()),
      CachedIn(manager, served, k8s::kinds::Service(), OwnedSelector()),
      CachedIn(manager, served, k8s::kinds::EndpointSlice(), OwnedSelector()),
  };
}

// The compatibility ConfigMap's informer, when one is configured.
struct ConfigMapSource {
  runtime::Informer* informer = nullptr;
  const runtime::Store* store = nullptr;
  std::string key;
};

StatusOr<ConfigMapSource> WatchConfigMap(runtime::Manager& manager, const std::string& configmap) {
  if (configmap.empty()) return ConfigMapSource{};
  const runtime::Request ref = runtime::Request::FromKey(configmap);
  if (ref.ns.empty() || ref.name.empty())
    return InvalidArgumentError("--compatibility-configmap must be NAMESPACE/NAME, not '" +
                                configmap + "'");
  runtime::InformerOptions o;
  o.type = k8s::kinds::ConfigMap();
  o.ns = ref.ns;
  o.field_selector = "metadata.name=" + ref.name;
  ConfigMapSource out;
  out.informer = &manager.cache().Get(o);
  out.store = &out.informer->store();
  out.key = ref.Key();
  return out;
}

StatusOr<std::unique_ptr<GatewayValidator>> MakeValidator(const std::string& mode) {
  if (mode == "s3") return MakeS3Validator(std::chrono::seconds(3));
  if (mode == "pod-ready") return MakePodReadyValidator();
  return InvalidArgumentError("--upgrade-validation must be s3 or pod-ready, not '" + mode + "'");
}

// What a change of each kind re-reconciles.
void WatchChanges(runtime::Controller& controller, const Informers& in,
                  runtime::Informer* configmap, const GatewayPoolControllerOptions& options,
                  GatewayPoolReconciler& reconciler) {
  const runtime::Store& pools = in.pools->store();
  // Not for our own status writes: each would start another pass at once and, during a rollout,
  // chain status writes at the API server's pace instead of the batch's.
  controller.Watch(*in.pools, runtime::EnqueueSelf(), runtime::NotStatusOnly());
  // A pool's spec or its deletion can make or end a collision with a pool on one of its nodes
  // (pool_conflict.h): the newer one must hear of it.
  controller.Watch(*in.pools, EnqueuePoolsSharingNodes(pools, in.nodes->store()),
                   runtime::NotStatusOnly());
  in.secrets.Watch(controller, runtime::EnqueueAllInNamespace(pools));
  if (configmap != nullptr) controller.Watch(*configmap, runtime::EnqueueAll(pools));
  // What the pool owns changes in bursts during a rollout (pods turning Ready, the DaemonSet's
  // status, our own EndpointSlice writes): gather those changes for a moment and reconcile once.
  runtime::WatchOptions gathered;
  gathered.batch = [&pools, batch = options.pod_batch,
                    upgrade_batch = options.upgrade_batch](const runtime::Request& r) {
    const runtime::ObjectPtr pool = pools.Get(r.Key());
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
  controller.Watch(*in.nodes, EnqueuePoolsOfNode(pools), node_changes);
  controller.Watch(*in.rdmanodes, controllers::EnqueueOwnersOfRdmaNode(pools, in.nodes->store()),
                   gathered);
  runtime::WatchOptions owned = gathered;
  owned.on_delete = [&reconciler](const k8s::JsonObject& o) { reconciler.ObjectDeleted(o); };
  for (const controllers::NamespacedCache* cache :
       {&in.daemonsets, &in.pods, &in.services, &in.slices})
    cache->Watch(controller, runtime::EnqueueByLabel(kPoolLabel), owned);
}

}  // namespace

StatusOr<std::unique_ptr<GatewayPoolControllers>> GatewayPoolControllers::Create(
    runtime::Manager& manager, Clock& clock, controllers::NodeCache& node_cache,
    GatewayPoolControllerOptions options) {
  std::unique_ptr<GatewayPoolControllers> self(new GatewayPoolControllers());
  Parts& parts = *self->parts_;
  RDMASTACK_ASSIGN_OR_RETURN(
      const Informers in,
      OpenInformers(manager, node_cache, options.render.node_pods.tenancy.namespaces));
  RDMASTACK_ASSIGN_OR_RETURN(const ConfigMapSource configmap,
                             WatchConfigMap(manager, options.compatibility_configmap));
  RDMASTACK_ASSIGN_OR_RETURN(
      parts.compatibility,
      CompatibilitySource::Create(options.compatibility_file, configmap.store, configmap.key));
  RDMASTACK_ASSIGN_OR_RETURN(parts.validator, MakeValidator(options.upgrade_validation));
  GatewayPoolStores stores{in.pools->store(), in.nodes->store(), in.rdmanodes->store(),
                           in.secrets,        in.daemonsets,     in.pods,
                           in.services,       in.slices,         node_cache.coverage()};
  parts.reconciler = std::make_unique<GatewayPoolReconciler>(
      manager.client(), manager.events(), clock, manager.api_reachability(), stores,
      *parts.compatibility, options.render, *parts.validator);
  runtime::Controller& controller = manager.NewController("gatewaypool", *parts.reconciler);
  WatchChanges(controller, in, configmap.informer, options, *parts.reconciler);
  return self;
}

}  // namespace rdmastack::gatewaypool
