#pragma once
// A cache of one namespaced kind: one informer over every namespace, or, when the admin names the
// namespaces the operator serves (TenancyPolicy::namespaces), one per served namespace, because
// the chart then grants that kind there only and a cluster-wide watch would be refused. Readers
// see one store either way.

#include <memory>
#include <string>
#include <vector>

#include "operator/runtime/controller.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/manager.h"

namespace rdmastack::controllers {

// Objects read one name at a time (named_watches.h): no listing.
class NamedObjects {
 public:
  virtual ~NamedObjects() = default;
  // The object "ns/name"; nullptr when absent.
  virtual runtime::ObjectPtr Get(const std::string& key) = 0;
  // controller.Watch on every watch, those made later included.
  virtual void Watch(runtime::Controller& controller, runtime::MapFunc map,
                     runtime::WatchOptions options) = 0;
};

class NamespacedCache {
 public:
  // The manager's shared informers for `options` (its `ns` is set here; the first caller's
  // transform wins, as for any shared informer). `namespaces` empty: every namespace.
  static NamespacedCache Open(runtime::Manager& manager, runtime::InformerOptions options,
                              const std::vector<std::string>& namespaces);

  // A store filled by the caller, covering every namespace, with nothing to watch: the seam for
  // tests that feed a reconciler's caches themselves. Adds the owner index (owner_index.h), as
  // Open does.
  static NamespacedCache OfStore(runtime::Store& store);
  // Objects watched one name at a time, as they are asked for (List() is empty).
  static NamespacedCache OfNamed(std::shared_ptr<NamedObjects> named);

  // The cached object "ns/name"; nullptr when absent or in a namespace not cached.
  runtime::ObjectPtr Get(const std::string& key) const;
  std::vector<runtime::ObjectPtr> List() const;
  // The objects filed under `value` in index `index` of every part; NotFound when a part has no
  // such index or the objects are watched one name at a time.
  StatusOr<std::vector<runtime::ObjectPtr>> ByIndex(const std::string& index,
                                                    const std::string& value) const;
  const std::vector<runtime::Informer*>& informers() const { return informers_; }
  // controller.Watch on each informer: a change in any of them is a change of this kind.
  void Watch(runtime::Controller& controller, runtime::MapFunc map,
             runtime::WatchOptions options = {}) const;

 private:
  struct Part {
    const runtime::Store* store;
    std::string ns;  // "" covers every namespace
  };
  std::vector<Part> parts_;
  std::vector<runtime::Informer*> informers_;  // what fills parts_ (none for OfStore)
  std::shared_ptr<NamedObjects> named_;        // instead of parts_ (OfNamed)
};

// Open() for `type` with CachedInformer's selector and transform.
NamespacedCache CachedIn(runtime::Manager& manager, const std::vector<std::string>& namespaces,
                         const k8s::ResourceType& type, std::string label_selector = "",
                         runtime::Transform transform = runtime::StripManagedFields());

}  // namespace rdmastack::controllers
