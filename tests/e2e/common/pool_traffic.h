#pragma once
// S3 traffic through a pool as a client would send it, for the end-to-end tests that change the
// pool under load (upgrade, chart).

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/common/pool_e2e_fixture.h"

namespace rdmastack::testing {

// A client that keeps writing and reading objects through the pool's ready endpoints, re-reading
// the EndpointSlices every 250 ms, with no retries: every failed request is counted. Objects go to
// the bucket "<ns>-<node>" of the node that served them (each node's backend is its own).
class Traffic {
 public:
  Traffic(const ClusterEnv& env, std::string ns, std::string pool)
      : env_(env), ns_(std::move(ns)), pool_(std::move(pool)) {}
  ~Traffic() { Stop(); }
  Traffic(const Traffic&) = delete;
  Traffic& operator=(const Traffic&) = delete;

  // HTTPS, trusting `ca_pem` (a pool with s3.tlsSecret); before Start.
  void UseTls(std::string ca_pem) { ca_pem_ = std::move(ca_pem); }
  void Start();
  void Stop();
  // node -> key -> body written through that node
  std::map<std::string, std::map<std::string, std::string>> objects() const;
  std::vector<std::string> failures() const;
  int64_t requests() const { return requests_; }
  // The ready endpoints it sends to now (its last good read).
  std::vector<SliceEndpoint> endpoints() const;
  std::set<int> ports_used() const;

 private:
  void Refresh();
  void Run();
  void Fail(std::string what);

  const ClusterEnv& env_;
  const std::string ns_, pool_;
  std::string ca_pem_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> requests_{0};
  mutable std::mutex mu_;
  std::vector<SliceEndpoint> endpoints_;
  std::map<std::string, std::map<std::string, std::string>> objects_;
  std::vector<std::string> failures_;
  std::set<int> ports_used_;
  std::vector<std::thread> threads_;
};

}  // namespace rdmastack::testing
