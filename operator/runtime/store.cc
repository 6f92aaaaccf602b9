#include "operator/runtime/store.h"

#include <mutex>

namespace rdmastack::runtime {

Status Store::AddIndex(const std::string& name, IndexFunc fn) {
  std::unique_lock<std::shared_mutex> l(mu_);
  if (indexes_.count(name) > 0) return AlreadyExistsError("index \"" + name + "\" already exists");
  Index& index = indexes_[name];
  index.fn = std::move(fn);
  for (const auto& [key, object] : items_) {
    for (auto& value : index.fn(*object)) index.keys_by_value[value].insert(key);
  }
  return OkStatus();
}

void Store::IndexLocked(const std::string& key, const ObjectPtr& old, const ObjectPtr& current) {
  for (auto& [name, index] : indexes_) {
    if (old) {
      for (const auto& value : index.fn(*old)) {
        auto it = index.keys_by_value.find(value);
        if (it == index.keys_by_value.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) index.keys_by_value.erase(it);
      }
    }
    if (current) {
      for (auto& value : index.fn(*current)) index.keys_by_value[value].insert(key);
    }
  }
}

ObjectPtr Store::Upsert(ObjectPtr object) {
  const std::string key = object->Key();
  std::unique_lock<std::shared_mutex> l(mu_);
  ObjectPtr& slot = items_[key];
  ObjectPtr old = std::move(slot);
  slot = object;
  IndexLocked(key, old, object);
  return old;
}

ObjectPtr Store::Delete(const std::string& key) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  ObjectPtr old = std::move(it->second);
  items_.erase(it);
  IndexLocked(key, old, nullptr);
  return old;
}

std::vector<StoreChange> Store::Replace(std::vector<ObjectPtr> objects) {
  std::vector<StoreChange> changes;
  std::unique_lock<std::shared_mutex> l(mu_);
  std::map<std::string, ObjectPtr> next;
  for (auto& object : objects) next[object->Key()] = std::move(object);
  for (auto& [key, old] : items_) {
    if (next.count(key) == 0) {
      IndexLocked(key, old, nullptr);
      changes.push_back({old, nullptr});
    }
  }
  for (const auto& [key, current] : next) {
    auto it = items_.find(key);
    ObjectPtr old = it == items_.end() ? nullptr : it->second;
    IndexLocked(key, old, current);
    if (!old || old->ResourceVersion() != current->ResourceVersion()) {
      changes.push_back({old, current});
    }
  }
  items_ = std::move(next);
  return changes;
}

ObjectPtr Store::Get(const std::string& key) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Store::List() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(object);
  return out;
}

std::vector<std::string> Store::ListKeys() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(key);
  return out;
}

StatusOr<std::vector<ObjectPtr>> Store::ByIndex(const std::string& name,
                                                const std::string& value) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto index = indexes_.find(name);
  if (index == indexes_.end()) return NotFoundError("no index named \"" + name + "\"");
  std::vector<ObjectPtr> out;
  auto keys = index->second.keys_by_value.find(value);
  if (keys == index->second.keys_by_value.end()) return out;
  for (const auto& key : keys->second) out.push_back(items_.at(key));
  return out;
}

StatusOr<std::vector<std::string>> Store::IndexValues(const std::string& name) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto index = indexes_.find(name);
  if (index == indexes_.end()) return NotFoundError("no index named \"" + name + "\"");
  std::vector<std::string> out;
  out.reserve(index->second.keys_by_value.size());
  for (const auto& [value, keys] : index->second.keys_by_value) out.push_back(value);
  return out;
}

size_t Store::Size() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  return items_.size();
}

IndexFunc IndexByNamespace() {
  return
      [](const k8s::JsonObject& o) { return std::vector<std::string>{std::string(o.Namespace())}; };
}

IndexFunc IndexByOwnerUid(bool only_controller) {
  return [only_controller](const k8s::JsonObject& o) {
    std::vector<std::string> out;
    for (const auto& ref : o.OwnerReferences()) {
      if (only_controller && !ref.controller) continue;
      out.push_back(ref.uid);
    }
    return out;
  };
}

IndexFunc IndexByLabel(std::string label_key) {
  return [key = std::move(label_key)](const k8s::JsonObject& o) {
    auto value = o.Label(key);
    return value ? std::vector<std::string>{*value} : std::vector<std::string>{};
  };
}

IndexFunc IndexByField(k8s::JsonPath path) {
  return [path = std::move(path)](const k8s::JsonObject& o) {
    auto value = o.GetString(path);
    return value ? std::vector<std::string>{*value} : std::vector<std::string>{};
  };
}

}  // namespace rdmastack::runtime
