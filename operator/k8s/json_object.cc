#include "operator/k8s/json_object.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stream.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>

#include "base/json_chars.h"
#include "base/json_parse.h"
#include "operator/k8s/json_copy.h"

namespace rdmastack::k8s {
namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

std::optional<size_t> ParseIndex(std::string_view segment) {
  if (segment.empty()) return std::nullopt;
  size_t index = 0;
  auto [ptr, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
  if (ec != std::errc() || ptr != segment.data() + segment.size()) return std::nullopt;
  return index;
}

Value::StringRefType Ref(std::string_view s) {
  return Value::StringRefType(JsonChars(s), static_cast<rapidjson::SizeType>(s.size()));
}

const Value* Child(const Value& node, std::string_view segment) {
  if (node.IsObject()) {
    auto it = node.FindMember(Ref(segment));
    return it == node.MemberEnd() ? nullptr : &it->value;
  }
  if (node.IsArray()) {
    auto index = ParseIndex(segment);
    if (!index || *index >= node.Size()) return nullptr;
    return &node[static_cast<rapidjson::SizeType>(*index)];
  }
  return nullptr;
}

std::string_view StringAt(const Value& root, std::string_view a, std::string_view b) {
  const Value* outer = Child(root, a);
  if (outer == nullptr) return {};
  const Value* v = Child(*outer, b);
  if (v == nullptr || !v->IsString()) return {};
  return {v->GetString(), v->GetStringLength()};
}

std::map<std::string, std::string> StringMapOf(const Value* node) {
  std::map<std::string, std::string> out;
  if (node == nullptr || !node->IsObject()) return out;
  for (const auto& m : node->GetObject()) {
    if (!m.value.IsString()) continue;
    out.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                std::string(m.value.GetString(), m.value.GetStringLength()));
  }
  return out;
}

}  // namespace

Value internal::DeepCopy(const Value& src, Allocator& alloc) {
  switch (src.GetType()) {
    case rapidjson::kStringType: return Value(src.GetString(), src.GetStringLength(), alloc);
    case rapidjson::kArrayType: {
      Value out(rapidjson::kArrayType);
      out.Reserve(src.Size(), alloc);
      for (const auto& e : src.GetArray()) out.PushBack(DeepCopy(e, alloc), alloc);
      return out;
    }
    case rapidjson::kObjectType: {
      Value out(rapidjson::kObjectType);
      for (const auto& m : src.GetObject()) {
        out.AddMember(Value(m.name.GetString(), m.name.GetStringLength(), alloc),
                      DeepCopy(m.value, alloc), alloc);
      }
      return out;
    }
    default: {
      Value out;
      out.CopyFrom(src, alloc);  // numbers, bools, null
      return out;
    }
  }
}

