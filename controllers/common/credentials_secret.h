#pragma once
// Whether the Secret an object names for S3 keys is there with both keys, read from the Secrets
// cache, which holds the keys' names only (SecretKeysOnly), never their values.

#include <string>
#include <string_view>
#include <vector>

#include "controllers/common/namespaced_cache.h"
#include "crds/types/types.h"
#include "operator/k8s/client.h"

namespace rdmastack::controllers {

enum class SecretState { kPresent, kMissing, kKeyMissing };

struct SecretCheck {
  SecretState state = SecretState::kPresent;
  std::string message;  // what is missing and what to do; "" when present
};

// The Secret `ns`/`name` exists with every one of `keys`; `field` names the spec field in
// messages ("s3.tlsSecret").
SecretCheck CheckSecretKeys(const NamespacedCache& secrets, const std::string& ns,
                            const std::string& name, const std::vector<std::string>& keys,
                            std::string_view field);

// The decoded values of `keys` in Secret `ns`/`name`, in that order, read with a GET for this
// moment only (the cache never holds values). Errors: "cannot read Secret ns/name: ..." or
// "Secret ns/name lacks usable a/b" (a key missing, empty or not base64).
StatusOr<std::vector<std::string>> ReadSecretValues(k8s::Client& client, const std::string& ns,
                                                    const std::string& name,
                                                    const std::vector<std::string>& keys);

// `field` names the spec field in messages ("s3.credentialsSecret").
SecretCheck CheckCredentialsSecret(const NamespacedCache& secrets, const std::string& ns,
                                   const crd::CredentialsSecretRef& ref, std::string_view field);

}  // namespace rdmastack::controllers
