#pragma once
// A process that listens on a port in a simulated node's network namespace, so that a gateway
// started there cannot: how the e2e tests make a node's new gateway fail to come up. The process
// is killed and reaped on Release() or at the latest when the holder goes.

#include <sys/types.h>

#include <string>

namespace rdmastack::testing {

class PortHolder {
 public:
  PortHolder(const std::string& netns, int port);
  ~PortHolder() { Release(); }
  PortHolder(const PortHolder&) = delete;
  PortHolder& operator=(const PortHolder&) = delete;

  // Frees the port now (idempotent).
  void Release();

 private:
  pid_t pid_ = -1;
};

}  // namespace rdmastack::testing
