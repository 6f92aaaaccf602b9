// Fuzzes must-gather's redaction (must_gather/redact.h): the first line of the input is a Secret's
// value, the rest a file of the bundle. Whatever the bytes, a scrubbed file holds neither the
// value nor its base64, a Secret's inventory holds its names and nothing else, and the key- and
// text-based redactions never crash.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "operator/k8s/config.h"

namespace {

// Whether `needle` occurs in `scrubbed` made of its own bytes only. An occurrence that overlaps a
// "<redacted>" marker is the marker's text next to what was kept (a secret "<redacted" or
// "ted>abcdefgh" can be spelled that way), not a leak.
bool FoundOutsideMarkers(std::string_view scrubbed, std::string_view needle) {
  const std::string_view marker = rdmastack::plugin::kRedacted;
  std::vector<bool> in_marker(scrubbed.size(), false);
  for (size_t at = scrubbed.find(marker); at != std::string_view::npos;
       at = scrubbed.find(marker, at + 1))
    std::fill_n(in_marker.begin() + static_cast<std::ptrdiff_t>(at), marker.size(), true);
  for (size_t at = scrubbed.find(needle); at != std::string_view::npos;
       at = scrubbed.find(needle, at + 1)) {
    const auto begin = in_marker.begin() + static_cast<std::ptrdiff_t>(at);
    if (std::find(begin, begin + static_cast<std::ptrdiff_t>(needle.size()), true) ==
        begin + static_cast<std::ptrdiff_t>(needle.size()))
      return true;
  }
  return false;
}

}  // namespace

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
    if (FoundOutsideMarkers(scrubbed, secret)) std::abort();
    if (FoundOutsideMarkers(scrubbed, k8s::EncodeBase64(secret))) std::abort();
  }
  (void)plugin::RedactText(text);

  auto object = k8s::JsonObject::Parse(text);
  if (!object.ok()) return 0;
  k8s::JsonObject copy = *object;
  (void)plugin::RedactObject(copy);
  k8s::JsonObject values = *object;
  (void)plugin::RedactValues(values);
  // The inventory is the Secret's name, namespace, type and key names, exactly: a value can reach
  // it only by also being one of those, which kubectl describe shows too. Judged on the structure,
  // not by searching its text, since a value may well be a substring of a key name.
  plugin::SecretScrubber from_secret;
  const k8s::JsonObject inventory = plugin::SecretInventory(*object, from_secret);
  std::set<std::string> keys;
  for (const char* field : {"data", "stringData"})
    for (const auto& [key, value] : object->GetStringMap({field})) keys.insert(key);
  const rapidjson::Value& root = inventory.value();
  if (!root.IsObject() || root.MemberCount() != 4) std::abort();
  if (inventory.GetString({"name"}) != std::string(object->Name())) std::abort();
  if (inventory.GetString({"namespace"}) != std::string(object->Namespace())) std::abort();
  if (inventory.GetString({"type"}) != object->GetString({"type"}).value_or("")) std::abort();
  const auto listed = root.FindMember("keys");
  if (listed == root.MemberEnd() || !listed->value.IsArray()) std::abort();
  std::set<std::string> shown;
  for (const rapidjson::Value& key : listed->value.GetArray()) {
    if (!key.IsString()) std::abort();
    shown.emplace(key.GetString(), key.GetStringLength());
  }
  if (shown != keys || listed->value.Size() != keys.size()) std::abort();
  // Taking the inventory arms the scrubber with every value, so the rest of the bundle hides them.
  for (const char* field : {"data", "stringData"})
    for (const auto& [key, value] : object->GetStringMap({field}))
      if (value.size() >= plugin::SecretScrubber::kMinScrubLength &&
          value.find(plugin::kRedacted) == std::string::npos &&
          FoundOutsideMarkers(from_secret.Scrub(value), value))
        std::abort();
  return 0;
}
