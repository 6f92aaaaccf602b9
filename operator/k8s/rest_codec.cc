#include "operator/k8s/rest_codec.h"

#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>

#include "base/json_parse.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/json_copy.h"

namespace rdmastack::k8s {
namespace {

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

namespace {

// SAX handler that reads a list response in one pass: list metadata is picked out and every item
// is built straight into its own document, so no DOM of the whole list is ever made and no item
// is copied afterwards. RapidJSON does the tokenizing; this only routes events by depth.
class ListHandler {
 public:
  explicit ListHandler(ObjectList& list) : list_(list) {}

  bool Null() {
    return Scalar([](rapidjson::Document& d) { return d.Null(); });
  }
  bool Bool(bool b) {
    return Scalar([b](rapidjson::Document& d) { return d.Bool(b); });
  }
  bool Int(int i) {
    return Number(i, [i](rapidjson::Document& d) { return d.Int(i); });
  }
  bool Uint(unsigned i) {
    return Number(i, [i](rapidjson::Document& d) { return d.Uint(i); });
  }
  bool Int64(int64_t i) {
    return Number(i, [i](rapidjson::Document& d) { return d.Int64(i); });
  }
  bool Uint64(uint64_t i) {
    return Number(static_cast<int64_t>(i), [i](rapidjson::Document& d) { return d.Uint64(i); });
  }
  bool Double(double v) {
    return Scalar([v](rapidjson::Document& d) { return d.Double(v); });
  }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    if (item_) return item_->document().String(str, length, true);  // always copy into the item
    if (depth_ == 1 && key_ == "kind") list_.kind.assign(str, length);
    if (depth_ == 1 && key_ == "apiVersion") list_.api_version.assign(str, length);
    if (depth_ == 2 && in_metadata_ && key_ == "resourceVersion")
      list_.resource_version.assign(str, length);
    if (depth_ == 2 && in_metadata_ && key_ == "continue") list_.continue_token.assign(str, length);
    return NotAnItem("a string");
  }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    if (item_) return item_->document().Key(str, length, true);
    key_.assign(str, length);
    return true;
  }
  bool StartObject() {
    if (++depth_ > kMaxJsonDepth) return TooDeep();
    if (item_) return item_->document().StartObject();
    if (depth_ == 1) return true;  // the list itself
    if (depth_ == 2 && key_ == "metadata" && !in_items_) {
      in_metadata_ = true;
      return true;
    }
    if (depth_ == 2 && key_ == "items") return Fail("list response 'items' is not an array");
    if (depth_ == 3 && in_items_) {
      item_.emplace();
      return item_->document().StartObject();
    }
    return true;  // some other member: skipped
  }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    if (item_) {
      if (!item_->document().EndObject(members)) return false;
      if (depth_ == 2) FinishItem();
      return true;
    }
    if (depth_ == 1) in_metadata_ = false;
    return true;
  }
  bool StartArray() {
    if (++depth_ > kMaxJsonDepth) return TooDeep();
    if (item_) return item_->document().StartArray();
    if (depth_ == 1) return Fail("list response is not a JSON object");
    if (depth_ == 2 && key_ == "items") in_items_ = true;
    return true;
  }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    if (item_) return item_->document().EndArray(elements);
    if (depth_ == 1) in_items_ = false;
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  template <typename Forward>
  bool Scalar(Forward&& forward) {
    if (item_) return forward(item_->document());
    return NotAnItem("a scalar");
  }
  template <typename Forward>
  bool Number(int64_t value, Forward&& forward) {
    if (item_) return forward(item_->document());
    if (depth_ == 2 && in_metadata_ && key_ == "remainingItemCount")
      list_.remaining_item_count = value;
    return NotAnItem("a number");
  }
  bool NotAnItem(const char* what) {
    if (depth_ == 0) return Fail("list response is not a JSON object");
    if (depth_ == 2 && in_items_)
      return Fail(std::string("list response has ") + what + " as an item");
    return true;  // other members, and "items": null
  }
  void FinishItem() {
    // The finished item is the single value on the document's stack; Populate moves it to the root.
    auto done = [](rapidjson::Document&) { return true; };
    item_->document().Populate(done);
    list_.items.push_back(std::move(*item_));
    item_.reset();
  }
  bool TooDeep() {
    return Fail("list response nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  ObjectList& list_;
  int depth_ = 0;
  std::string key_;  // last key seen outside items
  bool in_metadata_ = false;
  bool in_items_ = false;
  std::optional<JsonObject> item_;
  std::string error_;
};

// Builds a watch event's "object" straight into `object` as the document's root, as the reader
// goes: the envelope ({"type": ..., "object": {...}}) is never a document of its own, so the object
// needs no copy out of it. Strings stay where the in-situ reader left them, in the event's line.
// Member lookup follows RapidJSON's FindMember: the first "type" and the first "object" count.
// Depth counts from the envelope, as parsing the whole line did.
class WatchEventHandler {
 public:
  explicit WatchEventHandler(rapidjson::Document& object) : object_(object) {}

  bool Null() {
    return Scalar([](rapidjson::Document& d) { return d.Null(); });
  }
  bool Bool(bool b) {
    return Scalar([b](rapidjson::Document& d) { return d.Bool(b); });
  }
  bool Int(int i) {
    return Scalar([i](rapidjson::Document& d) { return d.Int(i); });
  }
  bool Uint(unsigned i) {
    return Scalar([i](rapidjson::Document& d) { return d.Uint(i); });
  }
  bool Int64(int64_t i) {
    return Scalar([i](rapidjson::Document& d) { return d.Int64(i); });
  }
  bool Uint64(uint64_t i) {
    return Scalar([i](rapidjson::Document& d) { return d.Uint64(i); });
  }
  bool Double(double v) {
    return Scalar([v](rapidjson::Document& d) { return d.Double(v); });
  }
  bool String(const char* str, rapidjson::SizeType length, bool copy) {
    if (in_object_) return object_.String(str, length, copy);
    if (depth_ == 1 && key_ == "type" && !seen_type_) type_ = std::string_view(str, length);
    return Scalar([](rapidjson::Document&) { return true; });
  }
  bool Key(const char* str, rapidjson::SizeType length, bool copy) {
    if (in_object_) return object_.Key(str, length, copy);
    if (depth_ == 1) key_ = std::string_view(str, length);
    return true;
  }
  bool StartObject() {
    if (++depth_ > kMaxJsonDepth) return TooDeep();
    if (in_object_) return object_.StartObject();
    if (depth_ == 2 && IsFirst("object", seen_object_)) {
      in_object_ = true;
      has_object_ = true;
      return object_.StartObject();
    }
    if (depth_ == 2) IsFirst("type", seen_type_);  // a "type" that is no string
    return true;
  }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    if (!in_object_) return true;
    if (!object_.EndObject(members)) return false;
    if (depth_ == 1) {
      // The object is the single value on the document's stack; Populate moves it to the root.
      in_object_ = false;
      auto done = [](rapidjson::Document&) { return true; };
      object_.Populate(done);
    }
    return true;
  }
  bool StartArray() {
    if (++depth_ > kMaxJsonDepth) return TooDeep();
    if (in_object_) return object_.StartArray();
    if (depth_ == 2) {
      IsFirst("object", seen_object_);
      IsFirst("type", seen_type_);
    }
    return true;
  }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return in_object_ ? object_.EndArray(elements) : true;
  }

