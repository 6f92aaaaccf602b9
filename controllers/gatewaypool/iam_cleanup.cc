#include "controllers/gatewaypool/iam_cleanup.h"

#include "controllers/common/render.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/label_names.h"

namespace rdmastack::gatewaypool {
namespace {

using controllers::Mount;
using controllers::Obj;

constexpr char kIamRootMount[] = "/gateway-iam";
constexpr char kStateDir[] = "/run/rdmastack-client";

}  // namespace

std::string IamCleanupDaemonSetName(std::string_view pool) {
  return std::string(pool) + "-iam-cleanup";
}

IamCleanupPlan PlanIamCleanup(const std::vector<IamCleanupNode>& nodes, bool timed_out) {
  IamCleanupPlan plan;
  for (const IamCleanupNode& n : nodes) {
    if (n.track_labels.empty()) continue;  // no gateway of the pool was scheduled there
    if (n.pod_ready) {
      plan.cleaned.push_back(n.name);
    } else if (timed_out) {
      plan.abandoned.push_back(n.name);
    } else {
      plan.waiting = true;
      plan.label_keys.insert(n.track_labels.begin(), n.track_labels.end());
    }
  }
  return plan;
}

k8s::JsonObject RenderIamCleanupDaemonSet(const crd::GatewayPool& pool,
                                          const std::set<std::string>& label_keys,
                                          const GatewayRenderOptions& options) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  k8s::JsonBuilder labels;
  labels.SetString({"app.kubernetes.io/name"}, "rdmastack-gateway");
  labels.SetString({"app.kubernetes.io/instance"}, pool.metadata.name);
  labels.SetString({kComponentLabel}, kIamCleanupComponent);
  labels.SetString({crd::kManagedByLabel}, crd::kManagedByValue);
  labels.SetString({kPoolLabel}, pool.metadata.name);

  k8s::JsonBuilder ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(IamCleanupDaemonSetName(pool.metadata.name));
  ds.SetNamespace(ns);
  ds.Set({"metadata", "labels"}, labels.object());
  ds.Append({"metadata", "ownerReferences"},
            controllers::ControllerOwner("GatewayPool", pool.metadata));
  ds.SetString({"spec", "selector", "matchLabels", kPoolLabel}, pool.metadata.name);
  ds.SetString({"spec", "selector", "matchLabels", kComponentLabel}, kIamCleanupComponent);
  ds.SetString({"spec", "updateStrategy", "type"}, "OnDelete");
  k8s::JsonBuilder pod_labels(labels.object());
  for (const auto& [k, v] : options.pod_labels) pod_labels.SetString({k}, v);
  ds.Set({"spec", "template", "metadata", "labels"}, pod_labels);

  k8s::JsonBuilder pod;
  pod.SetBool({"automountServiceAccountToken"}, false);
  pod.SetInt({"terminationGracePeriodSeconds"}, 5);
  for (const std::string& key : label_keys) {
    k8s::JsonBuilder expression(Obj(R"({"operator":"Exists"})"));
    expression.SetString({"key"}, key);
    k8s::JsonBuilder term;
    term.Append({"matchExpressions"}, expression);
    pod.Append({"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms"},
               term);
  }
  // Wherever the gateways could run.
  for (const auto& t : pool.spec.tolerations)
    pod.Append({"tolerations"}, controllers::TolerationJson(t));
  // Ready = the directory is gone; the operator then takes the node's labels away.
  pod.Append({"containers"},
             controllers::HostCleanupContainer(
                 "remove-dir", options.cleanup_image,
                 {"remove-dir", "--root", kIamRootMount, "--name",
                  IamDirName(ns, pool.metadata.name, pool.metadata.uid.value_or("")), "--state-dir",
                  kStateDir, "--interval", "2s"},
                 kStateDir, Mount("gateway-iam", kIamRootMount, false)));
  // The root, not the pool's directory: a mount point cannot be removed.
  pod.Append({"volumes"},
             controllers::HostPathVolume("gateway-iam", kIamHostRoot, "DirectoryOrCreate"));
  pod.Append({"volumes"}, controllers::StateVolume());
  std::vector<std::string> pool_pull_secrets;
  for (const auto& ref : pool.spec.image_pull_secrets) pool_pull_secrets.push_back(ref.name);
  controllers::ApplyNodePodPolicy(options.node_pods, pool_pull_secrets, &pod);
  ds.Set({"spec", "template", "spec"}, pod);
  controllers::StampAppliedHash(&ds);
  return std::move(ds).Build();
}

}  // namespace rdmastack::gatewaypool
