#include "operator/runtime/event_series.h"

#include <fmt/format.h>

#include <ctime>

namespace rdmastack::runtime {

EventSeriesCache::Key EventSeriesCache::KeyOf(const EventSpec& spec) {
  return {spec.regarding, spec.related, spec.action, spec.reason};
}

std::optional<EventDecision> EventSeriesCache::Observe(const EventSpec& spec, Clock::WallTime now) {
  const Key key = KeyOf(spec);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    EventRecord record{spec, EventName(spec.regarding.name, now), now, 0, now};
    entries_.emplace(key, Entry{record, now});
    return EventDecision{EventWrite::kCreate, std::move(record)};
  }
  EventRecord& record = it->second.record;
  record.last_observed = now;
  if (record.series_count > 0) {
    ++record.series_count;
    return std::nullopt;
  }
  record.series_count = 2;
  it->second.last_written = now;
  return EventDecision{EventWrite::kPatchSeries, record};
}

std::vector<EventDecision> EventSeriesCache::Tick(Clock::WallTime now) {
  std::vector<EventDecision> out;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& e = it->second;
    const bool is_series = e.record.series_count > 0;
    const Clock::WallTime seen = is_series ? e.record.last_observed : e.record.event_time;
    if (now - seen > options_.finish_after) {
      if (is_series) out.push_back({EventWrite::kPatchSeries, e.record});
      it = entries_.erase(it);
      continue;
    }
    if (is_series && now - e.last_written >= options_.refresh_interval) {
      e.last_written = now;
      out.push_back({EventWrite::kPatchSeries, e.record});
    }
    ++it;
  }
  return out;
}

std::string EventName(const std::string& regarding_name, Clock::WallTime t) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  return fmt::format("{}.{:x}", regarding_name, nanos);
}

std::string FormatMicroTime(Clock::WallTime t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros % 1'000'000);
}

}  // namespace rdmastack::runtime
