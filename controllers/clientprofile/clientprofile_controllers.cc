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

// What the controller reads. Namespaced kinds come from the served namespaces only when the
// admin lists them. A workload names a profile of its own namespace, so its pods are there too.
struct Informers {
  runtime::Informer* profiles = nullptr;
  runtime::Informer* pools = nullptr;
  runtime::Informer* nodes = nullptr;
  runtime::Informer* rdmanodes = nullptr;
  // By name only: those the profiles name and their <profile>-s3-user (named_watches.h).
  controllers::NamespacedCache secrets;
  controllers::NamespacedCache slices;
  controllers::NamespacedCache daemonsets;
  controllers::NamespacedCache configmaps;
  controllers::NamespacedCache pods;
  controllers::NamespacedCache workloads;
};

Informers OpenInformers(runtime::Manager& manager, controllers::NodeCache& node_cache,
                        const std::vector<std::string>& served) {
  using controllers::CachedIn;
  using controllers::CachedInformer;
  runtime::Informer& profiles = CachedInformer(manager, crd::kinds::ClientProfile());
  // Only AlreadyExists can fail, and AddIndexes keeps the index already there.
  (void)controllers::AddIndexes(profiles, ProfileIndexes());
  runtime::Informer& pools = CachedInformer(manager, crd::kinds::GatewayPool());
  runtime::Informer& nodes = node_cache.informer();
  runtime::Informer& rdmanodes = CachedInformer(manager, crd::kinds::RdmaNode());
  return Informers{
      &profiles,
      &pools,
      &nodes,
      &rdmanodes,
      controllers::SecretsByName(manager, served),
      CachedIn(manager, served, k8s::kinds::EndpointSlice(), gatewaypool::OwnedSelector()),
      CachedIn(manager, served, k8s::kinds::DaemonSet(), OwnedSelector()),
      CachedIn(manager, served, k8s::kinds::ConfigMap(), OwnedSelector()),
      CachedIn(manager, served, k8s::kinds::Pod(), OwnedSelector(), controllers::PodReadiness()),
      CachedIn(manager, served, k8s::kinds::Pod(), kWorkloadLabel, controllers::PodPlacement()),
  };
}

runtime::WatchOptions Gathered(Clock::Duration after) {
  runtime::WatchOptions w;
  w.batch = [after](const runtime::Request&) { return after; };
  return w;
}

// A pool's spec, status and endpoints: the profiles that name it.
runtime::MapFunc ProfilesOfPoolObject(const runtime::Store& profiles) {
  return [&profiles](const k8s::JsonObject& o) {
    const std::string pool = o.Kind() == "GatewayPool"
                                 ? std::string(o.Name())
                                 : o.Label(gatewaypool::kPoolLabel).value_or("");
    std::vector<runtime::Request> out;
    for (const auto& key : ProfilesOfPool(profiles, o.Namespace(), pool))
      out.push_back(runtime::Request::FromKey(key));
    return out;
  };
}

// Pools, their endpoints, Secrets, nodes and agent verdicts: what profiles read.
void WatchInputs(runtime::Controller& controller, const Informers& in,
                 const ClientProfileControllerOptions& options) {
  const runtime::Store& profiles = in.profiles->store();
  const runtime::MapFunc pool_profiles = ProfilesOfPoolObject(profiles);
  controller.Watch(*in.pools, pool_profiles, Gathered(options.node_batch));
  in.slices.Watch(controller, pool_profiles, Gathered(options.endpoint_batch));
  // Secrets: every profile of the namespace (few per namespace).
  in.secrets.Watch(controller, runtime::EnqueueAllInNamespace(profiles));
  // Nodes (labels) and agent verdicts: the profiles that select the node or whose client label it
  // carries (selector_index.h), gathered.
  runtime::WatchOptions node_changes = Gathered(options.node_batch);
  node_changes.predicate =
      runtime::UpdatesWhere([](const k8s::JsonObject& old, const k8s::JsonObject& now) {
        return old.Labels() != now.Labels();
      });
  controller.Watch(*in.nodes, controllers::EnqueueOwnersOfNode(profiles, ClientLabelsOf),
                   node_changes);
  controller.Watch(*in.rdmanodes, controllers::EnqueueOwnersOfRdmaNode(profiles, in.nodes->store()),
                   Gathered(options.node_batch));
}

// Workloads that name a profile, and what a profile owns: that profile.
void WatchPods(runtime::Controller& controller, const Informers& in,
               const ClientProfileControllerOptions& options, ClientProfileReconciler& reconciler) {
  // A workload arrives on a node, ends or goes (it may hold or release a retiring node).
  runtime::WatchOptions placement = Gathered(options.endpoint_batch);
  placement.predicate =
      runtime::UpdatesWhere([](const k8s::JsonObject& old, const k8s::JsonObject& now) {
        return old.GetString({"spec", "nodeName"}) != now.GetString({"spec", "nodeName"}) ||
               old.GetString({"status", "phase"}) != now.GetString({"status", "phase"});
      });
  in.workloads.Watch(controller, runtime::EnqueueByLabel(kWorkloadLabel), placement);
  runtime::WatchOptions owned = Gathered(options.endpoint_batch);
  owned.on_delete = [&reconciler](const k8s::JsonObject& o) { reconciler.ObjectDeleted(o); };
  for (const controllers::NamespacedCache* cache : {&in.daemonsets, &in.configmaps, &in.pods})
    cache->Watch(controller, runtime::EnqueueByLabel(kProfileLabel), owned);
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
  const Informers in =
      OpenInformers(manager, node_cache, options.render.node_pods.tenancy.namespaces);
  ClientProfileStores stores{in.profiles->store(),  in.pools->store(),    in.nodes->store(),
                             in.rdmanodes->store(), in.secrets,           in.slices,
                             in.daemonsets,         in.configmaps,        in.pods,
                             in.workloads,          node_cache.coverage()};
  parts_->reconciler = std::make_unique<ClientProfileReconciler>(
      manager.client(), manager.events(), clock, stores, std::move(options.render),
      options.gateway_answer_max_bytes);
  runtime::Controller& controller = manager.NewController("clientprofile", *parts_->reconciler);
  // Not for our own status writes, which would start another pass at once.
  controller.Watch(*in.profiles, runtime::EnqueueSelf(), runtime::NotStatusOnly());
  WatchInputs(controller, in, options);
  WatchPods(controller, in, options, *parts_->reconciler);
}

}  // namespace rdmastack::clientprofile
