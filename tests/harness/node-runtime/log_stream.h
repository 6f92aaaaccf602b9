#pragma once
// Sends one container log: the selection of what the file holds now (tailLines, limitBytes), and
// with follow whatever the container appends while it runs. The transport is behind LogSink, so
// the streaming rules are unit tested with a file and an in-memory sink (log_stream_test.cc).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

#include "tests/harness/node-runtime/log_request.h"

namespace rdmastack::sim {

class LogSink {
 public:
  virtual ~LogSink() = default;
  // False once the client is gone.
  virtual bool Write(std::string_view bytes) = 0;
  // Waits up to `timeout` for the client to leave; true while it is still there.
  virtual bool StillThere(std::chrono::milliseconds timeout) = 0;
};

struct FollowPolicy {
  // Whether to keep following: the container's process runs (and the server is not stopping).
  // Checked before each look at the file, so what it wrote before it ended is still sent.
  std::function<bool()> running;
  std::chrono::milliseconds interval{200};
};

// Streams the log file open at `fd` by `request`; returns the bytes sent. Follow ends when the
// container ends (after sending the rest), when limitBytes is reached or when the client leaves.
uint64_t StreamLog(int fd, const LogRequest& request, const FollowPolicy& follow, LogSink& sink);

}  // namespace rdmastack::sim
