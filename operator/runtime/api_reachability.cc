#include "operator/runtime/api_reachability.h"

#include <spdlog/spdlog.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::runtime {

ApiReachability::ApiReachability(Clock& clock)
    : clock_(clock), since_(clock.WallNow().time_since_epoch().count()) {}

ApiReachability::Verdict ApiReachability::Judge(const Status& outcome, RequestKind kind) {
  int code = 200;
  if (!outcome.ok()) {
    const auto api = k8s::GetApiError(outcome);
    code = api ? api->http_code : 0;
  }
  if (code <= 0 || code >= 500) return Verdict::kOutage;
  if (kind == RequestKind::kStorage && code != 429) return Verdict::kAnswer;
  return Verdict::kNeither;
}

void ApiReachability::Observe(const Status& outcome, RequestKind kind) {
  const Verdict verdict = Judge(outcome, kind);
  if (verdict == Verdict::kNeither) return;
  const bool answered = verdict == Verdict::kAnswer;
  if (answered == answering_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(mu_);
  if (answered == answering_.load(std::memory_order_relaxed)) return;
  const Clock::TimePoint now = clock_.Now();
  if (answered) {
    since_.store(clock_.WallNow().time_since_epoch().count(), std::memory_order_relaxed);
    spdlog::info(
        "API server answering again after {} ms; drains count from now",
        std::chrono::duration_cast<std::chrono::milliseconds>(now - outage_began_).count());
  } else {
    outage_began_ = now;
    spdlog::warn(
        "API server not answering ({}); a drain under way ends drainSeconds after its next answer",
        outcome.ToString());
  }
  answering_.store(answered, std::memory_order_release);
}

Clock::WallTime ApiReachability::AnsweringSince() const {
  if (!answering_.load(std::memory_order_acquire)) return clock_.WallNow();
  return Clock::WallTime(Clock::WallTime::duration(since_.load(std::memory_order_relaxed)));
}

}  // namespace rdmastack::runtime
