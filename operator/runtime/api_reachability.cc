#include "operator/runtime/api_reachability.h"

#include <spdlog/spdlog.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::runtime {
namespace {

int64_t Millis(Clock::Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

ApiReachability::ApiReachability(Clock& clock, Clock::Duration slow)
    : clock_(clock), slow_(slow), since_(clock.WallNow()) {}

ApiReachability::Verdict ApiReachability::Judge(const Status& outcome, RequestKind kind) {
  int code = 200;
  if (!outcome.ok()) {
    const auto api = k8s::GetApiError(outcome);
    code = api ? api->http_code : 0;
  }
  if (code <= 0 || code >= 500) return Verdict::kOutage;
  if (kind != RequestKind::kStorage) return Verdict::kNeither;
  // What the server can say only after reading its storage: the object, or that it is absent,
  // changed or invalid against what is stored. Authentication, authorization, priority and
  // fairness (429) and request decoding answer before any storage, even with etcd frozen.
  switch (code) {
    case 200:
    case 201:
    case 404:
    case 409:
    case 410:
    case 422: return Verdict::kAnswer;
    default: return Verdict::kNeither;
  }
}

Clock::TimePoint ApiReachability::Begin(RequestKind kind) {
  const Clock::TimePoint now = clock_.Now();
  if (kind != RequestKind::kStorage) return now;
  std::lock_guard lock(mu_);
  waiting_.insert(now);
  return now;
}

bool ApiReachability::WaitingTooLong(Clock::TimePoint now) const {
  return !waiting_.empty() && now - *waiting_.begin() > slow_;
}

void ApiReachability::End(RequestKind kind, Clock::TimePoint begun, const Status& outcome) {
  const Verdict verdict = Judge(outcome, kind);
  const Clock::TimePoint now = clock_.Now();
  std::lock_guard lock(mu_);
  if (kind == RequestKind::kStorage) {
    if (auto it = waiting_.find(begun); it != waiting_.end()) waiting_.erase(it);
  }
  // A storage answer that waited too long ends an outage that began when it was sent.
  const bool slow = verdict == Verdict::kAnswer && now - begun > slow_;
  if (verdict == Verdict::kOutage || slow) {
    if (answering_) outage_began_ = slow ? begun : now;
    if (answering_ && !slow) {
      spdlog::warn(
          "API server not answering ({}); a drain under way ends drainSeconds after its next "
          "answer",
          outcome.ToString());
    }
    answering_ = false;
  }
  if (verdict != Verdict::kAnswer || answering_ || WaitingTooLong(now)) return;
  answering_ = true;
  since_ = clock_.WallNow();
  spdlog::info("API server answering again after {} ms{}; drains count from now",
               Millis(now - outage_began_), slow ? " (a request waited that long)" : "");
}

Clock::WallTime ApiReachability::AnsweringSince() const {
  std::lock_guard lock(mu_);
  if (!answering_ || WaitingTooLong(clock_.Now())) return clock_.WallNow();
  return since_;
}

}  // namespace rdmastack::runtime
