#include "operator/runtime/leader_election.h"

#include <spdlog/spdlog.h>

#include "operator/k8s/api_error.h"
#include "operator/k8s/json_builder.h"
#include "operator/runtime/event_series.h"

namespace rdmastack::runtime {

Status ValidateLeaderElectionConfig(const LeaderElectionConfig& c) {
  if (c.lease_name.empty() || c.lease_namespace.empty()) {
    return InvalidArgumentError("leader election needs a lease namespace and name");
  }
  if (c.identity.empty()) return InvalidArgumentError("leader election needs an identity");
  // The Lease keeps whole seconds: a shorter duration would be written as 0, and every other
  // candidate would take a held lease at once.
  if (c.lease_duration < std::chrono::seconds(1)) {
    return InvalidArgumentError("leaseDuration must be at least 1s (the Lease stores seconds)");
  }
  if (c.lease_duration <= c.renew_deadline) {
    return InvalidArgumentError("leaseDuration must be greater than renewDeadline");
  }
  if (c.renew_deadline <= c.retry_period * 12 / 10) {
    return InvalidArgumentError("renewDeadline must be greater than 1.2 * retryPeriod");
  }
  if (c.retry_period <= Clock::Duration::zero()) {
    return InvalidArgumentError("retryPeriod must be positive");
  }
  return OkStatus();
}

LeaseRecord LeaseRecordFrom(const k8s::JsonObject& lease) {
  LeaseRecord r;
  r.holder = lease.GetString({"spec", "holderIdentity"}).value_or("");
  r.lease_duration_seconds =
      static_cast<int>(lease.GetInt({"spec", "leaseDurationSeconds"}).value_or(0));
  r.acquire_time = lease.GetString({"spec", "acquireTime"}).value_or("");
  r.renew_time = lease.GetString({"spec", "renewTime"}).value_or("");
  r.lease_transitions = static_cast<int>(lease.GetInt({"spec", "leaseTransitions"}).value_or(0));
  return r;
}

namespace {

k8s::JsonObject LeaseObject(const LeaderElectionConfig& c, const LeaseRecord& r,
                            const std::string& resource_version,
                            const std::map<std::string, std::string>& labels = {},
                            const std::map<std::string, std::string>& annotations = {}) {
  k8s::JsonBuilder o;
  o.SetApiVersion("coordination.k8s.io/v1");
  o.SetKind("Lease");
  o.SetNamespace(c.lease_namespace);
  o.SetName(c.lease_name);
  if (!labels.empty()) o.SetStringMap({"metadata", "labels"}, labels);
  if (!annotations.empty()) o.SetStringMap({"metadata", "annotations"}, annotations);
  if (!resource_version.empty()) o.SetResourceVersion(resource_version);
  o.SetString({"spec", "holderIdentity"}, r.holder);
  o.SetInt({"spec", "leaseDurationSeconds"}, r.lease_duration_seconds);
  o.SetString({"spec", "acquireTime"}, r.acquire_time);
  o.SetString({"spec", "renewTime"}, r.renew_time);
  o.SetInt({"spec", "leaseTransitions"}, r.lease_transitions);
  return std::move(o).Build();
}

int Seconds(Clock::Duration d) {
  return static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

// Rounded up: other candidates wait at least as long as this holder counts on (1.5s -> 2).
int LeaseSeconds(Clock::Duration d) {
  return static_cast<int>(std::chrono::ceil<std::chrono::seconds>(d).count());
}

}  // namespace

LeaderElector::LeaderElector(k8s::Client& client, Clock& clock, LeaderElectionConfig config)
    : client_(client), clock_(clock), config_(std::move(config)) {}

k8s::SteadyTime LeaderElector::ToSteady(Clock::TimePoint t) const {
  return std::chrono::steady_clock::now() + (t - clock_.Now());
}

bool LeaderElector::TryAcquireOrRenew(std::optional<Clock::TimePoint> deadline) {
  const Clock::TimePoint started = clock_.Now();
  const Clock::TimePoint until = deadline.value_or(started + config_.renew_deadline);
  k8s::CallScope scope(ToSteady(until), cancellation_);
  const std::string now_text = FormatMicroTime(clock_.WallNow());
  LeaseRecord desired{config_.identity, LeaseSeconds(config_.lease_duration), now_text, now_text,
                      0};
  const auto& type = k8s::kinds::Lease();
  const Status renewed = RenewObserved(desired, started);
  if (renewed.ok()) return true;
  // A renewal that ran out of time (a hung server) or was stopped sends nothing more.
  if (renewed.code() == StatusCode::kDeadlineExceeded || renewed.code() == StatusCode::kCancelled ||
      clock_.Now() >= until) {
    return false;
  }

  auto current = client_.Get(type, config_.lease_namespace, config_.lease_name);
  if (!current.ok()) {
    if (!k8s::IsNotFound(current.status())) {
      spdlog::warn("leader election: get lease {}/{}: {}", config_.lease_namespace,
                   config_.lease_name, current.status().ToString());
      return false;
    }
    {
      // A Lease someone deleted: its last holder may still be leading, unseen, until its renew
      // deadline. That holder (this process, if it was) makes it again at once; a candidate that
      // saw another holder waits a lease duration of absence first, as it would wait out a held
      // lease, so that two never lead at once.
      std::lock_guard<std::mutex> l(mu_);
      const Clock::TimePoint now = clock_.Now();
      if (!absent_since_) absent_since_ = now;
      const bool held_by_other =
          observed_ && !observed_->holder.empty() && observed_->holder != config_.identity;
      if (held_by_other && now < *absent_since_ + config_.lease_duration) {
        spdlog::info("leader election: lease {}/{} is gone; {} held it, waiting out its lease",
                     config_.lease_namespace, config_.lease_name, observed_->holder);
        return leader_ = false;
      }
    }
    auto created = client_.Create(type, LeaseObject(config_, desired, ""));
    if (!created.ok()) {
      spdlog::info("leader election: create lease: {}", created.status().ToString());
      return false;
    }
    spdlog::info("leader election: {} acquired lease {}/{} (created it)", config_.identity,
                 config_.lease_namespace, config_.lease_name);
    return Wrote(desired, *created, started);
  }

  const LeaseRecord old = LeaseRecordFrom(*current);
  std::string resource_version(current->ResourceVersion());
  {
    std::lock_guard<std::mutex> l(mu_);
    absent_since_.reset();
    if (!observed_ || !(*observed_ == old)) {
      observed_ = old;
      observed_time_ = clock_.Now();
    }
    observed_resource_version_ = resource_version;
    observed_labels_ = current->GetStringMap({"metadata", "labels"});
    observed_annotations_ = current->GetStringMap({"metadata", "annotations"});
    const Clock::Duration held_for =
        std::chrono::seconds(old.lease_duration_seconds > 0 ? old.lease_duration_seconds : 0);
    if (!old.holder.empty() && old.holder != config_.identity &&
        clock_.Now() < observed_time_ + held_for) {
      return leader_ = false;
    }
  }
  if (old.holder == config_.identity) {
    desired.acquire_time = old.acquire_time;
    desired.lease_transitions = old.lease_transitions;
  } else {
    desired.lease_transitions = old.lease_transitions + 1;
  }
  std::map<std::string, std::string> labels, annotations;
  {
    std::lock_guard<std::mutex> l(mu_);
    labels = observed_labels_;
    annotations = observed_annotations_;
  }
  auto updated =
      client_.Update(type, LeaseObject(config_, desired, resource_version, labels, annotations));
  if (!updated.ok()) {
    // A failed write (conflict, unreachable server) decides nothing; the renew deadline does.
    spdlog::info("leader election: update lease: {}", updated.status().ToString());
    return false;
  }
  if (old.holder != config_.identity) {
    spdlog::info("leader election: {} acquired lease {}/{} (previous holder \"{}\")",
                 config_.identity, config_.lease_namespace, config_.lease_name, old.holder);
  }
  return Wrote(desired, *updated, started);
}

bool LeaderElector::Wrote(const LeaseRecord& record, const k8s::JsonObject& written,
                          Clock::TimePoint started) {
  std::lock_guard<std::mutex> l(mu_);
  observed_ = record;
  observed_resource_version_ = std::string(written.ResourceVersion());
  observed_time_ = clock_.Now();
  valid_until_ = started + config_.renew_deadline;
  return leader_ = true;
}

Status LeaderElector::RenewObserved(LeaseRecord desired, Clock::TimePoint started) {
  std::string resource_version;
  std::map<std::string, std::string> labels, annotations;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!leader_ || !observed_ || observed_->holder != config_.identity ||
        observed_resource_version_.empty()) {
      return FailedPreconditionError("not the leader");
    }
    desired.acquire_time = observed_->acquire_time;
    desired.lease_transitions = observed_->lease_transitions;
    resource_version = observed_resource_version_;
    labels = observed_labels_;
    annotations = observed_annotations_;
  }
  auto updated = client_.Update(
      k8s::kinds::Lease(), LeaseObject(config_, desired, resource_version, labels, annotations));
  if (!updated.ok()) {
    spdlog::debug("leader election: renewing from the lease as last written: {}",
                  updated.status().ToString());
    return updated.status();
  }
  Wrote(desired, *updated, started);
  return OkStatus();
}

