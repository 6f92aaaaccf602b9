#pragma once
// The informer cache: a thread-safe map "namespace/name" -> immutable object snapshot, with named
// secondary indexes (client-go ThreadSafeStore + Indexer). Objects are shared read-only; callers
// that want to change one copy it first.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"

namespace rdmastack::runtime {

// The values an object is filed under in one index (none = not indexed).
using IndexFunc = std::function<std::vector<std::string>(const k8s::JsonObject&)>;

// A change made to the store; old is null for an add, current is null for a delete.
struct StoreChange {
  ObjectPtr old;
  ObjectPtr current;
};

class Store {
 public:
  // Indexes may be added at any time; existing objects are indexed immediately. A second index of
  // the same name is an error. Index functions run under the store's lock: they must not call the
  // store.
  Status AddIndex(const std::string& name, IndexFunc fn);

  // Inserts or replaces by the object's key; returns the previous object (null if none).
  ObjectPtr Upsert(ObjectPtr object);
  // Removes the key; returns the removed object (null if absent).
  ObjectPtr Delete(const std::string& key);
  // Makes the store hold exactly `objects`; returns what changed (adds, updates of objects whose
  // resourceVersion differs, and deletes of keys no longer present, carrying the last known
  // object).
  std::vector<StoreChange> Replace(std::vector<ObjectPtr> objects);

  ObjectPtr Get(const std::string& key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<std::string> ListKeys() const;
  // Objects filed under `value` in index `name`; NotFound if there is no such index.
  StatusOr<std::vector<ObjectPtr>> ByIndex(const std::string& name, const std::string& value) const;
  // The values some object is filed under in index `name`, sorted; NotFound if there is no such
  // index. Costs the number of distinct values, not of objects.
  StatusOr<std::vector<std::string>> IndexValues(const std::string& name) const;
  size_t Size() const;

 private:
  struct Index {
    IndexFunc fn;
    std::map<std::string, std::set<std::string>> keys_by_value;
  };
  void IndexLocked(const std::string& key, const ObjectPtr& old, const ObjectPtr& current);

  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr> items_;
  std::map<std::string, Index> indexes_;
};

// Ready-made index functions.
IndexFunc IndexByNamespace();
// UIDs of all owner references (or only the controller's when only_controller).
IndexFunc IndexByOwnerUid(bool only_controller = false);
// The value of one label.
IndexFunc IndexByLabel(std::string label_key);
// The string at a field path (e.g. {"spec", "nodeName"}).
IndexFunc IndexByField(k8s::JsonPath path);

}  // namespace rdmastack::runtime
