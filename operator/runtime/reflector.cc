#include "operator/runtime/reflector.h"

#include <spdlog/spdlog.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::runtime {

Reflector::Reflector(k8s::Client& client, Clock& clock, ReflectorOptions options,
                     ReflectorSink& sink)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      sink_(sink),
      backoff_(options_.backoff, options_.uniform) {}

bool Reflector::Stopped() const {
  std::lock_guard<std::mutex> l(mu_);
  return stopped_;
}

void Reflector::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  stopped_ = true;
  if (active_watch_ != nullptr) active_watch_->Cancel();
  cv_.notify_all();
}

void Reflector::RequestRelist() {
  std::lock_guard<std::mutex> l(mu_);
  relist_requested_ = true;
  if (active_watch_ != nullptr) active_watch_->Cancel();
  cv_.notify_all();
}

bool Reflector::RelistRequested() const {
  std::lock_guard<std::mutex> l(mu_);
  return relist_requested_;
}

std::string Reflector::LastSyncResourceVersion() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_rv_;
}

bool Reflector::UsesWatchList() const {
  std::lock_guard<std::mutex> l(mu_);
  return options_.initial_sync == ReflectorOptions::InitialSync::kWatchList && !watch_list_refused_;
}

void Reflector::SetResourceVersion(std::string rv) {
  std::lock_guard<std::mutex> l(mu_);
  last_rv_ = std::move(rv);
}

void Reflector::Run() {
  while (!Stopped()) {
    const Status s = ListAndWatch();
    if (Stopped()) break;
    // A requested relist is not a failure: no backoff (the request cancelled the watch).
    if (RelistRequested()) {
      spdlog::info("reflector {}: relisting on request", options_.type.GroupResource());
      continue;
    }
    WaitOutBackoff(s, "relisting");
  }
}

void Reflector::WaitOutBackoff(const Status& failure, std::string_view then) {
  const Clock::Duration delay = backoff_.Next(clock_.Now());
  spdlog::warn("reflector {}: {}; {} in {} ms", options_.type.GroupResource(), failure.ToString(),
               then, std::chrono::duration_cast<std::chrono::milliseconds>(delay).count());
  std::unique_lock<std::mutex> l(mu_);
  const Clock::TimePoint deadline = clock_.Now() + delay;
  while (!stopped_ && clock_.Now() < deadline) clock_.WaitUntil(l, cv_, deadline);
}

bool Reflector::WatchCanResume(const Status& failure) {
  // A broken or refused connection (no answer from the API server at all) or a 429: the server
  // most likely still has the last version, so a relist would only resend the whole collection.
  // client-go does the same (isWatchErrorRetriable, and a broken stream ends its watch cleanly).
  const bool transport = failure.code() == StatusCode::kUnavailable && !k8s::GetApiError(failure);
  return transport || k8s::IsTooManyRequests(failure);
}

Status Reflector::ListAndWatch() {
  bool watch_list;
  {
    std::lock_guard<std::mutex> l(mu_);
    relist_requested_ = false;
  }
  // After the flag is cleared: a request made while the hook runs is served by the next fetch.
  if (options_.before_list) options_.before_list();
  {
    std::lock_guard<std::mutex> l(mu_);
    watch_list =
        options_.initial_sync == ReflectorOptions::InitialSync::kWatchList && !watch_list_refused_;
  }
  if (watch_list) {
    Status s = WatchList();
    // A server with the WatchList feature off rejects sendInitialEvents as invalid.
    if (!(k8s::IsInvalid(s) || k8s::IsBadRequest(s))) return s;
    spdlog::info("reflector {}: server refused watch-list ({}); listing instead",
                 options_.type.GroupResource(), s.ToString());
    std::lock_guard<std::mutex> l(mu_);
    watch_list_refused_ = true;
  }
  RDMASTACK_RETURN_IF_ERROR(List());
  return Watch();
}

StatusOr<k8s::WatchStreamPtr> Reflector::OpenWatch(k8s::WatchOptions options) {
  options.label_selector = options_.label_selector;
  options.field_selector = options_.field_selector;
  options.allow_watch_bookmarks = true;
  options.timeout_seconds =
      static_cast<int>(options_.min_watch_timeout.count() * (1.0 + options_.uniform()));
  RDMASTACK_ASSIGN_OR_RETURN(k8s::WatchStreamPtr stream,
                             client_.Watch(options_.type, options_.ns, options));
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_) return CancelledError("reflector stopped");
  if (relist_requested_) return AbortedError("relist requested");
  active_watch_ = stream.get();
  return stream;
}

void Reflector::CloseWatch() {
  std::lock_guard<std::mutex> l(mu_);
  active_watch_ = nullptr;
}

Status Reflector::Consume(k8s::WatchStream& stream) {
  while (true) {
    auto next = stream.Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return OkStatus();
    RDMASTACK_RETURN_IF_ERROR(HandleEvent(std::move(**next)));
  }
}

