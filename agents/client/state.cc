#include "agents/client/state.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>

#include "base/duration.h"
#include "base/host_dir.h"
#include "base/json_parse.h"
#include "base/rfc3339.h"

namespace rdmastack::client {
namespace {

Status Need(const rapidjson::Document& doc, const char* key, bool ok_type) {
  if (!doc.HasMember(key)) return InvalidArgumentError(std::string("state has no ") + key);
  if (!ok_type)
    return InvalidArgumentError(std::string("state field ") + key + " has the wrong type");
  return OkStatus();
}

StatusOr<std::string> GetString(const rapidjson::Document& doc, const char* key) {
  RDMASTACK_RETURN_IF_ERROR(Need(doc, key, doc.HasMember(key) && doc[key].IsString()));
  return std::string(doc[key].GetString(), doc[key].GetStringLength());
}

StatusOr<int> GetInt(const rapidjson::Document& doc, const char* key) {
  RDMASTACK_RETURN_IF_ERROR(Need(doc, key, doc.HasMember(key) && doc[key].IsInt()));
  return doc[key].GetInt();
}

StatusOr<bool> GetBool(const rapidjson::Document& doc, const char* key) {
  RDMASTACK_RETURN_IF_ERROR(Need(doc, key, doc.HasMember(key) && doc[key].IsBool()));
  return doc[key].GetBool();
}

}  // namespace

Status WriteStateFile(const std::string& state_dir, const ClientState& state) {
  const std::string dir = std::filesystem::absolute(state_dir).lexically_normal().string();
  RDMASTACK_ASSIGN_OR_RETURN(HostDir d, HostDir::Open(dir, /*create=*/true));
  return d.WriteFile("state.json", RenderStateJson(state), 0644);
}

std::string RenderStateJson(const ClientState& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("ready");
  w.Bool(s.ready);
  w.Key("reason");
  w.String(s.reason);
  w.Key("message");
  w.String(s.message);
  w.Key("profile");
  w.String(s.profile);
  w.Key("node");
  w.String(s.node);
  w.Key("transport");
  w.String(s.transport);
  w.Key("memoryRegistration");
  w.String(s.memory_registration);
  w.Key("gidIndex");
  w.Int(s.gid_index);
  w.Key("rdmaDevice");
  w.String(s.rdma_device);
  w.Key("endpoints");
  w.Int(s.endpoints);
  w.Key("reachable");
  w.Int(s.reachable);
  w.Key("peermemLoadedByClient");
  w.Bool(s.peermem_loaded_by_client);
  w.Key("updated");
  w.String(FormatRfc3339(s.updated));
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

StatusOr<ClientState> ParseStateJson(std::string_view text) {
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, text).ok() || !doc.IsObject())
    return InvalidArgumentError("state is not a JSON object");
  ClientState s;
  RDMASTACK_ASSIGN_OR_RETURN(s.ready, GetBool(doc, "ready"));
  RDMASTACK_ASSIGN_OR_RETURN(s.reason, GetString(doc, "reason"));
  RDMASTACK_ASSIGN_OR_RETURN(s.message, GetString(doc, "message"));
  RDMASTACK_ASSIGN_OR_RETURN(s.profile, GetString(doc, "profile"));
  RDMASTACK_ASSIGN_OR_RETURN(s.node, GetString(doc, "node"));
  RDMASTACK_ASSIGN_OR_RETURN(s.transport, GetString(doc, "transport"));
  RDMASTACK_ASSIGN_OR_RETURN(s.memory_registration, GetString(doc, "memoryRegistration"));
  RDMASTACK_ASSIGN_OR_RETURN(s.gid_index, GetInt(doc, "gidIndex"));
  RDMASTACK_ASSIGN_OR_RETURN(s.rdma_device, GetString(doc, "rdmaDevice"));
  RDMASTACK_ASSIGN_OR_RETURN(s.endpoints, GetInt(doc, "endpoints"));
  RDMASTACK_ASSIGN_OR_RETURN(s.reachable, GetInt(doc, "reachable"));
  RDMASTACK_ASSIGN_OR_RETURN(s.peermem_loaded_by_client, GetBool(doc, "peermemLoadedByClient"));
  RDMASTACK_ASSIGN_OR_RETURN(std::string updated, GetString(doc, "updated"));
  RDMASTACK_ASSIGN_OR_RETURN(s.updated, ParseRfc3339(updated));
  return s;
}

ReadyVerdict JudgeReady(const ClientState& s, std::chrono::system_clock::time_point now,
                        std::chrono::milliseconds max_age) {
  const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - s.updated);
  if (age > max_age) {
    return {false, "state is stale: written " + FormatDuration(age) + " ago (max " +
                       FormatDuration(max_age) + "); is `rdmastack-client run` stuck?"};
  }
  if (!s.ready) return {false, "not ready: " + s.reason + ": " + s.message};
  return {true, "ready: " + s.message};
}

}  // namespace rdmastack::client
