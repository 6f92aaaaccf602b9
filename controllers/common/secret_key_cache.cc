#include "controllers/common/secret_key_cache.h"

#include "controllers/common/cache_transforms.h"

namespace rdmastack::controllers {

SecretKeyCache SecretKeyCache::Open(runtime::Manager& manager,
                                    const std::vector<std::string>& namespaces) {
  SecretKeyCache cache;
  const std::vector<std::string> every{""};
  for (const std::string& ns : namespaces.empty() ? every : namespaces) {
    runtime::InformerOptions o;
    o.type = k8s::kinds::Secret();
    o.ns = ns;
    o.transform = SecretKeysOnly();
    cache.informers_.push_back(&manager.cache().Get(o));
  }
  return cache;
}

runtime::ObjectPtr SecretKeyCache::Get(const std::string& key) const {
  const std::string ns = key.substr(0, key.find('/'));
  for (const runtime::Informer* informer : informers_) {
    const std::string& covers = informer->options().ns;
    if (covers.empty() || covers == ns) return informer->store().Get(key);
  }
  return nullptr;
}

}  // namespace rdmastack::controllers
