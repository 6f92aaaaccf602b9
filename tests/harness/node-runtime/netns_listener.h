#pragma once
// A listening TCP socket inside a simulated node's network namespace, so that a server of the
// runtime (a host process) answers at the node's own address over the bridge, as a daemon on the
// node would. The socket stays in that namespace; the calling thread does not change namespace.

#include <string>

#include "base/status.h"

namespace rdmastack::sim {

// A listening socket (close-on-exec) bound to ip:port in the namespace /run/netns/<netns>.
StatusOr<int> ListenInNetns(const std::string& netns_path, const std::string& ip, int port);

}  // namespace rdmastack::sim
