#pragma once
// The kubelet's log endpoint for the simulated nodes: the API server serves pods/log (`kubectl
// logs`) by calling https://<node InternalIP>:<daemonEndpoints.kubeletEndpoint.Port>/containerLogs/
// {namespace}/{pod}/{container}. One HTTPS listener per simulated node, inside the node's network
// namespace at its address, so the API server reaches it over the bridge like a real kubelet.
// Only the API server's kubelet client certificate (verified against the cluster CA) is served.
// Answers come from the files the runtime writes, <log dir>/<ns>_<pod>_<uid>/<container>/<n>.log.

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"
#include "tests/harness/node-runtime/kubelet_tls.h"
#include "tests/harness/node-runtime/log_request.h"
#include "tests/harness/node-runtime/node_table.h"

namespace rdmastack::sim {

struct LogServerConfig {
  int port = 0;             // the nodes' kubelet port (what kwok puts in daemonEndpoints)
  std::string pki_dir;      // <node>.crt and <node>.key: each node's serving certificate
  std::string client_ca;    // the CA that signed the API server's kubelet client certificate
  std::string client_name;  // the CN of that certificate; any other client gets 403
  std::string log_dir;      // where the runtime writes container logs
};

struct PodLookup {
  // The runtime's copy of a pod it runs (its informer's), or null.
  std::function<runtime::ObjectPtr(const std::string& ns, const std::string& name)> running;
  // The API server's copy of any pod (nullopt when there is none), to say why one has no logs.
  std::function<std::optional<k8s::JsonObject>(const std::string& ns, const std::string& name)>
      fetch;
};

class LogServer {
 public:
  LogServer(LogServerConfig config, PodLookup pods);
  ~LogServer();  // Stop()
  LogServer(const LogServer&) = delete;
  LogServer& operator=(const LogServer&) = delete;

  // Listens on every node's address at the kubelet port; fails on a missing certificate or a port
  // in use, naming the node.
  Status Start(const NodeTable& nodes);
  // Stops accepting, ends every open request (follows included) and waits for them.
  void Stop();

 private:
  struct Listener {
    std::string node;
    int fd = -1;
    SslCtxPtr tls;
  };
  struct OpenLog {
    int fd = -1;
    pid_t pid = 0;  // the container's process while it runs
    std::string path;
  };
  void AcceptLoop();
  // The log file a request reads, or why there is none (NotFound: 404, InvalidArgument: 400).
  StatusOr<OpenLog> Open(const std::string& node, const LogRequest& request) const;
  void Serve(const Listener& listener, int fd);
  void Done(int fd);

  LogServerConfig config_;
  PodLookup pods_;
  std::vector<Listener> listeners_;
  int wake_fd_ = -1;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable idle_;
  std::set<int> connections_;
};

}  // namespace rdmastack::sim
