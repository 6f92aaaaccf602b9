#include "controllers/common/object_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "controllers/common/parallel.h"
#include "controllers/common/render.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::controllers {
namespace {

std::string ObjectKey(const k8s::JsonObject& o) {
  return std::string(o.Kind()) + ":" + std::string(o.Namespace()) + "/" + std::string(o.Name());
}

std::string Quote(std::string_view s) {
  return Str(s).Serialize();
}

k8s::PatchOptions Options(bool force) {
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  options.force = force;
  return options;
}

std::string ControllerOf(const k8s::JsonObject& o) {
  for (const k8s::OwnerReference& ref : o.OwnerReferences()) {
    if (ref.controller) return ref.uid;
  }
  return "";
}

}  // namespace

Status ObjectWriter::CheckNotForeign(const k8s::ResourceType& type,
                                     const k8s::JsonObject& desired) {
  const std::string controller = ControllerOf(desired);
  if (controller.empty()) return OkStatus();
  auto live = client_.Get(type, desired.Namespace(), desired.Name());
  if (!live.ok()) {
    if (k8s::IsNotFound(live.status())) return OkStatus();
    return live.status().WithContext("read " + ObjectKey(desired) + " before creating it");
  }
  const std::string theirs = ControllerOf(*live);
  if (theirs == controller) return OkStatus();  // ours; the cache has not caught up
  return FailedPreconditionError(std::string(desired.Kind()) + " " + live->Key() +
                                 " exists but is not this one's (its controller is " +
                                 (theirs.empty() ? "none" : theirs) +
                                 "), so it is left as it is and not written over: delete it, "
                                 "and the operator creates its own");
}

Status ObjectWriter::ApplyIfChanged(const k8s::ResourceType& type, const k8s::JsonObject& desired,
                                    const runtime::ObjectPtr& existing) {
  const std::string hash = desired.Annotation(kAppliedHashAnnotation).value_or("");
  const std::string key = ObjectKey(desired);
  if (existing != nullptr) {
    if (existing->Annotation(kAppliedHashAnnotation) == hash) return OkStatus();
    if (applied_.Pending(key, hash, existing->ResourceVersion())) return OkStatus();
  } else if (applied_.Pending(key, hash, "0")) {
    return OkStatus();  // created by us, not in the cache yet (a deletion would have Forgotten it)
  } else {
    RDMASTACK_RETURN_IF_ERROR(CheckNotForeign(type, desired));
  }
  auto applied = client_.Apply(type, desired, Options(true));
  if (!applied.ok()) return applied.status().WithContext("apply " + key);
  applied_.Remember(key, hash, std::string(applied->ResourceVersion()));
  spdlog::info("{}: applied {} (hash {})", log_name_, key, hash.substr(0, 12));
  return OkStatus();
}

void ObjectWriter::Forget(const k8s::JsonObject& object) {
  applied_.Forget(ObjectKey(object));
}

Status ObjectWriter::Delete(const k8s::ResourceType& type, const runtime::ObjectPtr& object) {
  if (object == nullptr || object->IsBeingDeleted()) return OkStatus();
  k8s::DeleteOptions options;
  options.precondition_uid = std::string(object->Uid());
  options.propagation_policy = k8s::PropagationPolicy::kBackground;
  auto deleted = client_.Delete(type, object->Namespace(), object->Name(), options);
  if (!deleted.ok() && !k8s::IsNotFound(deleted.status()))
    return deleted.status().WithContext("delete " + ObjectKey(*object));
  Forget(*object);
  spdlog::info("{}: deleted {}", log_name_, ObjectKey(*object));
  return OkStatus();
}

Status ObjectWriter::EnsureFinalizer(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                     std::string_view finalizer) {
  const std::vector<std::string> finalizers = object.Finalizers();
  if (std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end())
    return OkStatus();
  std::string list = "[";
  for (const auto& f : finalizers) list += Quote(f) + ",";
  list += Quote(finalizer) + "]";
  const std::string patch = R"({"metadata":{"resourceVersion":)" + Quote(object.ResourceVersion()) +
                            R"(,"finalizers":)" + list + "}}";
  auto patched = client_.Patch(type, object.Namespace(), object.Name(), k8s::PatchType::kMerge,
                               patch, Options(false));
  if (!patched.ok()) return patched.status().WithContext("add the finalizer to " + object.Key());
  return OkStatus();
}

Status ObjectWriter::RemoveFinalizer(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                     std::string_view finalizer) {
  const std::vector<std::string> finalizers = object.Finalizers();
  const auto it = std::find(finalizers.begin(), finalizers.end(), finalizer);
  if (it == finalizers.end()) return OkStatus();
  const std::string index = std::to_string(it - finalizers.begin());
  const std::string patch = R"([{"op":"test","path":"/metadata/finalizers/)" + index +
                            R"(","value":)" + Quote(finalizer) +
                            R"(},{"op":"remove","path":"/metadata/finalizers/)" + index + R"("}])";
  auto patched = client_.Patch(type, object.Namespace(), object.Name(), k8s::PatchType::kJsonPatch,
                               patch, Options(false));
  if (!patched.ok() && !k8s::IsNotFound(patched.status()))
    return patched.status().WithContext("remove the finalizer of " + object.Key());
  return OkStatus();
}

Status ObjectWriter::PatchNodes(const std::vector<std::pair<std::string, std::string>>& patches,
                                size_t parallel) {
  std::vector<Status> results(patches.size());
  ParallelFor(patches.size(), parallel, [&](size_t i) {
    const auto& [node, patch] = patches[i];
    auto patched =
        client_.Patch(k8s::kinds::Node(), "", node, k8s::PatchType::kMerge, patch, Options(false));
    if (!patched.ok()) {
      // A node that is gone needs no labels.
      if (!k8s::IsNotFound(patched.status()))
        results[i] = patched.status().WithContext("patch Node " + node);
      return;
    }
    node_patches_.Remember(node, patch, std::string(patched->ResourceVersion()));
    spdlog::info("{}: node {} {}", log_name_, node, patch);
  });
  for (const Status& r : results) RDMASTACK_RETURN_IF_ERROR(r);
  return OkStatus();
}

}  // namespace rdmastack::controllers
