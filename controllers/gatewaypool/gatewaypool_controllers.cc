#include "controllers/gatewaypool/gatewaypool_controllers.h"

#include "controllers/common/cache_transforms.h"
#include "controllers/common/render.h"
#include "controllers/gatewaypool/compatibility_source.h"
#include "controllers/gatewaypool/gateway_validator.h"
#include "controllers/gatewaypool/gatewaypool_reconciler.h"
#include "controllers/gatewaypool/track.h"
#include "crds/types/kinds.h"
#include "crds/types/label_names.h"

namespace rdmastack::gatewaypool {

namespace {

// The pool named by an owned object's labels, in the object's namespace.
runtime::MapFunc EveryPool(const runtime::Store& pools) {
  return [&pools](const k8s::JsonObject&) {
    std::vector<runtime::Request> out;
    for (const auto& key : pools.ListKeys()) out.push_back(runtime::Request::FromKey(key));
    return out;
  };
}

runtime::MapFunc PoolsInNamespace(const runtime::Store& pools) {
  return [&pools](const k8s::JsonObject& o) {
    std::vector<runtime::Request> out;
    for (const auto& key : pools.ListKeys()) {
      runtime::Request r = runtime::Request::FromKey(key);
      if (r.ns == o.Namespace()) out.push_back(std::move(r));
    }
    return out;
  };
}

}  // namespace

struct GatewayPoolControllers::Parts {
  std::unique_ptr<CompatibilitySource> compatibility;
  std::unique_ptr<GatewayValidator> validator;
  std::unique_ptr<GatewayPoolReconciler> reconciler;
};

GatewayPoolControllers::GatewayPoolControllers() : parts_(std::make_unique<Parts>()) {}
GatewayPoolControllers::~GatewayPoolControllers() = default;

StatusOr<std::unique_ptr<GatewayPoolControllers>> GatewayPoolControllers::Create(
    runtime::Manager& manager, Clock& clock, GatewayPoolControllerOptions options) {
  std::unique_ptr<GatewayPoolControllers> self(new GatewayPoolControllers());
  Parts& parts = *self->parts_;
  runtime::Informer& pools = controllers::CachedInformer(manager, crd::kinds::GatewayPool());
  // The node controllers ask for Nodes trimmed to their labels first; the same informer serves.
  runtime::Informer& nodes = controllers::CachedInformer(
      manager, k8s::kinds::Node(), "", controllers::NodeLabelsAndOperatorAnnotations());
  runtime::Informer& rdmanodes = controllers::CachedInformer(manager, crd::kinds::RdmaNode());
  // Namespaced kinds: from the served namespaces only when the admin lists them.
  const std::vector<std::string>& served = options.render.node_pods.tenancy.namespaces;
  using controllers::CachedIn;
  const controllers::NamespacedCache secrets =
      CachedIn(manager, served, k8s::kinds::Secret(), "", controllers::SecretKeysOnly());
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
  GatewayPoolStores stores{pools.store(), nodes.store(), rdmanodes.store(), secrets,
                           daemonsets,    pods,          services,          slices};
  parts.reconciler = std::make_unique<GatewayPoolReconciler>(manager.client(), manager.events(),
                                                             clock, stores, *parts.compatibility,
                                                             options.render, *parts.validator);
  runtime::Controller& controller = manager.NewController("gatewaypool", *parts.reconciler);

  // Not for our own status writes: each would start another pass at once and, during a rollout,
  // chain status writes at the API server's pace instead of the batch's.
  runtime::Predicate not_status_only;
  not_status_only.update = [](const k8s::JsonObject& a, const k8s::JsonObject& b) {
    return a.Generation() != b.Generation() || a.DeletionTimestamp() != b.DeletionTimestamp() ||
           a.Finalizers() != b.Finalizers() || a.Labels() != b.Labels() ||
           a.Annotations() != b.Annotations();
  };
  controller.Watch(pools, runtime::EnqueueSelf(), not_status_only);
  // A pool's spec or its deletion can make or end a collision with any other pool
  // (pool_conflict.h): the newer one must hear of it.
  controller.Watch(pools, EveryPool(pools.store()), not_status_only);
  for (runtime::Informer* informer : secrets.informers())
    controller.Watch(*informer, PoolsInNamespace(pools.store()));
  if (configmap_informer != nullptr)
    controller.Watch(*configmap_informer, EveryPool(pools.store()));
  // What the pool owns changes in bursts during a rollout (pods turning Ready, the DaemonSet's
  // status, our own EndpointSlice writes): gather those changes for a moment and reconcile once.
  const Clock::Duration batch = options.pod_batch, upgrade_batch = options.upgrade_batch;
  auto batch_for = [&pools, batch, upgrade_batch](const std::string& key) {
    const runtime::ObjectPtr pool = pools.store().Get(key);
    return pool != nullptr && pool->Has({"status", "currentUpgrade"}) ? upgrade_batch : batch;
  };
  auto later = [&controller, batch_for](const runtime::ObjectPtr& o) {
    if (auto pool = o->Label(kPoolLabel)) {
      const std::string key = std::string(o->Namespace()) + "/" + *pool;
      controller.queue().AddAfter(key, batch_for(key));
    }
  };
  // Node labels, cordons and agent verdicts change one node at a time, a thousand at once when the
  // pool's own label writes come back: every pool, gathered the same way.
  auto every_pool_later = [&controller, &pools, batch_for](const runtime::ObjectPtr&) {
    for (const auto& key : pools.store().ListKeys())
      controller.queue().AddAfter(key, batch_for(key));
  };
  runtime::EventHandler node_handler;
  node_handler.on_add = every_pool_later;
  node_handler.on_update = [every_pool_later](const runtime::ObjectPtr& old,
                                              const runtime::ObjectPtr& now) {
    if (old->Labels() != now->Labels() || old->Annotations() != now->Annotations() ||
        old->GetBool({"spec", "unschedulable"}) != now->GetBool({"spec", "unschedulable"}))
      every_pool_later(now);
  };
  node_handler.on_delete = every_pool_later;
  nodes.AddEventHandler(std::move(node_handler));
  runtime::EventHandler rdmanode_handler;
  rdmanode_handler.on_add = every_pool_later;
  rdmanode_handler.on_update = [every_pool_later](const runtime::ObjectPtr&,
                                                  const runtime::ObjectPtr& now) {
    every_pool_later(now);
  };
  rdmanode_handler.on_delete = every_pool_later;
  rdmanodes.AddEventHandler(std::move(rdmanode_handler));
  for (const controllers::NamespacedCache* owned : {&daemonsets, &pods, &services, &slices}) {
    runtime::EventHandler handler;
    handler.on_add = later;
    handler.on_update = [later](const runtime::ObjectPtr&, const runtime::ObjectPtr& now) {
      later(now);
    };
    handler.on_delete = [later, &parts](const runtime::ObjectPtr& o) {
      parts.reconciler->ObjectDeleted(*o);
      later(o);
    };
    owned->AddEventHandler(handler);
  }
  return self;
}

}  // namespace rdmastack::gatewaypool
