#pragma once
// The Node cache's label filter: which label keys the cache keeps now, which keys its contents
// are known to hold, and the re-list that widens them.
//
// The keys kept are those some live pool's or profile's nodeSelector names (node_label_keys.h).
// When a selector names a key the cache does not hold, the Nodes as cached say nothing about it:
// a node that carries it looks the same as one that does not. So the key is added to the
// transform and every Node is fetched again (one re-list), and until that listing has replaced
// the cache, Covers says no and a controller that would match the selector waits instead of
// treating the key as absent. Keys no selector names any more stay in the cached objects until
// the next re-list, which keeps only the live ones.
//
// Thread-safe: the transform runs on the Node informer's thread, Covers on controller workers.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "operator/runtime/reflector.h"

namespace rdmastack::controllers {

// How long a controller waits before it asks again (a re-list of 10,000 Nodes takes seconds).
inline constexpr std::chrono::milliseconds kNodeCacheWait{500};

// What a controller asks before it matches node selectors against the Node cache.
class NodeLabelCoverage {
 public:
  virtual ~NodeLabelCoverage() = default;
  // Whether the cached Nodes hold every key in `keys` as the API server has them. When not, the
  // cache starts holding them (a re-list) and the caller tries again later.
  virtual bool Covers(const std::set<std::string>& keys) = 0;
};

class NodeLabelFilter final : public NodeLabelCoverage {
 public:
  // `live_keys`: the keys the live selectors name now (LabelKeysToKeep over the pools and
  // profiles). `relist`: asks the Node informer to fetch every Node again.
  NodeLabelFilter(std::function<std::set<std::string>()> live_keys, std::function<void()> relist);

  // The Node cache's transform: labels kept by the keys of the moment (and the operator's own),
  // spec.unschedulable and the operator's annotations (cache_transforms.h).
  runtime::Transform Transform();
  // Before each listing (ReflectorOptions::before_list): keep the live keys and any asked for
  // since the last listing began; those are what this listing's objects will hold.
  void BeforeList();
  // After that listing replaced the cache (InformerOptions::on_replaced): its keys are covered.
  void AfterReplace();

  bool Covers(const std::set<std::string>& keys) override;

  // The keys the transform keeps now, and those the cache is known to hold (for tests, logs).
  std::set<std::string> Kept() const;
  std::set<std::string> Covered() const;
  // How many re-lists this filter asked for.
  int relists_requested() const;

 private:
  const std::function<std::set<std::string>()> live_keys_;
  const std::function<void()> relist_;
  mutable std::mutex mu_;
  // Read by the transform once per object, replaced (never changed in place) when keys change.
  std::shared_ptr<const std::set<std::string>> kept_ = std::make_shared<std::set<std::string>>();
  std::set<std::string> asked_;    // asked for since the listing under way began
  std::set<std::string> listing_;  // what the listing under way keeps at least
  std::set<std::string> covered_;  // what the cache's contents hold (the last complete listing's)
  bool listed_ = false;
  int relists_ = 0;
};

}  // namespace rdmastack::controllers
