#pragma once
// Runs one probe for real: exec (inside the container's namespaces and root, through the shim),
// httpGet (2xx/3xx is success; HTTPS without certificate checks, as the kubelet does) and
// tcpSocket (a connection is success), each bounded by the probe's timeout.

#include <sys/types.h>

#include <string>

#include "tests/harness/node-runtime/probe_spec.h"

namespace rdmastack::sim {

class ProbeRunner {
 public:
  explicit ProbeRunner(std::string shim_binary) : shim_(std::move(shim_binary)) {}
  virtual ~ProbeRunner() = default;
  // `pod_ip` is the host when the probe names none; `container_pid` is the container's main
  // process (exec probes). `detail` says why a probe failed.
  virtual bool Run(const ProbeSpec& spec, const std::string& pod_ip, pid_t container_pid,
                   std::string* detail);

 private:
  std::string shim_;
};

bool HttpGetProbe(const ProbeSpec& spec, const std::string& host, std::string* detail);
bool TcpSocketProbe(const ProbeSpec& spec, const std::string& host, std::string* detail);

}  // namespace rdmastack::sim
