#include "operator/runtime/compact_object.h"

#include <rapidjson/document.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rdmastack::runtime {

namespace {

// The pool and the object that uses it, kept alive together by one shared_ptr. Members are
// destroyed in reverse order: the object before its pool.
struct CompactHolder {
  explicit CompactHolder(size_t chunk_size) : pool(chunk_size) {}
  rapidjson::MemoryPoolAllocator<> pool;
  k8s::JsonObject object;
};

}  // namespace

std::shared_ptr<const k8s::JsonObject> CompactCopy(const k8s::JsonObject& object) {
  const std::string text = object.Serialize();
  // Values take 16 bytes each plus their strings; twice the JSON text covers typical objects in
  // one chunk (a larger object simply gets a second chunk).
  auto holder = std::make_shared<CompactHolder>(2 * text.size() + 64);
  rapidjson::Document compact(&holder->pool);
  compact.Parse(text.data(), text.size());
  if (compact.HasParseError()) return std::make_shared<const k8s::JsonObject>(object);
  // Swapping moves the pool-backed tree into the object; the object's own (empty, never
  // allocated) default pool goes to `compact` and dies with it.
  holder->object.document().Swap(compact);
  return std::shared_ptr<const k8s::JsonObject>(holder, &holder->object);
}

void ReleaseFreeMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace rdmastack::runtime
