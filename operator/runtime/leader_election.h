#pragma once
// Leader election on a coordination.k8s.io/v1 Lease (client-go tools/leaderelection, LeaseLock).
// Timings default to controller-runtime's: lease 15 s, renew deadline 10 s, retry period 2 s.
// Another holder's lease counts as live until lease_duration has passed on OUR clock since we last
// saw its record change, so clock skew between processes does not matter. Losing the lease is
// final: the owner (the manager) stops and the process exits rather than demoting in place.
//
// Safety under a hanging API server: every request of a renewal carries a deadline (a
// k8s::CallScope) at the renew deadline, so no attempt, retry or backoff outlives it. Leadership is
// valid until the start of the last successful renewal plus renew_deadline; writers fence their
// writes on LeadershipValidUntil() (leader_fenced_client.h). Because renew_deadline <
// lease_duration, our last write ends before any other candidate can have waited out the lease.

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "operator/k8s/call_context.h"
#include "operator/k8s/client.h"

namespace rdmastack::runtime {

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per process: hostname + random suffix
  Clock::Duration lease_duration = std::chrono::seconds(15);
  Clock::Duration renew_deadline = std::chrono::seconds(10);
  Clock::Duration retry_period = std::chrono::seconds(2);
  bool release_on_stop = true;
};

// lease_duration > renew_deadline > 1.2 * retry_period, non-empty names (client-go's checks).
Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

// The part of Lease.spec leader election reads and writes.
struct LeaseRecord {
  std::string holder;
  int lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime text, as stored
  std::string renew_time;
  int lease_transitions = 0;

  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};
LeaseRecord LeaseRecordFrom(const k8s::JsonObject& lease);

class LeaderElector {
 public:
  LeaderElector(k8s::Client& client, Clock& clock, LeaderElectionConfig config);

  // One attempt to acquire or renew; its requests end by `deadline` (default: now +
  // renew_deadline). True when we hold the lease afterwards.
  bool TryAcquireOrRenew(std::optional<Clock::TimePoint> deadline = std::nullopt);
  // Gives the lease up (holder "", duration 1 s) if we hold it, so a successor need not wait.
  // Bounded by renew_deadline.
  Status Release();

  // Blocks, retrying every retry_period, until we lead (true) or Stop() is called (false).
  bool Acquire();
  // While leading: renews every retry_period; returns when a renewal could not succeed within
  // renew_deadline (lease lost; false) or after Stop() (true). Once the renew deadline has passed
  // it sends nothing more: no write after the point where another candidate may take over.
  bool RenewUntilLostOrStopped();
  // Ends Acquire/RenewUntilLostOrStopped and aborts a request in flight.
  void Stop();

  bool IsLeader() const;
  // While leading, the time until which a write of ours cannot overlap another leader: the start
  // of the last successful acquire/renew plus renew_deadline. nullopt when not leading.
  std::optional<Clock::TimePoint> LeadershipValidUntil() const;
  // The holder in the last record we saw ("" when none).
  std::string ObservedLeader() const;
  const LeaderElectionConfig& config() const { return config_; }

 private:
  // The leader's renewal: one Update from the Lease as this elector last wrote it, with no Get
  // first (client-go's optimistic renewal), which halves the requests of an idle operator.
  // FailedPrecondition when not leading, else the write's failure (someone else wrote the Lease,
  // no server): the caller then reads the Lease and decides from what it finds.
  Status RenewObserved(LeaseRecord desired, Clock::TimePoint started);
  // Records a successful write of `record` (the Lease as the server returned it) made by an attempt
  // that began at `started`: this elector leads until started + renew deadline. Returns true.
  bool Wrote(const LeaseRecord& record, const k8s::JsonObject& written, Clock::TimePoint started);
  // Sleeps until `deadline` or Stop(); false when stopped.
  bool SleepUntil(Clock::TimePoint deadline);
  // `t` on this elector's clock as a steady_clock time, for request deadlines.
  k8s::SteadyTime ToSteady(Clock::TimePoint t) const;

  k8s::Client& client_;
  Clock& clock_;
  const LeaderElectionConfig config_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::optional<LeaseRecord> observed_;
  std::string observed_resource_version_;
  // The Lease's labels and annotations as read: an update keeps them (a Lease made by a Helm
  // chart keeps the release's ownership metadata, so `helm uninstall` still removes it).
  std::map<std::string, std::string> observed_labels_, observed_annotations_;
  Clock::TimePoint observed_time_{};
  std::optional<Clock::TimePoint> absent_since_;  // the Lease was found missing since then
  bool leader_ = false;
  Clock::TimePoint valid_until_{};
  const std::shared_ptr<k8s::Cancellation> cancellation_ = std::make_shared<k8s::Cancellation>();
};

}  // namespace rdmastack::runtime