Status LeaderElector::Release() {
  LeaseRecord record;
  std::string resource_version;
  std::map<std::string, std::string> labels, annotations;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!leader_ || !observed_) return OkStatus();
    record = *observed_;
    resource_version = observed_resource_version_;
    labels = observed_labels_;
    annotations = observed_annotations_;
  }
  k8s::CallScope scope(ToSteady(clock_.Now() + config_.renew_deadline));
  const std::string now_text = FormatMicroTime(clock_.WallNow());
  record.holder = "";
  record.lease_duration_seconds = 1;
  record.acquire_time = now_text;
  record.renew_time = now_text;
  auto updated = client_.Update(
      k8s::kinds::Lease(), LeaseObject(config_, record, resource_version, labels, annotations));
  std::lock_guard<std::mutex> l(mu_);
  leader_ = false;
  if (!updated.ok()) return updated.status().WithContext("release lease");
  observed_ = record;
  observed_resource_version_ = std::string(updated->ResourceVersion());
  observed_time_ = clock_.Now();
  return OkStatus();
}

bool LeaderElector::SleepUntil(Clock::TimePoint deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopped_ && clock_.Now() < deadline) clock_.WaitUntil(l, cv_, deadline);
  return !stopped_;
}

bool LeaderElector::Acquire() {
  while (true) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopped_) return false;
    }
    if (TryAcquireOrRenew()) return true;
    if (!SleepUntil(clock_.Now() + config_.retry_period)) return false;
  }
}

