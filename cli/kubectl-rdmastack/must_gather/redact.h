#pragma once
// What keeps secret values out of a must-gather bundle (docs/plugin.md "What is never in it").
// Pure. Four layers, because a value can hide in more than one place:
//  - Secrets are never written: the bundle lists their names, types and keys only
//  (SecretInventory).
//  - Values by key: a helm value, an env literal or a `--flag=value` argument whose key looks like
//    a credential (LooksLikeCredentialKey) is replaced with kRedacted.
//  - kubectl's last-applied-configuration annotation, which holds a whole object as applied
//    (a Secret's data included), is dropped from every object.
//  - Values by content: every value of every Secret the plugin could read is searched for in
//    every file of the bundle (raw, base64 and JSON-escaped) and replaced (SecretScrubber), which
//    covers the places no rule foresees: events' messages, logs, annotations.

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "operator/k8s/json_object.h"

namespace rdmastack::plugin {

inline constexpr char kRedacted[] = "<redacted>";

// password, passwd, passphrase, secret, token, credential(s), apiKey, accessKey, privateKey, auth,
// dcKey, ... in any case and with any of '-', '_', '.' between the words; except keys that name a
// reference rather than hold a value (…Name, …Ref, …File, …Path, …Namespace), so
// `credentialsSecret.name` and `tokenFile` stay readable.
bool LooksLikeCredentialKey(std::string_view key);

// Helm values (the release's user-supplied `config`): every scalar under a credential-looking key
// (at any depth: `s3: {secretKey: x}`, `auth: {user: a, password: b}`) is replaced, except the
// reference keys above; strings elsewhere go through RedactText. Returns how many were replaced.
int RedactValues(k8s::JsonObject& values);

// `KEY=value`, `KEY: value`, `"KEY":"value"` and `--key=value` inside free text (an argument, an
// event message, a log line) with a credential-looking KEY: the value is replaced.
std::string RedactText(std::string_view text, int* replaced = nullptr);

// A Pod, Deployment, DaemonSet (any object with a pod spec at spec or spec.template.spec): env
// literals with credential-looking names, and credential-looking arguments (`--secret-key=x`,
// `--secret-key x`) of every container, init and ephemeral container. valueFrom references stay
// as they are. Also drops kubectl's last-applied-configuration annotation and managedFields.
int RedactObject(k8s::JsonObject& object);

// The values of Secrets, searched for in text. Values shorter than kMinScrubLength are not
// searched: they are ordinary words ("true", "admin") and replacing them would shred the bundle.
class SecretScrubber {
 public:
  static constexpr size_t kMinScrubLength = 8;
  void Add(std::string_view value);
  size_t size() const { return needles_.size(); }
  // Every occurrence of a value, its base64 and its JSON-escaped form becomes kRedacted.
  std::string Scrub(std::string_view text, int* replaced = nullptr) const;

 private:
  std::set<std::string> needles_;
};

// A Secret as the bundle shows it: name, type and the names of its keys (data and stringData),
// never a value. Adds its values to `scrubber`.
k8s::JsonObject SecretInventory(const k8s::JsonObject& secret, SecretScrubber& scrubber);

}  // namespace rdmastack::plugin
