#include "operator/runtime/informer.h"

#include "operator/k8s/json_builder.h"
#include "operator/runtime/compact_object.h"

namespace rdmastack::runtime {

Transform StripManagedFields() {
  return [](k8s::JsonObject o) {
    o.StripManagedFields();
    return o;
  };
}

Transform TrimToFields(std::vector<k8s::JsonPath> keep) {
  static const k8s::JsonPath kIdentity[] = {
      {"apiVersion"},
      {"kind"},
      {"metadata", "name"},
      {"metadata", "namespace"},
      {"metadata", "uid"},
      {"metadata", "resourceVersion"},
      {"metadata", "generation"},
      {"metadata", "deletionTimestamp"},
      {"metadata", "ownerReferences"},
  };
  return [keep = std::move(keep)](k8s::JsonObject o) {
    k8s::JsonBuilder out;
    auto copy = [&](const k8s::JsonPath& path) {
      const rapidjson::Value* v = o.Find(path);
      if (v != nullptr) out.Set(path, k8s::JsonObject::FromValue(*v));
    };
    for (const auto& path : kIdentity) copy(path);
    for (const auto& path : keep) copy(path);
    return std::move(out).Build();
  };
}

Informer::Informer(k8s::Client& client, Clock& clock, InformerOptions options)
    : clock_(clock), options_(std::move(options)) {
  ReflectorOptions r = options_.reflector;
  r.type = options_.type;
  r.ns = options_.ns;
  r.label_selector = options_.label_selector;
  r.field_selector = options_.field_selector;
  r.transform = options_.transform;
  reflector_ =
      std::make_unique<Reflector>(client, clock, std::move(r), static_cast<ReflectorSink&>(*this));
}

Informer::~Informer() {
  Stop();
}

void Informer::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { reflector_->Run(); });
}

void Informer::Stop() {
  reflector_->Stop();
  if (thread_.joinable()) thread_.join();
}

bool Informer::HasSynced() const {
  std::lock_guard<std::mutex> l(sync_mu_);
  return synced_;
}

bool Informer::WaitForSync(Clock::TimePoint deadline) {
  std::unique_lock<std::mutex> l(sync_mu_);
  while (!synced_) {
    if (clock_.Now() >= deadline) return false;
    clock_.WaitUntil(l, synced_cv_, deadline);
  }
  return true;
}

void Informer::AddEventHandler(EventHandler handler) {
  auto slot = std::make_shared<HandlerSlot>(std::move(handler));
  // Live events for this handler wait until its startup batch has been delivered.
  std::lock_guard<std::mutex> deliver(slot->deliver_mu);
  std::vector<ObjectPtr> cached;
  {
    std::lock_guard<std::mutex> l(handlers_mu_);
    if (slot->handler.on_add) cached = store_.List();
    auto next = std::make_shared<HandlerList>(*handlers_);
    next->push_back(slot);
    handlers_ = std::move(next);
  }
  for (const auto& object : cached) slot->handler.on_add(object);
}

template <typename Change>
std::shared_ptr<const Informer::HandlerList> Informer::ApplyThenListHandlers(Change&& change) {
  std::lock_guard<std::mutex> l(handlers_mu_);
  change();
  return handlers_;
}

ObjectPtr Informer::Prepare(k8s::JsonObject object) {
  return CompactCopy(object);
}

void Informer::Deliver(const HandlerList& handlers, const StoreChange& change) {
  for (const auto& slot : handlers) {
    std::lock_guard<std::mutex> deliver(slot->deliver_mu);
    const EventHandler& h = slot->handler;
    if (!change.current) {
      if (h.on_delete) h.on_delete(change.old);
    } else if (!change.old) {
      if (h.on_add) h.on_add(change.current);
    } else if (h.on_update) {
      h.on_update(change.old, change.current);
    }
  }
}

void Informer::Replace(std::vector<ObjectPtr> objects, const std::string&) {
  std::vector<StoreChange> changes;
  const auto handlers = ApplyThenListHandlers([&] {
    changes = store_.Replace(std::move(objects));
    if (options_.on_replaced) options_.on_replaced();
  });
  for (const StoreChange& c : changes) Deliver(*handlers, c);
  changes.clear();
  if (options_.release_memory_after_list) ReleaseFreeMemory();
  std::lock_guard<std::mutex> l(sync_mu_);
  synced_ = true;
  synced_cv_.notify_all();
}

void Informer::Upsert(ObjectPtr current) {
  ObjectPtr old;
  const auto handlers = ApplyThenListHandlers([&] { old = store_.Upsert(current); });
  Deliver(*handlers, {old, current});
}

void Informer::Remove(ObjectPtr last) {
  // The DELETED event carries the final state; it is delivered even for an uncached object.
  const auto handlers = ApplyThenListHandlers([&] { store_.Delete(last->Key()); });
  Deliver(*handlers, {last, nullptr});
}

Informer& InformerCache::Get(const InformerOptions& options) {
  const Identity id{options.type.ApiVersion(), options.type.plural, options.ns,
                    options.label_selector, options.field_selector};
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = informers_[id];
  if (!slot) {
    slot = std::make_unique<Informer>(client_, clock_, options);
    if (started_) slot->Start();
  }
  return *slot;
}

void InformerCache::Start() {
  std::lock_guard<std::mutex> l(mu_);
  started_ = true;
  for (auto& [id, informer] : informers_) informer->Start();
}

void InformerCache::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [id, informer] : informers_) informer->Stop();
}

bool InformerCache::WaitForSync(Clock::TimePoint deadline) {
  std::vector<Informer*> all;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [id, informer] : informers_) all.push_back(informer.get());
  }
  for (Informer* informer : all) {
    if (!informer->WaitForSync(deadline)) return false;
  }
  return true;
}

bool InformerCache::HasSynced() const {
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [id, informer] : informers_) {
    if (!informer->HasSynced()) return false;
  }
  return true;
}

}  // namespace rdmastack::runtime
