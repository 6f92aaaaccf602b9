#pragma once
// Lets processes on simulated nodes reach the API server, which listens on the host's loopback
// only (a node's 127.0.0.1 is its own): accepts on the bridge address of the host and splices
// each connection to the API server byte for byte (TLS passes through untouched).

#include <memory>
#include <string>
#include <thread>

#include "base/status.h"

namespace rdmastack::sim {

class ApiForwarder {
 public:
  ApiForwarder();
  ~ApiForwarder();  // stops accepting and drops every connection
  ApiForwarder(const ApiForwarder&) = delete;
  ApiForwarder& operator=(const ApiForwarder&) = delete;

  // Listens on listen_ip:listen_port and forwards to target_ip:target_port on its own thread.
  Status Start(const std::string& listen_ip, int listen_port, const std::string& target_ip,
               int target_port);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
};

}  // namespace rdmastack::sim
