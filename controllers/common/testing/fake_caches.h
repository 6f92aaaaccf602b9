#pragma once
// The informer caches a reconciler reads, filled from the fake API server
// (operator/k8s/testing/fake_client.h) when the test says so: Sync() is the moment the informers
// would have delivered every write so far. Each cache keeps the selector and transform the
// operator's informer for it has (controllers/common/cache_transforms.h), so a reconciler sees
// what it would see in a cluster.

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "controllers/common/namespaced_cache.h"
#include "controllers/common/node_label_filter.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers::testing {

class FakeCaches {
 public:
  explicit FakeCaches(k8s::testing::FakeClient& api) : api_(api) {}

  // The cache of `type`'s objects that `label_selector` selects, each passed through `transform`.
  // One per type and selector: the first caller's transform wins, as in the informer cache.
  const runtime::Store& Store(const k8s::ResourceType& type, const std::string& label_selector = "",
                              runtime::Transform transform = runtime::StripManagedFields());
  // Files the objects of that cache under `indexes` too, as the operator's informer does.
  void AddIndexes(const k8s::ResourceType& type,
                  const std::vector<std::pair<std::string, runtime::IndexFunc>>& indexes,
                  const std::string& label_selector = "");
  // The same as a NamespacedCache covering every namespace.
  NamespacedCache Cache(const k8s::ResourceType& type, const std::string& label_selector = "",
                        runtime::Transform transform = runtime::StripManagedFields());

  // Every cache holds what the API server holds now.
  void Sync();

 private:
  struct Entry {
    k8s::ResourceType type;
    std::string label_selector;
    runtime::Transform transform;
    runtime::Store store;
  };
  Entry& Find(const k8s::ResourceType& type, const std::string& label_selector,
              runtime::Transform transform);
  k8s::testing::FakeClient& api_;
  std::deque<Entry> entries_;  // a deque: the stores handed out stay where they are
};

// For a Node store made with NodeLabelsAndOperatorAnnotations (every label kept): every selector
// is covered, unless the test says the cache is waiting for a re-list (`covered = false`).
class FakeNodeLabelCoverage final : public NodeLabelCoverage {
 public:
  bool Covers(const std::set<std::string>& keys) override {
    asked.insert(keys.begin(), keys.end());
    return covered;
  }
  bool covered = true;
  std::set<std::string> asked;  // every key a reconciler asked about
};

}  // namespace rdmastack::controllers::testing
