#include "controllers/common/node_cache.h"

#include "controllers/common/cache_transforms.h"
#include "controllers/common/node_label_keys.h"
#include "crds/types/kinds.h"

namespace rdmastack::controllers {

NodeCache::NodeCache(runtime::Manager& manager, Clock& clock) {
  pools_ = &CachedInformer(manager, crd::kinds::GatewayPool());
  profiles_ = &CachedInformer(manager, crd::kinds::ClientProfile());
  filter_ = std::make_unique<NodeLabelFilter>(
      [this, &clock] {
        // The first listing waits (a while) for the selectors, so that it need not be redone as
        // soon as the pools and profiles arrive.
        const Clock::TimePoint deadline = clock.Now() + std::chrono::seconds(30);
        pools_->WaitForSync(deadline);
        profiles_->WaitForSync(deadline);
        std::set<std::string> keys = LabelKeysToKeep(pools_->store().List());
        keys.merge(LabelKeysToKeep(profiles_->store().List()));
        return keys;
      },
      [this] { nodes_->RequestRelist(); });
  runtime::InformerOptions o = CachedOptions(k8s::kinds::Node(), "", filter_->Transform());
  o.reflector.before_list = [f = filter_.get()] { f->BeforeList(); };
  o.on_replaced = [f = filter_.get()] { f->AfterReplace(); };
  nodes_ = &manager.cache().Get(o);
}

}  // namespace rdmastack::controllers