Status Reflector::WatchList() {
  const std::string what = "watch-list " + options_.type.GroupResource();
  k8s::WatchOptions watch_options;
  watch_options.send_initial_events = true;
  watch_options.resource_version_match = "NotOlderThan";
  {
    // Not older than what this reflector last saw; "" (a consistent read) at first and when that
    // version has been compacted away.
    std::lock_guard<std::mutex> l(mu_);
    if (!last_rv_unavailable_) watch_options.resource_version = last_rv_;
  }
  auto stream = OpenWatch(watch_options);
  if (!stream.ok() && k8s::IsExpired(stream.status()) && !watch_options.resource_version.empty()) {
    watch_options.resource_version.clear();
    stream = OpenWatch(watch_options);
  }
  if (!stream.ok()) return stream.status().WithContext(what);

  // Objects up to the bookmark annotated k8s.io/initial-events-end are the current state.
  std::vector<ObjectPtr> initial;
  Status synced = UnavailableError("watch ended before the initial events were complete");
  while (true) {
    auto next = (*stream)->Next();
    if (!next.ok()) {
      synced = next.status();
      break;
    }
    if (!next->has_value()) break;
    k8s::WatchEvent event = std::move(**next);
    if (event.type == k8s::WatchEventType::kError) {
      synced = event.ErrorStatus();
      break;
    }
    if (event.type == k8s::WatchEventType::kBookmark) {
      if (event.object.Annotation("k8s.io/initial-events-end") != "true") continue;
      const std::string rv(event.object.ResourceVersion());
      ++list_count_;
      {
        std::lock_guard<std::mutex> l(mu_);
        last_rv_unavailable_ = false;
      }
      SetResourceVersion(rv);
      sink_.Replace(std::move(initial), rv);
      synced = OkStatus();
      break;
    }
    if (event.type != k8s::WatchEventType::kDeleted) {
      initial.push_back(Apply(std::move(event.object)));
    }
  }
  if (!synced.ok()) {
    CloseWatch();
    if (k8s::IsExpired(synced)) {
      std::lock_guard<std::mutex> l(mu_);
      last_rv_unavailable_ = true;
    }
    return synced.WithContext(what);
  }
  // The same stream goes on with changes after the state.
  Status ended = Consume(**stream);
  CloseWatch();
  RDMASTACK_RETURN_IF_ERROR(ResumeAfter(ended));
  return Watch();
}

StatusOr<Reflector::Listing> Reflector::ListPages(std::string resource_version) {
  k8s::ListOptions page_options;
  page_options.label_selector = options_.label_selector;
  page_options.field_selector = options_.field_selector;
  // With a specific version and a page size the server reads exactly that version (and may
  // serve a stale snapshot); without a page size it serves "not older than" from the watch
  // cache. client-go switches paging off for these relists, and so do we.
  const bool specific_version = !resource_version.empty() && resource_version != "0";
  page_options.limit = specific_version ? 0 : options_.page_size;
  page_options.resource_version = std::move(resource_version);
  Listing out;
  while (true) {
    RDMASTACK_ASSIGN_OR_RETURN(k8s::ObjectList page,
                               client_.List(options_.type, options_.ns, page_options));
    out.objects.reserve(out.objects.size() + page.items.size());
    for (auto& item : page.items) out.objects.push_back(Apply(std::move(item)));
    page.items.clear();
    out.resource_version = page.resource_version;
    if (page.continue_token.empty()) return out;
    // Later pages carry their version in the continue token.
    page_options.continue_token = page.continue_token;
    page_options.resource_version.clear();
  }
}

ObjectPtr Reflector::Apply(k8s::JsonObject object) const {
  return sink_.Prepare(options_.transform ? options_.transform(std::move(object))
                                          : std::move(object));
}

Status Reflector::List() {
  std::string resource_version;
  {
    // "0" first (served from the watch cache) unless paging is preferred, then the last seen RV,
    // or a consistent read ("") when that version is no longer available.
    std::lock_guard<std::mutex> l(mu_);
    if (last_rv_unavailable_) {
      resource_version = "";
    } else if (last_rv_.empty()) {
      resource_version =
          options_.initial_sync == ReflectorOptions::InitialSync::kPagedList ? "" : "0";
    } else {
      resource_version = last_rv_;
    }
  }
  auto listing = ListPages(resource_version);
  // An expired version (or an expired continue token) is retried once as a consistent read.
  if (!listing.ok() && k8s::IsExpired(listing.status()) && !resource_version.empty()) {
    {
      std::lock_guard<std::mutex> l(mu_);
      last_rv_unavailable_ = true;
    }
    listing = ListPages("");
  }
  if (!listing.ok()) return listing.status().WithContext("list " + options_.type.GroupResource());
  ++list_count_;
  {
    std::lock_guard<std::mutex> l(mu_);
    last_rv_unavailable_ = false;
  }
  SetResourceVersion(listing->resource_version);
  sink_.Replace(std::move(listing->objects), listing->resource_version);
  return OkStatus();
}

Status Reflector::Watch() {
  while (!Stopped()) {
    if (RelistRequested()) return AbortedError("relist requested");
    k8s::WatchOptions watch_options;
    watch_options.resource_version = LastSyncResourceVersion();
    auto stream = OpenWatch(watch_options);
    Status ended = stream.status();
    if (stream.ok()) {
      ended = Consume(**stream);
      CloseWatch();
    }
    RDMASTACK_RETURN_IF_ERROR(ResumeAfter(ended));
  }
  return CancelledError("reflector stopped");
}

Status Reflector::ResumeAfter(const Status& ended) {
  if (RelistRequested()) return AbortedError("relist requested");
  if (ended.ok()) return OkStatus();
  if (!WatchCanResume(ended)) return ended.WithContext("watch " + options_.type.GroupResource());
  WaitOutBackoff(ended, "resuming the watch");
  return OkStatus();
}

Status Reflector::HandleEvent(k8s::WatchEvent&& event) {
  if (event.type == k8s::WatchEventType::kError) return event.ErrorStatus();
  std::string rv(event.object.ResourceVersion());
  switch (event.type) {
    case k8s::WatchEventType::kAdded:
    case k8s::WatchEventType::kModified: sink_.Upsert(Apply(std::move(event.object))); break;
    case k8s::WatchEventType::kDeleted: sink_.Remove(Apply(std::move(event.object))); break;
    case k8s::WatchEventType::kBookmark:
    case k8s::WatchEventType::kError: break;
  }
  if (!rv.empty()) SetResourceVersion(std::move(rv));
  return OkStatus();
}

}  // namespace rdmastack::runtime
