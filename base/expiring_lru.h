#pragma once
// A bounded map whose entries expire: the least recently used entry goes when it is full, and an
// entry read after its deadline is gone. Not thread-safe; callers hold their own lock (the
// token-review and access-decision caches).

#include <list>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/clock.h"

namespace rdmastack {

template <typename Value>
class ExpiringLru {
 public:
  // `max_entries` 0 keeps nothing.
  explicit ExpiringLru(size_t max_entries) : max_entries_(max_entries) {}

  // The value under `key` if it has not expired by `now`; marks it most recently used.
  std::optional<Value> Get(const std::string& key, Clock::TimePoint now) {
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    if (now >= it->second->expires) {
      entries_.erase(it->second);
      index_.erase(it);
      return std::nullopt;
    }
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->value;
  }

  // Replaces what `key` held; evicts the least recently used entries beyond max_entries.
  void Put(const std::string& key, Value value, Clock::TimePoint expires) {
    if (max_entries_ == 0) return;
    Erase(key);
    while (entries_.size() >= max_entries_) {
      index_.erase(entries_.back().key);
      entries_.pop_back();
    }
    entries_.push_front(Entry{key, std::move(value), expires});
    index_.emplace(key, entries_.begin());
  }

  void Erase(const std::string& key) {
    if (auto it = index_.find(key); it != index_.end()) {
      entries_.erase(it->second);
      index_.erase(it);
    }
  }

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string key;
    Value value;
    Clock::TimePoint expires;
  };
  const size_t max_entries_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace rdmastack
