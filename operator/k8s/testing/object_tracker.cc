#include "operator/k8s/testing/object_tracker.h"

#include <algorithm>
#include <cstdio>

#include "operator/k8s/testing/json_patch.h"
#include "operator/k8s/testing/selectors.h"
#include "operator/k8s/testing/server_errors.h"

namespace rdmastack::k8s::testing {

std::string_view ScopedNamespace(const ResourceType& type, std::string_view ns) {
  return type.namespaced ? ns : std::string_view();
}

namespace {

// The fields a client cannot write: identity, age and deletion come from the stored object.
void RestoreServerFields(const ResourceType& type, const JsonObject& from, JsonObject& to) {
  to.SetApiVersion(type.ApiVersion());
  to.SetKind(type.kind);
  to.SetName(from.Name());
  if (type.namespaced) to.SetNamespace(from.Namespace());
  for (const char* field :
       {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
        "resourceVersion", "managedFields"}) {
    if (auto value = from.Get({"metadata", field})) {
      (void)to.Set({"metadata", field}, *value);
    } else {
      to.Remove({"metadata", field});
    }
  }
}

// `to`'s status becomes `from`'s (none when `from` has none).
void CopyStatus(const JsonObject& from, JsonObject& to) {
  if (auto status = from.Get({"status"})) {
    (void)to.Set({"status"}, *status);
  } else {
    to.Remove({"status"});
  }
}

// The object without metadata and status: what a change of bumps metadata.generation.
JsonObject SpecPart(const JsonObject& o) {
  JsonObject out = o;
  out.Remove({"metadata"});
  out.Remove({"status"});
  return out;
}

// Removes from `target` what `before` has and `after` lacks, recursing where both hold objects:
// the fields a manager applied before and leaves out now.
void Prune(const rapidjson::Value& before, const rapidjson::Value& after,
           rapidjson::Value& target) {
  if (!before.IsObject() || !after.IsObject() || !target.IsObject()) return;
  for (const auto& m : before.GetObject()) {
    const auto in_after = after.FindMember(m.name);
    const auto in_target = target.FindMember(m.name);
    if (in_target == target.MemberEnd()) continue;
    if (in_after == after.MemberEnd()) {
      target.EraseMember(in_target);
    } else {
      Prune(m.value, in_after->value, in_target->value);
    }
  }
}

void RecordManager(const ResourceType& type, std::string_view manager, std::string_view operation,
                   bool status, const std::string& now, JsonObject& object) {
  if (manager.empty()) return;
  std::vector<JsonObject> entries = object.GetArray({"metadata", "managedFields"});
  std::erase_if(entries, [&](const JsonObject& e) {
    return e.GetString({"manager"}) == manager && e.GetString({"operation"}) == operation &&
           e.GetString({"subresource"}).value_or("") == (status ? "status" : "");
  });
  JsonObject entry;
  (void)entry.SetString({"manager"}, manager);
  (void)entry.SetString({"operation"}, operation);
  (void)entry.SetString({"apiVersion"}, type.ApiVersion());
  (void)entry.SetString({"time"}, now);
  (void)entry.SetString({"fieldsType"}, "FieldsV1");
  if (status) (void)entry.SetString({"subresource"}, "status");
  entries.push_back(std::move(entry));
  (void)object.SetArray({"metadata", "managedFields"}, entries);
}

// The stored object, const or not as `objects` is.
template <typename Objects>
auto* FindIn(Objects& objects, const ResourceType& type, std::string_view ns,
             std::string_view name) {
  const auto bucket = objects.find(type.GroupResource());
  decltype(&bucket->second.begin()->second) none = nullptr;
  if (bucket == objects.end()) return none;
  const auto it = bucket->second.find(ObjectKey(ScopedNamespace(type, ns), name));
  return it == bucket->second.end() ? none : &it->second;
}

StatusOr<JsonObject> ParseBody(std::string_view body) {
  auto parsed = JsonObject::Parse(body);
  if (!parsed.ok() || !parsed->IsObject())
    return BadRequest("the request body is not a JSON object: " + std::string(body.substr(0, 200)));
  return parsed;
}

}  // namespace

// ---- setup and inspection ----

StatusOr<JsonObject> ObjectTracker::Put(const ResourceType& type, JsonObject object) {
  if (object.Name().empty()) return InvalidArgumentError("Put needs metadata.name");
  object.SetApiVersion(type.ApiVersion());
  object.SetKind(type.kind);
  if (!type.namespaced) object.Remove({"metadata", "namespace"});
  const JsonObject* existing = Find(type, object.Namespace(), object.Name());
  if (object.Uid().empty())
    (void)object.SetString({"metadata", "uid"},
                           existing != nullptr ? std::string(existing->Uid()) : NewUid());
  if (object.CreationTimestamp().empty())
    (void)object.SetString({"metadata", "creationTimestamp"},
                           existing != nullptr ? std::string(existing->CreationTimestamp()) : now_);
  object.SetResourceVersion(NextResourceVersion());
  objects_[type.GroupResource()][object.Key()] = object;
  return object;
}

bool ObjectTracker::Erase(const ResourceType& type, std::string_view ns, std::string_view name) {
  return EraseKey(type, ObjectKey(ScopedNamespace(type, ns), name));
}

const JsonObject* ObjectTracker::Find(const ResourceType& type, std::string_view ns,
                                      std::string_view name) const {
  return FindIn(objects_, type, ns, name);
}

JsonObject* ObjectTracker::Mutable(const ResourceType& type, std::string_view ns,
                                   std::string_view name) {
  return FindIn(objects_, type, ns, name);
}

std::vector<JsonObject> ObjectTracker::Objects(const ResourceType& type) const {
  std::vector<JsonObject> out;
  const auto bucket = objects_.find(type.GroupResource());
  if (bucket == objects_.end()) return out;
  for (const auto& [key, o] : bucket->second) out.push_back(o);
  return out;
}

// ---- reads ----

StatusOr<JsonObject> ObjectTracker::Get(const ResourceType& type, std::string_view ns,
                                        std::string_view name) const {
  const JsonObject* o = Find(type, ns, name);
  if (o == nullptr) return NotFoundFor(type, name);
  return *o;
}

StatusOr<ObjectList> ObjectTracker::List(const ResourceType& type, std::string_view ns,
                                         const ListOptions& options) const {
  ns = ScopedNamespace(type, ns);
  ObjectList list;
  list.api_version = type.ApiVersion();
  list.kind = type.kind + "List";
  list.resource_version = std::to_string(resource_version_);
  const auto bucket = objects_.find(type.GroupResource());
  if (bucket == objects_.end()) return list;
  auto it = options.continue_token.empty() ? bucket->second.begin()
                                           : bucket->second.upper_bound(options.continue_token);
  for (; it != bucket->second.end(); ++it) {
    const JsonObject& o = it->second;
    if (!ns.empty() && o.Namespace() != ns) continue;
    auto labels = MatchesLabelSelector(options.label_selector, o.Labels());
    if (!labels.ok())
      return BadRequest("unable to parse requirement: " + std::string(labels.status().message()));
    auto fields = MatchesFieldSelector(options.field_selector, o);
    if (!fields.ok()) return BadRequest(std::string(fields.status().message()));
    if (!*labels || !*fields) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.continue_token = list.items.back().Key();
      break;
    }
    list.items.push_back(o);
  }
  return list;
}

