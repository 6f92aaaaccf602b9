#include "controllers/common/render.h"

#include "base/json_chars.h"
#include "base/sha256.h"

namespace rdmastack::controllers {

k8s::JsonObject Obj(std::string_view json) {
  auto parsed = k8s::JsonObject::Parse(json);
  return parsed.ok() ? std::move(*parsed) : k8s::JsonObject();
}

k8s::JsonObject Str(std::string_view s) {
  k8s::JsonObject o;
  o.document().SetString(JsonChars(s), static_cast<rapidjson::SizeType>(s.size()),
                         o.document().GetAllocator());
  return o;
}

k8s::JsonObject TolerationJson(const crd::Toleration& t) {
  k8s::JsonBuilder o;
  if (t.key) o.SetString({"key"}, *t.key);
  o.SetString({"operator"}, crd::ToString(t.op));
  if (t.value) o.SetString({"value"}, *t.value);
  if (t.effect && *t.effect != crd::TaintEffect::kAll)
    o.SetString({"effect"}, crd::ToString(*t.effect));
  if (t.toleration_seconds) o.SetInt({"tolerationSeconds"}, *t.toleration_seconds);
  return std::move(o).Build();
}

void AppendSelectorExpressions(const crd::StringMap& selector, k8s::JsonBuilder* term) {
  for (const auto& [key, value] : selector) {
    k8s::JsonBuilder expr;
    expr.SetString({"key"}, key);
    expr.SetString({"operator"}, "In");
    expr.Append({"values"}, Str(value));
    term->Append({"matchExpressions"}, expr);
  }
}

void StampAppliedHash(k8s::JsonBuilder* object) {
  object->SetAnnotation(kAppliedHashAnnotation, Sha256Hex(object->object().Serialize()));
}

bool AddMetadataMapPatch(std::string_view field, const std::map<std::string, std::string>& current,
                         const std::map<std::string, std::string>& desired,
                         const std::function<bool(std::string_view)>& owned,
                         k8s::JsonBuilder* patch) {
  bool changed = false;
  for (const auto& [key, value] : desired) {
    if (!owned(key)) continue;
    auto have = current.find(key);
    if (have != current.end() && have->second == value) continue;
    patch->SetString({"metadata", field, key}, value);
    changed = true;
  }
  for (const auto& [key, value] : current) {
    if (!owned(key) || desired.count(key) != 0) continue;
    patch->SetNull({"metadata", field, key});
    changed = true;
  }
  return changed;
}

std::string LabelPatch(const std::map<std::string, std::string>& current,
                       const std::map<std::string, std::string>& desired,
                       const std::function<bool(std::string_view)>& owned) {
  k8s::JsonBuilder patch;
  if (!AddMetadataMapPatch("labels", current, desired, owned, &patch)) return "";
  return patch.object().Serialize();
}

k8s::JsonObject ControllerOwner(std::string_view kind, const crd::ObjectMeta& meta) {
  k8s::JsonBuilder owner(Obj(R"({"controller":true,"blockOwnerDeletion":true})"));
  owner.SetString({"apiVersion"}, crd::kApiVersion);
  owner.SetString({"kind"}, kind);
  owner.SetString({"name"}, meta.name);
  owner.SetString({"uid"}, meta.uid.value_or(""));
  return std::move(owner).Build();
}

k8s::JsonObject NodeControllerOwner(std::string_view name, std::string_view uid) {
  k8s::JsonBuilder owner;
  owner.SetString({"apiVersion"}, "v1");
  owner.SetString({"kind"}, "Node");
  owner.SetString({"name"}, name);
  owner.SetString({"uid"}, uid);
  owner.SetBool({"controller"}, true);
  return std::move(owner).Build();
}

k8s::JsonObject EnvValue(std::string_view name, std::string_view value) {
  k8s::JsonBuilder e;
  e.SetString({"name"}, name);
  e.SetString({"value"}, value);
  return std::move(e).Build();
}

k8s::JsonObject EnvSecret(std::string_view name, std::string_view secret, std::string_view key) {
  k8s::JsonBuilder e;
  e.SetString({"name"}, name);
  e.SetString({"valueFrom", "secretKeyRef", "name"}, secret);
  e.SetString({"valueFrom", "secretKeyRef", "key"}, key);
  return std::move(e).Build();
}

k8s::JsonObject Mount(std::string_view name, std::string_view path, bool read_only) {
  k8s::JsonBuilder m;
  m.SetString({"name"}, name);
  m.SetString({"mountPath"}, path);
  if (read_only) m.SetBool({"readOnly"}, true);
  return std::move(m).Build();
}

k8s::JsonObject HostPathVolume(std::string_view name, std::string_view path,
                               std::string_view type) {
  k8s::JsonBuilder v;
  v.SetString({"name"}, name);
  v.SetString({"hostPath", "path"}, path);
  v.SetString({"hostPath", "type"}, type);
  return std::move(v).Build();
}

k8s::JsonObject HostCleanupContainer(std::string_view name, std::string_view image,
                                     const std::vector<std::string>& args,
                                     std::string_view state_dir,
                                     const k8s::JsonObject& host_mount) {
  k8s::JsonBuilder c;
  c.SetString({"name"}, name);
  c.SetString({"image"}, image);
  for (const std::string& a : args) c.Append({"args"}, Str(a));
  k8s::JsonBuilder ready(Obj(R"({"periodSeconds":2,"timeoutSeconds":2,"failureThreshold":1})"));
  for (std::string_view a : {std::string_view("rdmastack-client"), std::string_view("ready"),
                             std::string_view("--state-dir"), state_dir})
    ready.Append({"exec", "command"}, Str(a));
  c.Set({"readinessProbe"}, ready);
  // Root owns what it removes; no capability is needed for that.
  c.Set({"securityContext"},
        Obj(R"({"runAsUser":0,"allowPrivilegeEscalation":false,)"
            R"("readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}})"));
  c.Set({"resources"},
        Obj(R"({"requests":{"cpu":"10m","memory":"16Mi"},"limits":{"memory":"64Mi"}})"));
  c.Append({"volumeMounts"}, host_mount);
  c.Append({"volumeMounts"}, Mount("state", state_dir, false));
  return std::move(c).Build();
}

k8s::JsonObject StateVolume() {
  return Obj(R"({"name":"state","emptyDir":{"medium":"Memory"}})");
}

}  // namespace rdmastack::controllers
