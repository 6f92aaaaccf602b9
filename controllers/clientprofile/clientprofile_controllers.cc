#include "controllers/clientprofile/clientprofile_controllers.h"

#include "controllers/clientprofile/clientprofile_reconciler.h"
#include "controllers/common/cache_transforms.h"
#include "controllers/common/named_watches.h"
#include "controllers/common/render.h"
#include "controllers/common/selector_index.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/kinds.h"
#include "crds/types/label_names.h"

namespace rdmastack::clientprofile {
namespace {

// The clients and the uninstallers of every profile, with what they mount.
std::string OwnedSelector() {
  return std::string(gatewaypool::kComponentLabel) + " in (" + kClientComponent + "," +
         kUninstallComponent + ")," + crd::kManagedByLabel + "=" + crd::kManagedByValue + "," +
         kProfileLabel;
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

// The profiles' node mark is their client label (ClientNodeLabel): a node that carries it reaches
// its profile even once the profile's selector has let the node go.
constexpr std::string_view kClientLabelPrefix = "rdmastack.io/client.";

controllers::NamedIndexes ProfileIndexes() {
  return controllers::SelectorIndexes([](const k8s::JsonObject& profile) {
    return ClientNodeLabel(profile.Namespace(), profile.Name());
  });
}

std::set<std::string> ClientLabelsOf(const k8s::JsonObject& node) {
  std::set<std::string> marks;
  for (const auto& [key, value] : node.Labels()) {
    if (key.starts_with(kClientLabelPrefix)) marks.insert(key);
  }
  return marks;
}

}  // namespace

struct ClientProfileControllers::Parts {
  std::unique_ptr<ClientProfileReconciler> reconciler;
};

ClientProfileControllers::~ClientProfileControllers() = default;

ClientProfileControllers::ClientProfileControllers(runtime::Manager& manager, Clock& clock,
                                                   controllers::NodeCache& node_cache,
                                                   ClientProfileControllerOptions options)
    : parts_(std::make_unique<Parts>()) {
  using controllers::CachedInformer;
  runtime::Informer& profiles = CachedInformer(manager, crd::kinds::ClientProfile());
  // Only AlreadyExists can fail, and AddIndexes keeps the index already there.
  (void)controllers::AddIndexes(profiles, ProfileIndexes());
  runtime::Informer& pools = CachedInformer(manager, crd::kinds::GatewayPool());
  runtime::Informer& nodes = node_cache.informer();
  runtime::Informer& rdmanodes = CachedInformer(manager, crd::kinds::RdmaNode());
  // Namespaced kinds: from the served namespaces only when the admin lists them. A workload
  // names a profile of its own namespace, so its pods are there too.
  const std::vector<std::string>& served = options.render.node_pods.tenancy.namespaces;
  using controllers::CachedIn;
  using controllers::NamespacedCache;
  // Secrets by name only: those the profiles name and their <profile>-s3-user (named_watches.h).
  const NamespacedCache secrets = controllers::SecretsByName(manager, served);
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
  ClientProfileStores stores{profiles.store(),
                             pools.store(),
                             nodes.store(),
                             rdmanodes.store(),
                             secrets,
                             slices,
                             daemonsets,
                             configmaps,
                             pods,
                             workloads,
                             node_cache.coverage()};
  parts_->reconciler = std::make_unique<ClientProfileReconciler>(
      manager.client(), manager.events(), clock, stores, std::move(options.render),
      options.gateway_answer_max_bytes);
  runtime::Controller& controller = manager.NewController("clientprofile", *parts_->reconciler);

  // Not for our own status writes, which would start another pass at once.
  controller.Watch(profiles, runtime::EnqueueSelf(), runtime::NotStatusOnly());

  auto gathered = [](Clock::Duration after) {
    runtime::WatchOptions w;
    w.batch = [after](const runtime::Request&) { return after; };
    return w;
  };
  const Clock::Duration node_batch = options.node_batch, endpoint_batch = options.endpoint_batch;
  // A pool's spec, status and endpoints: the profiles that name it.
  runtime::MapFunc pool_profiles = [&profiles](const k8s::JsonObject& o) {
    const std::string pool = o.Kind() == "GatewayPool"
                                 ? std::string(o.Name())
                                 : o.Label(gatewaypool::kPoolLabel).value_or("");
    std::vector<runtime::Request> out;
    for (const auto& key : ProfilesOfPool(profiles.store(), o.Namespace(), pool))
      out.push_back(runtime::Request::FromKey(key));
    return out;
  };
  controller.Watch(pools, pool_profiles, gathered(node_batch));
  slices.Watch(controller, pool_profiles, gathered(endpoint_batch));
  // Secrets: every profile of the namespace (few per namespace).
  secrets.Watch(controller, runtime::EnqueueAllInNamespace(profiles.store()));
  // Nodes (labels) and agent verdicts: the profiles that select the node or whose client label it
  // carries (selector_index.h), gathered.
  runtime::WatchOptions node_changes = gathered(node_batch);
  node_changes.predicate =
      runtime::UpdatesWhere([](const k8s::JsonObject& old, const k8s::JsonObject& now) {
        return old.Labels() != now.Labels();
      });
  controller.Watch(nodes, controllers::EnqueueOwnersOfNode(profiles.store(), ClientLabelsOf),
                   node_changes);
  controller.Watch(rdmanodes, controllers::EnqueueOwnersOfRdmaNode(profiles.store(), nodes.store()),
                   gathered(node_batch));
  // A workload that names a profile arrives on a node, ends or goes: that profile (it may hold or
  // release a retiring node).
  runtime::WatchOptions placement = gathered(endpoint_batch);
  placement.predicate =
      runtime::UpdatesWhere([](const k8s::JsonObject& old, const k8s::JsonObject& now) {
        return old.GetString({"spec", "nodeName"}) != now.GetString({"spec", "nodeName"}) ||
               old.GetString({"status", "phase"}) != now.GetString({"status", "phase"});
      });
  workloads.Watch(controller, runtime::EnqueueByLabel(kWorkloadLabel), placement);
  // What a profile owns: that profile.
  runtime::WatchOptions owned = gathered(endpoint_batch);
  owned.on_delete = [parts = parts_.get()](const k8s::JsonObject& o) {
    parts->reconciler->ObjectDeleted(o);
  };
  for (const NamespacedCache* cache : {&daemonsets, &configmaps, &pods})
    cache->Watch(controller, runtime::EnqueueByLabel(kProfileLabel), owned);
}

}  // namespace rdmastack::clientprofile
