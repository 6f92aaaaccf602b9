#include "controllers/clientprofile/clientprofile_controllers.h"

#include "controllers/clientprofile/clientprofile_reconciler.h"
#include "controllers/common/cache_transforms.h"
#include "controllers/common/render.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/kinds.h"
#include "crds/types/label_names.h"

namespace rdmastack::clientprofile {
namespace {

// The clients and the uninstallers of every profile, with what they mount.
std::string OwnedSelector() {
  return std::string(gatewaypool::kComponentLabel) + " in (" + kClientComponent + "," +
         kUninstallComponent + ")," + crd::kManagedByLabel + "=" +
         crd::kManagedByValue + "," + kProfileLabel;
}

// The profiles of `ns` that name `pool`.
std::vector<std::string> ProfilesOfPool(const runtime::Store& profiles, std::string_view ns,
                                        std::string_view pool) {
  std::vector<std::string> out;
  for (const auto& p : profiles.List()) {
    if (p->Namespace() == ns && p->GetString({"spec", "gatewayPoolRef", "name"}) == pool)
      out.push_back(p->Key());
  }
  return out;
}

}  // namespace

struct ClientProfileControllers::Parts {
  std::unique_ptr<ClientProfileReconciler> reconciler;
};

ClientProfileControllers::~ClientProfileControllers() = default;

ClientProfileControllers::ClientProfileControllers(runtime::Manager& manager, Clock& clock,
                                                   ClientProfileControllerOptions options)
    : parts_(std::make_unique<Parts>()) {
  using controllers::CachedInformer;
  runtime::Informer& profiles = CachedInformer(manager, crd::kinds::ClientProfile());
  runtime::Informer& pools = CachedInformer(manager, crd::kinds::GatewayPool());
  runtime::Informer& nodes = CachedInformer(manager, k8s::kinds::Node(), "",
                                            controllers::NodeLabelsAndOperatorAnnotations());
  runtime::Informer& rdmanodes = CachedInformer(manager, crd::kinds::RdmaNode());
  // Namespaced kinds: from the served namespaces only when the admin lists them. A workload
  // names a profile of its own namespace, so its pods are there too.
  const std::vector<std::string>& served = options.render.node_pods.tenancy.namespaces;
  using controllers::CachedIn;
  using controllers::NamespacedCache;
  const NamespacedCache secrets =
      CachedIn(manager, served, k8s::kinds::Secret(), "", controllers::SecretKeysOnly());
  const NamespacedCache slices =
      CachedIn(manager, served, k8s::kinds::EndpointSlice(), gatewaypool::OwnedSelector());
  const NamespacedCache daemonsets =
      CachedIn(manager, served, k8s::kinds::DaemonSet(), OwnedSelector());
  const NamespacedCache configmaps =
      CachedIn(manager, served, k8s::kinds::ConfigMap(), OwnedSelector());
  const NamespacedCache pods =
      CachedIn(manager, served, k8s::kinds::Pod(), OwnedSelector(), controllers::PodReadiness());
  const NamespacedCache workloads =
      CachedIn(manager, served, k8s::kinds::Pod(), kWorkloadLabel, controllers::PodPlacement());
  ClientProfileStores stores{
      profiles.store(), pools.store(), nodes.store(), rdmanodes.store(), secrets, slices,
      daemonsets,       configmaps,    pods,          workloads};
  parts_->reconciler = std::make_unique<ClientProfileReconciler>(
      manager.client(), manager.events(), clock, stores, std::move(options.render));
  runtime::Controller& controller = manager.NewController("clientprofile", *parts_->reconciler);

  // Not for our own status writes, which would start another pass at once.
  runtime::Predicate not_status_only;
  not_status_only.update = [](const k8s::JsonObject& a, const k8s::JsonObject& b) {
    return a.Generation() != b.Generation() || a.DeletionTimestamp() != b.DeletionTimestamp() ||
           a.Finalizers() != b.Finalizers();
  };
  controller.Watch(profiles, runtime::EnqueueSelf(), not_status_only);

  auto add_after = [&controller](const std::vector<std::string>& keys, Clock::Duration after) {
    for (const auto& key : keys) controller.queue().AddAfter(key, after);
  };
  auto on_every_change = [](std::function<void(const runtime::ObjectPtr&)> fn) {
    runtime::EventHandler h;
    h.on_add = fn;
    h.on_update = [fn](const runtime::ObjectPtr&, const runtime::ObjectPtr& now) { fn(now); };
    h.on_delete = fn;
    return h;
  };
  const Clock::Duration node_batch = options.node_batch, endpoint_batch = options.endpoint_batch;
  // A pool's spec, status and endpoints: the profiles that name it.
  auto pool_profiles = [&profiles, add_after](Clock::Duration after) {
    return [&profiles, add_after, after](const runtime::ObjectPtr& o) {
      const std::string pool = o->Kind() == "GatewayPool"
                                   ? std::string(o->Name())
                                   : o->Label(gatewaypool::kPoolLabel).value_or("");
      add_after(ProfilesOfPool(profiles.store(), o->Namespace(), pool), after);
    };
  };
  pools.AddEventHandler(on_every_change(pool_profiles(node_batch)));
  slices.AddEventHandler(on_every_change(pool_profiles(endpoint_batch)));
  // Secrets: every profile of the namespace (few per namespace).
  secrets.AddEventHandler(on_every_change([&profiles, add_after](const runtime::ObjectPtr& o) {
    std::vector<std::string> keys;
    for (const auto& p : profiles.store().List()) {
      if (p->Namespace() == o->Namespace()) keys.push_back(p->Key());
    }
    add_after(keys, std::chrono::milliseconds(0));
  }));
  // Nodes (labels) and agent verdicts: every profile, gathered.
  auto every_profile = [&profiles, add_after, node_batch](const runtime::ObjectPtr&) {
    add_after(profiles.store().ListKeys(), node_batch);
  };
  runtime::EventHandler node_handler = on_every_change(every_profile);
  node_handler.on_update = [every_profile](const runtime::ObjectPtr& old,
                                           const runtime::ObjectPtr& now) {
    if (old->Labels() != now->Labels()) every_profile(now);
  };
  nodes.AddEventHandler(std::move(node_handler));
  rdmanodes.AddEventHandler(on_every_change(every_profile));
  // A workload that names a profile arrives on a node, ends or goes: that profile (it may hold or
  // release a retiring node).
  auto workload_profile = [add_after, endpoint_batch](const runtime::ObjectPtr& o) {
    if (auto profile = o->Label(kWorkloadLabel))
      add_after({std::string(o->Namespace()) + "/" + *profile}, endpoint_batch);
  };
  runtime::EventHandler workload_handler = on_every_change(workload_profile);
  workload_handler.on_update = [workload_profile](const runtime::ObjectPtr& old,
                                                  const runtime::ObjectPtr& now) {
    if (old->GetString({"spec", "nodeName"}) != now->GetString({"spec", "nodeName"}) ||
        old->GetString({"status", "phase"}) != now->GetString({"status", "phase"}))
      workload_profile(now);
  };
  workloads.AddEventHandler(workload_handler);
  // What a profile owns: that profile.
  Parts* parts = parts_.get();
  for (const NamespacedCache* owned : {&daemonsets, &configmaps, &pods}) {
    runtime::EventHandler h =
        on_every_change([add_after, endpoint_batch](const runtime::ObjectPtr& o) {
          if (auto profile = o->Label(kProfileLabel))
            add_after({std::string(o->Namespace()) + "/" + *profile}, endpoint_batch);
        });
    auto enqueue = h.on_delete;
    h.on_delete = [parts, enqueue](const runtime::ObjectPtr& o) {
      parts->reconciler->ObjectDeleted(*o);
      enqueue(o);
    };
    owned->AddEventHandler(h);
  }
}

}  // namespace rdmastack::clientprofile
