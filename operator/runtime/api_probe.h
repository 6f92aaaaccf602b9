#pragma once
// A quorum read of one named object every `period`, for a process that holds no Lease. While no
// reconcile writes, nothing else would ask the API server's storage anything: an etcd freeze then
// goes unseen by ApiReachability (api_reachability.h), and a drain that began before the freeze
// could end inside it, while clients cannot learn that the endpoint moved. With leader election
// the lease renewal is that request, and no probe runs.

#include <memory>
#include <string>

#include "base/clock.h"
#include "operator/k8s/call_context.h"
#include "operator/k8s/client.h"

namespace rdmastack::runtime {

struct ApiProbeConfig {
  std::string ns;
  std::string lease_name;  // read, never written: a 404 is an answer from storage too
  Clock::Duration period = std::chrono::seconds(2);
  Clock::Duration timeout = std::chrono::seconds(10);  // per probe; a hang past it is an outage
};

class ApiProbe {
 public:
  // `client` is the one ApiReachability watches (the manager's instrumented client).
  ApiProbe(k8s::Client& client, ApiProbeConfig config);

  // Probes every period until Stop(); a probe in flight is aborted by Stop().
  void RunUntilStopped();
  void Stop();

 private:
  k8s::Client& client_;
  const ApiProbeConfig config_;
  const std::shared_ptr<k8s::Cancellation> cancellation_ = std::make_shared<k8s::Cancellation>();
};

}  // namespace rdmastack::runtime