  std::string_view type() const { return type_; }
  bool has_object() const { return has_object_; }
  bool too_deep() const { return too_deep_; }

 private:
  template <typename Forward>
  bool Scalar(Forward&& forward) {
    if (in_object_) return forward(object_);
    if (depth_ == 1) {
      // A scalar member of the envelope: it may be the first "object" (then not an object) or
      // the first "type" (then the string recorded above, or no type at all).
      IsFirst("object", seen_object_);
      IsFirst("type", seen_type_);
    }
    return true;
  }
  // Whether the member now starting is the first one named `name` (and marks it seen).
  bool IsFirst(std::string_view name, bool& seen) {
    if (key_ != name || seen) return false;
    seen = true;
    return true;
  }
  bool TooDeep() {
    too_deep_ = true;
    return false;
  }

  rapidjson::Document& object_;
  int depth_ = 0;
  std::string_view key_;   // the envelope's member now being read (points into the line)
  std::string_view type_;  // the first "type", when it is a string (points into the line)
  bool seen_type_ = false;
  bool seen_object_ = false;
  bool has_object_ = false;
  bool in_object_ = false;
  bool too_deep_ = false;
};

}  // namespace

StatusOr<ObjectList> DecodeObjectList(std::string body) {
  ObjectList list;
  ListHandler handler(list);
  body.push_back('\0');  // in-situ parsing needs a terminator
  rapidjson::InsituStringStream stream(body.data());
  rapidjson::ParseResult result = ParseJsonEvents<rapidjson::kParseInsituFlag>(stream, handler);
  if (!handler.error().empty()) return DataLossError(handler.error());
  if (result.IsError()) {
    return InvalidArgumentError("decoding a list response: " + DescribeParseError(result));
  }
  std::string item_kind = list.kind;
  if (item_kind.size() > 4 && item_kind.compare(item_kind.size() - 4, 4, "List") == 0) {
    item_kind.resize(item_kind.size() - 4);
  }
  for (auto& object : list.items) {
    if (object.Kind().empty() && !item_kind.empty()) object.SetKind(item_kind);
    if (object.ApiVersion().empty() && !list.api_version.empty())
      object.SetApiVersion(list.api_version);
  }
  return list;
}

StatusOr<WatchEvent> DecodeWatchEvent(std::string line) {
  char* buffer = nullptr;
  WatchEvent event;
  event.object = JsonObject::WithInsituBuffer(std::move(line), &buffer);
  WatchEventHandler handler(event.object.document());
  rapidjson::InsituStringStream stream(buffer);
  rapidjson::ParseResult result = ParseJsonEvents<rapidjson::kParseInsituFlag>(stream, handler);
  if (handler.too_deep()) {
    return DataLossError("malformed watch event: JSON nested deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels");
  }
  if (result.IsError()) {
    return DataLossError("malformed watch event: " + DescribeParseError(result));
  }
  const std::string type(handler.type());
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
  if (!handler.has_object()) return DataLossError("watch event " + type + " without an object");
  return event;
}

}  // namespace rdmastack::k8s
