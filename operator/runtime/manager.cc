#include "operator/runtime/manager.h"

#include <spdlog/spdlog.h>

namespace rdmastack::runtime {

namespace {

Status StartAll(std::vector<Runnable>& runnables, size_t& started) {
  for (Runnable& r : runnables) {
    if (r.start) {
      if (Status s = r.start(); !s.ok()) return s.WithContext(r.name);
    }
    ++started;
    spdlog::info("started {}", r.name);
  }
  return OkStatus();
}

void StopStarted(std::vector<Runnable>& runnables, size_t& started) {
  while (started > 0) {
    Runnable& r = runnables[--started];
    if (r.stop) r.stop();
  }
}

}  // namespace

Manager::Manager(k8s::Client& client, Clock& clock, ManagerOptions options)
    : clock_(clock),
      options_(std::move(options)),
      reachability_(clock),
      client_(client, metrics_, options_.api_host, &reachability_),
      cache_(client_, clock),
      metrics_server_(metrics_, client_, clock, options_.metrics) {
  if (options_.leader_election) {
    elector_ = std::make_unique<LeaderElector>(client_, clock, *options_.leader_election);
    fenced_ = std::make_unique<LeaderFencedClient>(
        client_, clock, [elector = elector_.get()] { return elector->LeadershipValidUntil(); });
    writer_ = fenced_.get();
  } else if (options_.api_probe) {
    api_probe_ = std::make_unique<ApiProbe>(client_, *options_.api_probe);
  }
  events_ = std::make_unique<ApiEventRecorder>(*writer_, clock, options_.events, &metrics_);
  if (options_.leader_election) {
    leader_status_ = &metrics_
                          .GaugeFamily("leader_election_master_status",
                                       "Gauge of if the reporting system is master of the "
                                       "relevant lease, 0 indicates backup, 1 indicates master.",
                                       {"name"})
                          .With({options_.leader_election->lease_name});
  }
  probes_.Handle("/healthz", [](const HttpRequest&) {
    return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
  });
  probes_.Handle("/readyz", [this](const HttpRequest&) {
    if (!ready_.load())
      return HttpResponse{503, "text/plain; charset=utf-8", "caches not synced\n"};
    return HttpResponse{200, "text/plain; charset=utf-8",
                        leading_.load() || !elector_ ? "ok\n" : "ok (standby)\n"};
  });
}

Manager::~Manager() {
  RequestStop();
  StopServing();
}

Controller& Manager::NewController(const std::string& name, Reconciler& reconciler,
                                   ControllerOptions options) {
  controllers_.push_back(
      std::make_unique<Controller>(name, reconciler, clock_, &metrics_, std::move(options)));
  return *controllers_.back();
}

bool Manager::StopRequested() const {
  std::lock_guard<std::mutex> l(mu_);
  return stop_requested_;
}

void Manager::RequestStop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_requested_ = true;
    cv_.notify_all();
  }
  if (elector_) elector_->Stop();
  if (api_probe_) api_probe_->Stop();
}

bool Manager::WaitForCaches() {
  const Clock::TimePoint deadline = clock_.Now() + options_.cache_sync_timeout;
  while (!StopRequested()) {
    const Clock::TimePoint slice =
        std::min(deadline, clock_.Now() + std::chrono::milliseconds(100));
    if (cache_.WaitForSync(slice)) return true;
    if (clock_.Now() >= deadline) return false;
  }
  return false;
}

Status Manager::Run() {
  if (options_.leader_election) {
    RDMASTACK_RETURN_IF_ERROR(ValidateLeaderElectionConfig(*options_.leader_election));
  }
  RDMASTACK_RETURN_IF_ERROR(StartServing());
  events_->Start();
  cache_.Start();
  if (Status s = StartAll(runnables_, runnables_started_); !s.ok()) {
    Shutdown(false, Clock::Duration::zero());
    return s;
  }
  if (!WaitForCaches()) {
    const bool stopped = StopRequested();
    Shutdown(false, options_.graceful_shutdown_timeout);
    if (stopped) return OkStatus();
    return DeadlineExceededError("informer caches did not sync within the cache sync timeout");
  }
  ready_ = true;
  spdlog::info("caches synced");

  if (!WaitForLeadPrecondition()) {
    Shutdown(false, options_.graceful_shutdown_timeout);
    return OkStatus();
  }
  if (elector_) {
    spdlog::info("waiting for lease {}/{} as {}", options_.leader_election->lease_namespace,
                 options_.leader_election->lease_name, options_.leader_election->identity);
    if (!elector_->Acquire()) {
      Shutdown(false, options_.graceful_shutdown_timeout);
      return OkStatus();
    }
    if (leader_status_ != nullptr) leader_status_->Set(1);
    RecordLeaderEvent();
  }
  leading_ = true;
  if (Status s = StartLeaderRunnables(); !s.ok()) {
    leading_ = false;
    if (leader_status_ != nullptr) leader_status_->Set(0);
    Shutdown(true, options_.graceful_shutdown_timeout);
    return s;
  }
  for (auto& c : controllers_) c->Start();
  spdlog::info("started {} controller(s)", controllers_.size());

  bool lost = false;
  if (elector_) {
    lost = !elector_->RenewUntilLostOrStopped();
  } else if (api_probe_) {
    api_probe_->RunUntilStopped();
  } else {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return stop_requested_; });
  }
  leading_ = false;
  if (leader_status_ != nullptr) leader_status_->Set(0);
  if (lost) {
    // Another process may already be leading: stop at once, without draining or touching the lease.
    spdlog::error("leader election lost; stopping");
    Shutdown(false, Clock::Duration::zero());
    return AbortedError("leader election lost");
  }
  Shutdown(true, options_.graceful_shutdown_timeout);
  return OkStatus();
}

