#include "controllers/clientprofile/clientprofile_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "controllers/common/conditions.h"
#include "controllers/common/credentials_secret.h"
#include "controllers/common/render.h"
#include "controllers/common/status_writer.h"
#include "controllers/gatewaypool/gateway_pod.h"
#include "controllers/gatewaypool/track.h"
#include "controllers/rdmanode/requirements.h"
#include "crds/types/json.h"

namespace rdmastack::clientprofile {
namespace {

bool OwnedBy(const k8s::JsonObject& o, const std::string& ns, const std::string& profile) {
  return o.Namespace() == ns && o.Label(kProfileLabel) == profile;
}

// The cached object `name` of `profile`'s namespace when the profile owns it, else null.
runtime::ObjectPtr OwnedObject(const runtime::Store& store, const std::string& ns,
                               const std::string& profile, const std::string& name) {
  runtime::ObjectPtr o = store.Get(ns + "/" + name);
  return o != nullptr && OwnedBy(*o, ns, profile) ? o : nullptr;
}

}  // namespace

ClientProfileReconciler::ClientProfileReconciler(k8s::Client& client,
                                                 runtime::EventRecorder& events, Clock& clock,
                                                 ClientProfileStores stores,
                                                 ClientRenderOptions render)
    : client_(client),
      events_(events),
      clock_(clock),
      stores_(stores),
      render_(std::move(render)),
      writer_(client, "clientprofile") {}

StatusOr<runtime::Result> ClientProfileReconciler::Reconcile(const runtime::Request& request) {
  const runtime::ObjectPtr object = stores_.profiles.Get(request.Key());
  if (object == nullptr) {
    statuses_.Forget(request.Key());
    return runtime::Result{};
  }
  auto parsed = crd::ParseResource<crd::ClientProfile>(object->value());
  if (!parsed.ok()) return runtime::TerminalError(parsed.status().WithContext(request.Key()));
  const crd::ClientProfile& profile = *parsed;
  const std::string& ns = request.ns;
  const std::string& name = request.name;
  if (object->IsBeingDeleted()) {
    const std::vector<std::string> finalizers = object->Finalizers();
    if (std::find(finalizers.begin(), finalizers.end(), kFinalizer) != finalizers.end())
      RDMASTACK_RETURN_IF_ERROR(Cleanup(*object, profile));
    return runtime::Result{};
  }
  RDMASTACK_RETURN_IF_ERROR(
      writer_.EnsureFinalizer(k8s::kinds::ClientProfile(), *object, kFinalizer));

  ProfileStatusInputs in;
  in.profile = &profile;
  in.now = clock_.WallNow();
  const std::string label = ClientNodeLabel(ns, name);
  in.ready_node_label = label + "=" + kReadyValue;

  // The pool, its ready endpoints, the credentials.
  std::optional<crd::GatewayPool> pool;
  if (const runtime::ObjectPtr p = stores_.pools.Get(ns + "/" + profile.spec.gateway_pool_ref.name);
      p != nullptr && !p->IsBeingDeleted()) {
    if (auto parsed_pool = crd::ParseResource<crd::GatewayPool>(p->value()); parsed_pool.ok())
      pool = std::move(*parsed_pool);
  }
  in.pool_found = pool.has_value();
  std::vector<PoolEndpoint> endpoints;
  if (pool) {
    std::vector<const k8s::JsonObject*> slices;
    std::vector<runtime::ObjectPtr> held = stores_.slices.List();
    for (const auto& s : held) {
      if (s->Namespace() == ns && s->Label(gatewaypool::kPoolLabel) == pool->metadata.name)
        slices.push_back(s.get());
    }
    endpoints = ReadyEndpoints(slices);
    in.endpoints = static_cast<int32_t>(endpoints.size());
  }
  if (const auto& creds = profile.spec.credentials_secret) {
    if (pool && creds->name == pool->spec.s3.credentials_secret.name) {
      in.refused_reason = "RootCredentialsRefused";
      in.refused_message = "credentialsSecret names " + creds->name +
                           ", the pool's root keys; every GPU node would hold them. Create an S3 "
                           "user for the clients and name its Secret, or remove credentialsSecret "
                           "(the clients then check the gateways' health endpoint)";
    } else {
      in.secret_message =
          controllers::CheckCredentialsSecret(stores_.secrets, ns, *creds, "credentialsSecret")
              .message;
    }
  }
  std::optional<k8s::JsonObject> daemonset;
  if (in.refused_reason.empty()) {
    if (auto rendered = RenderClientDaemonSet(profile, render_); rendered.ok()) {
      daemonset = std::move(*rendered);
    } else {
      in.refused_reason = "InvalidSpec";
      in.refused_message = std::string(rendered.status().message());
    }
  }

  // Client pods by node: Ready or not, and why not.
  std::map<std::string, gatewaypool::GatewayPod> pods;
  for (const auto& o : stores_.pods.List()) {
    if (!OwnedBy(*o, ns, name)) continue;
    gatewaypool::GatewayPod pod = gatewaypool::ReadGatewayPod(*o);
    if (pod.node.empty()) continue;
    auto [it, inserted] = pods.emplace(pod.node, pod);
    if (!inserted && gatewaypool::Supersedes(pod, it->second)) it->second = pod;
  }

  // Nodes: matched ones get a verdict and a label; others lose the label.
  std::vector<std::pair<std::string, std::string>> patches;
  auto want_label = [&](const runtime::ObjectPtr& node, const std::optional<std::string>& value) {
    std::map<std::string, std::string> desired;
    if (value) desired[label] = *value;
    std::string body = controllers::LabelPatch(node->Labels(), desired,
                                               [&](std::string_view key) { return key == label; });
    if (body.empty() ||
        writer_.NodePatchPending(std::string(node->Name()), body, node->ResourceVersion()))
      return;
    patches.emplace_back(std::string(node->Name()), std::move(body));
  };
  for (const auto& node : stores_.nodes.List()) {
    const std::map<std::string, std::string> labels = node->Labels();
    const bool labelled = labels.count(label) != 0;
    if (!rdmanode::SelectorMatches(profile.spec.node_selector, labels)) {
      if (labelled) want_label(node, std::nullopt);
      continue;
    }
    NodeOutcome n;
    n.name = std::string(node->Name());
    std::optional<crd::RdmaNodeStatus> rdma;
    if (const runtime::ObjectPtr r = stores_.rdmanodes.Get(n.name); r != nullptr) {
      if (auto rnode = crd::ParseResource<crd::RdmaNode>(r->value()); rnode.ok())
        rdma = std::move(rnode->status);
    }
    n.eligibility = DecideEligibility(profile.spec, rdma ? &*rdma : nullptr);
    const auto pod = pods.find(n.name);
    n.ready = pod != pods.end() && pod->second.ready && !pod->second.terminating;
    if (n.eligibility.eligible && !n.ready && pod != pods.end() &&
        !pod->second.waiting_reason.empty()) {
      n.eligibility.message = "client " + pod->second.waiting_reason +
                              (pod->second.message.empty() ? "" : ": " + pod->second.message) +
                              "; " + n.eligibility.message;
    }
    // A silent agent does not take a running client away; a failed check does.
    const bool keep = labelled && n.eligibility.reason == "AgentNotReporting";
    if (n.eligibility.eligible || keep) {
      want_label(node, std::string(n.ready ? kReadyValue : kEligibleValue));
    } else if (labelled) {
      want_label(node, std::nullopt);
    }
    in.nodes.push_back(std::move(n));
  }
  std::sort(in.nodes.begin(), in.nodes.end(),
            [](const NodeOutcome& a, const NodeOutcome& b) { return a.name < b.name; });

  // Workloads: only with a pool and an accepted spec; otherwise what runs stays as it is.
  Status synced = OkStatus();
  if (pool && daemonset) {
    const std::string cm_name = EndpointsConfigMapName(name);
    const std::string ds_name = DaemonSetName(name);
    // The endpoints first: a client pod cannot start without them.
    synced = writer_.ApplyIfChanged(k8s::kinds::ConfigMap(),
                                    RenderEndpointsConfigMap(profile, *pool, endpoints),
                                    OwnedObject(stores_.configmaps, ns, name, cm_name));
    if (synced.ok())
      synced = writer_.ApplyIfChanged(k8s::kinds::DaemonSet(), *daemonset,
                                      OwnedObject(stores_.daemonsets, ns, name, ds_name));
    if (synced.ok()) synced = writer_.PatchNodes(patches, kLabelWriters);
  }

  const crd::ClientProfileStatus status = ComputeProfileStatus(in);
  RecordTransitions(*object, profile, status);
  RDMASTACK_RETURN_IF_ERROR(WriteStatus(*object, profile, status));
  RDMASTACK_RETURN_IF_ERROR(synced);
  return runtime::Result{};
}

Status ClientProfileReconciler::WriteStatus(const k8s::JsonObject& object,
                                            const crd::ClientProfile& profile,
                                            const crd::ClientProfileStatus& status) {
  RDMASTACK_ASSIGN_OR_RETURN(
      bool written, controllers::ApplyStatusIfChanged(client_, k8s::kinds::ClientProfile(), object,
                                                      profile, status, statuses_));
  if (!written) return OkStatus();
  const crd::Condition* ready = controllers::FindCondition(status.conditions, kReady);
  spdlog::info("clientprofile {}: status written (Ready={} {}, clients {})", object.Key(),
               ready ? crd::ToString(ready->status) : "", ready ? ready->reason : "",
               status.node_counts ? status.node_counts->ready_of_eligible : "");
  return OkStatus();
}

void ClientProfileReconciler::RecordTransitions(const k8s::JsonObject& object,
                                                const crd::ClientProfile& profile,
                                                const crd::ClientProfileStatus& status) {
  static const std::vector<crd::Condition> kNone;
  const std::vector<crd::Condition>& before = profile.status ? profile.status->conditions : kNone;
  auto changed = [&](const char* type) {
    return controllers::ChangedCondition(before, status.conditions, type);
  };
  if (const auto* c = changed(kDegraded); c && c->status == crd::ConditionStatus::kTrue)
    events_.Record(object, runtime::EventType::kWarning, c->reason, "Degrade", c->message);
  if (const auto* c = changed(kNodesEligible); c && c->status == crd::ConditionStatus::kFalse)
    events_.Record(object, runtime::EventType::kWarning, c->reason, "Evaluate", c->message);
  if (const auto* c = changed(kReady); c && c->status == crd::ConditionStatus::kTrue)
    events_.Record(object, runtime::EventType::kNormal, c->reason, "Ready", c->message);
}

Status ClientProfileReconciler::Cleanup(const k8s::JsonObject& object,
                                        const crd::ClientProfile& profile) {
  const std::string ns = profile.metadata.namespace_.value_or("");
  const std::string& name = profile.metadata.name;
  // The clients first: each pod's SIGTERM removes what it installed on its node.
  RDMASTACK_RETURN_IF_ERROR(writer_.Delete(
      k8s::kinds::DaemonSet(), OwnedObject(stores_.daemonsets, ns, name, DaemonSetName(name))));
  RDMASTACK_RETURN_IF_ERROR(
      writer_.Delete(k8s::kinds::ConfigMap(),
                     OwnedObject(stores_.configmaps, ns, name, EndpointsConfigMapName(name))));
  const std::string label = ClientNodeLabel(ns, name);
  std::vector<std::pair<std::string, std::string>> unlabel;
  for (const auto& node : stores_.nodes.List()) {
    std::string patch = controllers::LabelPatch(node->Labels(), {},
                                                [&](std::string_view key) { return key == label; });
    if (!patch.empty()) unlabel.emplace_back(std::string(node->Name()), std::move(patch));
  }
  RDMASTACK_RETURN_IF_ERROR(writer_.PatchNodes(unlabel, kLabelWriters));
  RDMASTACK_RETURN_IF_ERROR(
      writer_.RemoveFinalizer(k8s::kinds::ClientProfile(), object, kFinalizer));
  statuses_.Forget(object.Key());
  spdlog::info("clientprofile {}/{}: deleted its clients and node labels", ns, name);
  return OkStatus();
}

}  // namespace rdmastack::clientprofile
