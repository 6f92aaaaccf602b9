#include "operator/k8s/json_builder.h"

#include "operator/k8s/json_copy.h"

namespace rdmastack::k8s {
namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

Value String(std::string_view s, Allocator& alloc) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

}  // namespace

rapidjson::Value& JsonBuilder::Slot(const JsonPath& path) {
  rapidjson::Document& doc = object_.document();
  Allocator& alloc = doc.GetAllocator();
  Value* node = &doc;
  for (const std::string& segment : path.segments()) {
    if (!node->IsObject()) node->SetObject();
    auto it = node->FindMember(
        Value::StringRefType(segment.c_str(), static_cast<rapidjson::SizeType>(segment.size())));
    if (it != node->MemberEnd()) {
      node = &it->value;
      continue;
    }
    node->AddMember(String(segment, alloc), Value(rapidjson::kNullType), alloc);
    node = &(node->MemberEnd() - 1)->value;
  }
  return *node;
}

void JsonBuilder::SetString(const JsonPath& path, std::string_view value) {
  Slot(path) = String(value, object_.document().GetAllocator());
}

void JsonBuilder::SetInt(const JsonPath& path, int64_t value) {
  Slot(path).SetInt64(value);
}

void JsonBuilder::SetBool(const JsonPath& path, bool value) {
  Slot(path).SetBool(value);
}

void JsonBuilder::SetNull(const JsonPath& path) {
  Slot(path).SetNull();
}

void JsonBuilder::Set(const JsonPath& path, const JsonObject& value) {
  // Copied before the slot is made: `value` may be this builder's own object.
  Value copy = internal::DeepCopy(value.value(), object_.document().GetAllocator());
  Slot(path) = copy;
}

void JsonBuilder::SetStringMap(const JsonPath& path,
                               const std::map<std::string, std::string>& values) {
  Allocator& alloc = object_.document().GetAllocator();
  Value object(rapidjson::kObjectType);
  for (const auto& [k, v] : values) object.AddMember(String(k, alloc), String(v, alloc), alloc);
  Slot(path) = object;
}

void JsonBuilder::SetArray(const JsonPath& path, const std::vector<JsonObject>& items) {
  Allocator& alloc = object_.document().GetAllocator();
  Value array(rapidjson::kArrayType);
  array.Reserve(static_cast<rapidjson::SizeType>(items.size()), alloc);
  for (const JsonObject& item : items)
    array.PushBack(internal::DeepCopy(item.value(), alloc), alloc);
  Slot(path) = array;
}

void JsonBuilder::Append(const JsonPath& path, const JsonObject& value) {
  Allocator& alloc = object_.document().GetAllocator();
  Value copy = internal::DeepCopy(value.value(), alloc);
  Value& slot = Slot(path);
  if (!slot.IsArray()) slot.SetArray();
  slot.PushBack(copy, alloc);
}

}  // namespace rdmastack::k8s
