#pragma once
// Writes a custom resource's status (server-side apply of /status, the operator's field manager)
// only when it changed, remembering what it wrote so that a reconcile that runs before the
// informer delivers the write does not write it again.

#include <string>

#include "controllers/common/render.h"
#include "controllers/common/write_memo.h"
#include "crds/types/json.h"
#include "operator/k8s/client.h"

namespace rdmastack::controllers {

// True when it wrote; false when `resource` (as cached in `object`) already has `status` or this
// process wrote it and the cache has not caught up.
template <typename Resource, typename StatusType>
StatusOr<bool> ApplyStatusIfChanged(k8s::Client& client, const k8s::ResourceType& type,
                                    const k8s::JsonObject& object, const Resource& resource,
                                    const StatusType& status, WriteMemo<StatusType>& memo) {
  const std::string key = object.Key();
  if (resource.status && *resource.status == status) return false;
  if (memo.Pending(key, status, object.ResourceVersion())) return false;
  Resource desired;
  desired.metadata.name = resource.metadata.name;
  desired.metadata.namespace_ = resource.metadata.namespace_;
  desired.spec = resource.spec;
  desired.status = status;
  auto body = k8s::JsonObject::Parse(crd::SerializeStatusPatch(desired));
  if (!body.ok()) return body.status();
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  options.force = true;
  auto applied = client.ApplyStatus(type, *body, options);
  if (!applied.ok())
    return applied.status().WithContext("apply " + std::string(type.kind) + " " + key + " status");
  memo.Remember(key, status, std::string(applied->ResourceVersion()));
  return true;
}

}  // namespace rdmastack::controllers
