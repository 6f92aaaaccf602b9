// Feeds arbitrary bytes to everything that decodes API server responses: list bodies, watch
// lines, error bodies, and the generic object accessors. Any crash or sanitizer report is a bug.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "operator/k8s/api_error.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/rest_codec.h"

using rdmastack::k8s::JsonObject;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto list = rdmastack::k8s::DecodeObjectList(std::string(text));
  if (list.ok()) {
    for (const auto& item : list->items) (void)item.Key();
  }
  auto event = rdmastack::k8s::DecodeWatchEvent(std::string(text));
  if (event.ok()) (void)event->ErrorStatus();
  const rdmastack::k8s::ApiError error =
      rdmastack::k8s::ApiErrorFromResponse(429, text, text.substr(0, 4));
  (void)rdmastack::k8s::GetApiError(error.ToStatus().WithContext("fuzz"));
  (void)rdmastack::k8s::ApiErrorFromStatusJson(text);

  auto object = JsonObject::Parse(text);
  if (!object.ok()) return 0;
  JsonObject copy = *object;
  (void)copy.Serialize();
  (void)copy.Labels();
  (void)copy.OwnerReferences();
  (void)copy.Finalizers();
  (void)copy.Generation();
  (void)copy.GetArray({"items"});
  (void)copy.SetString({"metadata", "labels", "fuzz"}, "x");
  copy.MergeFrom(*object);
  (void)copy.Remove({"spec", "0"});
  return 0;
}
