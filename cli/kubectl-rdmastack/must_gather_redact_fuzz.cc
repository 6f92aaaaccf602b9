// Fuzzes must-gather's redaction (must_gather/redact.h): the first line of the input is a Secret's
// value, the rest a file of the bundle. Whatever the bytes, a scrubbed file holds neither the
// value nor its base64, a Secret's inventory holds none of its values, and the key- and text-based
// redactions never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "operator/k8s/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmastack;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view secret = input.substr(0, newline);
  const std::string_view text = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  plugin::SecretScrubber scrubber;
  scrubber.Add(secret);
  const std::string scrubbed = scrubber.Scrub(text);
  if (secret.size() >= plugin::SecretScrubber::kMinScrubLength &&
      secret.find(plugin::kRedacted) == std::string_view::npos) {
    if (scrubbed.find(secret) != std::string::npos) std::abort();
    const std::string b64 = k8s::EncodeBase64(secret);
    if (scrubbed.find(b64) != std::string::npos) std::abort();
  }
  (void)plugin::RedactText(text);

  auto object = k8s::JsonObject::Parse(text);
  if (!object.ok()) return 0;
  k8s::JsonObject copy = *object;
  (void)plugin::RedactObject(copy);
  k8s::JsonObject values = *object;
  (void)plugin::RedactValues(values);
  plugin::SecretScrubber from_secret;
  const std::string inventory = plugin::SecretInventory(*object, from_secret).Serialize();
  for (const std::string& key : object->Keys({"data"})) {
    const std::string value = object->GetString({"data", key}).value_or("");
    // Keys are shown; a value is never, unless it is also a key name or too short to matter.
    if (value.size() >= 16 && inventory.find(value) != std::string::npos &&
        key.find(value) == std::string::npos && value != object->GetString({"type"}) &&
        value != object->GetString({"metadata", "name"}))
      std::abort();
  }
  return 0;
}
