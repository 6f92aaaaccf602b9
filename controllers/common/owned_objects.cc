#include "controllers/common/owned_objects.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace rdmastack::controllers {
namespace {

bool CarriesLabel(const k8s::JsonObject& object, const Owner& owner) {
  return object.Namespace() == owner.ns && object.Label(owner.label) == owner.name;
}

// What `cache` may hold of the owner's: the objects whose controller is one of `controllers` or
// that carry the owner's label, in key order, from the owner index; every object when the cache
// has no such index.
std::vector<runtime::ObjectPtr> Candidates(const NamespacedCache& cache, const Owner& owner,
                                           const std::set<std::string, std::less<>>& controllers) {
  if (!IsIndexedOwnerLabel(owner.label)) return cache.List();
  std::map<std::string, runtime::ObjectPtr> by_key;
  auto add = [&](const std::string& value) {
    StatusOr<std::vector<runtime::ObjectPtr>> objects = cache.ByIndex(kOwnerIndex, value);
    if (!objects.ok()) return false;
    for (runtime::ObjectPtr& o : *objects) by_key.emplace(o->Key(), std::move(o));
    return true;
  };
  if (!add(OwnerLabelValue(owner.ns, owner.label, owner.name))) return cache.List();
  for (const std::string& uid : controllers) {
    if (!uid.empty()) add(OwnerUidValue(owner.ns, uid));
  }
  std::vector<runtime::ObjectPtr> out;
  out.reserve(by_key.size());
  for (auto& [key, o] : by_key) out.push_back(std::move(o));
  return out;
}

// Sorts each candidate in the owner's namespace into owned (`owns`) or look-alike (its label
// without `owns`). A look-alike being deleted is left out of both: the pods of a DaemonSet the
// owner just deleted lose their controller from the cache before the garbage collector removes
// them, and are not worth a warning.
template <typename Owns>
Claimed Sort(std::vector<runtime::ObjectPtr> candidates, const Owner& owner, const Owns& owns) {
  Claimed out;
  for (runtime::ObjectPtr& o : candidates) {
    if (o->Namespace() != owner.ns) continue;
    if (owns(*o)) {
      out.owned.push_back(std::move(o));
    } else if (CarriesLabel(*o, owner) && !o->IsBeingDeleted()) {
      out.look_alikes.push_back(std::move(o));
    }
  }
  return out;
}

std::string_view Or(const std::optional<std::string>& s) {
  return s ? std::string_view(*s) : std::string_view();
}

}  // namespace

Owner OwnerOf(const crd::ObjectMeta& meta, std::string_view label) {
  return {Or(meta.namespace_), label, meta.name, Or(meta.uid)};
}

bool OwnedBy(const k8s::JsonObject& object, const Owner& owner) {
  return !owner.uid.empty() && object.Namespace() == owner.ns && ControllerUid(object) == owner.uid;
}

Claimed Claim(const NamespacedCache& cache, const Owner& owner) {
  return Sort(Candidates(cache, owner, {std::string(owner.uid)}), owner,
              [&](const k8s::JsonObject& o) { return OwnedBy(o, owner); });
}

Claimed ClaimPods(const NamespacedCache& pods, const Owner& owner,
                  const std::vector<runtime::ObjectPtr>& daemonsets) {
  std::set<std::string, std::less<>> uids;
  for (const runtime::ObjectPtr& d : daemonsets) {
    if (OwnedBy(*d, owner) && !d->Uid().empty()) uids.insert(std::string(d->Uid()));
  }
  return Sort(Candidates(pods, owner, uids), owner,
              [&](const k8s::JsonObject& o) { return uids.count(ControllerUid(o)) != 0; });
}

std::vector<runtime::ObjectPtr> ListOwned(const NamespacedCache& cache, const Owner& owner) {
  return Claim(cache, owner).owned;
}

runtime::ObjectPtr GetOwned(const NamespacedCache& cache, const Owner& owner,
                            const std::string& name) {
  runtime::ObjectPtr o = cache.Get(std::string(owner.ns) + "/" + name);
  return o != nullptr && OwnedBy(*o, owner) ? o : nullptr;
}

Status CheckNameFree(const NamespacedCache& cache, const Owner& owner, std::string_view kind,
                     const std::string& name) {
  const runtime::ObjectPtr o = cache.Get(std::string(owner.ns) + "/" + name);
  if (o == nullptr || OwnedBy(*o, owner)) return OkStatus();
  return FailedPreconditionError(std::string(kind) + " " + o->Key() +
                                 " exists but is not this one's (its controller is " +
                                 (ControllerUid(*o).empty() ? "none" : ControllerUid(*o)) +
                                 "), so it is left as it is and not written over: delete it, "
                                 "and the operator creates its own");
}

std::vector<OwnedPod> ReadPods(const std::vector<runtime::ObjectPtr>& pods,
                               std::string_view container) {
  std::vector<OwnedPod> out;
  out.reserve(pods.size());
  for (const runtime::ObjectPtr& o : pods) out.push_back(ReadOwnedPod(*o, container));
  return out;
}

std::string LookAlikeNote(std::string_view kind, const k8s::JsonObject& object,
                          const Owner& owner) {
  const std::string controller = ControllerUid(object);
  return std::string(kind) + " " + object.Key() + " carries " + std::string(owner.label) + "=" +
         std::string(owner.name) + " but its controller is " +
         (controller.empty() ? "none" : "UID " + controller) + ", not this one (UID " +
         std::string(owner.uid) +
         "): it is ignored (not adopted, counted, published or deleted); delete it, or take the "
         "label off (one with the name of an object the operator creates must be deleted)";
}

void RecordLookAlikes(runtime::EventRecorder& events, const k8s::JsonObject& regarding,
                      std::string_view kind, const Owner& owner,
                      const std::vector<runtime::ObjectPtr>& look_alikes) {
  for (const runtime::ObjectPtr& o : look_alikes) {
    events.RecordRelated(regarding, *o, runtime::EventType::kWarning, "NotOwnedIgnored", "Ignore",
                         LookAlikeNote(kind, *o, owner));
  }
}

}  // namespace rdmastack::controllers
