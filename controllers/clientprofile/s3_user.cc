#include "controllers/clientprofile/s3_user.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cctype>

#include "base/rfc3339.h"
#include "base/sha256.h"
#include "controllers/common/render.h"
#include "operator/k8s/config.h"

namespace rdmastack::clientprofile {
namespace {

using controllers::Obj;
using controllers::Str;

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string ProfileDigest(std::string_view ns, std::string_view name) {
  return Upper(Sha256Hex(std::string(ns) + "/" + std::string(name)).substr(0, 8));
}

}  // namespace

std::string S3UserSecretName(std::string_view profile) {
  return std::string(profile) + "-s3-user";
}

std::optional<crd::CredentialsSecretRef> ClientCredentials(const crd::ClientProfile& profile) {
  if (profile.spec.credentials_secret) return profile.spec.credentials_secret;
  if (!profile.spec.s3_user) return std::nullopt;
  return crd::CredentialsSecretRef{S3UserSecretName(profile.metadata.name), kS3UserAccessKeyKey,
                                   kS3UserSecretKeyKey};
}

std::string S3UserKeyPrefix(std::string_view ns, std::string_view name) {
  return "RS" + ProfileDigest(ns, name);
}

std::string S3UserStatementId(std::string_view ns, std::string_view name) {
  return "rdmastack" + ProfileDigest(ns, name);
}

s3::Credentials S3UserKeysFrom(std::string_view prefix, std::string_view random) {
  static constexpr std::string_view kIdChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static constexpr std::string_view kSecretChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  s3::Credentials keys;
  keys.access_key_id = std::string(prefix);
  size_t i = 0;
  while (keys.access_key_id.size() < 20 && i < random.size())
    keys.access_key_id += kIdChars[static_cast<unsigned char>(random[i++]) % kIdChars.size()];
  while (keys.secret_access_key.size() < 40 && i < random.size())
    keys.secret_access_key +=
        kSecretChars[static_cast<unsigned char>(random[i++]) % kSecretChars.size()];
  return keys;
}

StatusOr<s3::Credentials> NewS3UserKeys(std::string_view prefix) {
  std::string random(64, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(random.data()),
                 static_cast<int>(random.size())) != 1)
    return InternalError("OpenSSL RAND_bytes failed: no keys made for the S3 user");
  return S3UserKeysFrom(prefix, random);
}

StatusOr<S3UserSecret> ReadS3UserSecret(const k8s::JsonObject& secret) {
  S3UserSecret out;
  auto id = k8s::DecodeBase64(secret.GetString({"data", kS3UserAccessKeyKey}).value_or(""));
  auto key = k8s::DecodeBase64(secret.GetString({"data", kS3UserSecretKeyKey}).value_or(""));
  if (!id.ok() || !key.ok() || id->empty() || key->empty())
    return FailedPreconditionError("Secret " + secret.Key() + " lacks usable " +
                                   kS3UserAccessKeyKey + "/" + kS3UserSecretKeyKey);
  out.keys = {*id, *key};
  out.rotation = secret.Annotation(kS3UserRotationAnnotation).value_or("");
  out.previous_access_key = secret.Annotation(kS3UserPreviousKeyAnnotation).value_or("");
  if (auto at = secret.Annotation(kS3UserRotatedAtAnnotation)) {
    if (auto t = ParseRfc3339(*at); t.ok()) out.rotated_at = *t;
  }
  return out;
}

