#include "node/checks/check_builder.h"

#include <algorithm>

namespace rdmastack::node {

const char* CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "Pass";
    case CheckStatus::kWarn: return "Warn";
    case CheckStatus::kFail: return "Fail";
    case CheckStatus::kUnknown: break;
  }
  return "Unknown";
}

namespace checks {

CheckResult Pass(std::string id, std::string message, std::string reason) {
  return {std::move(id), CheckStatus::kPass, std::move(reason), std::move(message), ""};
}
CheckResult Warn(std::string id, std::string reason, std::string message, std::string remedy) {
  return {std::move(id), CheckStatus::kWarn, std::move(reason), std::move(message),
          std::move(remedy)};
}
CheckResult Fail(std::string id, std::string reason, std::string message, std::string remedy) {
  return {std::move(id), CheckStatus::kFail, std::move(reason), std::move(message),
          std::move(remedy)};
}
CheckResult Unknown(std::string id, std::string reason, std::string message, std::string remedy) {
  return {std::move(id), CheckStatus::kUnknown, std::move(reason), std::move(message),
          std::move(remedy)};
}

std::string DescribeIssues(const NodeFacts& facts, std::string_view area, std::string_view needle) {
  std::vector<std::string> parts;
  size_t more = 0;
  for (const ProbeIssue* i : facts.IssuesIn(area)) {
    if (!needle.empty() && i->path.find(needle) == std::string::npos) continue;
    if (parts.size() == 3) {
      ++more;
      continue;
    }
    // Messages usually start with the path already; avoid saying it twice.
    parts.push_back(i->message.rfind(i->path, 0) == 0 ? i->message : i->path + ": " + i->message);
  }
  std::string out = JoinList(parts, "; ");
  if (more) out += "; and " + std::to_string(more) + " more";
  return out;
}

std::vector<const RdmaDevice*> HardwareDevices(const NodeFacts& facts) {
  std::vector<const RdmaDevice*> out;
  for (const auto& d : facts.rdma_devices) {
    if (!d.soft) out.push_back(&d);
  }
  return out;
}

std::vector<const RdmaDevice*> UsableDevices(const NodeFacts& facts) {
  std::vector<const RdmaDevice*> hw = HardwareDevices(facts);
  std::vector<const RdmaDevice*> supported;
  for (const RdmaDevice* d : hw) {
    if (d->generation_rank >= 5) supported.push_back(d);
  }
  return supported.empty() ? hw : supported;
}

bool PortUsable(const RdmaPort& p) {
  if (!p.Up()) return false;
  if (p.IsInfiniBand()) return p.sm_lid != "0x0" && p.lid != "0x0";
  return true;
}

std::string PortName(const RdmaDevice& d, const RdmaPort& p) {
  return d.name + "/" + std::to_string(p.number);
}

std::string JoinList(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string JoinGrouped(const std::vector<Said>& said, std::string_view sep) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  size_t largest = 0;
  for (const Said& s : said) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == s.value; });
    if (it == groups.end()) it = groups.insert(groups.end(), {s.value, {}});
    it->second.push_back(s.item);
    largest = std::max(largest, it->second.size());
  }
  std::vector<std::string> parts;
  if (largest < 3) {
    for (const Said& s : said) parts.push_back(s.alone);
    return JoinList(parts, sep);
  }
  for (const auto& [value, items] : groups) parts.push_back(value + ": " + JoinList(items));
  return JoinList(parts, "; ");
}

}  // namespace checks
}  // namespace rdmastack::node
