#include "tests/harness/node-runtime/launch_spec.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_fields.h"
#include "base/json_parse.h"

// RapidJSON directly rather than k8s::JsonObject: the shim links nothing of the Kubernetes client,
// so one shim per container stays small.
namespace rdmastack::sim {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

using json::Strings;

std::string GetString(const rapidjson::Value& o, const char* key, std::string fallback = "") {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return fallback;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

bool GetBool(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

StatusOr<std::vector<std::string>> GetStrings(const rapidjson::Value& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) return out;
  if (!it->value.IsArray())
    return InvalidArgumentError(std::string("launch spec: ") + key + " must be an array");
  for (const auto& item : it->value.GetArray()) {
    if (!item.IsString())
      return InvalidArgumentError(std::string("launch spec: ") + key + " must hold strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

}  // namespace

std::string LaunchSpecToJson(const LaunchSpec& spec) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  json::Str(w, "netnsPath", spec.netns_path);
  json::Str(w, "hostname", spec.hostname);
  w.Key("hostPID");
  w.Bool(spec.host_pid);
  json::Str(w, "scratchDir", spec.scratch_dir);
  w.Key("mounts");
  w.StartArray();
  for (const BindMount& m : spec.mounts) {
    w.StartObject();
    json::Str(w, "source", m.source);
    json::Str(w, "target", m.target);
    w.Key("readOnly");
    w.Bool(m.read_only);
    w.EndObject();
  }
  w.EndArray();
  Strings(w, "argv", spec.argv);
  Strings(w, "env", spec.env);
  json::Str(w, "workingDir", spec.working_dir);
  json::Str(w, "logFile", spec.log_file);
  json::Str(w, "pidFile", spec.pid_file);
  json::Str(w, "errorFile", spec.error_file);
  json::Str(w, "ociBundle", spec.oci_bundle);
  json::Str(w, "ociLowerRoot", spec.oci_lower_root);
  json::Str(w, "runc", spec.runc);
  json::Str(w, "runcRoot", spec.runc_root);
  json::Str(w, "containerID", spec.container_id);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

StatusOr<LaunchSpec> LaunchSpecFromJson(std::string_view json) {
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, json).ok() || !doc.IsObject()) {
    return InvalidArgumentError("launch spec: not a JSON object");
  }
  LaunchSpec spec;
  spec.netns_path = GetString(doc, "netnsPath");
  spec.hostname = GetString(doc, "hostname");
  spec.host_pid = GetBool(doc, "hostPID");
  spec.scratch_dir = GetString(doc, "scratchDir");
  // Const iterators (see agents/client/endpoints.cc): C++20's reversed operators.
  const rapidjson::Value& root = doc;
  if (auto it = root.FindMember("mounts"); it != root.MemberEnd() && it->value.IsArray()) {
    for (const auto& m : it->value.GetArray()) {
      if (!m.IsObject()) return InvalidArgumentError("launch spec: a mount must be an object");
      BindMount b{GetString(m, "source"), GetString(m, "target"), GetBool(m, "readOnly")};
      if (b.source.empty() || b.target.empty() || b.target.front() != '/') {
        return InvalidArgumentError(
            "launch spec: every mount needs a source and an absolute target");
      }
      spec.mounts.push_back(std::move(b));
    }
  }
  RDMASTACK_ASSIGN_OR_RETURN(spec.argv, GetStrings(doc, "argv"));
  RDMASTACK_ASSIGN_OR_RETURN(spec.env, GetStrings(doc, "env"));
  spec.working_dir = GetString(doc, "workingDir", "/");
  spec.log_file = GetString(doc, "logFile");
  spec.pid_file = GetString(doc, "pidFile");
  spec.error_file = GetString(doc, "errorFile");
  spec.oci_bundle = GetString(doc, "ociBundle");
  spec.oci_lower_root = GetString(doc, "ociLowerRoot");
  spec.runc = GetString(doc, "runc");
  spec.runc_root = GetString(doc, "runcRoot");
  spec.container_id = GetString(doc, "containerID");
  if (!spec.oci_bundle.empty() &&
      (spec.oci_lower_root.empty() || spec.runc.empty() || spec.container_id.empty())) {
    return InvalidArgumentError("launch spec: ociBundle needs ociLowerRoot, runc and containerID");
  }
  if (spec.argv.empty()) return InvalidArgumentError("launch spec: argv is empty");
  if (spec.scratch_dir.empty()) return InvalidArgumentError("launch spec: scratchDir is required");
  if (spec.log_file.empty()) return InvalidArgumentError("launch spec: logFile is required");
  return spec;
}

}  // namespace rdmastack::sim
