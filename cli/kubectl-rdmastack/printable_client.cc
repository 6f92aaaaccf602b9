#include "cli/kubectl-rdmastack/printable_client.h"

#include <utility>

#include "cli/kubectl-rdmastack/printable.h"

namespace rdmastack::plugin {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// A string that holds a JSON document (the per-node upgrade state annotation, any other
// annotation of JSON) is made printable inside too: a "\n" escape in it would become a newline
// once a view decodes it.
std::string PrintableString(std::string_view text) {
  if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
    StatusOr<k8s::JsonObject> nested = k8s::JsonObject::Parse(text);
    if (nested.ok()) {
      MakePrintable(*nested);
      return Printable(nested->Serialize());
    }
  }
  return Printable(text);
}

void Walk(rapidjson::Value& value, Allocator& allocator) {
  if (value.IsString()) {
    const std::string_view text(value.GetString(), value.GetStringLength());
    const std::string printable = PrintableString(text);
    if (printable != text) value.SetString(printable.data(), printable.size(), allocator);
  } else if (value.IsArray()) {
    for (rapidjson::Value& item : value.GetArray()) Walk(item, allocator);
  } else if (value.IsObject()) {
    for (auto& member : value.GetObject()) {
      Walk(member.name, allocator);
      Walk(member.value, allocator);
    }
  }
}

Status Refused() {
  return PermissionDeniedError("kubectl-rdmastack reads only; it never writes to the API");
}

}  // namespace

void MakePrintable(k8s::JsonObject& object) {
  rapidjson::Document& doc = object.document();
  Walk(doc, doc.GetAllocator());
}

StatusOr<k8s::JsonObject> PrintableClient::Get(const k8s::ResourceType& type, std::string_view ns,
                                               std::string_view name,
                                               const k8s::GetOptions& options) {
  StatusOr<k8s::JsonObject> object = inner_.Get(type, ns, name, options);
  if (object.ok()) MakePrintable(*object);
  return object;
}

StatusOr<k8s::ObjectList> PrintableClient::List(const k8s::ResourceType& type, std::string_view ns,
                                                const k8s::ListOptions& options) {
  StatusOr<k8s::ObjectList> list = inner_.List(type, ns, options);
  if (list.ok()) {
    for (k8s::JsonObject& item : list->items) MakePrintable(item);
  }
  return list;
}

StatusOr<k8s::WatchStreamPtr> PrintableClient::Watch(const k8s::ResourceType&, std::string_view,
                                                     const k8s::WatchOptions&) {
  return UnimplementedError("kubectl-rdmastack does not watch");
}

StatusOr<k8s::JsonObject> PrintableClient::Create(const k8s::ResourceType&, const k8s::JsonObject&,
                                                  const k8s::WriteOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::Update(const k8s::ResourceType&, const k8s::JsonObject&,
                                                  const k8s::WriteOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::UpdateStatus(const k8s::ResourceType&,
                                                        const k8s::JsonObject&,
                                                        const k8s::WriteOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::Patch(const k8s::ResourceType&, std::string_view,
                                                 std::string_view, k8s::PatchType, std::string_view,
                                                 const k8s::PatchOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::PatchStatus(const k8s::ResourceType&, std::string_view,
                                                       std::string_view, k8s::PatchType,
                                                       std::string_view, const k8s::PatchOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::Delete(const k8s::ResourceType&, std::string_view,
                                                  std::string_view, const k8s::DeleteOptions&) {
  return Refused();
}
StatusOr<k8s::JsonObject> PrintableClient::CreateSubresource(const k8s::ResourceType&,
                                                             std::string_view, std::string_view,
                                                             std::string_view,
                                                             const k8s::JsonObject&) {
  return Refused();
}

}  // namespace rdmastack::plugin