// ---- writes ----

StatusOr<JsonObject> ObjectTracker::Create(const ResourceType& type, JsonObject object,
                                           std::string_view field_manager) {
  return CreateAs(type, std::move(object), field_manager, "Update");
}

StatusOr<JsonObject> ObjectTracker::Update(const ResourceType& type, const JsonObject& object,
                                           std::string_view field_manager, bool status_only) {
  const JsonObject* current = Find(type, object.Namespace(), object.Name());
  if (current == nullptr) return NotFoundFor(type, object.Name());
  if (!object.ResourceVersion().empty() && object.ResourceVersion() != current->ResourceVersion())
    return ConflictFor(type, object.Name(), kObjectModified);
  return Commit(type, JsonObject(*current), object, status_only, field_manager, "Update");
}

StatusOr<JsonObject> ObjectTracker::Patch(const ResourceType& type, std::string_view ns,
                                          std::string_view name, PatchType patch_type,
                                          std::string_view body, const PatchOptions& options,
                                          bool status_only) {
  ns = ScopedNamespace(type, ns);
  if (patch_type == PatchType::kApply) return Apply(type, ns, name, body, options, status_only);
  const JsonObject* stored = Find(type, ns, name);
  if (stored == nullptr) return NotFoundFor(type, name);
  const JsonObject current = *stored;
  JsonObject desired = current;
  if (patch_type == PatchType::kJsonPatch) {
    if (Status s = ApplyJsonPatch(body, desired); !s.ok())
      return InvalidFor(type, name, s.message());
  } else {
    RDMASTACK_ASSIGN_OR_RETURN(JsonObject patch, ParseBody(body));
    const std::optional<std::string> rv = patch.GetString({"metadata", "resourceVersion"});
    if (rv && *rv != current.ResourceVersion()) return ConflictFor(type, name, kObjectModified);
    desired.MergeFrom(patch);
  }
  return Commit(type, current, std::move(desired), status_only, options.field_manager, "Update");
}

