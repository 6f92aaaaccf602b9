#include "operator/runtime/leader_fenced_client.h"

#include <string>

#include "operator/k8s/call_context.h"

namespace rdmastack::runtime {

LeaderFencedClient::LeaderFencedClient(k8s::Client& inner, Clock& clock, LeadershipFence fence)
    : ForwardingClient(inner), clock_(clock), fence_(std::move(fence)) {}

Status LeaderFencedClient::Around(const k8s::ApiCall& call,
                                  const std::function<Status()>& call_inner) {
  if (!k8s::IsWrite(call.verb)) return call_inner();
  const std::optional<Clock::TimePoint> valid_until = fence_();
  const Clock::TimePoint now = clock_.Now();
  if (!valid_until || now >= *valid_until) {
    return AbortedError(k8s::Describe(call) +
                        " refused: this process does not hold the leader lease");
  }
  k8s::CallScope scope(std::chrono::steady_clock::now() + (*valid_until - now));
  return call_inner();
}

}  // namespace rdmastack::runtime
