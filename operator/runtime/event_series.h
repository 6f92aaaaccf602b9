#pragma once
// Client-side aggregation of events.k8s.io/v1 Events (client-go tools/events semantics), as pure
// decisions over an in-memory cache; the recorder (event_recorder.h) carries them out.
//  - The first occurrence of an event is created.
//  - A repeat of an isomorphic event (same regarding, related, action, reason, reporting
//    controller) turns it into a series: the second occurrence patches series.count=2 at once,
//    later ones only bump the cached count.
//  - Every refresh interval (30 min) the counts of live series are written.
//  - A series not seen for the finish time (6 min) gets its final count written and is dropped;
//    a single event older than the finish time is dropped.

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "base/clock.h"

namespace rdmastack::runtime {

struct ObjectRef {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;

  friend auto operator<=>(const ObjectRef&, const ObjectRef&) = default;
};

// What a caller records.
struct EventSpec {
  ObjectRef regarding;
  std::optional<ObjectRef> related;
  std::string type;    // Normal | Warning
  std::string reason;  // CamelCase, short, specific
  std::string action;  // what was done / failed, CamelCase
  std::string note;    // human-readable, up to 1 kB
};

struct EventSeriesOptions {
  Clock::Duration finish_after = std::chrono::minutes(6);
  Clock::Duration refresh_interval = std::chrono::minutes(30);
};

// One Event object as it should be written.
struct EventRecord {
  EventSpec spec;
  std::string name;  // <regarding.name>.<unix nanos, hex>
  Clock::WallTime event_time;
  int series_count = 0;  // 0 = a single event (no series field)
  Clock::WallTime last_observed;
};

enum class EventWrite {
  kCreate,       // POST the record
  kPatchSeries,  // PATCH series {count, lastObservedTime}; create it if it is gone
};

struct EventDecision {
  EventWrite write;
  EventRecord record;
};

class EventSeriesCache {
 public:
  explicit EventSeriesCache(EventSeriesOptions options = {}) : options_(options) {}

  // An occurrence at `now`; returns the write to do, if any.
  std::optional<EventDecision> Observe(const EventSpec& spec, Clock::WallTime now);
  // Periodic housekeeping at `now`: series refreshes and final writes; drops finished entries.
  std::vector<EventDecision> Tick(Clock::WallTime now);
  size_t size() const { return entries_.size(); }

  // The isomorphism key (client-go getKey): note and type do not take part.
  using Key = std::tuple<ObjectRef, std::optional<ObjectRef>, std::string, std::string>;
  static Key KeyOf(const EventSpec& spec);

 private:
  struct Entry {
    EventRecord record;
    Clock::WallTime last_written;
  };
  EventSeriesOptions options_;
  std::map<Key, Entry> entries_;
};

// <name>.<hex nanoseconds since the epoch>, as client-go names events.
std::string EventName(const std::string& regarding_name, Clock::WallTime t);
// metav1.MicroTime: RFC 3339 with microseconds, UTC ("2026-11-29T08:20:00.123456Z").
std::string FormatMicroTime(Clock::WallTime t);

}  // namespace rdmastack::runtime
