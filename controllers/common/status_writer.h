#pragma once
// The one way the operator writes a custom resource's status: the status patch fitted to the
// CRD's schema (crds/schema/status_fit.h), so that the API server never refuses it, then
// server-side applied to /status with the operator's field manager. A fit is logged once per
// object (status_fit_log.h). ApplyStatusIfChanged writes only when the status changed,
// remembering what it wrote so that a reconcile that runs before the informer delivers the write
// does not write it again.

#include <string>

#include "controllers/common/render.h"
#include "controllers/common/status_fit_log.h"
#include "controllers/common/write_memo.h"
#include "crds/schema/status_fit.h"
#include "operator/k8s/client.h"

namespace rdmastack::controllers {

// Applies `fitted` (FitStatusPatch of object `key`), after logging its fixes through `fit_log`.
// Only a fitted status can be written: a FittedStatus comes from FitStatusPatch alone.
template <crd::CustomResource Resource>
StatusOr<k8s::JsonObject> ApplyFittedStatus(k8s::Client& client, const k8s::ResourceType& type,
                                            const std::string& key,
                                            const crd::FittedStatus<Resource>& fitted,
                                            StatusFitLog& fit_log) {
  fit_log.Report(key, fitted.fixes());
  auto body = k8s::JsonObject::Parse(fitted.patch());
  if (!body.ok()) return body.status();
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  options.force = true;
  auto applied = client.ApplyStatus(type, *body, options);
  if (!applied.ok())
    return applied.status().WithContext("apply " + std::string(type.kind) + " " + key + " status");
  return applied;
}

// True when it wrote; false when `resource` (as cached in `object`) already has `status` (as
// fitted) or this process wrote it and the cache has not caught up.
template <crd::CustomResource Resource, typename StatusType>
StatusOr<bool> ApplyStatusIfChanged(k8s::Client& client, const k8s::ResourceType& type,
                                    const k8s::JsonObject& object, const Resource& resource,
                                    const StatusType& status, WriteMemo<StatusType>& memo,
                                    StatusFitLog& fit_log) {
  const std::string key = object.Key();
  if (resource.status && *resource.status == status) return false;
  Resource desired;
  desired.metadata.name = resource.metadata.name;
  desired.metadata.namespace_ = resource.metadata.namespace_;
  desired.status = status;
  auto fitted = crd::FitStatusPatch(desired);
  if (!fitted.ok()) return fitted.status().WithContext(key);
  // A status that needed fitting differs from the cached one only where the fit changed it.
  if (resource.status && *resource.status == fitted->status()) return false;
  if (memo.Pending(key, fitted->status(), object.ResourceVersion())) return false;
  auto applied = ApplyFittedStatus(client, type, key, *fitted, fit_log);
  if (!applied.ok()) return applied.status();
  memo.Remember(key, fitted->status(), std::string(applied->ResourceVersion()));
  return true;
}

}  // namespace rdmastack::controllers
