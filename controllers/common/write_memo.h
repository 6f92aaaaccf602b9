#pragma once
// What this process last wrote per key, and the resourceVersion the server answered with. A
// reconcile that runs before the informer has delivered that write would otherwise see the old
// object and write the same content again.

#include <charconv>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace rdmastack::controllers {

// True when `cached` is an older resourceVersion than `written`. resourceVersions are opaque to
// clients, so this is only a hint: when either is not a plain number the answer is false (the
// caller then writes, which is safe with server-side apply, just not free).
inline bool OlderResourceVersion(std::string_view cached, std::string_view written) {
  uint64_t a = 0, b = 0;
  auto ra = std::from_chars(cached.data(), cached.data() + cached.size(), a);
  auto rb = std::from_chars(written.data(), written.data() + written.size(), b);
  if (ra.ec != std::errc() || ra.ptr != cached.data() + cached.size() || rb.ec != std::errc() ||
      rb.ptr != written.data() + written.size()) {
    return false;
  }
  return a < b;
}

template <typename T>
class WriteMemo {
 public:
  void Remember(const std::string& key, T value, std::string resource_version) {
    std::lock_guard lock(mu_);
    entries_[key] = Entry{std::move(value), std::move(resource_version)};
  }
  // `desired` is what this process last wrote and the cache (at `cached_rv`) has not caught up.
  bool Pending(const std::string& key, const T& desired, std::string_view cached_rv) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    return it != entries_.end() && it->second.value == desired &&
           OlderResourceVersion(cached_rv, it->second.resource_version);
  }
  // What this process last wrote for `key` when the cache (at `cached_rv`) has not caught up with
  // it: the state to compute the next write from, so that what the write carried over (times of
  // transitions, of the last report) is what the server has, not what the stale cache lacks.
  std::optional<T> Unseen(const std::string& key, std::string_view cached_rv) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || !OlderResourceVersion(cached_rv, it->second.resource_version)) {
      return std::nullopt;
    }
    return it->second.value;
  }
  // The newest resourceVersion known for `key`: what this process's last write was answered with
  // when the cache (at `cached_rv`) has not caught up with it, else `cached_rv`.
  std::string LatestVersion(const std::string& key, std::string_view cached_rv) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && OlderResourceVersion(cached_rv, it->second.resource_version))
      return it->second.resource_version;
    return std::string(cached_rv);
  }
  void Forget(const std::string& key) {
    std::lock_guard lock(mu_);
    entries_.erase(key);
  }

 private:
  struct Entry {
    T value;
    std::string resource_version;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace rdmastack::controllers
