#include "controllers/common/owner_index.h"

#include <vector>

#include "crds/types/clientprofile_api.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::controllers {
namespace {

// The pool and profile labels on what they own, and the label workloads name their profile with.
constexpr std::string_view kOwnerLabels[] = {gatewaypool::kPoolLabel, clientprofile::kProfileLabel,
                                             clientprofile::kWorkloadLabel};

}  // namespace

std::string ControllerUid(const k8s::JsonObject& object) {
  for (const k8s::OwnerReference& ref : object.OwnerReferences()) {
    if (ref.controller) return ref.uid;
  }
  return "";
}

bool IsIndexedOwnerLabel(std::string_view key) {
  for (std::string_view k : kOwnerLabels) {
    if (k == key) return true;
  }
  return false;
}

std::string OwnerUidValue(std::string_view ns, std::string_view uid) {
  return "uid/" + std::string(ns) + "/" + std::string(uid);
}

std::string OwnerLabelValue(std::string_view ns, std::string_view key, std::string_view value) {
  return "label/" + std::string(ns) + "/" + std::string(key) + "=" + std::string(value);
}

runtime::IndexFunc IndexByOwner() {
  return [](const k8s::JsonObject& o) {
    std::vector<std::string> out;
    if (const std::string uid = ControllerUid(o); !uid.empty())
      out.push_back(OwnerUidValue(o.Namespace(), uid));
    for (std::string_view key : kOwnerLabels) {
      if (auto value = o.Label(key)) out.push_back(OwnerLabelValue(o.Namespace(), key, *value));
    }
    return out;
  };
}

}  // namespace rdmastack::controllers
