#include "gateway/launcher/cufile_config.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

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

}  // namespace rdmastack::gateway
