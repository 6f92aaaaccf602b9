#include "cli/kubectl-rdmastack/why_view.h"

#include <algorithm>
#include <set>

#include "cli/kubectl-rdmastack/text.h"
#include "crds/types/status_rails.h"

namespace rdmastack::plugin {
namespace {

// Status lists of nodes are capped by the CRDs (maxItems 32); the counts carry the totals.
constexpr size_t kNodeListCap = 32;

void AddPoolMemberships(const crd::GatewayPool& pool, const std::string& node, WhyView& v) {
  if (!pool.status) return;
  const crd::GatewayPoolStatus& s = *pool.status;
  Membership m{"GatewayPool", pool.metadata.namespace_.value_or(""), pool.metadata.name};
  for (const crd::NodeProblem& p : s.failing_nodes) {
    if (p.node != node) continue;
    m.state = "failing";
    m.problem = true;
    m.reason = p.reason;
    m.message = p.message.value_or("");
    m.since = p.since.value_or("");
    v.memberships.push_back(std::move(m));
    return;
  }
  // A multi-rail pool's node that serves on some of its rails: which are down and why. It still
  // serves, so like a Warn it does not make the exit code 1.
  for (const crd::NodeProblem& p : s.degraded_nodes) {
    if (p.node != node) continue;
    m.state = "degraded";
    m.reason = p.reason;
    m.message = p.message.value_or("");
    m.since = p.since.value_or("");
    v.memberships.push_back(std::move(m));
    return;
  }
  for (const crd::MaintenanceNode& n : s.maintenance_nodes) {
    if (n.node != node) continue;
    m.state = "maintenance";
    m.reason = n.phase;
    m.message =
        n.cause + (n.phase == "Draining" ? ": its endpoint is terminating, the gateway still serves"
                                         : ": out of service until the maintenance ends");
    m.since = n.since.value_or("");
    v.memberships.push_back(std::move(m));
    return;
  }
  for (const crd::Endpoint& e : s.endpoints) {
    if (e.node != node) continue;
    m.state = "serving";
    m.message = "endpoint " + e.ip + ":" + std::to_string(e.s3_port) +
                (e.library_version ? ", libcuobjserver " + *e.library_version : "") +
                (e.rails.empty() ? "" : ", rails " + Join(e.rails, ", "));
    v.memberships.push_back(std::move(m));
    return;
  }
  if (s.failing_nodes.size() >= kNodeListCap) {
    v.notes.push_back("GatewayPool " + QualifiedName(pool.metadata) + " lists " +
                      std::to_string(s.failing_nodes.size()) +
                      " failing nodes, the most its status holds; " + node +
                      " may be one of those left out");
  }
}

void AddProfileMemberships(const crd::ClientProfile& profile, const std::string& node, WhyView& v) {
  if (!profile.status) return;
  const crd::ClientProfileStatus& s = *profile.status;
  Membership m{"ClientProfile", profile.metadata.namespace_.value_or(""), profile.metadata.name};
  // A node that left the profile with its files still there: what it waits for.
  std::string retiring;
  for (const crd::RetiringNode& n : s.retiring_nodes) {
    if (n.node != node) continue;
    retiring = "files kept, " + n.phase;
    for (size_t i = 0; i < n.pods.size(); ++i) retiring += (i ? ", " : ": ") + n.pods[i];
  }
  for (const crd::IneligibleNode& n : s.ineligible_nodes) {
    if (n.node != node) continue;
    m.state = "ineligible";
    m.problem = true;
    m.reason = n.reason;
    m.message = n.message.value_or("") + (retiring.empty() ? "" : " (" + retiring + ")");
    v.memberships.push_back(std::move(m));
    return;
  }
  if (!retiring.empty()) {
    m.state = "retiring";
    m.message = retiring;
    v.memberships.push_back(std::move(m));
    return;
  }
  for (const crd::EligibleNode& n : s.eligible_nodes) {
    if (n.node != node) continue;
    m.state = n.ready ? "client-ready" : "client-not-ready";
    m.problem = !n.ready;
    m.reason = n.transport + (n.memory_registration ? "/" + *n.memory_registration : "");
    m.message = n.message.value_or("");
    v.memberships.push_back(std::move(m));
    return;
  }
  if (s.ineligible_nodes.size() >= kNodeListCap || s.eligible_nodes.size() >= kNodeListCap) {
    v.notes.push_back("ClientProfile " + QualifiedName(profile.metadata) +
                      " lists as many nodes as its status holds; " + node +
                      " may be one of those left out");
  }
}

}  // namespace

namespace {

GpuPathView GpuPath(const crd::GpuFacts& g) {
  GpuPathView p{g.pci_address, g.model.value_or(""), g.nearest_nic.value_or(""),
                g.path_type.value_or(""), ""};
  std::vector<std::string> notes;
  if (g.nearest_nic_via) notes.push_back("via Data Direct " + *g.nearest_nic_via);
  if (g.acs_redirect.value_or(false)) {
    notes.push_back("ACS redirect at " + Join(g.acs_redirect_bridges, ", "));
  }
  if (g.iommu == crd::IommuMode::kTranslated) notes.push_back("IOMMU translates DMA");
  p.note = Join(notes, "; ");
  return p;
}

ProfileRailsView RailsFor(const crd::ClientProfile& profile, const crd::GatewayPool& pool,
                          const crd::RdmaNodeStatus& node) {
  ProfileRailsView r;
  r.profile = QualifiedName(profile.metadata);
  r.pool = QualifiedName(pool.metadata);
  r.max_distance = std::string(crd::ToString(profile.spec.max_gpu_nic_distance));
  for (const crd::PoolNetwork& n : pool.status->networks) {
    r.networks.push_back((n.rail ? "rail " + *n.rail + " " : "") + n.cidr);
  }
  const rails::RailPlan plan = crd::PlanStatusRails(node, pool.status->networks, r.max_distance);
  r.on_rails = plan.on_rails;
  r.gpus = plan.gpus;
  return r;
}

// The rails of each profile the node is a member of, whose pool names its networks.
std::vector<ProfileRailsView> ProfileRails(const Snapshot& snapshot, const WhyView& v,
                                           const crd::RdmaNodeStatus& node) {
  std::vector<ProfileRailsView> out;
  if (node.gpus.empty()) return out;
  for (const crd::ClientProfile& profile : snapshot.profiles) {
    const std::string name = QualifiedName(profile.metadata);
    const bool member = std::any_of(v.memberships.begin(), v.memberships.end(), [&](auto& m) {
      return m.kind == "ClientProfile" && m.namespace_ + "/" + m.name == name;
    });
    if (!member) continue;
    for (const crd::GatewayPool& pool : snapshot.pools) {
      if (pool.metadata.name != profile.spec.gateway_pool_ref.name ||
          pool.metadata.namespace_ != profile.metadata.namespace_ || !pool.status ||
          pool.status->networks.empty()) {
        continue;
      }
      out.push_back(RailsFor(profile, pool, node));
    }
  }
  return out;
}

}  // namespace

WhyView BuildWhyView(const Snapshot& snapshot, const std::string& node, NodeExistence existence,
                     const std::vector<std::string>& node_names, int64_t now) {
  WhyView v;
  v.node = node;
  for (const crd::GatewayPool& pool : snapshot.pools) AddPoolMemberships(pool, node, v);
  for (const crd::ClientProfile& profile : snapshot.profiles)
    AddProfileMemberships(profile, node, v);
  std::stable_sort(v.memberships.begin(), v.memberships.end(),
                   [](const Membership& a, const Membership& b) { return a.problem > b.problem; });

  auto it = std::find_if(snapshot.nodes.begin(), snapshot.nodes.end(),
                         [&node](const crd::RdmaNode& n) { return n.metadata.name == node; });
  if (it == snapshot.nodes.end()) {
    v.existence = existence;
    std::set<std::string> unique(node_names.begin(), node_names.end());
    for (const crd::RdmaNode& n : snapshot.nodes) unique.insert(n.metadata.name);
    unique.erase(node);
    const std::vector<std::string> names(unique.begin(), unique.end());
    v.close_names = CloseNames(node, names);
    v.failing = true;
    return v;
  }
  v.found = true;
  v.assessment = AssessNode(*it, now);
  if (it->status) {
    for (const crd::GpuFacts& g : it->status->gpus) v.gpus.push_back(GpuPath(g));
    v.rails = ProfileRails(snapshot, v, *it->status);
  }
  const bool member_problem = std::any_of(v.memberships.begin(), v.memberships.end(),
                                          [](const Membership& m) { return m.problem; });
  v.failing = !v.assessment.ready || v.assessment.failing > 0 || member_problem;
  return v;
}

}  // namespace rdmastack::plugin
