#include "operator/runtime/api_probe.h"

#include "operator/k8s/resource.h"

namespace rdmastack::runtime {

ApiProbe::ApiProbe(k8s::Client& client, ApiProbeConfig config)
    : client_(client), config_(std::move(config)) {}

void ApiProbe::RunUntilStopped() {
  while (!cancellation_->WaitFor(config_.period)) {
    k8s::CallScope scope(std::chrono::steady_clock::now() + config_.timeout, cancellation_);
    // The outcome matters only to ApiReachability, which the client tells.
    (void)client_.Get(k8s::kinds::Lease(), config_.ns, config_.lease_name);
  }
}

void ApiProbe::Stop() {
  cancellation_->Cancel();
}

}  // namespace rdmastack::runtime