// The Lease as an event's subject: the leader's, or the one the probe reads without leader
// election; nullopt without either.
std::optional<k8s::JsonObject> Manager::LeaseObject() const {
  std::string ns, name;
  if (options_.leader_election) {
    ns = options_.leader_election->lease_namespace;
    name = options_.leader_election->lease_name;
  } else if (options_.api_probe) {
    ns = options_.api_probe->ns;
    name = options_.api_probe->lease_name;
  } else {
    return std::nullopt;
  }
  k8s::JsonObject lease;
  lease.SetApiVersion(k8s::kinds::Lease().ApiVersion());
  lease.SetKind(k8s::kinds::Lease().kind);
  lease.SetNamespace(ns);
  lease.SetName(name);
  return lease;
}

// client-go's LeaderElection event on the Lease: who leads is visible in `kubectl get events`.
void Manager::RecordLeaderEvent() {
  if (auto lease = LeaseObject())
    events_->Record(*lease, EventType::kNormal, "LeaderElection", "Lead",
                    options_.leader_election->identity + " became leader");
}

bool Manager::WaitForLeadPrecondition() {
  if (!options_.lead_precondition) return true;
  std::string last;
  while (!StopRequested()) {
    const Status s = options_.lead_precondition();
    if (s.ok()) {
      if (!last.empty()) spdlog::info("may lead now: {}", options_.lead_precondition_reason);
      return true;
    }
    if (s.ToString() != last) {
      last = s.ToString();
      spdlog::error("not leading ({}): {}", options_.lead_precondition_reason, s.message());
      if (auto lease = LeaseObject())
        events_->Record(*lease, EventType::kWarning, options_.lead_precondition_reason, "Lead",
                        std::string(s.message()));
    }
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, options_.lead_precondition_retry, [this] { return stop_requested_; });
  }
  return false;
}

void Manager::AddLeaderRunnable(LeaderRunnable runnable) {
  leader_runnables_.push_back(std::move(runnable));
}

void Manager::AddRunnable(Runnable runnable) {
  runnables_.push_back(std::move(runnable));
}

Status Manager::StartLeaderRunnables() {
  return StartAll(leader_runnables_, leader_runnables_started_);
}

void Manager::StopLeaderRunnables() {
  StopStarted(leader_runnables_, leader_runnables_started_);
}

void Manager::Shutdown(bool release_lease, Clock::Duration drain) {
  ready_ = false;
  StopStarted(runnables_, runnables_started_);
  StopLeaderRunnables();
  const Clock::TimePoint deadline = clock_.Now() + drain;
  for (auto& c : controllers_) {
    const Clock::Duration left = std::max(Clock::Duration::zero(), deadline - clock_.Now());
    if (!c->Stop(left)) spdlog::warn("controller {} did not drain in time", c->name());
  }
  cache_.Stop();
  events_->Stop();
  if (release_lease && elector_ && options_.leader_election->release_on_stop) {
    const Status s = elector_->Release();
    if (!s.ok()) spdlog::warn("{}", s.ToString());
  }
  StopServing();
}

Status Manager::StartServing() {
  if (!ServingDisabled(options_.health_probe_bind_address)) {
    HttpServerOptions probe_options;
    probe_options.listener = "probes";
    probe_options.connections = options_.health_probe_connections;
    probe_options.deadlines = options_.health_probe_deadlines;
    probe_options.metrics = &metrics_;
    RDMASTACK_RETURN_IF_ERROR(probes_.Start(options_.health_probe_bind_address, probe_options)
                                  .WithContext("health probe bind address"));
    spdlog::info("serving /healthz, /readyz on port {}", probes_.port());
  }
  const Status metrics = metrics_server_.Start();
  if (!metrics.ok()) probes_.Stop();
  return metrics;
}

void Manager::StopServing() {
  metrics_server_.Stop();
  probes_.Stop();
}

}  // namespace rdmastack::runtime
