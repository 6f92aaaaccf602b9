#pragma once
// A shared informer: one reflector feeding one store, with event handlers called in order after
// each change is applied (client-go SharedIndexInformer, with in-order delivery and no DeltaFIFO).
// Handlers run on the informer's thread and must be quick: map the object to keys and enqueue.
// A handler added after the cache has synced first receives an add for every cached object.
// Handlers run with no informer or store lock held: one may read the store, add an index, or add
// another handler. The store then shows the state right after the change being delivered (after
// a relist: after the whole list).

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/reflector.h"
#include "operator/runtime/store.h"

namespace rdmastack::runtime {

struct EventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old, const ObjectPtr& current)> on_update;
  // On a relist, an object that vanished is delivered with its last known state.
  std::function<void(const ObjectPtr&)> on_delete;
};

// Drops metadata.managedFields (the default transform).
Transform StripManagedFields();
// Keeps only the given paths plus the identity metadata (apiVersion, kind, name, namespace, uid,
// resourceVersion, generation, deletionTimestamp, ownerReferences). Cuts cache memory for large
// objects such as Nodes of which a controller reads a few fields.
Transform TrimToFields(std::vector<k8s::JsonPath> keep);

struct InformerOptions {
  k8s::ResourceType type;
  std::string ns;
  std::string label_selector;
  std::string field_selector;
  // Applied as objects arrive (list pages, watch events), before they are cached.
  Transform transform = StripManagedFields();
  // After each full list, hand the memory of the dropped full objects back to the OS.
  bool release_memory_after_list = true;
  // Called after a full list has replaced the store's contents and before any handler hears of
  // it, under the lock that orders store changes (so it must be quick and take no informer lock):
  // from here on, readers of the store see the objects as this listing transformed them.
  std::function<void()> on_replaced;
  ReflectorOptions reflector;  // type/ns/selectors/transform are filled in from the fields above
};

class Informer final : private ReflectorSink {
 public:
  Informer(k8s::Client& client, Clock& clock, InformerOptions options);
  ~Informer() override;

  void AddEventHandler(EventHandler handler);
  Status AddIndex(const std::string& name, IndexFunc fn) {
    return store_.AddIndex(name, std::move(fn));
  }
  const Store& store() const { return store_; }

  // Starts the reflector thread. Stop() ends it; both are idempotent.
  void Start();
  void Stop();
  bool HasSynced() const;
  // Waits until the first list has been applied or `deadline` passes.
  bool WaitForSync(Clock::TimePoint deadline);
  // Fetches the collection again at once (Reflector::RequestRelist).
  void RequestRelist() { reflector_->RequestRelist(); }

  const InformerOptions& options() const { return options_; }
  const Reflector& reflector() const { return *reflector_; }

 private:
  ObjectPtr Prepare(k8s::JsonObject object) override;
  void Replace(std::vector<ObjectPtr> objects, const std::string& resource_version) override;
  void Upsert(ObjectPtr object) override;
  void Remove(ObjectPtr object) override;

  Clock& clock_;
  const InformerOptions options_;
  Store store_;
  std::unique_ptr<Reflector> reflector_;
  std::thread thread_;

  // A registered handler. `deliver_mu` is held while it is called, so that the startup batch of a
  // handler added late (delivered by the thread that adds it) comes before its first live event.
  struct HandlerSlot {
    explicit HandlerSlot(EventHandler h) : handler(std::move(h)) {}
    EventHandler handler;
    std::mutex deliver_mu;
  };
  using HandlerList = std::vector<std::shared_ptr<HandlerSlot>>;
  // Applies `change` to the store and returns the handlers it must be delivered to, atomically
  // with respect to AddEventHandler (a handler either sees the change in its startup batch or
  // gets it as an event).
  template <typename Change>
  std::shared_ptr<const HandlerList> ApplyThenListHandlers(Change&& change);
  // Calls each handler's on_add, on_update or on_delete for `change`, outside every lock but the
  // handler's own delivery lock.
  static void Deliver(const HandlerList& handlers, const StoreChange& change);

  // Guards handlers_ and orders store changes against handler registration; never held while a
  // handler runs. handlers_ is copied on write, so delivery reads it without the lock.
  std::mutex handlers_mu_;
  std::shared_ptr<const HandlerList> handlers_ = std::make_shared<const HandlerList>();

  mutable std::mutex sync_mu_;
  std::condition_variable synced_cv_;
  bool synced_ = false;
};

// One informer per (resource, namespace, selectors), shared by every controller that asks.
class InformerCache {
 public:
  InformerCache(k8s::Client& client, Clock& clock) : client_(client), clock_(clock) {}
  // Returns the existing informer for these options' identity, or creates one (started at once
  // if the cache is already running). The first caller's transform wins.
  Informer& Get(const InformerOptions& options);
  void Start();
  void Stop();
  bool WaitForSync(Clock::TimePoint deadline);
  bool HasSynced() const;

 private:
  using Identity = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  k8s::Client& client_;
  Clock& clock_;
  mutable std::mutex mu_;
  bool started_ = false;
  std::map<Identity, std::unique_ptr<Informer>> informers_;
};

}  // namespace rdmastack::runtime
