#include "tests/harness/node-runtime/log_stream.h"

#include <unistd.h>

#include <array>
#include <string>

#include "tests/harness/node-runtime/log_selection.h"

namespace rdmastack::sim {
namespace {

// Everything from `offset` to the current end of the file.
std::string ReadFrom(int fd, uint64_t offset) {
  std::string out;
  std::array<char, 65536> buf;
  while (true) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(offset + out.size()));
    if (n <= 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

uint64_t StreamLog(int fd, const LogRequest& request, const FollowPolicy& follow, LogSink& sink) {
  uint64_t sent = 0;
  // Sends up to the limit; false when nothing more may or can go out.
  auto send = [&](std::string_view bytes) {
    const size_t n = AllowedBytes(bytes.size(), request.limit_bytes, sent);
    if (n > 0 && !sink.Write(bytes.substr(0, n))) return false;
    sent += n;
    return AllowedBytes(1, request.limit_bytes, sent) > 0;
  };
  bool running = request.follow && follow.running && follow.running();
  const std::string now = ReadFrom(fd, 0);
  uint64_t offset = now.size();
  if (!send(std::string_view(now).substr(TailOffset(now, request.tail_lines)))) return sent;
  while (running && sink.StillThere(follow.interval)) {
    running = follow.running();
    const std::string more = ReadFrom(fd, offset);
    offset += more.size();
    if (!send(more)) break;
  }
  return sent;
}

}  // namespace rdmastack::sim
