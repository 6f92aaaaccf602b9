#pragma once
// A k8s::Client decorator that counts requests in rest_client_requests_total{code,method,host}
// (client-go's metric). code is the HTTP status, or "<error>" when no response came back; a
// successful call is counted as 201 for creates and 200 otherwise (the client does not report
// the exact success code). With an ApiReachability, it also tells it whether each request was
// answered, and whether the answer needed the server's storage (api_reachability.h).

#include <functional>
#include <string>

#include "operator/k8s/forwarding_client.h"
#include "operator/runtime/api_reachability.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

class InstrumentedClient final : public k8s::ForwardingClient {
 public:
  InstrumentedClient(k8s::Client& inner, MetricsRegistry& metrics, std::string host,
                     ApiReachability* reachability = nullptr);

 private:
  Status Around(const k8s::ApiCall& call, const std::function<Status()>& call_inner) override;
  // Whether the answer needs the server's storage or may come from its caches.
  static RequestKind KindOf(const k8s::ApiCall& call);
  static std::string CodeOf(const Status& status);

  Family<Counter>& requests_;
  const std::string host_;
  ApiReachability* const reachability_;
};

}  // namespace rdmastack::runtime
