#include "controllers/common/render.h"

#include <openssl/sha.h>

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

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 0xf];
  }
  return hex;
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

}  // namespace rdmastack::controllers
