#include "controllers/gatewaypool/first_observed.h"

#include <algorithm>

namespace rdmastack::gatewaypool {

int64_t FirstObserved::CountFrom(const std::string& owner, const std::string& key, int64_t stamp,
                                 int64_t now_unix) {
  const Clock::TimePoint now = clock_.Now();
  std::lock_guard lock(mu_);
  Owner& o = owners_[owner];
  o.used.insert(key);
  auto [it, inserted] = o.seen.try_emplace(key, Seen{stamp, now});
  if (!inserted && it->second.stamp != stamp) it->second = Seen{stamp, now};
  const int64_t watched =
      std::chrono::duration_cast<std::chrono::seconds>(now - it->second.first).count();
  return std::max(stamp, now_unix - watched);
}

void FirstObserved::Sweep(const std::string& owner) {
  std::lock_guard lock(mu_);
  auto it = owners_.find(owner);
  if (it == owners_.end()) return;
  Owner& o = it->second;
  std::erase_if(o.seen, [&](const auto& entry) { return !o.used.contains(entry.first); });
  o.used.clear();
  if (o.seen.empty()) owners_.erase(it);
}

void FirstObserved::Forget(const std::string& owner) {
  std::lock_guard lock(mu_);
  owners_.erase(owner);
}

}  // namespace rdmastack::gatewaypool