namespace {

using internal::DeepCopy;

void MergeValue(Value& target, const Value& patch, Allocator& alloc) {
  if (!patch.IsObject()) {
    target = DeepCopy(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (const auto& m : patch.GetObject()) {
    auto it = target.FindMember(m.name);
    if (m.value.IsNull()) {
      if (it != target.MemberEnd()) target.RemoveMember(it);
      continue;
    }
    if (it == target.MemberEnd()) {
      Value name(m.name, alloc);
      Value value(rapidjson::kObjectType);
      MergeValue(value, m.value, alloc);  // strips nulls nested in new sub-objects, per RFC 7386
      target.AddMember(name, value, alloc);
      continue;
    }
    MergeValue(it->value, m.value, alloc);
  }
}

template <typename Writer>
std::string Write(const Value& v) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

JsonPath::JsonPath(std::initializer_list<std::string_view> segments) {
  segments_.reserve(segments.size());
  for (auto s : segments) segments_.emplace_back(s);
}

JsonPath JsonPath::Dotted(std::string_view dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) dot = dotted.size();
    parts.emplace_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
  return JsonPath(std::move(parts));
}

std::string JsonPath::ToString() const {
  std::string out;
  for (const auto& s : segments_) {
    if (!out.empty()) out += '.';
    out += s;
  }
  return out;
}

JsonObject::JsonObject() {
  doc_.SetObject();
}

JsonObject JsonObject::Array() {
  JsonObject out;
  out.doc_.SetArray();
  return out;
}

StatusOr<JsonObject> JsonObject::Parse(std::string_view text) {
  JsonObject out;
  RDMASTACK_RETURN_IF_ERROR(ParseJsonDocument(out.doc_, text));
  return out;
}

StatusOr<JsonObject> JsonObject::ParseOwned(std::string_view text) {
  char* buffer = nullptr;
  JsonObject out = WithInsituBuffer(std::string(text), &buffer);
  rapidjson::InsituStringStream stream(buffer);
  RDMASTACK_RETURN_IF_ERROR(ParseJsonInto<rapidjson::kParseInsituFlag>(out.doc_, stream));
  return out;
}

JsonObject JsonObject::WithInsituBuffer(std::string text, char** buffer) {
  JsonObject out;
  out.doc_.SetNull();
  out.owned_text_ = std::make_unique<std::string>(std::move(text));
  *buffer = out.owned_text_->data();  // std::string keeps a NUL after its last character
  return out;
}

JsonObject JsonObject::FromValue(const Value& value) {
  JsonObject out;
  Value copy = DeepCopy(value, out.doc_.GetAllocator());
  static_cast<Value&>(out.doc_).Swap(copy);
  return out;
}

JsonObject::JsonObject(const JsonObject& other) {
  Value copy = DeepCopy(other.doc_, doc_.GetAllocator());
  static_cast<Value&>(doc_).Swap(copy);
}

JsonObject& JsonObject::operator=(const JsonObject& other) {
  if (this == &other) return *this;
  JsonObject copy(other);
  *this = std::move(copy);
  return *this;
}

std::string JsonObject::Serialize() const {
  return Write<rapidjson::Writer<rapidjson::StringBuffer>>(doc_);
}

std::string JsonObject::SerializePretty() const {
  return Write<rapidjson::PrettyWriter<rapidjson::StringBuffer>>(doc_);
}

const Value* JsonObject::Find(const JsonPath& path) const {
  const Value* node = &doc_;
  for (const auto& segment : path.segments()) {
    node = Child(*node, segment);
    if (node == nullptr) return nullptr;
  }
  return node;
}

bool JsonObject::Has(const JsonPath& path) const {
  return Find(path) != nullptr;
}

std::optional<std::string> JsonObject::GetString(const JsonPath& path) const {
  const Value* v = Find(path);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> JsonObject::GetInt(const JsonPath& path) const {
  const Value* v = Find(path);
  if (v == nullptr || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

std::optional<double> JsonObject::GetDouble(const JsonPath& path) const {
  const Value* v = Find(path);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

std::optional<bool> JsonObject::GetBool(const JsonPath& path) const {
  const Value* v = Find(path);
  if (v == nullptr || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

std::optional<JsonObject> JsonObject::Get(const JsonPath& path) const {
  const Value* v = Find(path);
  if (v == nullptr) return std::nullopt;
  return FromValue(*v);
}

std::vector<JsonObject> JsonObject::GetArray(const JsonPath& path) const {
  std::vector<JsonObject> out;
  const Value* v = Find(path);
  if (v == nullptr || !v->IsArray()) return out;
  out.reserve(v->Size());
  for (const auto& e : v->GetArray()) out.push_back(FromValue(e));
  return out;
}

std::vector<std::string> JsonObject::Keys(const JsonPath& path) const {
  std::vector<std::string> out;
  const Value* v = Find(path);
  if (v == nullptr || !v->IsObject()) return out;
  for (const auto& m : v->GetObject())
    out.emplace_back(m.name.GetString(), m.name.GetStringLength());
  return out;
}

std::map<std::string, std::string> JsonObject::GetStringMap(const JsonPath& path) const {
  return StringMapOf(Find(path));
}

namespace {

// Walks to the parent of the last segment, creating objects on the way. Returns the slot the
// value goes into (an existing or new member, or an array element).
StatusOr<Value*> SlotFor(rapidjson::Document& doc, const JsonPath& path) {
  const auto& segments = path.segments();
  if (segments.empty()) return &static_cast<Value&>(doc);
  Allocator& alloc = doc.GetAllocator();
  Value* node = &doc;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
    if (node->IsNull()) node->SetObject();
    if (node->IsArray()) {
      if (segment == "-") {
        node->PushBack(Value(rapidjson::kNullType), alloc);
        node = &(*node)[node->Size() - 1];
        continue;
      }
      auto index = ParseIndex(segment);
      if (!index || *index >= node->Size()) {
        return InvalidArgumentError("index '" + segment + "' out of range in " + path.ToString());
      }
      node = &(*node)[static_cast<rapidjson::SizeType>(*index)];
      continue;
    }
    if (!node->IsObject()) {
      return FailedPreconditionError("cannot set " + path.ToString() + ": '" +
                                     (i == 0 ? std::string("<root>") : segments[i - 1]) +
                                     "' is not an object");
    }
    auto it = node->FindMember(Ref(segment));
    if (it == node->MemberEnd()) {
      node->AddMember(
          Value(segment.c_str(), static_cast<rapidjson::SizeType>(segment.size()), alloc),
          Value(rapidjson::kNullType), alloc);
      node = &(node->MemberEnd() - 1)->value;
    } else {
      node = &it->value;
    }
  }
  return node;
}

}  // namespace

Status JsonObject::SetString(const JsonPath& path, std::string_view value) {
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->SetString(JsonChars(value), static_cast<rapidjson::SizeType>(value.size()),
                  doc_.GetAllocator());
  return OkStatus();
}

Status JsonObject::SetInt(const JsonPath& path, int64_t value) {
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->SetInt64(value);
  return OkStatus();
}

Status JsonObject::SetDouble(const JsonPath& path, double value) {
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->SetDouble(value);
  return OkStatus();
}

Status JsonObject::SetBool(const JsonPath& path, bool value) {
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->SetBool(value);
  return OkStatus();
}

Status JsonObject::SetNull(const JsonPath& path) {
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->SetNull();
  return OkStatus();
}

Status JsonObject::Set(const JsonPath& path, const JsonObject& value) {
  // Copy first: `value` may be *this.
  Value copy = DeepCopy(value.doc_, doc_.GetAllocator());
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->Swap(copy);
  return OkStatus();
}

Status JsonObject::SetStringMap(const JsonPath& path,
                                const std::map<std::string, std::string>& values) {
  Allocator& alloc = doc_.GetAllocator();
  Value object(rapidjson::kObjectType);
  for (const auto& [k, v] : values) {
    object.AddMember(Value(k.c_str(), static_cast<rapidjson::SizeType>(k.size()), alloc),
                     Value(v.c_str(), static_cast<rapidjson::SizeType>(v.size()), alloc), alloc);
  }
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->Swap(object);
  return OkStatus();
}

Status JsonObject::SetArray(const JsonPath& path, const std::vector<JsonObject>& items) {
  Allocator& alloc = doc_.GetAllocator();
  Value array(rapidjson::kArrayType);
  array.Reserve(static_cast<rapidjson::SizeType>(items.size()), alloc);
  for (const JsonObject& item : items) array.PushBack(DeepCopy(item.doc_, alloc), alloc);
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  slot->Swap(array);
  return OkStatus();
}

Status JsonObject::Append(const JsonPath& path, const JsonObject& value) {
  Value copy = DeepCopy(value.doc_, doc_.GetAllocator());
  RDMASTACK_ASSIGN_OR_RETURN(Value * slot, SlotFor(doc_, path));
  if (slot->IsNull()) slot->SetArray();
  if (!slot->IsArray()) return FailedPreconditionError(path.ToString() + " is not an array");
  slot->PushBack(copy, doc_.GetAllocator());
  return OkStatus();
}

bool JsonObject::Remove(const JsonPath& path) {
  const auto& segments = path.segments();
  if (segments.empty()) return false;
  std::vector<std::string> parent_segments(segments.begin(), segments.end() - 1);
  Value* parent = const_cast<Value*>(Find(JsonPath(std::move(parent_segments))));
  if (parent == nullptr) return false;
  const std::string& last = segments.back();
  if (parent->IsObject()) return parent->RemoveMember(Ref(last));
  if (parent->IsArray()) {
    auto index = ParseIndex(last);
    if (!index || *index >= parent->Size()) return false;
    parent->Erase(parent->Begin() + *index);
    return true;
  }
  return false;
}

void JsonObject::MergeFrom(const JsonObject& patch) {
  Value copy = DeepCopy(patch.doc_, doc_.GetAllocator());  // patch may alias *this
  MergeValue(doc_, copy, doc_.GetAllocator());
}

std::string_view JsonObject::ApiVersion() const {
  const Value* v = Child(doc_, "apiVersion");
  return v != nullptr && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                                       : std::string_view();
}

std::string_view JsonObject::Kind() const {
  const Value* v = Child(doc_, "kind");
  return v != nullptr && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                                       : std::string_view();
}

std::string_view JsonObject::Name() const {
  return StringAt(doc_, "metadata", "name");
}
std::string_view JsonObject::Namespace() const {
  return StringAt(doc_, "metadata", "namespace");
}
std::string_view JsonObject::Uid() const {
  return StringAt(doc_, "metadata", "uid");
}
std::string_view JsonObject::ResourceVersion() const {
  return StringAt(doc_, "metadata", "resourceVersion");
}
std::string_view JsonObject::GenerateName() const {
  return StringAt(doc_, "metadata", "generateName");
}
std::string_view JsonObject::CreationTimestamp() const {
  return StringAt(doc_, "metadata", "creationTimestamp");
}
std::string_view JsonObject::DeletionTimestamp() const {
  return StringAt(doc_, "metadata", "deletionTimestamp");
}

int64_t JsonObject::Generation() const {
  return GetInt({"metadata", "generation"}).value_or(0);
}

std::map<std::string, std::string> JsonObject::Labels() const {
  return GetStringMap({"metadata", "labels"});
}

std::map<std::string, std::string> JsonObject::Annotations() const {
  return GetStringMap({"metadata", "annotations"});
}

std::optional<std::string> JsonObject::Label(std::string_view key) const {
  return GetString({"metadata", "labels", key});
}

std::optional<std::string> JsonObject::Annotation(std::string_view key) const {
  return GetString({"metadata", "annotations", key});
}

std::vector<std::string> JsonObject::Finalizers() const {
  std::vector<std::string> out;
  const Value* v = Find({"metadata", "finalizers"});
  if (v == nullptr || !v->IsArray()) return out;
  for (const auto& e : v->GetArray()) {
    if (e.IsString()) out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

std::vector<OwnerReference> JsonObject::OwnerReferences() const {
  std::vector<OwnerReference> out;
  const Value* v = Find({"metadata", "ownerReferences"});
  if (v == nullptr || !v->IsArray()) return out;
  for (const auto& e : v->GetArray()) {
    if (!e.IsObject()) continue;
    auto str = [&e](std::string_view field) {
      const Value* f = Child(e, field);
      return f != nullptr && f->IsString() ? std::string(f->GetString(), f->GetStringLength())
                                           : std::string();
    };
    auto flag = [&e](std::string_view field) {
      const Value* f = Child(e, field);
      return f != nullptr && f->IsBool() && f->GetBool();
    };
    out.push_back(OwnerReference{str("apiVersion"), str("kind"), str("name"), str("uid"),
                                 flag("controller"), flag("blockOwnerDeletion")});
  }
  return out;
}

std::string JsonObject::Key() const {
  return ObjectKey(Namespace(), Name());
}

namespace {
// The metadata setters have nothing to set where the root or metadata is not an object, and
// leave such a document as it is.
void TrySet(JsonObject& o, const JsonPath& path, std::string_view value) {
  StatusOr<Value*> slot = SlotFor(o.document(), path);
  if (!slot.ok()) return;
  (*slot)->SetString(JsonChars(value), static_cast<rapidjson::SizeType>(value.size()),
                     o.document().GetAllocator());
}
}  // namespace

void JsonObject::SetApiVersion(std::string_view v) {
  TrySet(*this, {"apiVersion"}, v);
}
void JsonObject::SetKind(std::string_view v) {
  TrySet(*this, {"kind"}, v);
}
void JsonObject::SetName(std::string_view v) {
  TrySet(*this, {"metadata", "name"}, v);
}
void JsonObject::SetNamespace(std::string_view v) {
  TrySet(*this, {"metadata", "namespace"}, v);
}
void JsonObject::SetResourceVersion(std::string_view v) {
  TrySet(*this, {"metadata", "resourceVersion"}, v);
}
void JsonObject::SetLabel(std::string_view key, std::string_view value) {
  TrySet(*this, {"metadata", "labels", key}, value);
}
void JsonObject::SetAnnotation(std::string_view key, std::string_view value) {
  TrySet(*this, {"metadata", "annotations", key}, value);
}

void JsonObject::StripManagedFields() {
  Remove({"metadata", "managedFields"});
}

std::string ObjectKey(std::string_view ns, std::string_view name) {
  std::string out;
  out.reserve(ns.size() + name.size() + 1);
  if (!ns.empty()) {
    out += ns;
    out += '/';
  }
  out += name;
  return out;
}

}  // namespace rdmastack::k8s
