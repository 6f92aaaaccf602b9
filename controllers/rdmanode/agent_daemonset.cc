#include "controllers/rdmanode/agent_daemonset.h"

#include <algorithm>
#include <set>

#include "controllers/common/node_access.h"
#include "crds/types/label_names.h"

namespace rdmastack::rdmanode {
namespace {

using controllers::Obj;
using controllers::Str;
using controllers::TolerationJson;

constexpr char kCaDir[] = "/etc/rdmastack/agenthub-ca";
constexpr char kTokenDir[] = "/var/run/secrets/rdmastack.io/agenthub";

// One nodeSelectorTerm per selector: its pairs ANDed as `In [value]` expressions.
k8s::JsonObject SelectorTerm(const crd::StringMap& selector) {
  k8s::JsonBuilder term;
  controllers::AppendSelectorExpressions(selector, &term);
  return std::move(term).Build();
}

k8s::JsonObject AgentContainer(const AgentDaemonSetOptions& o) {
  k8s::JsonBuilder c;
  c.SetString({"name"}, "agent");
  c.SetString({"image"}, o.image);
  std::vector<std::string> args = {"run", "--hub", o.hub_address, "--ca-file",
                                   std::string(kCaDir) + "/ca.crt", "--token-file",
                                   std::string(kTokenDir) + "/token", "--root", "/host",
                                   // Real nodes: libibverbs and the host's NVML. A simulated
                                   // node's harness appends --probes-file, which overrides it.
                                   "--live-probes"};
  if (!o.tls_server_name.empty()) {
    args.push_back("--tls-server-name");
    args.push_back(o.tls_server_name);
  }
  args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
  for (const auto& a : args) c.Append({"args"}, Str(a));
  c.Append({"env"},
           Obj(R"({"name":"NODE_NAME","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}})"));
  c.Append({"volumeMounts"}, controllers::HostRootMount());
  c.Append({"volumeMounts"}, controllers::DevInfinibandMount());
  k8s::JsonBuilder ca(Obj(R"({"name":"agenthub-ca","readOnly":true})"));
  ca.SetString({"mountPath"}, kCaDir);
  c.Append({"volumeMounts"}, ca);
  k8s::JsonBuilder token(Obj(R"({"name":"agenthub-token","readOnly":true})"));
  token.SetString({"mountPath"}, kTokenDir);
  c.Append({"volumeMounts"}, token);
  c.Set({"securityContext"}, controllers::LiveProbeSecurityContext());
  c.Set({"resources"},
        Obj(o.resources_json.empty()
                ? R"({"requests":{"cpu":"10m","memory":"16Mi"},"limits":{"memory":"64Mi"}})"
                : o.resources_json));
  return std::move(c).Build();
}

void AddVolumes(const AgentDaemonSetOptions& o, k8s::JsonBuilder* pod_spec) {
  pod_spec->Append({"volumes"}, controllers::HostRootVolume());
  pod_spec->Append({"volumes"}, controllers::DevInfinibandVolume());
  k8s::JsonBuilder ca(Obj(R"({"name":"agenthub-ca","configMap":{}})"));
  ca.SetString({"configMap", "name"}, kAgentHubCaConfigMap);
  pod_spec->Append({"volumes"}, ca);
  k8s::JsonBuilder source;
  source.SetString({"serviceAccountToken", "audience"}, kAgentHubAudience);
  source.SetInt({"serviceAccountToken", "expirationSeconds"}, o.token_expiration_seconds);
  source.SetString({"serviceAccountToken", "path"}, "token");
  k8s::JsonBuilder token(Obj(R"({"name":"agenthub-token"})"));
  token.Append({"projected", "sources"}, source);
  pod_spec->Append({"volumes"}, token);
}

}  // namespace

std::optional<k8s::JsonObject> RenderAgentDaemonSet(
    const AgentDaemonSetOptions& o, const std::vector<crd::GatewayPool>& pools,
    const std::vector<crd::ClientProfile>& profiles) {
  std::vector<crd::StringMap> selectors;
  std::vector<crd::Toleration> tolerations;
  auto add = [&](const crd::StringMap& selector, const std::vector<crd::Toleration>& tols) {
    if (std::find(selectors.begin(), selectors.end(), selector) == selectors.end())
      selectors.push_back(selector);
    for (const auto& t : tols) {
      if (std::find(tolerations.begin(), tolerations.end(), t) == tolerations.end())
        tolerations.push_back(t);
    }
  };
  for (const auto& p : pools) {
    if (!p.metadata.deletion_timestamp) add(p.spec.node_selector, p.spec.tolerations);
  }
  for (const auto& p : profiles) {
    if (!p.metadata.deletion_timestamp) add(p.spec.node_selector, p.spec.tolerations);
  }
  if (selectors.empty()) return std::nullopt;
  // Input order must not matter: the same set of pools renders the same object.
  std::sort(selectors.begin(), selectors.end());
  std::stable_sort(tolerations.begin(), tolerations.end(), [](const auto& a, const auto& b) {
    return TolerationJson(a).Serialize() < TolerationJson(b).Serialize();
  });

  k8s::JsonBuilder ds;
  ds.SetApiVersion("apps/v1");
  ds.SetKind("DaemonSet");
  ds.SetName(kAgentName);
  ds.SetNamespace(o.namespace_);
  ds.SetLabel("app.kubernetes.io/name", kAgentName);
  ds.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
  ds.SetString({"spec", "selector", "matchLabels", "app.kubernetes.io/name"}, kAgentName);
  ds.SetString({"spec", "updateStrategy", "type"}, "RollingUpdate");
  ds.SetString({"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"}, "10%");

  std::map<std::string, std::string> pod_labels = o.pod_labels;
  pod_labels["app.kubernetes.io/name"] = kAgentName;
  ds.SetStringMap({"spec", "template", "metadata", "labels"}, pod_labels);

  k8s::JsonBuilder spec;
  spec.SetString({"serviceAccountName"}, kAgentServiceAccount);
  // The agent holds no API permissions: only the hub's audience-bound token is mounted.
  spec.SetBool({"automountServiceAccountToken"}, false);
  spec.SetBool({"hostNetwork"}, true);
  spec.SetString({"dnsPolicy"}, "ClusterFirstWithHostNet");
  spec.SetInt({"terminationGracePeriodSeconds"}, 10);
  spec.Append({"containers"}, AgentContainer(o));
  AddVolumes(o, &spec);
  for (const auto& t : tolerations) spec.Append({"tolerations"}, TolerationJson(t));
  if (!o.extra_tolerations_json.empty()) {
    for (const auto& t : Obj(o.extra_tolerations_json).GetArray({}))
      spec.Append({"tolerations"}, t);
  }
  const bool every_node = std::any_of(selectors.begin(), selectors.end(),
                                      [](const crd::StringMap& s) { return s.empty(); });
  if (!every_node) {
    k8s::JsonBuilder required;
    for (const auto& s : selectors) required.Append({"nodeSelectorTerms"}, SelectorTerm(s));
    spec.Set({"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"},
             required);
  }
  controllers::ApplyNodePodPolicy(o.node_pods, {}, &spec);
  ds.Set({"spec", "template", "spec"}, spec);
  controllers::StampAppliedHash(&ds);
  return std::move(ds).Build();
}

}  // namespace rdmastack::rdmanode
