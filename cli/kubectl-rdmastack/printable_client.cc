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

}  // namespace

void MakePrintable(k8s::JsonObject& object) {
  rapidjson::Document& doc = object.document();
  Walk(doc, doc.GetAllocator());
}

StatusOr<k8s::JsonObject> PrintableClient::Get(const k8s::ResourceType& type, std::string_view ns,
                                               std::string_view name,
                                               const k8s::GetOptions& options) {
  StatusOr<k8s::JsonObject> object = ForwardingClient::Get(type, ns, name, options);
  if (object.ok()) MakePrintable(*object);
  return object;
}

StatusOr<k8s::ObjectList> PrintableClient::List(const k8s::ResourceType& type, std::string_view ns,
                                                const k8s::ListOptions& options) {
  StatusOr<k8s::ObjectList> list = ForwardingClient::List(type, ns, options);
  if (list.ok()) {
    for (k8s::JsonObject& item : list->items) MakePrintable(item);
  }
  return list;
}

Status PrintableClient::Around(const k8s::ApiCall& call,
                               const std::function<Status()>& call_inner) {
  if (call.verb == k8s::ApiVerb::kWatch)
    return UnimplementedError("kubectl-rdmastack does not watch");
  if (k8s::IsWrite(call.verb))
    return PermissionDeniedError("kubectl-rdmastack reads only; it never writes to the API");
  return call_inner();
}

}  // namespace rdmastack::plugin
