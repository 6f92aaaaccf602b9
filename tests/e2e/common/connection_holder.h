#pragma once
// A process in a simulated node's network namespace that holds connections to servers for as
// long as they let it: for each target it keeps `per_target` TCP connections open and opens a new
// one whenever one is closed, for `duration`. On the plain-HTTP targets every other connection
// sends the start of a request head and never its end; the others send nothing (on a TLS port:
// no handshake). So a pod that floods every port of the operator, from that node's address.
// Wait() returns what it counted.

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

struct HeldTarget {
  std::string ip;
  int port = 0;
  bool plain_http = false;  // send half a request head on every other connection
};

struct HoldCounts {
  int opened = 0;          // connections established (TCP)
  int closed_at_once = 0;  // closed by the server within 1 s of opening
  int closed_later = 0;    // closed by the server after that
  int max_held = 0;        // most held open for over 1 s at once to one target
};

class ConnectionHolder {
 public:
  ConnectionHolder(const std::string& netns, std::vector<HeldTarget> targets, int per_target,
                   std::chrono::seconds duration);
  ~ConnectionHolder() { (void)Wait(); }
  ConnectionHolder(const ConnectionHolder&) = delete;
  ConnectionHolder& operator=(const ConnectionHolder&) = delete;

  // Blocks until the run is over; the counts of every target together, and the raw output.
  HoldCounts Wait();
  const CommandResult& result() const { return result_; }

 private:
  std::thread thread_;
  CommandResult result_;
};

}  // namespace rdmastack::testing
