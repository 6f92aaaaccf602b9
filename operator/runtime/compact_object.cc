#include "operator/runtime/compact_object.h"

#include <rapidjson/document.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "base/json_parse.h"
#include "operator/k8s/json_copy.h"

namespace rdmastack::runtime {

namespace {

using rapidjson::SizeType;
using rapidjson::Value;

// The pool and the object that uses it, kept alive together by one shared_ptr. Members are
// destroyed in reverse order: the object before its pool.
struct CompactHolder {
  explicit CompactHolder(size_t chunk_size) : pool(chunk_size) {}
  rapidjson::MemoryPoolAllocator<> pool;
  k8s::JsonObject object;
};

// Longest string a Value holds inline (RapidJSON's ShortString::MaxSize): 13 characters with the
// 48-bit pointer layout of x86-64 and arm64, else 21 on 64-bit targets. Longer strings take
// length + 1 bytes of the pool. CompactCopyTest checks that the sizing below fills exactly one
// chunk.
#if RAPIDJSON_48BITPOINTER_OPTIMIZATION
constexpr SizeType kInlineStringMax = 13;
#elif RAPIDJSON_64BIT
constexpr SizeType kInlineStringMax = 21;
#else
constexpr SizeType kInlineStringMax = 13;
#endif

constexpr size_t Aligned(size_t n) {
  return RAPIDJSON_ALIGN(n);
}

size_t StringBytes(SizeType length) {
  return length > kInlineStringMax ? Aligned(length + 1) : 0;
}

// The pool bytes that building `v` with a Document handler takes: every array and object gets
// one block of exactly its element (member) count, and every long string its characters.
size_t PoolBytes(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kStringType: return StringBytes(v.GetStringLength());
    case rapidjson::kArrayType: {
      size_t n = Aligned(v.Size() * sizeof(Value));
      for (const auto& e : v.GetArray()) n += PoolBytes(e);
      return n;
    }
    case rapidjson::kObjectType: {
      size_t n = Aligned(v.MemberCount() * sizeof(Value::Member));
      for (const auto& m : v.GetObject())
        n += StringBytes(m.name.GetStringLength()) + PoolBytes(m.value);
      return n;
    }
    default: return 0;
  }
}

}  // namespace

std::shared_ptr<const k8s::JsonObject> CompactCopy(const k8s::JsonObject& object) {
  // One pass to size the pool, one to copy into it: the object's strings are copied once, and
  // the pool is one block of exactly what the copy needs (none for an object with no members).
  auto holder = std::make_shared<CompactHolder>(PoolBytes(object.value()));
  rapidjson::Document compact(&holder->pool);
  auto copy = [&](rapidjson::Document& d) {
    // Copies every string: the object's may point into its event's in-situ buffer.
    JsonDocumentBuilder builder(d, JsonDocumentBuilder::Strings::kCopy);
    return object.value().Accept(builder);
  };
  compact.Populate(copy);
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
