#pragma once
// Writes for JSON that this program makes itself: the objects the controllers render
// (DaemonSets, pods, Services, EndpointSlices, ConfigMaps, Secrets, Events, Leases), the patches
// they send, and the fragments of those.
//
// JsonObject's setters return a Status because a document from elsewhere may hold another type
// where a path goes. A JsonBuilder's return nothing, because no write can fail: a write makes its
// path what it needs. Each segment names a member (digits and "-" included: there is no array
// indexing here); a member that is missing or not an object becomes an object, and Append makes
// a slot that is not an array an empty array first. What the controllers build never holds
// another type on a path it writes (the golden tests pin the output), so the result is the one
// JsonObject's setters give; a mistake that would replace something shows in those tests instead
// of being dropped unseen.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "operator/k8s/json_object.h"

namespace rdmastack::k8s {

class JsonBuilder {
 public:
  // An empty object {}.
  JsonBuilder() = default;
  // Goes on from `start`: a literal (an object, or JsonObject::Array() for a list), or a patch
  // that a caller has begun.
  explicit JsonBuilder(JsonObject start) : object_(std::move(start)) {}

  void SetString(const JsonPath& path, std::string_view value);
  void SetInt(const JsonPath& path, int64_t value);
  void SetBool(const JsonPath& path, bool value);
  void SetNull(const JsonPath& path);
  void Set(const JsonPath& path, const JsonObject& value);
  void Set(const JsonPath& path, const JsonBuilder& value) { Set(path, value.object_); }
  void SetStringMap(const JsonPath& path, const std::map<std::string, std::string>& values);
  void SetArray(const JsonPath& path, const std::vector<JsonObject>& items);
  void Append(const JsonPath& path, const JsonObject& value);
  void Append(const JsonPath& path, const JsonBuilder& value) { Append(path, value.object_); }

  void SetApiVersion(std::string_view v) { SetString({"apiVersion"}, v); }
  void SetKind(std::string_view v) { SetString({"kind"}, v); }
  void SetName(std::string_view v) { SetString({"metadata", "name"}, v); }
  void SetNamespace(std::string_view v) { SetString({"metadata", "namespace"}, v); }
  void SetResourceVersion(std::string_view v) { SetString({"metadata", "resourceVersion"}, v); }
  void SetLabel(std::string_view key, std::string_view value) {
    SetString({"metadata", "labels", key}, value);
  }
  void SetAnnotation(std::string_view key, std::string_view value) {
    SetString({"metadata", "annotations", key}, value);
  }

  // What is built so far, to read (Get, Serialize) before going on.
  const JsonObject& object() const { return object_; }
  JsonObject Build() && { return std::move(object_); }

 private:
  rapidjson::Value& Slot(const JsonPath& path);

  JsonObject object_;
};

}  // namespace rdmastack::k8s