StatusOr<JsonObject> ObjectTracker::Delete(const ResourceType& type, std::string_view ns,
                                           std::string_view name, const DeleteOptions& options) {
  JsonObject* stored = Mutable(type, ns, name);
  if (stored == nullptr) return NotFoundFor(type, name);
  if (!options.precondition_uid.empty() && options.precondition_uid != stored->Uid())
    return ConflictFor(type, name,
                       "Precondition failed: UID in precondition: " + options.precondition_uid +
                           ", UID in object meta: " + std::string(stored->Uid()));
  if (!options.precondition_resource_version.empty() &&
      options.precondition_resource_version != stored->ResourceVersion())
    return ConflictFor(
        type, name,
        "Precondition failed: ResourceVersion in precondition: " +
            options.precondition_resource_version +
            ", ResourceVersion in object meta: " + std::string(stored->ResourceVersion()));
  if (stored->Finalizers().empty()) {
    JsonObject gone = *stored;
    EraseKey(type, gone.Key());
    return gone;
  }
  if (!stored->IsBeingDeleted()) {
    (void)stored->SetString({"metadata", "deletionTimestamp"}, now_);
    (void)stored->SetInt({"metadata", "deletionGracePeriodSeconds"}, 0);
    stored->SetResourceVersion(NextResourceVersion());
  }
  return *stored;
}

StatusOr<JsonObject> ObjectTracker::CreateAs(const ResourceType& type, JsonObject object,
                                             std::string_view field_manager,
                                             std::string_view operation) {
  object.SetApiVersion(type.ApiVersion());
  object.SetKind(type.kind);
  if (type.namespaced && object.Namespace().empty())
    return BadRequest("a " + type.kind + " needs metadata.namespace");
  if (!type.namespaced) object.Remove({"metadata", "namespace"});
  if (object.Name().empty()) {
    if (object.GenerateName().empty())
      return InvalidFor(type, "",
                        "metadata.name: Required value: name or generateName is required");
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, "%05lld", static_cast<long long>(++generated_names_));
    object.SetName(std::string(object.GenerateName()) + suffix);
  }
  if (Find(type, object.Namespace(), object.Name()) != nullptr)
    return AlreadyExistsFor(type, object.Name());
  (void)object.SetString({"metadata", "uid"}, NewUid());
  (void)object.SetString({"metadata", "creationTimestamp"}, now_);
  (void)object.SetInt({"metadata", "generation"}, 1);
  object.Remove({"metadata", "deletionTimestamp"});
  object.Remove({"metadata", "deletionGracePeriodSeconds"});
  object.Remove({"metadata", "managedFields"});
  object.Remove({"status"});
  RecordManager(type, field_manager, operation, false, now_, object);
  object.SetResourceVersion(NextResourceVersion());
  objects_[type.GroupResource()][object.Key()] = object;
  return object;
}

