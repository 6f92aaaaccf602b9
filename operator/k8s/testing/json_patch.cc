#include "operator/k8s/testing/json_patch.h"

#include <rapidjson/pointer.h>

#include <string>

namespace rdmastack::k8s::testing {
namespace {

using rapidjson::Pointer;
using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

std::string StringMember(const Value& op, const char* name) {
  const auto it = op.FindMember(name);
  return it != op.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : std::string();
}

StatusOr<Pointer> ParsePointer(const std::string& path) {
  Pointer p(path.c_str(), path.size());
  if (!p.IsValid()) return InvalidArgumentError("'" + path + "' is not a JSON pointer");
  return p;
}

// The container that holds the last token of `p`, or null.
Value* Parent(const Pointer& p, rapidjson::Document& doc) {
  if (p.GetTokenCount() == 0) return nullptr;
  return Pointer(p.GetTokens(), p.GetTokenCount() - 1).Get(doc);
}

std::string LastName(const Pointer& p) {
  const Pointer::Token& t = p.GetTokens()[p.GetTokenCount() - 1];
  return std::string(t.name, t.length);
}

Status Add(const Pointer& p, Value value, rapidjson::Document& doc, const std::string& path) {
  Allocator& alloc = doc.GetAllocator();
  if (p.GetTokenCount() == 0) {
    static_cast<Value&>(doc) = value;
    return OkStatus();
  }
  Value* parent = Parent(p, doc);
  if (parent == nullptr) return InvalidArgumentError("the parent of " + path + " does not exist");
  const std::string name = LastName(p);
  if (parent->IsObject()) {
    if (auto it = parent->FindMember(name.c_str()); it != parent->MemberEnd()) {
      it->value = value;
    } else {
      parent->AddMember(Value(name.c_str(), static_cast<rapidjson::SizeType>(name.size()), alloc),
                        value, alloc);
    }
    return OkStatus();
  }
  if (!parent->IsArray()) return InvalidArgumentError("the parent of " + path + " is no container");
  const rapidjson::SizeType size = parent->Size();
  const rapidjson::SizeType index = name == "-" ? size : p.GetTokens()[p.GetTokenCount() - 1].index;
  if (index > size) return InvalidArgumentError(path + ": index out of range");
  parent->PushBack(value, alloc);
  for (rapidjson::SizeType i = size; i > index; --i) (*parent)[i].Swap((*parent)[i - 1]);
  return OkStatus();
}

Status Remove(const Pointer& p, rapidjson::Document& doc, const std::string& path) {
  Value* parent = Parent(p, doc);
  if (parent == nullptr) return InvalidArgumentError(path + " does not exist");
  const std::string name = LastName(p);
  if (parent->IsObject() && parent->EraseMember(name.c_str())) return OkStatus();
  if (parent->IsArray()) {
    const rapidjson::SizeType index = p.GetTokens()[p.GetTokenCount() - 1].index;
    if (index < parent->Size()) {
      parent->Erase(parent->Begin() + index);
      return OkStatus();
    }
  }
  return InvalidArgumentError(path + " does not exist");
}

Status ApplyOne(const Value& op, rapidjson::Document& doc) {
  if (!op.IsObject()) return InvalidArgumentError("a JSON patch operation must be an object");
  Allocator& alloc = doc.GetAllocator();
  const std::string name = StringMember(op, "op");
  const std::string path = StringMember(op, "path");
  RDMASTACK_ASSIGN_OR_RETURN(Pointer p, ParsePointer(path));
  const auto value = op.FindMember("value");
  const bool has_value = value != op.MemberEnd();
  if (name == "test") {
    const Value* at = p.Get(doc);
    if (!has_value || at == nullptr || *at != value->value)
      return InvalidArgumentError("test operation failed at " + path);
    return OkStatus();
  }
  if (name == "remove") return Remove(p, doc, path);
  if (name == "add" || name == "replace") {
    if (!has_value) return InvalidArgumentError(name + " at " + path + " has no value");
    if (name == "replace") RDMASTACK_RETURN_IF_ERROR(Remove(p, doc, path));
    return Add(p, Value(value->value, alloc), doc, path);
  }
  if (name == "move" || name == "copy") {
    const std::string from_path = StringMember(op, "from");
    RDMASTACK_ASSIGN_OR_RETURN(Pointer from, ParsePointer(from_path));
    const Value* source = from.Get(doc);
    if (source == nullptr) return InvalidArgumentError(from_path + " does not exist");
    Value copy(*source, alloc);
    if (name == "move") RDMASTACK_RETURN_IF_ERROR(Remove(from, doc, from_path));
    return Add(p, std::move(copy), doc, path);
  }
  return InvalidArgumentError("unknown JSON patch operation '" + name + "'");
}

}  // namespace

Status ApplyJsonPatch(std::string_view patch, JsonObject& target) {
  RDMASTACK_ASSIGN_OR_RETURN(JsonObject ops, JsonObject::Parse(patch));
  if (!ops.IsArray()) return InvalidArgumentError("a JSON patch must be an array of operations");
  JsonObject work = target;
  for (const Value& op : ops.value().GetArray())
    RDMASTACK_RETURN_IF_ERROR(ApplyOne(op, work.document()));
  target = std::move(work);
  return OkStatus();
}

}  // namespace rdmastack::k8s::testing
