#include "controllers/common/namespaced_cache.h"

#include "controllers/common/cache_transforms.h"
#include "controllers/common/owner_index.h"

namespace rdmastack::controllers {

NamespacedCache NamespacedCache::Open(runtime::Manager& manager, runtime::InformerOptions options,
                                      const std::vector<std::string>& namespaces) {
  NamespacedCache cache;
  const std::vector<std::string> every{""};
  for (const std::string& ns : namespaces.empty() ? every : namespaces) {
    options.ns = ns;
    runtime::Informer& informer = manager.cache().Get(options);
    // Shared informers: the first cache over this one added it (AlreadyExists after that).
    (void)informer.AddIndex(kOwnerIndex, IndexByOwner());
    cache.informers_.push_back(&informer);
    cache.parts_.push_back({&informer.store(), ns});
  }
  return cache;
}

NamespacedCache NamespacedCache::OfStore(runtime::Store& store) {
  (void)store.AddIndex(kOwnerIndex, IndexByOwner());
  NamespacedCache cache;
  cache.parts_.push_back({&store, ""});
  return cache;
}

NamespacedCache NamespacedCache::OfNamed(std::shared_ptr<NamedObjects> named) {
  NamespacedCache cache;
  cache.named_ = std::move(named);
  return cache;
}

runtime::ObjectPtr NamespacedCache::Get(const std::string& key) const {
  if (named_) return named_->Get(key);
  const std::string ns = key.substr(0, key.find('/'));
  for (const Part& part : parts_) {
    if (part.ns.empty() || part.ns == ns) return part.store->Get(key);
  }
  return nullptr;
}

std::vector<runtime::ObjectPtr> NamespacedCache::List() const {
  if (named_) return {};
  if (parts_.size() == 1) return parts_.front().store->List();
  std::vector<runtime::ObjectPtr> out;
  for (const Part& part : parts_) {
    std::vector<runtime::ObjectPtr> objects = part.store->List();
    out.insert(out.end(), objects.begin(), objects.end());
  }
  return out;
}

StatusOr<std::vector<runtime::ObjectPtr>> NamespacedCache::ByIndex(const std::string& index,
                                                                   const std::string& value) const {
  if (named_) return NotFoundError("objects watched one name at a time have no index");
  std::vector<runtime::ObjectPtr> out;
  for (const Part& part : parts_) {
    RDMASTACK_ASSIGN_OR_RETURN(std::vector<runtime::ObjectPtr> objects,
                               part.store->ByIndex(index, value));
    out.insert(out.end(), std::make_move_iterator(objects.begin()),
               std::make_move_iterator(objects.end()));
  }
  return out;
}

void NamespacedCache::Watch(runtime::Controller& controller, runtime::MapFunc map,
                            runtime::WatchOptions options) const {
  if (named_) {
    named_->Watch(controller, std::move(map), std::move(options));
    return;
  }
  for (runtime::Informer* informer : informers_) controller.Watch(*informer, map, options);
}

NamespacedCache CachedIn(runtime::Manager& manager, const std::vector<std::string>& namespaces,
                         const k8s::ResourceType& type, std::string label_selector,
                         runtime::Transform transform) {
  return NamespacedCache::Open(
      manager, CachedOptions(type, std::move(label_selector), std::move(transform)), namespaces);
}

}  // namespace rdmastack::controllers
