#pragma once
// A Kubernetes object (or any JSON value) held as a RapidJSON document: generic reads and writes by
// field path, RFC 7386 merge, and typed accessors for the metadata every object carries. Objects
// are plain values: copying deep-copies, moving is cheap.

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json_parse.h"  // kMaxJsonDepth
#include "base/status.h"

namespace rdmastack::k8s {

// A field path, one segment per level. Segments are taken literally, so label keys with dots and
// slashes work: {"metadata", "labels", "app.kubernetes.io/name"}. On an array, a segment of digits
// is an index; for writes, "-" appends a new element (as in JSON Pointer).
class JsonPath {
 public:
  JsonPath(
      std::initializer_list<std::string_view> segments);  // NOLINT(google-explicit-constructor)
  explicit JsonPath(std::vector<std::string> segments) : segments_(std::move(segments)) {}
  // "spec.template.metadata.labels" -> 4 segments. For keys without dots only.
  static JsonPath Dotted(std::string_view dotted);

  const std::vector<std::string>& segments() const { return segments_; }
  std::string ToString() const;  // dotted, for error messages

 private:
  std::vector<std::string> segments_;
};

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

class JsonObject {
 public:
  // An empty JSON object {}.
  JsonObject();
  // Parses any JSON value (object, array, ...). Errors carry the byte offset.
  static StatusOr<JsonObject> Parse(std::string_view text);
  // Parses in situ from a private copy of `text` that the result owns (strings point into it);
  // faster than Parse for large, string-heavy bodies. Copies of the result are independent.
  static StatusOr<JsonObject> ParseOwned(std::string_view text);
  // Deep copy of a RapidJSON value (strings included).
  static JsonObject FromValue(const rapidjson::Value& value);
  // An empty (null) object that owns `text` as its in-situ parse buffer, for decoders that build
  // document() from `text` with RapidJSON's in-situ flag (the watch decoder): the strings they
  // leave in document() point into it. Returns the buffer's first byte (NUL-terminated, writable),
  // which stays in place when the object moves. Takes `text` without copying it.
  static JsonObject WithInsituBuffer(std::string text, char** buffer);
  static JsonObject Array();

  JsonObject(const JsonObject& other);
  JsonObject& operator=(const JsonObject& other);
  JsonObject(JsonObject&&) noexcept = default;
  JsonObject& operator=(JsonObject&&) noexcept = default;
  ~JsonObject() = default;

  std::string Serialize() const;
  std::string SerializePretty() const;

  // ---- generic reads: std::nullopt when absent or of another type ----
  bool Has(const JsonPath& path) const;
  const rapidjson::Value* Find(const JsonPath& path) const;
  std::optional<std::string> GetString(const JsonPath& path) const;
  std::optional<int64_t> GetInt(const JsonPath& path) const;
  std::optional<double> GetDouble(const JsonPath& path) const;
  std::optional<bool> GetBool(const JsonPath& path) const;
  // Deep copy of a sub-tree.
  std::optional<JsonObject> Get(const JsonPath& path) const;
  // Elements of an array (deep copies); empty when absent or not an array.
  std::vector<JsonObject> GetArray(const JsonPath& path) const;
  // Member names of an object; empty when absent or not an object.
  std::vector<std::string> Keys(const JsonPath& path) const;
  // An object of string values (labels, annotations, selectors); non-string members are skipped.
  std::map<std::string, std::string> GetStringMap(const JsonPath& path) const;

  // ---- generic writes: intermediate objects are created; writing through a non-object fails ----
  Status SetString(const JsonPath& path, std::string_view value);
  Status SetInt(const JsonPath& path, int64_t value);
  Status SetDouble(const JsonPath& path, double value);
  Status SetBool(const JsonPath& path, bool value);
  Status SetNull(const JsonPath& path);
  Status Set(const JsonPath& path, const JsonObject& value);
  Status SetStringMap(const JsonPath& path, const std::map<std::string, std::string>& values);
  // Replaces whatever is at `path` with an array of `items` (the inverse of GetArray).
  Status SetArray(const JsonPath& path, const std::vector<JsonObject>& items);
  // Appends to the array at `path`, creating it when absent.
  Status Append(const JsonPath& path, const JsonObject& value);
  // Returns true when something was removed.
  bool Remove(const JsonPath& path);

  // RFC 7386 JSON merge patch: objects merge recursively, null deletes, anything else replaces.
  void MergeFrom(const JsonObject& patch);

  bool IsObject() const { return doc_.IsObject(); }
  bool IsArray() const { return doc_.IsArray(); }
  const rapidjson::Value& value() const { return doc_; }
  rapidjson::Document& document() { return doc_; }

  // ---- typed metadata (empty string / 0 / empty when absent) ----
  std::string_view ApiVersion() const;
  std::string_view Kind() const;
  std::string_view Name() const;
  std::string_view Namespace() const;
  std::string_view Uid() const;
  std::string_view ResourceVersion() const;
  std::string_view GenerateName() const;
  int64_t Generation() const;
  std::string_view CreationTimestamp() const;
  std::string_view DeletionTimestamp() const;
  bool IsBeingDeleted() const { return !DeletionTimestamp().empty(); }
  std::map<std::string, std::string> Labels() const;
  std::map<std::string, std::string> Annotations() const;
  std::optional<std::string> Label(std::string_view key) const;
  std::optional<std::string> Annotation(std::string_view key) const;
  std::vector<std::string> Finalizers() const;
  std::vector<OwnerReference> OwnerReferences() const;
  // "namespace/name", or "name" for cluster-scoped objects (the informer cache key).
  std::string Key() const;

  void SetApiVersion(std::string_view v);
  void SetKind(std::string_view v);
  void SetName(std::string_view v);
  void SetNamespace(std::string_view v);
  void SetResourceVersion(std::string_view v);
  void SetLabel(std::string_view key, std::string_view value);
  void SetAnnotation(std::string_view key, std::string_view value);
  // Drops metadata.managedFields (informer caches do not need them).
  void StripManagedFields();

  friend bool operator==(const JsonObject& a, const JsonObject& b) { return a.doc_ == b.doc_; }

 private:
  rapidjson::Document doc_;
  // In-situ parse buffer (ParseOwned, WithInsituBuffer); on the heap so that it stays in place
  // when the object moves (a short std::string would move its characters).
  std::unique_ptr<std::string> owned_text_;
};

// "namespace/name" or "name".
std::string ObjectKey(std::string_view ns, std::string_view name);

}  // namespace rdmastack::k8s
