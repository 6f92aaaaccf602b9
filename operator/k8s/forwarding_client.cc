#include "operator/k8s/forwarding_client.h"

namespace rdmastack::k8s {

const char* HttpMethod(ApiVerb verb) {
  switch (verb) {
    case ApiVerb::kGet:
    case ApiVerb::kList:
    case ApiVerb::kWatch: return "GET";
    case ApiVerb::kCreate: return "POST";
    case ApiVerb::kUpdate: return "PUT";
    case ApiVerb::kPatch: return "PATCH";
    case ApiVerb::kDelete: return "DELETE";
  }
  return "GET";
}

bool IsWrite(ApiVerb verb) {
  return verb != ApiVerb::kGet && verb != ApiVerb::kList && verb != ApiVerb::kWatch;
}

std::string Describe(const ApiCall& call) {
  static constexpr const char* kWords[] = {"get",    "list",  "watch", "create",
                                           "update", "patch", "delete"};
  std::string out = kWords[static_cast<int>(call.verb)];
  out += ' ';
  out += call.type.GroupResource();
  if (!call.subresource.empty()) {
    out += '/';
    out += call.subresource;
  }
  return out;
}

StatusOr<JsonObject> ForwardingClient::Get(const ResourceType& type, std::string_view ns,
                                           std::string_view name, const GetOptions& options) {
  return Through<JsonObject>({ApiVerb::kGet, type, "", options.resource_version},
                             [&] { return inner_.Get(type, ns, name, options); });
}

StatusOr<ObjectList> ForwardingClient::List(const ResourceType& type, std::string_view ns,
                                            const ListOptions& options) {
  return Through<ObjectList>({ApiVerb::kList, type, "", options.resource_version},
                             [&] { return inner_.List(type, ns, options); });
}

StatusOr<WatchStreamPtr> ForwardingClient::Watch(const ResourceType& type, std::string_view ns,
                                                 const WatchOptions& options) {
  return Through<WatchStreamPtr>({ApiVerb::kWatch, type, "", options.resource_version},
                                 [&] { return inner_.Watch(type, ns, options); });
}

StatusOr<JsonObject> ForwardingClient::Create(const ResourceType& type, const JsonObject& object,
                                              const WriteOptions& options) {
  return Through<JsonObject>({ApiVerb::kCreate, type, "", ""},
                             [&] { return inner_.Create(type, object, options); });
}

StatusOr<JsonObject> ForwardingClient::Update(const ResourceType& type, const JsonObject& object,
                                              const WriteOptions& options) {
  return Through<JsonObject>({ApiVerb::kUpdate, type, "", ""},
                             [&] { return inner_.Update(type, object, options); });
}

StatusOr<JsonObject> ForwardingClient::UpdateStatus(const ResourceType& type,
                                                    const JsonObject& object,
                                                    const WriteOptions& options) {
  return Through<JsonObject>({ApiVerb::kUpdate, type, "status", ""},
                             [&] { return inner_.UpdateStatus(type, object, options); });
}

StatusOr<JsonObject> ForwardingClient::Patch(const ResourceType& type, std::string_view ns,
                                             std::string_view name, PatchType patch_type,
                                             std::string_view body, const PatchOptions& options) {
  return Through<JsonObject>({ApiVerb::kPatch, type, "", ""}, [&] {
    return inner_.Patch(type, ns, name, patch_type, body, options);
  });
}

StatusOr<JsonObject> ForwardingClient::PatchStatus(const ResourceType& type, std::string_view ns,
                                                   std::string_view name, PatchType patch_type,
                                                   std::string_view body,
                                                   const PatchOptions& options) {
  return Through<JsonObject>({ApiVerb::kPatch, type, "status", ""}, [&] {
    return inner_.PatchStatus(type, ns, name, patch_type, body, options);
  });
}

StatusOr<JsonObject> ForwardingClient::Delete(const ResourceType& type, std::string_view ns,
                                              std::string_view name, const DeleteOptions& options) {
  return Through<JsonObject>({ApiVerb::kDelete, type, "", ""},
                             [&] { return inner_.Delete(type, ns, name, options); });
}

StatusOr<JsonObject> ForwardingClient::CreateSubresource(const ResourceType& type,
                                                         std::string_view ns, std::string_view name,
                                                         std::string_view subresource,
                                                         const JsonObject& body) {
  return Through<JsonObject>({ApiVerb::kCreate, type, subresource, ""}, [&] {
    return inner_.CreateSubresource(type, ns, name, subresource, body);
  });
}

}  // namespace rdmastack::k8s
