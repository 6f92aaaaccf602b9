#include "controllers/common/named_watches.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "controllers/common/cache_transforms.h"
#include "operator/k8s/resource.h"

namespace rdmastack::controllers {

NamedWatches::NamedWatches(runtime::InformerCache& cache, k8s::Client& reader, Clock& clock,
                           Options options)
    : cache_(cache), reader_(reader), clock_(clock), options_(std::move(options)) {}

bool NamedWatches::Served(const std::string& ns) const {
  return options_.served.empty() ||
         std::find(options_.served.begin(), options_.served.end(), ns) != options_.served.end();
}

runtime::Informer* NamedWatches::WatchOf(const std::string& ns, const std::string& name,
                                         const std::string& key) {
  std::lock_guard lock(mu_);
  if (auto it = watches_.find(key); it != watches_.end()) return it->second;
  if (watches_.size() >= options_.max_watches) {
    if (!warned_full_) {
      spdlog::warn(
          "{} watches of single {} reached ({} first read without one): names beyond it are read "
          "with a GET at each use, and their changes start no reconcile",
          options_.max_watches, options_.base.type.plural, key);
      warned_full_ = true;
    }
    return nullptr;
  }
  runtime::InformerOptions o = options_.base;
  o.ns = ns;
  o.field_selector = "metadata.name=" + name;
  runtime::Informer& informer = cache_.Get(o);
  // Before the first event can arrive is not guaranteed (the cache starts it at once), but a
  // handler added late is first given every cached object, so nothing is missed.
  for (const Registration& r : registrations_) r.controller->Watch(informer, r.map, r.options);
  watches_[key] = &informer;
  return &informer;
}

runtime::ObjectPtr NamedWatches::Read(const std::string& ns, const std::string& name) const {
  auto object = reader_.Get(options_.base.type, ns, name);
  if (!object.ok()) return nullptr;  // not there (or not readable): as a watch would show it
  return std::make_shared<const k8s::JsonObject>(
      options_.base.transform ? options_.base.transform(std::move(*object)) : std::move(*object));
}

runtime::ObjectPtr NamedWatches::Get(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size()) return nullptr;
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  if (!Served(ns)) return nullptr;
  runtime::Informer* informer = WatchOf(ns, name, key);
  if (informer == nullptr) return Read(ns, name);
  if (!informer->HasSynced() && !informer->WaitForSync(clock_.Now() + options_.sync_timeout))
    return nullptr;  // its first list arrives later, and its add event starts another pass
  return informer->store().Get(key);
}

void NamedWatches::Watch(runtime::Controller& controller, runtime::MapFunc map,
                         runtime::WatchOptions options) {
  std::lock_guard lock(mu_);
  for (const auto& [key, informer] : watches_) controller.Watch(*informer, map, options);
  registrations_.push_back({&controller, std::move(map), std::move(options)});
}

size_t NamedWatches::watches() const {
  std::lock_guard lock(mu_);
  return watches_.size();
}

NamespacedCache SecretsByName(runtime::Manager& manager, const std::vector<std::string>& served) {
  NamedWatches::Options options;
  options.base = CachedOptions(k8s::kinds::Secret(), "", SecretKeysOnly());
  options.served = served;
  return NamespacedCache::OfNamed(std::make_shared<NamedWatches>(
      manager.cache(), manager.client(), RealClock::Instance(), std::move(options)));
}

}  // namespace rdmastack::controllers
