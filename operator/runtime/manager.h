#pragma once
// Runs controllers the way controller-runtime's manager does:
//   serve /healthz /readyz (plain HTTP) and /metrics (HTTPS, authenticated: metrics_server.h) ->
//   start informers -> wait for cache sync -> acquire the leader lease (if enabled) -> start
//   controller workers -> run until a stop is requested or the lease is lost.
// Stopping (SIGTERM): stop intake, drain workers for up to the graceful shutdown timeout (30 s),
// stop informers and the event writer, release the lease, stop serving.
// /readyz turns ready once caches have synced (a synced standby is ready too, so that a rolling
// update with a leader still running can proceed); /healthz answers while the process runs.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/api_probe.h"
#include "operator/runtime/api_reachability.h"
#include "operator/runtime/controller.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/http_server.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/instrumented_client.h"
#include "operator/runtime/leader_election.h"
#include "operator/runtime/leader_fenced_client.h"
#include "operator/runtime/metrics.h"
#include "operator/runtime/metrics_server.h"

namespace rdmastack::runtime {

struct ManagerOptions {
  // Serves /healthz and /readyz over plain HTTP (kubelet probes); "" or "0" disables.
  std::string health_probe_bind_address = ":8081";
  // The kubelet's probes come from the node (one address), one connection per probe, each done
  // in milliseconds: 8 per address leave them their slots while up to 31 other addresses hold
  // silent connections, each closed at the header deadline (docs/operations.md "Listeners").
  ConnectionLimits health_probe_connections{.max_connections = 256,
                                            .max_connections_per_address = 8};
  HttpDeadlines health_probe_deadlines;
  // Serves /metrics; see MetricsServerOptions (":8443", HTTPS with TokenReview and
  // SubjectAccessReview).
  MetricsServerOptions metrics;
  std::optional<LeaderElectionConfig> leader_election;
  // Without leader election: what keeps a storage request going (api_probe.h). Ignored with it.
  std::optional<ApiProbeConfig> api_probe;
  // Checked before this process tries to lead, again every retry interval while it fails: the
  // process stays a standby, logs the error and records it as a Warning event `reason` on the
  // Lease (or the probe's Lease) whenever the message changes. Unset: none.
  std::function<Status()> lead_precondition;
  std::string lead_precondition_reason = "CannotLead";
  Clock::Duration lead_precondition_retry = std::chrono::seconds(30);
  Clock::Duration cache_sync_timeout = std::chrono::minutes(2);
  Clock::Duration graceful_shutdown_timeout = std::chrono::seconds(30);
  EventRecorderOptions events;
  std::string api_host;  // label for rest_client_requests_total
};

// Something that runs only while this process leads, like controller-runtime's
// LeaderElectionRunnable (the agent hub: it writes certificates and feeds the controllers).
// `start` runs after the lease is won and before the controllers start; an error ends Run as a
// failed start-up. `stop` runs first at shutdown, before the controllers drain.
struct Runnable {
  std::string name;
  std::function<Status()> start;
  std::function<void()> stop;
};
using LeaderRunnable = Runnable;

class Manager {
 public:
  Manager(k8s::Client& client, Clock& clock, ManagerOptions options);
  ~Manager();

  // The client controllers use: instrumented and, with leader election, fenced on leadership
  // (writes only while this process leads; see leader_fenced_client.h).
  k8s::Client& client() { return *writer_; }
  MetricsRegistry& metrics() { return metrics_; }
  InformerCache& cache() { return cache_; }
  EventRecorder& events() { return *events_; }
  // Since when the API server has answered this process without a break (every request the
  // manager's client makes counts).
  const ApiReachability& api_reachability() const { return reachability_; }
  // Creates a controller owned by the manager; wire it with Controller::Watch before Run.
  Controller& NewController(const std::string& name, Reconciler& reconciler,
                            ControllerOptions options = {});
  // Before Run. Started in the order added, stopped in reverse.
  void AddLeaderRunnable(LeaderRunnable runnable);
  // Before Run. Runs on every replica (the pod webhook): started when Run begins, stopped first
  // at shutdown, in reverse order, and always before the lease is released, so that a write of
  // its through the fenced client cannot land after the next leader has taken over.
  void AddRunnable(Runnable runnable);

  // Blocks. OK after a requested stop; Aborted("leader election lost") when the lease was lost
  // (the caller should exit non-zero at once); other errors when startup failed.
  Status Run();
  // Thread-safe; may be called before or during Run.
  void RequestStop();

  bool Ready() const { return ready_.load(); }
  bool Leading() const { return leading_.load(); }
  // The ports actually bound (after Run has started serving); 0 when disabled.
  uint16_t health_probe_port() const { return probes_.port(); }
  uint16_t metrics_port() const { return metrics_server_.port(); }

 private:
  bool StopRequested() const;
  bool WaitForCaches();
  void Shutdown(bool release_lease, Clock::Duration drain);
  void RecordLeaderEvent();
  std::optional<k8s::JsonObject> LeaseObject() const;
  // Waits until options_.lead_precondition holds; false when stopped first.
  bool WaitForLeadPrecondition();
  Status StartServing();
  void StopServing();
  Status StartLeaderRunnables();
  void StopLeaderRunnables();

  Clock& clock_;
  const ManagerOptions options_;
  MetricsRegistry metrics_;
  ApiReachability reachability_;
  InstrumentedClient client_;
  std::unique_ptr<LeaderFencedClient> fenced_;
  k8s::Client* writer_ = &client_;
  InformerCache cache_;
  std::unique_ptr<ApiEventRecorder> events_;
  std::unique_ptr<LeaderElector> elector_;
  std::unique_ptr<ApiProbe> api_probe_;  // only without elector_
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<LeaderRunnable> leader_runnables_;
  size_t leader_runnables_started_ = 0;
  std::vector<Runnable> runnables_;
  size_t runnables_started_ = 0;
  HttpServer probes_;
  MetricsServer metrics_server_;
  Gauge* leader_status_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  std::atomic<bool> ready_{false};
  std::atomic<bool> leading_{false};
};

}  // namespace rdmastack::runtime
