#include "controllers/common/node_label_filter.h"

#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "controllers/common/cache_transforms.h"
#include "controllers/common/node_label_keys.h"

namespace rdmastack::controllers {

NodeLabelFilter::NodeLabelFilter(std::function<std::set<std::string>()> live_keys,
                                 std::function<void()> relist)
    : live_keys_(std::move(live_keys)), relist_(std::move(relist)) {}

runtime::Transform NodeLabelFilter::Transform() {
  return NodeLabelsKeptAndOperatorAnnotations([this] {
    std::lock_guard<std::mutex> l(mu_);
    return kept_;
  });
}

void NodeLabelFilter::BeforeList() {
  std::set<std::string> keys = live_keys_();
  std::lock_guard<std::mutex> l(mu_);
  keys.merge(asked_);
  asked_.clear();
  if (covered_ != keys) {
    spdlog::info("node cache: listing Nodes with label keys [{}] besides the operator's own",
                 fmt::join(keys, ", "));
  }
  listing_ = keys;
  kept_ = std::make_shared<const std::set<std::string>>(std::move(keys));
}

void NodeLabelFilter::AfterReplace() {
  std::lock_guard<std::mutex> l(mu_);
  covered_ = listing_;
  listed_ = true;
}

bool NodeLabelFilter::Covers(const std::set<std::string>& keys) {
  std::set<std::string> missing;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (listed_ && KeysCovered(covered_, keys)) return true;
    // Keys the transform does not keep yet: keep them from now on and list again. Keys it keeps
    // already are either in the listing under way or in one already asked for.
    for (const std::string& k : keys) {
      if (!IsOperatorNodeLabel(k) && !kept_->count(k)) missing.insert(k);
    }
    if (missing.empty()) return false;
    std::set<std::string> kept = *kept_;
    kept.insert(missing.begin(), missing.end());
    kept_ = std::make_shared<const std::set<std::string>>(std::move(kept));
    asked_.insert(missing.begin(), missing.end());
    ++relists_;
  }
  spdlog::info(
      "node cache: a selector names label keys [{}] the cache does not hold; re-listing "
      "Nodes",
      fmt::join(missing, ", "));
  relist_();
  return false;
}

std::set<std::string> NodeLabelFilter::Kept() const {
  std::lock_guard<std::mutex> l(mu_);
  return *kept_;
}

std::set<std::string> NodeLabelFilter::Covered() const {
  std::lock_guard<std::mutex> l(mu_);
  return covered_;
}

int NodeLabelFilter::relists_requested() const {
  std::lock_guard<std::mutex> l(mu_);
  return relists_;
}

}  // namespace rdmastack::controllers
