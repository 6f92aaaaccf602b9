// Fuzzes the informer cache's compact copy (compact_object.h): whatever object the API server
// sends, the copy the cache keeps serialises exactly as the object it was made from.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "operator/runtime/compact_object.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto object = rdmastack::k8s::JsonObject::Parse(text);
  if (!object.ok()) return 0;
  const auto copy = rdmastack::runtime::CompactCopy(*object);
  if (copy == nullptr || copy->Serialize() != object->Serialize()) std::abort();
  return 0;
}
