#pragma once
// Cache-friendly copies of objects. A k8s::JsonObject allocates from a RapidJSON memory pool whose
// first chunk is 64 KiB, so a 1 KiB object pins a 64 KiB block (and, once the heap has been
// touched by a large list, 64 KiB of resident memory). An informer keeps thousands of objects for
// hours; each cached object is therefore re-built in a pool sized to its content.

#include <memory>

#include "operator/k8s/json_object.h"

namespace rdmastack::runtime {

// An immutable deep copy of `object` whose memory is one block of exactly the size it needs;
// each string is copied once, straight from `object`.
std::shared_ptr<const k8s::JsonObject> CompactCopy(const k8s::JsonObject& object);

// Returns freed heap memory to the operating system (glibc malloc_trim); a no-op elsewhere.
// Called after a relist, when the full list has just been dropped.
void ReleaseFreeMemory();

}  // namespace rdmastack::runtime
