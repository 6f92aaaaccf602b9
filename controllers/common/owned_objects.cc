#include "controllers/common/owned_objects.h"

namespace rdmastack::controllers {

bool OwnedBy(const k8s::JsonObject& object, const Owner& owner) {
  return object.Namespace() == owner.ns && object.Label(owner.label) == owner.name;
}

std::vector<runtime::ObjectPtr> ListOwned(const NamespacedCache& cache, const Owner& owner) {
  std::vector<runtime::ObjectPtr> out;
  for (runtime::ObjectPtr& o : cache.List()) {
    if (OwnedBy(*o, owner)) out.push_back(std::move(o));
  }
  return out;
}

runtime::ObjectPtr GetOwned(const NamespacedCache& cache, const Owner& owner,
                            const std::string& name) {
  runtime::ObjectPtr o = cache.Get(std::string(owner.ns) + "/" + name);
  return o != nullptr && OwnedBy(*o, owner) ? o : nullptr;
}

std::vector<OwnedPod> ListOwnedPods(const NamespacedCache& pods, const Owner& owner,
                                    std::string_view container) {
  std::vector<OwnedPod> out;
  for (const runtime::ObjectPtr& o : ListOwned(pods, owner))
    out.push_back(ReadOwnedPod(*o, container));
  return out;
}

}  // namespace rdmastack::controllers
