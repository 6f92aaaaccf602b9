#include "operator/runtime/event_recorder.h"

#include <spdlog/spdlog.h>

#include "base/utf8.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::runtime {

namespace {

// events.k8s.io refuses a note over 1024 bytes, counted after its JSON decoder has replaced each
// byte outside UTF-8 with the three of U+FFFD: a note cut inside a character could grow past it.
constexpr size_t kMaxNoteBytes = 1024;

k8s::JsonObject RefObject(const ObjectRef& ref) {
  k8s::JsonBuilder o;
  o.SetString({"apiVersion"}, ref.api_version);
  o.SetString({"kind"}, ref.kind);
  if (!ref.ns.empty()) o.SetString({"namespace"}, ref.ns);
  o.SetString({"name"}, ref.name);
  if (!ref.uid.empty()) o.SetString({"uid"}, ref.uid);
  return std::move(o).Build();
}

std::string SeriesPatch(const EventRecord& record) {
  k8s::JsonBuilder patch;
  patch.SetInt({"series", "count"}, record.series_count);
  patch.SetString({"series", "lastObservedTime"}, FormatMicroTime(record.last_observed));
  return patch.object().Serialize();
}

// Server-side rejections (bad request, forbidden, invalid) will not succeed on retry.
bool Retryable(const Status& s) {
  const auto api = k8s::GetApiError(s);
  if (!api) return true;  // transport failure
  return api->http_code == 429 || api->http_code >= 500;
}

}  // namespace

ObjectRef ObjectRefFor(const k8s::JsonObject& object) {
  return {std::string(object.ApiVersion()), std::string(object.Kind()),
          std::string(object.Namespace()), std::string(object.Name()), std::string(object.Uid())};
}

k8s::JsonObject EventObject(const EventRecord& record, const EventRecorderOptions& options) {
  const EventSpec& spec = record.spec;
  k8s::JsonBuilder o;
  o.SetApiVersion("events.k8s.io/v1");
  o.SetKind("Event");
  o.SetName(record.name);
  o.SetNamespace(spec.regarding.ns.empty() ? "default" : spec.regarding.ns);
  o.SetString({"eventTime"}, FormatMicroTime(record.event_time));
  o.SetString({"reportingController"}, options.reporting_controller);
  o.SetString({"reportingInstance"}, options.reporting_instance);
  o.SetString({"action"}, spec.action);
  o.SetString({"reason"}, spec.reason);
  o.SetString({"type"}, spec.type);
  o.SetString({"note"}, ClipUtf8(ValidUtf8(spec.note), kMaxNoteBytes, TextUnit::kBytes));
  o.Set({"regarding"}, RefObject(spec.regarding));
  if (spec.related) o.Set({"related"}, RefObject(*spec.related));
  if (record.series_count > 0) {
    o.SetInt({"series", "count"}, record.series_count);
    o.SetString({"series", "lastObservedTime"}, FormatMicroTime(record.last_observed));
  }
  return std::move(o).Build();
}

ApiEventRecorder::ApiEventRecorder(k8s::Client& client, Clock& clock, EventRecorderOptions options,
                                   MetricsRegistry* metrics)
    : client_(client), clock_(clock), options_(std::move(options)), cache_(options_.series) {
  if (metrics == nullptr) return;
  dropped_ =
      &metrics
           ->CounterFamily("rdmastack_events_dropped_total",
                           "Events not written because the event recorder's queue was full", {})
           .With({});
}

void ApiEventRecorder::EnqueueLocked(EventDecision decision) {
  if (pending_.size() >= options_.max_queued) {
    if (dropped_ != nullptr) dropped_->Inc();
    spdlog::debug("event queue full ({} waiting): dropped event {}", pending_.size(),
                  decision.record.name);
    return;
  }
  pending_.push_back(std::move(decision));
}

ApiEventRecorder::~ApiEventRecorder() {
  Stop();
}

void ApiEventRecorder::Record(const k8s::JsonObject& regarding, EventType type,
                              const std::string& reason, const std::string& action,
                              const std::string& note) {
  Observe({ObjectRefFor(regarding), std::nullopt,
           type == EventType::kWarning ? "Warning" : "Normal", reason, action, note});
}

void ApiEventRecorder::RecordRelated(const k8s::JsonObject& regarding,
                                     const k8s::JsonObject& related, EventType type,
                                     const std::string& reason, const std::string& action,
                                     const std::string& note) {
  Observe({ObjectRefFor(regarding), ObjectRefFor(related),
           type == EventType::kWarning ? "Warning" : "Normal", reason, action, note});
}

void ApiEventRecorder::Observe(EventSpec spec) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_) return;
  auto decision = cache_.Observe(spec, clock_.WallNow());
  if (!decision) return;
  EnqueueLocked(std::move(*decision));
  cv_.notify_all();
}

void ApiEventRecorder::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (writer_.joinable() || stopped_) return;
  writer_ = std::thread([this] { WriterLoop(); });
}

void ApiEventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  if (writer_.joinable()) writer_.join();
}

void ApiEventRecorder::Flush() {
  std::unique_lock<std::mutex> l(mu_);
  while ((!pending_.empty() || in_flight_ > 0) && !stopped_) {
    clock_.WaitUntil(l, cv_, clock_.Now() + std::chrono::seconds(1));
  }
}

void ApiEventRecorder::WriterLoop() {
  std::unique_lock<std::mutex> l(mu_);
  Clock::TimePoint next_tick = clock_.Now() + options_.tick_interval;
  while (!stopped_) {
    if (clock_.Now() >= next_tick) {
      for (auto& d : cache_.Tick(clock_.WallNow())) EnqueueLocked(std::move(d));
      next_tick = clock_.Now() + options_.tick_interval;
    }
    if (pending_.empty()) {
      clock_.WaitUntil(l, cv_, next_tick);
      continue;
    }
    EventDecision decision = std::move(pending_.front());
    pending_.pop_front();
    ++in_flight_;
    l.unlock();
    Write(decision);
    l.lock();
    --in_flight_;
    cv_.notify_all();
  }
}

void ApiEventRecorder::Write(const EventDecision& decision) {
  for (int attempt = 1; attempt <= options_.max_tries; ++attempt) {
    const Status s = WriteOnce(decision);
    if (s.ok() || k8s::IsAlreadyExists(s)) return;
    if (!Retryable(s)) {
      spdlog::warn("event {} rejected by the server: {}", decision.record.name, s.ToString());
      return;
    }
    std::unique_lock<std::mutex> l(mu_);
    const Clock::TimePoint deadline = clock_.Now() + options_.retry_interval;
    while (!stopped_ && clock_.Now() < deadline) clock_.WaitUntil(l, cv_, deadline);
    if (stopped_) return;
  }
  spdlog::warn("event {} dropped after {} tries", decision.record.name, options_.max_tries);
}

Status ApiEventRecorder::WriteOnce(const EventDecision& decision) {
  const auto& type = k8s::kinds::EventsV1();
  const EventRecord& r = decision.record;
  const std::string ns = r.spec.regarding.ns.empty() ? "default" : r.spec.regarding.ns;
  if (decision.write == EventWrite::kPatchSeries) {
    auto patched = client_.Patch(type, ns, r.name, k8s::PatchType::kMerge, SeriesPatch(r));
    if (patched.ok()) return OkStatus();
    // The first write may have failed or the event expired (1 h TTL): create it with its series.
    if (!k8s::IsNotFound(patched.status())) return patched.status();
  }
  auto created = client_.Create(type, EventObject(r, options_));
  return created.ok() ? OkStatus() : created.status();
}

}  // namespace rdmastack::runtime
