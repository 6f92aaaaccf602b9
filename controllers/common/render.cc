#include "controllers/common/render.h"

#include "base/sha256.h"

namespace rdmastack::controllers {

k8s::JsonObject Obj(std::string_view json) {
  auto parsed = k8s::JsonObject::Parse(json);
  return parsed.ok() ? std::move(*parsed) : k8s::JsonObject();
}

k8s::JsonObject Str(std::string_view s) {
  k8s::JsonObject o;
  o.document().SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()),
                         o.document().GetAllocator());
  return o;
}

k8s::JsonObject TolerationJson(const crd::Toleration& t) {
  k8s::JsonObject o;
  if (t.key) (void)o.SetString({"key"}, *t.key);
  (void)o.SetString({"operator"}, crd::ToString(t.op));
  if (t.value) (void)o.SetString({"value"}, *t.value);
  if (t.effect && *t.effect != crd::TaintEffect::kAll)
    (void)o.SetString({"effect"}, crd::ToString(*t.effect));
  if (t.toleration_seconds) (void)o.SetInt({"tolerationSeconds"}, *t.toleration_seconds);
  return o;
}

void AppendSelectorExpressions(const crd::StringMap& selector, k8s::JsonObject* term) {
  for (const auto& [key, value] : selector) {
    k8s::JsonObject expr;
    (void)expr.SetString({"key"}, key);
    (void)expr.SetString({"operator"}, "In");
    (void)expr.Append({"values"}, Str(value));
    (void)term->Append({"matchExpressions"}, expr);
  }
}

void StampAppliedHash(k8s::JsonObject* object) {
  object->SetAnnotation(kAppliedHashAnnotation, Sha256Hex(object->Serialize()));
}

bool AddMetadataMapPatch(std::string_view field, const std::map<std::string, std::string>& current,
                         const std::map<std::string, std::string>& desired,
                         const std::function<bool(std::string_view)>& owned,
                         k8s::JsonObject* patch) {
  bool changed = false;
  for (const auto& [key, value] : desired) {
    if (!owned(key)) continue;
    auto have = current.find(key);
    if (have != current.end() && have->second == value) continue;
    (void)patch->SetString({"metadata", field, key}, value);
    changed = true;
  }
  for (const auto& [key, value] : current) {
    if (!owned(key) || desired.count(key) != 0) continue;
    (void)patch->SetNull({"metadata", field, key});
    changed = true;
  }
  return changed;
}

std::string LabelPatch(const std::map<std::string, std::string>& current,
                       const std::map<std::string, std::string>& desired,
                       const std::function<bool(std::string_view)>& owned) {
  k8s::JsonObject patch;
  return AddMetadataMapPatch("labels", current, desired, owned, &patch) ? patch.Serialize() : "";
}

k8s::JsonObject ControllerOwner(std::string_view kind, const crd::ObjectMeta& meta) {
  k8s::JsonObject owner = Obj(R"({"controller":true,"blockOwnerDeletion":true})");
  (void)owner.SetString({"apiVersion"}, crd::kApiVersion);
  (void)owner.SetString({"kind"}, kind);
  (void)owner.SetString({"name"}, meta.name);
  (void)owner.SetString({"uid"}, meta.uid.value_or(""));
  return owner;
}

k8s::JsonObject EnvValue(std::string_view name, std::string_view value) {
  k8s::JsonObject e;
  (void)e.SetString({"name"}, name);
  (void)e.SetString({"value"}, value);
  return e;
}

k8s::JsonObject EnvSecret(std::string_view name, std::string_view secret, std::string_view key) {
  k8s::JsonObject e;
  (void)e.SetString({"name"}, name);
  (void)e.SetString({"valueFrom", "secretKeyRef", "name"}, secret);
  (void)e.SetString({"valueFrom", "secretKeyRef", "key"}, key);
  return e;
}

k8s::JsonObject Mount(std::string_view name, std::string_view path, bool read_only) {
  k8s::JsonObject m;
  (void)m.SetString({"name"}, name);
  (void)m.SetString({"mountPath"}, path);
  if (read_only) (void)m.SetBool({"readOnly"}, true);
  return m;
}

k8s::JsonObject HostPathVolume(std::string_view name, std::string_view path,
                               std::string_view type) {
  k8s::JsonObject v;
  (void)v.SetString({"name"}, name);
  (void)v.SetString({"hostPath", "path"}, path);
  (void)v.SetString({"hostPath", "type"}, type);
  return v;
}

}  // namespace rdmastack::controllers
