#pragma once
// The API server's behaviour for one Lease behind a MockClient: resourceVersion-checked writes,
// an outage switch, a hang switch (a request takes until its caller's deadline, as the transport
// makes it), and direct writes as "another process".

#include <gmock/gmock.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/call_context.h"
#include "operator/k8s/testing/mock_client.h"
#include "operator/runtime/leader_election.h"

namespace rdmastack::runtime::testing {

using ::testing::_;
using ::testing::Invoke;

class FakeLeaseServer {
 public:
  explicit FakeLeaseServer(k8s::testing::MockClient& client) {
    ON_CALL(client, Get(_, _, _, _)).WillByDefault(Invoke([this](auto&&...) { return Get(); }));
    ON_CALL(client, Create(_, _, _))
        .WillByDefault(Invoke(
            [this](const auto&, const k8s::JsonObject& o, const auto&) { return Create(o); }));
    ON_CALL(client, Update(_, _, _))
        .WillByDefault(Invoke(
            [this](const auto&, const k8s::JsonObject& o, const auto&) { return Update(o); }));
  }

  // Called at the start of every request: records the caller's deadline and, while `hang` is set,
  // lets the request take until that deadline on `hang_clock` and fail as the transport would.
  std::optional<Status> Arrive() {
    deadlines.push_back(k8s::CurrentCallContext().deadline);
    if (!hang) return std::nullopt;
    const auto deadline = k8s::CurrentCallContext().deadline;
    if (!deadline) {
      ADD_FAILURE() << "a request without a deadline would hang forever";
      return UnavailableError("hung");
    }
    hang_clock->Advance(*deadline - std::chrono::steady_clock::now());
    return DeadlineExceededError("hung until the caller's deadline");
  }

  StatusOr<k8s::JsonObject> Get() {
    std::lock_guard<std::mutex> l(mu);
    if (auto hung = Arrive()) return *hung;
    if (down) return UnavailableError("connection refused");
    if (!lease) return k8s::testing::ApiStatus(404, "NotFound", "leases \"lock\" not found");
    return *lease;
  }
  StatusOr<k8s::JsonObject> Create(k8s::JsonObject o) {
    std::lock_guard<std::mutex> l(mu);
    if (auto hung = Arrive()) return *hung;
    if (down) return UnavailableError("connection refused");
    if (lease)
      return k8s::testing::ApiStatus(409, "AlreadyExists", "leases \"lock\" already exists");
    o.SetResourceVersion(std::to_string(++rv));
    lease = o;
    return o;
  }
  StatusOr<k8s::JsonObject> Update(k8s::JsonObject o) {
    std::lock_guard<std::mutex> l(mu);
    ++updates;
    if (auto hung = Arrive()) return *hung;
    if (down) return UnavailableError("connection refused");
    if (!lease) return k8s::testing::ApiStatus(404, "NotFound", "not found");
    if (o.ResourceVersion() != lease->ResourceVersion()) {
      return k8s::testing::ApiStatus(409, "Conflict", "the object has been modified");
    }
    o.SetResourceVersion(std::to_string(++rv));
    lease = o;
    return o;
  }
  // Another process writes the lease directly.
  void SetHolder(const std::string& holder, int duration_s, const std::string& renew_time) {
    std::lock_guard<std::mutex> l(mu);
    k8s::JsonObject o = lease ? *lease : k8s::JsonObject();
    o.SetNamespace("ns");
    o.SetName("lock");
    (void)o.SetString({"spec", "holderIdentity"}, holder);
    (void)o.SetInt({"spec", "leaseDurationSeconds"}, duration_s);
    (void)o.SetString({"spec", "renewTime"}, renew_time);
    o.SetResourceVersion(std::to_string(++rv));
    lease = o;
  }
  LeaseRecord Record() {
    std::lock_guard<std::mutex> l(mu);
    return lease ? LeaseRecordFrom(*lease) : LeaseRecord{};
  }

  std::mutex mu;
  std::optional<k8s::JsonObject> lease;
  int rv = 0;
  int updates = 0;
  bool down = false;
  bool hang = false;
  FakeClock* hang_clock = nullptr;
  std::vector<std::optional<k8s::SteadyTime>> deadlines;  // one per request, in order
};

}  // namespace rdmastack::runtime::testing
