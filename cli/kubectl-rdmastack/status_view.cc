#include "cli/kubectl-rdmastack/status_view.h"

#include <charconv>
#include <tuple>

#include "crds/types/clientprofile_api.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::plugin {
namespace {

PoolSummary SummarizePool(const crd::GatewayPool& pool) {
  PoolSummary p;
  p.namespace_ = pool.metadata.namespace_.value_or("");
  p.name = pool.metadata.name;
  p.library = pool.spec.server_library.version;
  if (!pool.status) {
    p.ready = SummarizeCondition({}, gatewaypool::kReady, false);
    return p;
  }
  const crd::GatewayPoolStatus& s = *pool.status;
  p.ready = SummarizeCondition(s.conditions, gatewaypool::kReady, true);
  if (s.node_counts) {
    p.ready_gateways = s.node_counts->ready;
    p.desired_gateways = s.node_counts->selected;
  }
  if (s.library) p.library = *s.library;
  p.failing_nodes = s.failing_nodes.size();
  if (s.current_upgrade) {
    const crd::CurrentUpgrade& cu = *s.current_upgrade;
    PoolUpgradeSummary u;
    const crd::Condition* upgrading = FindCondition(s.conditions, gatewaypool::kUpgrading);
    u.state = upgrading != nullptr ? upgrading->reason : "Upgrading";
    u.from = cu.from;
    u.to = cu.to;
    u.strategy = cu.strategy;
    std::tie(u.done, u.total) = ParseProgress(cu.progress.value_or(""));
    u.failed = cu.phases.failed;
    p.upgrade = u;
  }
  return p;
}

ProfileSummary SummarizeProfile(const crd::ClientProfile& profile) {
  ProfileSummary p;
  p.namespace_ = profile.metadata.namespace_.value_or("");
  p.name = profile.metadata.name;
  p.pool = profile.spec.gateway_pool_ref.name;
  p.transport = std::string(crd::ToString(profile.spec.transport));
  if (!profile.status) {
    p.ready = SummarizeCondition({}, clientprofile::kReady, false);
    return p;
  }
  const crd::ClientProfileStatus& s = *profile.status;
  p.ready = SummarizeCondition(s.conditions, clientprofile::kReady, true);
  if (s.transport && !s.transport->empty()) p.transport = *s.transport;
  if (s.node_counts) {
    p.matched = s.node_counts->matched;
    p.eligible = s.node_counts->eligible;
    p.ready_clients = s.node_counts->ready;
  }
  p.ineligible_nodes = s.ineligible_nodes.size();
  return p;
}

}  // namespace

ConditionSummary SummarizeCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type, bool has_status) {
  ConditionSummary c;
  if (!has_status) {
    c.reason = "NoStatus";
    c.message = "the operator has not written a status yet (is it running?)";
    return c;
  }
  if (const crd::Condition* found = FindCondition(conditions, type)) {
    c.status = std::string(crd::ToString(found->status));
    c.reason = found->reason;
    c.message = found->message;
  }
  return c;
}

std::pair<int32_t, int32_t> ParseProgress(std::string_view progress) {
  const size_t slash = progress.find('/');
  if (slash == std::string_view::npos) return {0, 0};
  int32_t done = 0;
  int32_t total = 0;
  const char* begin = progress.data();
  const char* end = progress.data() + progress.size();
  auto a = std::from_chars(begin, begin + slash, done);
  auto b = std::from_chars(begin + slash + 1, end, total);
  if (a.ec != std::errc() || a.ptr != begin + slash || b.ec != std::errc() || b.ptr != end)
    return {0, 0};
  return {done, total};
}

StatusView BuildStatusView(const Snapshot& snapshot, const std::string& namespace_, int64_t now) {
  StatusView v;
  v.namespace_ = namespace_;
  for (const crd::GatewayPool& pool : snapshot.pools) v.pools.push_back(SummarizePool(pool));
  for (const crd::ClientProfile& profile : snapshot.profiles)
    v.profiles.push_back(SummarizeProfile(profile));
  for (const crd::RdmaNode& node : snapshot.nodes) v.nodes.push_back(AssessNode(node, now));
  v.warnings = snapshot.warnings;
  return v;
}

}  // namespace rdmastack::plugin
