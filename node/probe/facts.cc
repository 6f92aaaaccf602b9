#include "node/probe/facts.h"

namespace rdmastack::node {

const char* TristateName(Tristate t) {
  switch (t) {
    case Tristate::kYes: return "yes";
    case Tristate::kNo: return "no";
    case Tristate::kUnknown: break;
  }
  return "unknown";
}

const Module* DriverFacts::Find(std::string_view name) const {
  for (const auto& m : modules) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool DriverFacts::Loaded(std::string_view name) const {
  const Module* m = Find(name);
  return m != nullptr && m->loaded;
}

const RdmaDevice* NodeFacts::FindDevice(std::string_view name) const {
  for (const auto& d : rdma_devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

const NetDev* NodeFacts::FindNetDev(std::string_view name) const {
  for (const auto& n : netdevs) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

bool NodeFacts::HasIssues(std::string_view area) const {
  return !IssuesIn(area).empty();
}

std::vector<const ProbeIssue*> NodeFacts::IssuesIn(std::string_view area) const {
  std::vector<const ProbeIssue*> out;
  for (const auto& i : issues) {
    if (i.area == area) out.push_back(&i);
  }
  return out;
}

}  // namespace rdmastack::node
