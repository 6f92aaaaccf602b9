#include "crds/types/node_upgrade.h"

#include <array>
#include <utility>

#include "crds/types/gatewaypool_api.h"
#include "operator/k8s/json_builder.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {
namespace {

constexpr std::array<std::pair<UpgradePhase, std::string_view>, 8> kPhases{{
    {UpgradePhase::kStartNew, "StartNew"},
    {UpgradePhase::kValidate, "Validate"},
    {UpgradePhase::kSwitch, "Switch"},
    {UpgradePhase::kDrain, "Drain"},
    {UpgradePhase::kStopOld, "StopOld"},
    {UpgradePhase::kDone, "Done"},
    {UpgradePhase::kRollBack, "RollBack"},
    {UpgradePhase::kFailed, "Failed"},
}};

}  // namespace

std::string_view PhaseName(UpgradePhase phase) {
  for (const auto& [p, name] : kPhases) {
    if (p == phase) return name;
  }
  return "";
}

std::optional<UpgradePhase> ParsePhase(std::string_view name) {
  for (const auto& [p, n] : kPhases) {
    if (n == name) return p;
  }
  return std::nullopt;
}

std::string SerializeNodeUpgradeState(const NodeUpgradeState& s) {
  k8s::JsonBuilder o;
  o.SetString({"from"}, s.from);
  o.SetString({"to"}, s.to);
  if (!s.template_hash.empty()) o.SetString({"templateHash"}, s.template_hash);
  if (s.in_place) o.SetBool({"inPlace"}, true);
  o.SetString({"phase"}, PhaseName(s.phase));
  o.SetInt({"started"}, s.started);
  o.SetInt({"since"}, s.since);
  if (!s.reason.empty()) o.SetString({"reason"}, s.reason);
  if (!s.message.empty()) o.SetString({"message"}, s.message);
  if (s.keep_failed) o.SetBool({"keepFailed"}, true);
  if (s.drain_new) o.SetBool({"drainNew"}, true);
  return o.object().Serialize();
}

StatusOr<NodeUpgradeState> ParseNodeUpgradeState(std::string_view json) {
  auto o = k8s::JsonObject::Parse(json);
  if (!o.ok() || !o->IsObject())
    return InvalidArgumentError("upgrade state is not a JSON object: " + std::string(json));
  NodeUpgradeState s;
  s.from = o->GetString({"from"}).value_or("");
  s.to = o->GetString({"to"}).value_or("");
  s.template_hash = o->GetString({"templateHash"}).value_or("");
  s.in_place = o->GetBool({"inPlace"}).value_or(false);
  const std::optional<UpgradePhase> phase = ParsePhase(o->GetString({"phase"}).value_or(""));
  if (!phase || s.from.empty() || s.to.empty())
    return InvalidArgumentError("upgrade state lacks from, to or a known phase: " +
                                std::string(json));
  s.phase = *phase;
  s.started = o->GetInt({"started"}).value_or(0);
  s.since = o->GetInt({"since"}).value_or(0);
  s.reason = o->GetString({"reason"}).value_or("");
  s.message = o->GetString({"message"}).value_or("");
  s.keep_failed = o->GetBool({"keepFailed"}).value_or(false);
  s.drain_new = o->GetBool({"drainNew"}).value_or(false);
  return s;
}

std::string NodeUpgradeAnnotation(std::string_view ns, std::string_view pool) {
  return NodePoolAnnotation("upgrade.", ns, pool);
}

bool InFlight(const NodeUpgradeState& state) {
  return state.phase != UpgradePhase::kDone && state.phase != UpgradePhase::kFailed;
}

EndpointRole RoleOf(const NodeUpgradeState& s, std::string_view track) {
  const bool is_to = track == s.to;
  const bool is_from = track == s.from;
  if (!is_to && !is_from) return EndpointRole::kAbsent;
  if (s.in_place) {
    switch (s.phase) {
      case UpgradePhase::kDrain: return is_from ? EndpointRole::kDraining : EndpointRole::kAbsent;
      case UpgradePhase::kDone:
      case UpgradePhase::kFailed: return is_to ? EndpointRole::kActive : EndpointRole::kAbsent;
      default: return EndpointRole::kAbsent;
    }
  }
  switch (s.phase) {
    case UpgradePhase::kSwitch:
    case UpgradePhase::kDrain: return is_to ? EndpointRole::kActive : EndpointRole::kDraining;
    case UpgradePhase::kStopOld:
    case UpgradePhase::kDone: return is_to ? EndpointRole::kActive : EndpointRole::kAbsent;
    case UpgradePhase::kRollBack:
      if (is_to) return s.drain_new ? EndpointRole::kDraining : EndpointRole::kAbsent;
      return EndpointRole::kActive;
    default:  // StartNew, Validate, Failed: the old gateway serves
      return is_from ? EndpointRole::kActive : EndpointRole::kAbsent;
  }
}

}  // namespace rdmastack::gatewaypool