StatusOr<JsonObject> ObjectTracker::Apply(const ResourceType& type, std::string_view ns,
                                          std::string_view name, std::string_view body,
                                          const PatchOptions& options, bool status_only) {
  if (options.field_manager.empty())
    return BadRequest("PATCH requests of the apply type need a fieldManager");
  RDMASTACK_ASSIGN_OR_RETURN(JsonObject applied, ParseBody(body));
  if (applied.Name() != name)
    return BadRequest("the name of the applied object (" + std::string(applied.Name()) +
                      ") does not match the name in the URL (" + std::string(name) + ")");
  const std::string key = type.GroupResource() + "|" + ObjectKey(ns, name) + "|" +
                          (status_only ? "status" : "") + "|" + options.field_manager;
  const JsonObject* stored = Find(type, ns, name);
  if (stored == nullptr) {
    if (status_only) return NotFoundFor(type, name);
    if (type.namespaced) applied.SetNamespace(ns);
    auto created = CreateAs(type, applied, options.field_manager, "Apply");
    if (created.ok()) last_applied_[key] = applied;
    return created;
  }
  const JsonObject current = *stored;
  const std::optional<std::string> rv = applied.GetString({"metadata", "resourceVersion"});
  if (rv && *rv != current.ResourceVersion()) return ConflictFor(type, name, kObjectModified);
  JsonObject desired = current;
  if (auto before = last_applied_.find(key); before != last_applied_.end())
    Prune(before->second.value(), applied.value(), desired.document());
  desired.MergeFrom(applied);
  auto committed =
      Commit(type, current, std::move(desired), status_only, options.field_manager, "Apply");
  if (committed.ok()) last_applied_[key] = std::move(applied);
  return committed;
}

StatusOr<JsonObject> ObjectTracker::Commit(const ResourceType& type, const JsonObject& current,
                                           JsonObject desired, bool status_only,
                                           std::string_view field_manager,
                                           std::string_view operation) {
  JsonObject next = current;
  if (status_only) {
    CopyStatus(desired, next);
  } else {
    next = std::move(desired);
    CopyStatus(current, next);
    RestoreServerFields(type, current, next);
  }
  const std::vector<std::string> before = current.Finalizers();
  if (current.IsBeingDeleted()) {
    for (const std::string& f : next.Finalizers()) {
      if (std::find(before.begin(), before.end(), f) == before.end())
        return InvalidFor(type, current.Name(),
                          "metadata.finalizers: Forbidden: no new finalizers can be added if the "
                          "object is being deleted, found new finalizers [\"" +
                              f + "\"]");
    }
  }
  if (next == current) return next;  // a no-op write: the resourceVersion stays
  if (!status_only && SpecPart(next) != SpecPart(current))
    (void)next.SetInt({"metadata", "generation"}, current.Generation() + 1);
  RecordManager(type, field_manager, operation, status_only, now_, next);
  next.SetResourceVersion(NextResourceVersion());
  if (next.IsBeingDeleted() && next.Finalizers().empty()) {
    EraseKey(type, next.Key());
    return next;
  }
  objects_[type.GroupResource()][next.Key()] = next;
  return next;
}

bool ObjectTracker::EraseKey(const ResourceType& type, const std::string& key) {
  const std::string prefix = type.GroupResource() + "|" + key + "|";
  std::erase_if(last_applied_, [&](const auto& entry) { return entry.first.starts_with(prefix); });
  const auto bucket = objects_.find(type.GroupResource());
  return bucket != objects_.end() && bucket->second.erase(key) > 0;
}

std::string ObjectTracker::NextResourceVersion() {
  return std::to_string(++resource_version_);
}

std::string ObjectTracker::NewUid() {
  char uid[48];
  std::snprintf(uid, sizeof uid, "00000000-0000-4000-8000-%012lld",
                static_cast<long long>(++uids_));
  return uid;
}

}  // namespace rdmastack::k8s::testing