bool LeaderElector::RenewUntilLostOrStopped() {
  while (true) {
    // Renew every retry_period, and never start an attempt at or after the renew deadline: from
    // then on another candidate may take the lease, so we send nothing more.
    const std::optional<Clock::TimePoint> valid_until = LeadershipValidUntil();
    const Clock::TimePoint wake =
        valid_until ? std::min(clock_.Now() + config_.retry_period, *valid_until) : clock_.Now();
    if (!SleepUntil(wake)) return true;
    if (!valid_until || clock_.Now() >= *valid_until) {
      spdlog::error("leader election: failed to renew lease {}/{} within {} s",
                    config_.lease_namespace, config_.lease_name, Seconds(config_.renew_deadline));
      std::lock_guard<std::mutex> l(mu_);
      leader_ = false;
      return false;
    }
    TryAcquireOrRenew(*valid_until);
  }
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  cancellation_->Cancel();
}

std::optional<Clock::TimePoint> LeaderElector::LeadershipValidUntil() const {
  std::lock_guard<std::mutex> l(mu_);
  if (!leader_) return std::nullopt;
  return valid_until_;
}

bool LeaderElector::IsLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return leader_;
}

std::string LeaderElector::ObservedLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_ ? observed_->holder : "";
}

}  // namespace rdmastack::runtime