k8s::JsonObject RenderS3UserSecret(const crd::ClientProfile& profile, const S3UserSecret& state) {
  k8s::JsonBuilder s(Obj(R"({"apiVersion":"v1","kind":"Secret","type":"Opaque"})"));
  s.SetString({"metadata", "name"}, S3UserSecretName(profile.metadata.name));
  s.SetString({"metadata", "namespace"}, profile.metadata.namespace_.value_or(""));
  s.SetString({"metadata", "labels", kProfileLabel}, profile.metadata.name);
  s.SetString({"metadata", "labels", "app.kubernetes.io/component"}, kS3UserComponent);
  s.SetString({"metadata", "labels", "app.kubernetes.io/managed-by"}, "rdmastack");
  s.SetString({"metadata", "annotations", kS3UserRotationAnnotation}, state.rotation);
  if (!state.previous_access_key.empty())
    s.SetString({"metadata", "annotations", kS3UserPreviousKeyAnnotation},
                state.previous_access_key);
  if (state.rotated_at)
    s.SetString({"metadata", "annotations", kS3UserRotatedAtAnnotation},
                FormatRfc3339(*state.rotated_at));
  s.Append({"metadata", "ownerReferences"},
           controllers::ControllerOwner("ClientProfile", profile.metadata));
  s.SetString({"data", kS3UserAccessKeyKey}, k8s::EncodeBase64(state.keys.access_key_id));
  s.SetString({"data", kS3UserSecretKeyKey}, k8s::EncodeBase64(state.keys.secret_access_key));
  return std::move(s).Build();
}

std::string PreviousKeyInGrace(const S3UserSecret& state, const crd::S3UserSpec& spec,
                               std::chrono::system_clock::time_point now) {
  if (state.previous_access_key.empty() || !state.rotated_at) return "";
  return now < *state.rotated_at + std::chrono::seconds(spec.previous_key_grace_seconds)
             ? state.previous_access_key
             : "";
}

StatusOr<std::string> WithProfileStatement(std::string_view policy, std::string_view sid,
                                           std::string_view bucket,
                                           const std::vector<std::string>& principals) {
  k8s::JsonObject doc = Obj(R"({"Version":"2012-10-17"})");
  if (!policy.empty()) {
    auto parsed = k8s::JsonObject::Parse(policy);
    if (!parsed.ok() || !parsed->value().IsObject())
      return FailedPreconditionError("the bucket policy of " + std::string(bucket) +
                                     " is not a JSON policy document");
    doc = std::move(*parsed);
  }
  std::vector<k8s::JsonObject> statements;
  for (k8s::JsonObject& st : doc.GetArray({"Statement"})) {
    if (st.GetString({"Sid"}) != sid) statements.push_back(std::move(st));
  }
  if (!principals.empty()) {
    k8s::JsonBuilder st(Obj(R"({"Effect":"Allow","Action":["s3:*"]})"));
    st.SetString({"Sid"}, sid);
    for (const std::string& p : principals) st.Append({"Principal", "AWS"}, Str(p));
    st.Append({"Resource"}, Str("arn:aws:s3:::" + std::string(bucket)));
    st.Append({"Resource"}, Str("arn:aws:s3:::" + std::string(bucket) + "/*"));
    statements.push_back(std::move(st).Build());
  }
  if (statements.empty()) return std::string();
  RDMASTACK_RETURN_IF_ERROR(doc.SetArray({"Statement"}, statements));
  return doc.Serialize();
}

StatusOr<std::string> WithoutStaleProfileStatements(std::string_view policy,
                                                    const std::set<std::string>& users) {
  if (policy.empty()) return std::string();
  auto doc = k8s::JsonObject::Parse(policy);
  if (!doc.ok() || !doc->value().IsObject())
    return FailedPreconditionError("a bucket policy is not a JSON policy document");
  std::vector<k8s::JsonObject> kept;
  bool dropped = false;
  for (k8s::JsonObject& st : doc->GetArray({"Statement"})) {
    const std::string sid = st.GetString({"Sid"}).value_or("");
    bool stale = false;
    if (sid.size() == 17 && sid.rfind("rdmastack", 0) == 0) {
      for (const auto& p : st.GetArray({"Principal", "AWS"})) {
        if (p.value().IsString() && users.count(p.value().GetString()) == 0) stale = true;
      }
    }
    if (stale) {
      dropped = true;
    } else {
      kept.push_back(std::move(st));
    }
  }
  if (!dropped) return std::string(policy);
  if (kept.empty()) return std::string();
  RDMASTACK_RETURN_IF_ERROR(doc->SetArray({"Statement"}, kept));
  return doc->Serialize();
}

}  // namespace rdmastack::clientprofile
