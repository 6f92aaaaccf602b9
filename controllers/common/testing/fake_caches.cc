#include "controllers/common/testing/fake_caches.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "operator/k8s/testing/selectors.h"

namespace rdmastack::controllers::testing {

FakeCaches::Entry& FakeCaches::Find(const k8s::ResourceType& type,
                                    const std::string& label_selector,
                                    runtime::Transform transform) {
  for (Entry& e : entries_) {
    if (e.type == type && e.label_selector == label_selector) return e;
  }
  Entry& e = entries_.emplace_back();
  e.type = type;
  e.label_selector = label_selector;
  e.transform = std::move(transform);
  return e;
}

const runtime::Store& FakeCaches::Store(const k8s::ResourceType& type,
                                        const std::string& label_selector,
                                        runtime::Transform transform) {
  return Find(type, label_selector, std::move(transform)).store;
}

void FakeCaches::AddIndexes(const k8s::ResourceType& type,
                            const std::vector<std::pair<std::string, runtime::IndexFunc>>& indexes,
                            const std::string& label_selector) {
  Entry& e = Find(type, label_selector, runtime::StripManagedFields());
  for (const auto& [name, index] : indexes) {
    const Status added = e.store.AddIndex(name, index);
    EXPECT_TRUE(added.ok()) << added.ToString();
  }
}

NamespacedCache FakeCaches::Cache(const k8s::ResourceType& type, const std::string& label_selector,
                                  runtime::Transform transform) {
  return NamespacedCache::OfStore(Find(type, label_selector, std::move(transform)).store);
}

void FakeCaches::Sync() {
  for (Entry& e : entries_) {
    std::vector<runtime::ObjectPtr> objects;
    for (k8s::JsonObject& o : api_.Objects(e.type)) {
      auto selected = k8s::testing::MatchesLabelSelector(e.label_selector, o.Labels());
      if (!selected.ok()) ADD_FAILURE() << e.label_selector << ": " << selected.status().ToString();
      if (!selected.ok() || !*selected) continue;
      objects.push_back(std::make_shared<const k8s::JsonObject>(
          e.transform ? e.transform(std::move(o)) : std::move(o)));
    }
    (void)e.store.Replace(std::move(objects));
  }
}

}  // namespace rdmastack::controllers::testing
