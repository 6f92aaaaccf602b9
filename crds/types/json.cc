#include "crds/types/json.h"

#include <rapidjson/document.h>

#include "base/json_chars.h"
#include "base/json_parse.h"
#include "crds/types/json_codec.h"

namespace rdmastack::crd {

template <>
std::string_view KindOf<GatewayPool>() {
  return "GatewayPool";
}
template <>
std::string_view KindOf<ClientProfile>() {
  return "ClientProfile";
}
template <>
std::string_view KindOf<RdmaNode>() {
  return "RdmaNode";
}

namespace {

using codec::JsonWriter;

void WriteString(JsonWriter& w, std::string_view s) {
  w.String(JsonChars(s), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteTypeMeta(JsonWriter& w, std::string_view kind) {
  w.Key("apiVersion");
  WriteString(w, kApiVersion);
  w.Key("kind");
  WriteString(w, kind);
}

// {"apiVersion": ..., "kind": ..., <body>}
template <typename T, typename Body>
std::string WriteEnvelope(const Body& body) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteTypeMeta(w, KindOf<T>());
  body(w);
  w.EndObject();
  return buffer.GetString();
}

template <typename T>
std::string StatusPatch(const T& resource) {
  return WriteEnvelope<T>([&](JsonWriter& w) {
    w.Key("metadata");
    w.StartObject();
    w.Key("name");
    WriteString(w, resource.metadata.name);
    if (resource.metadata.namespace_) {
      w.Key("namespace");
      WriteString(w, *resource.metadata.namespace_);
    }
    w.EndObject();
    if (resource.status) {
      w.Key("status");
      codec::Write(*resource.status, w);
    }
  });
}

}  // namespace

template <CustomResource T>
StatusOr<T> ParseResource(const rapidjson::Value& object) {
  codec::Problems problems;
  T out{};
  if (!object.IsObject())
    return InvalidArgumentError(std::string(KindOf<T>()) + ": expected a JSON object");
  auto check_string = [&](const char* field, std::string_view want) {
    auto it = object.FindMember(field);
    if (it == object.MemberEnd()) return;  // tolerated: callers often strip type meta
    std::string_view got =
        it->value.IsString() ? std::string_view(it->value.GetString(), it->value.GetStringLength())
                             : std::string_view();
    if (got != want) problems.Add(field, "expected \"" + std::string(want) + "\"");
  };
  check_string("apiVersion", kApiVersion);
  check_string("kind", KindOf<T>());
  codec::ReadObject(object, "", out, problems);
  if (!problems.items.empty()) {
    std::string message = std::string(KindOf<T>()) + " is invalid: ";
    for (size_t i = 0; i < problems.items.size(); ++i) {
      message += (i == 0 ? "" : "; ") + problems.items[i];
    }
    return InvalidArgumentError(std::move(message));
  }
  return out;
}

template <CustomResource T>
StatusOr<T> ParseResource(std::string_view json) {
  rapidjson::Document doc;
  if (Status parsed = ParseJsonDocument(doc, json); !parsed.ok()) {
    return InvalidArgumentError(std::string(KindOf<T>()) + ": " + parsed.message());
  }
  return ParseResource<T>(static_cast<const rapidjson::Value&>(doc));
}

template <CustomResource T>
std::string SerializeResource(const T& resource) {
  return WriteEnvelope<T>([&](JsonWriter& w) { codec::WriteFields(resource, w); });
}

std::string SerializeStatusPatch(const GatewayPool& pool) {
  return StatusPatch(pool);
}
std::string SerializeStatusPatch(const ClientProfile& profile) {
  return StatusPatch(profile);
}
std::string SerializeStatusPatch(const RdmaNode& node) {
  return StatusPatch(node);
}

#define RDMASTACK_CRD_INSTANTIATE(T)                              \
  template StatusOr<T> ParseResource<T>(std::string_view);        \
  template StatusOr<T> ParseResource<T>(const rapidjson::Value&); \
  template std::string SerializeResource<T>(const T&)

RDMASTACK_CRD_INSTANTIATE(GatewayPool);
RDMASTACK_CRD_INSTANTIATE(ClientProfile);
RDMASTACK_CRD_INSTANTIATE(RdmaNode);

#undef RDMASTACK_CRD_INSTANTIATE

}  // namespace rdmastack::crd
