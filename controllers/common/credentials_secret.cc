#include "controllers/common/credentials_secret.h"

#include "operator/k8s/config.h"

namespace rdmastack::controllers {

SecretCheck CheckSecretKeys(const NamespacedCache& secrets, const std::string& ns,
                            const std::string& secret_name, const std::vector<std::string>& keys,
                            std::string_view field) {
  const std::string name = ns + "/" + secret_name;
  const std::string in_field = " (" + std::string(field) + ")";
  const runtime::ObjectPtr secret = secrets.Get(name);
  if (secret == nullptr) {
    std::string listed;
    for (size_t i = 0; i < keys.size(); ++i)
      listed += (i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + keys[i];
    return {SecretState::kMissing,
            "Secret " + name + in_field + " does not exist; create it with the keys " + listed};
  }
  for (const std::string& key : keys) {
    if (!secret->Has({"data", key}))
      return {SecretState::kKeyMissing,
              "Secret " + name + " has no key " + key + in_field + "; add it"};
  }
  return {SecretState::kPresent, ""};
}

StatusOr<std::vector<std::string>> ReadSecretValues(k8s::Client& client, const std::string& ns,
                                                    const std::string& name,
                                                    const std::vector<std::string>& keys) {
  auto secret = client.Get(k8s::kinds::Secret(), ns, name);
  if (!secret.ok()) {
    return Status(secret.status().code(), "cannot read Secret " + ns + "/" + name + ": " +
                                              std::string(secret.status().message()));
  }
  std::vector<std::string> values;
  for (const std::string& key : keys) {
    auto value = k8s::DecodeBase64(secret->GetString({"data", key}).value_or(""));
    if (!value.ok() || value->empty()) {
      std::string listed;
      for (const std::string& k : keys) listed += (listed.empty() ? "" : "/") + k;
      return FailedPreconditionError("Secret " + ns + "/" + name + " lacks usable " + listed);
    }
    values.push_back(std::move(*value));
  }
  return values;
}

SecretCheck CheckCredentialsSecret(const NamespacedCache& secrets, const std::string& ns,
                                   const crd::CredentialsSecretRef& ref, std::string_view field) {
  return CheckSecretKeys(secrets, ns, ref.name, {ref.access_key_id_key, ref.secret_access_key_key},
                         field);
}

}  // namespace rdmastack::controllers
