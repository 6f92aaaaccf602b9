#include "gateway/launcher/cufile_config.h"

#include <fcntl.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rdmastack::gateway {

Status ValidateCufileLogLevel(const std::string& level) {
  for (const char* ok : {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"}) {
    if (level == ok) return OkStatus();
  }
  return InvalidArgumentError("cufile log level '" + level +
                              "' is not one of ERROR, WARN, INFO, DEBUG, TRACE");
}

std::string RenderCufileJson(const CufileConfig& config) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("logging");
  w.StartObject();
  w.Key("dir");
  w.String(config.log_dir);
  w.Key("level");
  w.String(config.log_level);
  w.EndObject();
  w.Key("properties");
  w.StartObject();
  w.Key("rdma_dev_addr_list");
  w.StartArray();
  w.String(config.rdma_ip);
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return PermissionDeniedError("cannot write " + path + ": " + std::strerror(errno) +
                                 "; mount a writable directory (emptyDir) at --config-dir");
  }
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return UnavailableError("cannot write " + path + ": " + err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return UnavailableError("cannot write " + path + ": " + err);
  }
  return OkStatus();
}

}  // namespace rdmastack::gateway
