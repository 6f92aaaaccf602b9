#pragma once
// The Client over a Transport. NewRestClient() (client.h) is the usual entry; tests hand in a
// transport pointed at a local server.

#include <chrono>
#include <memory>

#include "operator/k8s/client.h"
#include "operator/k8s/transport.h"

namespace rdmastack::k8s {

struct RetryPolicy {
  int max_throttle_retries = 10;
  std::chrono::seconds max_retry_after{30};
};

ClientPtr NewRestClientOverTransport(std::unique_ptr<Transport> transport, RetryPolicy retry = {});

}  // namespace rdmastack::k8s
