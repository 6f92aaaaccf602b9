#include "controllers/common/credentials_secret.h"

namespace rdmastack::controllers {

SecretCheck CheckCredentialsSecret(const runtime::Store& secrets, const std::string& ns,
                                   const crd::CredentialsSecretRef& ref, std::string_view field) {
  const std::string name = ns + "/" + ref.name;
  const std::string in_field = " (" + std::string(field) + ")";
  const runtime::ObjectPtr secret = secrets.Get(name);
  if (secret == nullptr) {
    return {SecretState::kMissing, "Secret " + name + in_field + " does not exist; create it " +
                                       "with the keys " + ref.access_key_id_key + " and " +
                                       ref.secret_access_key_key};
  }
  for (const std::string& key : {ref.access_key_id_key, ref.secret_access_key_key}) {
    if (!secret->Has({"data", key}))
      return {SecretState::kKeyMissing,
              "Secret " + name + " has no key " + key + in_field + "; add it"};
  }
  return {SecretState::kPresent, ""};
}

}  // namespace rdmastack::controllers
