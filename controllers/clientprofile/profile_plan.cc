#include "controllers/clientprofile/profile_plan.h"

#include <algorithm>

#include "controllers/clientprofile/eligibility.h"
#include "controllers/clientprofile/node_retirement.h"
#include "controllers/clientprofile/profile_conditions.h"
#include "controllers/common/host_policy.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/render.h"
#include "controllers/common/tenancy.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/reasons.h"

namespace rdmastack::clientprofile {

namespace reasons = crd::reasons;

namespace {

// The first refusal of the spec, in the order an admin fixes them: the namespace, the root
// credentials, the library image, the tolerations, then what the renderer refuses.
void DecideSpec(const ProfileSnapshot& s, const ClientRenderOptions& options, ProfilePlan* plan) {
  ProfileStatusInputs& in = plan->status;
  const crd::ClientProfile& profile = *s.profile;
  const std::string ns = profile.metadata.namespace_.value_or("");
  const controllers::TenancyPolicy& tenancy = options.node_pods.tenancy;
  // A namespace the operator does not serve: its RBAC reaches neither the Secrets nor what the
  // profile would own there, so nothing is checked or written in it.
  if (s.unserved) {
    in.refused_reason = controllers::kReasonNamespaceNotServed;
    in.refused_message = *s.unserved;
    return;
  }
  if (const auto& creds = profile.spec.credentials_secret) {
    if (s.pool && creds->name == s.pool->spec.s3.credentials_secret.name) {
      in.refused_reason = reasons::kRootCredentialsRefused;
      in.refused_message = "credentialsSecret names " + creds->name +
                           ", the pool's root keys; every GPU node would hold them. Create an S3 "
                           "user for the clients and name its Secret, or remove credentialsSecret "
                           "(the clients then check the gateways' health endpoint)";
      return;
    }
    in.secret_message = s.secret_message;
  }
  if (auto refused = controllers::CheckImage(tenancy, ns, "clientLibrary.image",
                                             profile.spec.client_library.image)) {
    in.refused_reason = controllers::kReasonNotAllowed;
    in.refused_message = std::move(*refused);
    return;
  }
  if (auto refused =
          controllers::CheckTolerations(tenancy, "tolerations", profile.spec.tolerations)) {
    in.refused_reason = std::move(refused->reason);
    in.refused_message = std::move(refused->message);
    return;
  }
  if (auto rendered = RenderClientDaemonSet(profile, options); rendered.ok()) {
    plan->daemonset = std::move(*rendered);
  } else {
    in.refused_reason = reasons::kInvalidSpec;
    in.refused_message = std::string(rendered.status().message());
  }
}

}  // namespace

const NodePods& PodsOn(const std::map<std::string, NodePods>& pods, const std::string& node) {
  static const NodePods kNoPods;
  const auto found = pods.find(node);
  return found == pods.end() ? kNoPods : found->second;
}

void PlanNodeLabel(const runtime::ObjectPtr& node, const std::string& label,
                   const std::optional<std::string>& current, bool wanted, bool client_ready,
                   const NodePods& on, LabelPlan* plan) {
  const std::string name(node->Name());
  NodeMembership m;
  m.label = current;
  m.wanted = wanted;
  m.client_ready = client_ready;
  m.client_pod = on.client.has_value();
  m.uninstall_pod = on.uninstall.has_value();
  m.uninstall_ready = on.uninstall && on.uninstall->ready && !on.uninstall->terminating;
  m.holders = on.holders.size();
  const std::optional<std::string> next = NextClientLabel(m);
  if (next && IsRetiringLabel(*next)) plan->uninstaller_needed = true;
  if (auto r = DescribeRetirement(m, next, on.holders)) {
    // Keep the list sorted whatever order the nodes come in.
    crd::RetiringNode entry{name, r->phase, r->pods};
    plan->retiring.insert(
        std::upper_bound(
            plan->retiring.begin(), plan->retiring.end(), entry,
            [](const crd::RetiringNode& a, const crd::RetiringNode& b) { return a.node < b.node; }),
        std::move(entry));
  }
  std::map<std::string, std::string> desired;
  if (next) desired[label] = *next;
  std::string body = controllers::LabelPatch(node->Labels(), desired,
                                             [&](std::string_view key) { return key == label; });
  if (!body.empty())
    plan->patches.push_back({name, std::move(body), std::string(node->ResourceVersion())});
}

ProfilePlan PlanProfile(const ProfileSnapshot& s, const ClientRenderOptions& options) {
  const crd::ClientProfile& profile = *s.profile;
  ProfilePlan plan;
  ProfileStatusInputs& in = plan.status;
  in.profile = s.profile;
  in.now = s.now;
  const std::string label =
      ClientNodeLabel(profile.metadata.namespace_.value_or(""), profile.metadata.name);
  in.ready_node_label = label + "=" + kReadyValue;
  in.pool_found = s.pool.has_value();
  if (s.pool) in.endpoints = static_cast<int32_t>(s.endpoints.size());
  DecideSpec(s, options, &plan);
  static const std::vector<crd::PoolNetwork> kNoNetworks;
  const std::vector<crd::PoolNetwork>& pool_networks =
      s.pool && s.pool->status ? s.pool->status->networks : kNoNetworks;

  // Nodes: matched ones get a verdict; the label follows it, and a node leaving the profile keeps
  // its files until no running pod there names the profile (node_retirement.h).
  for (const ProfileNode& node : s.nodes) {
    const std::string name(node.object->Name());
    const std::optional<std::string> current = node.object->Label(label);
    const NodePods& on = PodsOn(s.pods, name);
    if (!node.selected) {
      if (current)
        PlanNodeLabel(node.object, label, current, /*wanted=*/false, false, on, &plan.labels);
      continue;
    }
    NodeOutcome n;
    n.name = name;
    n.eligibility =
        DecideEligibility(profile.spec, node.report ? &*node.report : nullptr, pool_networks);
    const controllers::OwnedPod* client = on.client ? &*on.client : nullptr;
    n.ready = client && client->ready && !client->terminating;
    if (client && in.library_refused.empty()) {
      if (LibraryRefusal why = ClientLibraryRefusal(client->message); !why.empty()) {
        why.message =
            "the client on node " + n.name + " refused clientLibrary.image: " + why.message;
        in.library_refused = std::move(why);
      }
    }
    if (n.eligibility.eligible && !n.ready && client && !client->waiting_reason.empty()) {
      n.eligibility.message = "client " + client->waiting_reason +
                              (client->message.empty() ? "" : ": " + client->message) + "; " +
                              n.eligibility.message;
    }
    const bool runs_here = current && !IsRetiringLabel(*current);
    PlanNodeLabel(
        node.object, label, current,
        controllers::KeepsWorkload(n.eligibility.eligible, runs_here, n.eligibility.reason),
        n.ready, on, &plan.labels);
    in.nodes.push_back(std::move(n));
  }
  std::sort(in.nodes.begin(), in.nodes.end(),
            [](const NodeOutcome& a, const NodeOutcome& b) { return a.name < b.name; });
  in.retiring = plan.labels.retiring;
  return plan;
}

}  // namespace rdmastack::clientprofile
