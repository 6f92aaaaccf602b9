#pragma once
// A k8s::Client decorator that lets writes through only while this process leads, and bounds each
// write by the end of its leadership: a write that would start after the renew deadline of the last
// successful renewal fails at once with kAborted, and one in flight at that moment is cut off (a
// k8s::CallScope deadline). Reads and watches pass through: a standby keeps its caches warm.
//
// Controllers and the event recorder write through this client, so a process that has lost its
// lease (or stopped, e.g. SIGSTOP, for longer than the renew deadline) writes nothing more, even
// before its elector thread has noticed.

#include <functional>
#include <optional>

#include "base/clock.h"
#include "operator/k8s/forwarding_client.h"

namespace rdmastack::runtime {

// The time until which a write is safe (LeaderElector::LeadershipValidUntil), or nullopt.
using LeadershipFence = std::function<std::optional<Clock::TimePoint>()>;

class LeaderFencedClient final : public k8s::ForwardingClient {
 public:
  LeaderFencedClient(k8s::Client& inner, Clock& clock, LeadershipFence fence);

 private:
  Status Around(const k8s::ApiCall& call, const std::function<Status()>& call_inner) override;

  Clock& clock_;
  LeadershipFence fence_;
};

}  // namespace rdmastack::runtime
