#include "operator/k8s/rest_codec.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::k8s {
namespace {

std::string StringMember(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return {};
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

void AddSelectors(QueryParams& q, const std::string& labels, const std::string& fields) {
  if (!labels.empty()) q.emplace_back("labelSelector", labels);
  if (!fields.empty()) q.emplace_back("fieldSelector", fields);
}

}  // namespace

std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string BuildQuery(const QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    out += out.empty() ? '?' : '&';
    out += UrlEncode(k);
    out += '=';
    out += UrlEncode(v);
  }
  return out;
}

QueryParams ListQuery(const ListOptions& o) {
  QueryParams q;
  AddSelectors(q, o.label_selector, o.field_selector);
  if (o.limit > 0) q.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) q.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty())
    q.emplace_back("resourceVersionMatch", o.resource_version_match);
  if (o.timeout_seconds) q.emplace_back("timeoutSeconds", std::to_string(*o.timeout_seconds));
  return q;
}

QueryParams WatchQuery(const WatchOptions& o) {
  QueryParams q{{"watch", "1"}};
  AddSelectors(q, o.label_selector, o.field_selector);
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty())
    q.emplace_back("resourceVersionMatch", o.resource_version_match);
  if (o.allow_watch_bookmarks) q.emplace_back("allowWatchBookmarks", "true");
  if (o.send_initial_events) q.emplace_back("sendInitialEvents", "true");
  if (o.timeout_seconds) q.emplace_back("timeoutSeconds", std::to_string(*o.timeout_seconds));
  return q;
}

QueryParams WriteQuery(const WriteOptions& o) {
  QueryParams q;
  if (!o.field_manager.empty()) q.emplace_back("fieldManager", o.field_manager);
  if (o.dry_run) q.emplace_back("dryRun", "All");
  return q;
}

StatusOr<QueryParams> PatchQuery(PatchType type, const PatchOptions& o) {
  QueryParams q;
  if (type == PatchType::kApply && o.field_manager.empty()) {
    return InvalidArgumentError("server-side apply needs a field manager");
  }
  if (o.force && type != PatchType::kApply) {
    return InvalidArgumentError("force applies to server-side apply only");
  }
  if (!o.field_manager.empty()) q.emplace_back("fieldManager", o.field_manager);
  if (o.force) q.emplace_back("force", "true");
  if (o.dry_run) q.emplace_back("dryRun", "All");
  return q;
}

std::string DeleteBody(const DeleteOptions& o) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("DeleteOptions");
  if (o.propagation_policy) {
    w.Key("propagationPolicy");
    switch (*o.propagation_policy) {
      case PropagationPolicy::kOrphan: w.String("Orphan"); break;
      case PropagationPolicy::kBackground: w.String("Background"); break;
      case PropagationPolicy::kForeground: w.String("Foreground"); break;
    }
  }
  if (o.grace_period_seconds) {
    w.Key("gracePeriodSeconds");
    w.Int64(*o.grace_period_seconds);
  }
  if (!o.precondition_uid.empty() || !o.precondition_resource_version.empty()) {
    w.Key("preconditions");
    w.StartObject();
    if (!o.precondition_uid.empty()) {
      w.Key("uid");
      w.String(o.precondition_uid.c_str(),
               static_cast<rapidjson::SizeType>(o.precondition_uid.size()));
    }
    if (!o.precondition_resource_version.empty()) {
      w.Key("resourceVersion");
      w.String(o.precondition_resource_version.c_str(),
               static_cast<rapidjson::SizeType>(o.precondition_resource_version.size()));
    }
    w.EndObject();
  }
  if (o.dry_run) {
    w.Key("dryRun");
    w.StartArray();
    w.String("All");
    w.EndArray();
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

StatusOr<ObjectList> DecodeObjectList(std::string_view body) {
  auto parsed = JsonObject::ParseOwned(body);
  if (!parsed.ok()) return parsed.status().WithContext("decoding a list response");
  const rapidjson::Value& root = parsed->value();
  if (!root.IsObject()) return DataLossError("list response is not a JSON object");
  ObjectList list;
  list.api_version = StringMember(root, "apiVersion");
  list.kind = StringMember(root, "kind");
  auto meta = root.FindMember("metadata");
  if (meta != root.MemberEnd()) {
    list.resource_version = StringMember(meta->value, "resourceVersion");
    list.continue_token = StringMember(meta->value, "continue");
    auto remaining = meta->value.FindMember("remainingItemCount");
    if (remaining != meta->value.MemberEnd() && remaining->value.IsInt64()) {
      list.remaining_item_count = remaining->value.GetInt64();
    }
  }
  std::string item_kind = list.kind;
  if (item_kind.size() > 4 && item_kind.compare(item_kind.size() - 4, 4, "List") == 0) {
    item_kind.resize(item_kind.size() - 4);
  }
  auto items = root.FindMember("items");
  if (items == root.MemberEnd() || items->value.IsNull()) return list;
  if (!items->value.IsArray()) return DataLossError("list response 'items' is not an array");
  list.items.reserve(items->value.Size());
  for (const auto& item : items->value.GetArray()) {
    JsonObject object = JsonObject::FromValue(item);
    if (!object.IsObject()) return DataLossError("list response has a non-object item");
    if (object.Kind().empty() && !item_kind.empty()) object.SetKind(item_kind);
    if (object.ApiVersion().empty() && !list.api_version.empty())
      object.SetApiVersion(list.api_version);
    list.items.push_back(std::move(object));
  }
  return list;
}

StatusOr<WatchEvent> DecodeWatchEvent(std::string_view line) {
  auto parsed = JsonObject::ParseOwned(line);
  if (!parsed.ok()) return DataLossError("malformed watch event: " + parsed.status().message());
  const rapidjson::Value& root = parsed->value();
  const std::string type = StringMember(root, "type");
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return DataLossError("watch event with unknown type '" + type + "'");
  }
  auto object = root.FindMember("object");
  if (object == root.MemberEnd() || !object->value.IsObject()) {
    return DataLossError("watch event " + type + " without an object");
  }
  event.object = JsonObject::FromValue(object->value);
  return event;
}

}  // namespace rdmastack::k8s
