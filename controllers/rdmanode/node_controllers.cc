#include "controllers/rdmanode/node_controllers.h"

#include "controllers/rdmanode/agent_daemonset_reconciler.h"
#include "controllers/rdmanode/node_label_reconciler.h"
#include "controllers/rdmanode/node_labels.h"
#include "controllers/rdmanode/rdmanode_reconciler.h"
#include "controllers/rdmanode/requirements_reconciler.h"
#include "controllers/rdmanode/resource_slice_reconciler.h"
#include "crds/types/kinds.h"

namespace rdmastack::rdmanode {
namespace {

runtime::Informer& InformerFor(runtime::Manager& manager, const k8s::ResourceType& type,
                               std::string ns = "", std::string field_selector = "") {
  runtime::InformerOptions o;
  o.type = type;
  o.ns = std::move(ns);
  o.field_selector = std::move(field_selector);
  return manager.cache().Get(o);
}

bool OwnedLabelsDiffer(const k8s::JsonObject& a, const k8s::JsonObject& b) {
  for (std::string_view key : kOwnedNodeLabels) {
    if (a.Label(key) != b.Label(key)) return true;
  }
  return false;
}

runtime::MapFunc ToKey(std::string key) {
  return [key = std::move(key)](const k8s::JsonObject&) {
    return std::vector<runtime::Request>{{"", key}};
  };
}

// Every Node in the cache: a pool or profile change may change what any node must run.
runtime::MapFunc EveryNode(const runtime::Store& nodes) {
  return [&nodes](const k8s::JsonObject&) {
    std::vector<runtime::Request> out;
    for (const auto& key : nodes.ListKeys()) out.push_back({"", key});
    return out;
  };
}

}  // namespace

struct NodeControllers::Parts {
  std::unique_ptr<RdmaNodeReconciler> rdmanode;
  std::unique_ptr<NodeLabelReconciler> labels;
  std::unique_ptr<RequirementsReconciler> requirements;
  std::unique_ptr<AgentDaemonSetReconciler> daemonset;
  std::unique_ptr<ResourceSliceReconciler> slices;
};

NodeControllers::NodeControllers(runtime::Manager& manager, Clock& clock, AgentStateStore& agents,
                                 agenthub::RequirementsPublisher& publisher,
                                 NodeControllerOptions options)
    : parts_(std::make_unique<Parts>()),
      node_cache_(std::make_unique<controllers::NodeCache>(manager, clock)) {
  runtime::Informer& nodes = node_cache_->informer();
  runtime::Informer& rdmanodes = InformerFor(manager, crd::kinds::RdmaNode());
  runtime::Informer& pools = InformerFor(manager, crd::kinds::GatewayPool());
  runtime::Informer& profiles = InformerFor(manager, crd::kinds::ClientProfile());
  runtime::Informer& daemonsets =
      InformerFor(manager, k8s::kinds::DaemonSet(), options.agent.namespace_,
                  std::string("metadata.name=") + kAgentName);

  runtime::Predicate node_added_or_deleted;
  node_added_or_deleted.update = [](const k8s::JsonObject&, const k8s::JsonObject&) {
    return false;
  };
  runtime::Predicate node_labels_changed;
  node_labels_changed.update = [](const k8s::JsonObject& a, const k8s::JsonObject& b) {
    return a.Labels() != b.Labels();
  };
  runtime::Predicate owned_labels_changed;
  owned_labels_changed.update = OwnedLabelsDiffer;

  parts_->rdmanode = std::make_unique<RdmaNodeReconciler>(manager.client(), nodes.store(),
                                                          rdmanodes.store(), agents, clock);
  runtime::ControllerOptions rdmanode_options;
  rdmanode_options.workers = options.workers;
  runtime::Controller& rdmanode =
      manager.NewController("rdmanode", *parts_->rdmanode, std::move(rdmanode_options));
  rdmanode.Watch(nodes, runtime::EnqueueSelf(), node_added_or_deleted);
  rdmanode.Watch(rdmanodes, runtime::EnqueueSelf());
  agents.Subscribe([&rdmanode](const std::string& node) { rdmanode.queue().Add(node); });

  parts_->labels = std::make_unique<NodeLabelReconciler>(
      manager.client(), nodes.store(), rdmanodes.store(), clock, options.label_grace);
  runtime::ControllerOptions labels_options;
  labels_options.workers = options.workers;
  runtime::Controller& labels =
      manager.NewController("nodelabels", *parts_->labels, std::move(labels_options));
  labels.Watch(nodes, runtime::EnqueueSelf(), owned_labels_changed);
  labels.Watch(rdmanodes, runtime::EnqueueSelf());

  parts_->requirements = std::make_unique<RequirementsReconciler>(
      nodes.store(), pools.store(), profiles.store(), node_cache_->coverage(), publisher);
  runtime::Controller& requirements =
      manager.NewController("agentrequirements", *parts_->requirements);
  requirements.Watch(nodes, runtime::EnqueueSelf(), node_labels_changed);
  requirements.Watch(pools, EveryNode(nodes.store()));
  requirements.Watch(profiles, EveryNode(nodes.store()));

  parts_->daemonset = std::make_unique<AgentDaemonSetReconciler>(
      manager.client(), options.agent, pools.store(), profiles.store(), daemonsets.store());
  runtime::Controller& daemonset = manager.NewController("agentdaemonset", *parts_->daemonset);
  daemonset.Watch(pools, ToKey(kAgentDaemonSetKey));
  daemonset.Watch(profiles, ToKey(kAgentDaemonSetKey));
  daemonset.Watch(daemonsets, ToKey(kAgentDaemonSetKey));

  if (options.dra_driver.empty()) return;
  runtime::Informer& slices =
      InformerFor(manager, ResourceSliceType(), "", "spec.driver=" + options.dra_driver);
  parts_->slices = std::make_unique<ResourceSliceReconciler>(
      manager.client(), nodes.store(), rdmanodes.store(), slices.store(), clock,
      options.label_grace, options.dra_driver);
  runtime::Controller& slice_controller = manager.NewController("resourceslices", *parts_->slices);
  slice_controller.Watch(nodes, runtime::EnqueueSelf(), node_added_or_deleted);
  slice_controller.Watch(rdmanodes, runtime::EnqueueSelf());
  // A slice changed or deleted by someone else is put back.
  slice_controller.Watch(slices, [](const k8s::JsonObject& slice) {
    const auto node = slice.GetString({"spec", "nodeName"});
    if (!node || node->empty()) return std::vector<runtime::Request>{};
    return std::vector<runtime::Request>{{"", std::string(*node)}};
  });
}

NodeControllers::~NodeControllers() = default;

}  // namespace rdmastack::rdmanode
