#include "servers/agenthub/tls_buffer_mapping.h"

#include <malloc.h>
#include <openssl/crypto.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace rdmastack::agenthub {
namespace {

struct Mappings {
  std::mutex mu;
  // Page-aligned address -> bytes asked for.
  std::unordered_map<uintptr_t, size_t> sizes;
  std::atomic<size_t> mapped_bytes{0};
  std::atomic<size_t> mappings{0};  // claimed, a few ahead of `sizes` while being mapped
};

// Never destroyed: OpenSSL frees from its own atexit handler, which may run after static
// destructors.
Mappings& State() {
  static Mappings* const state = new Mappings;
  return *state;
}

std::atomic<size_t> threshold{SIZE_MAX};
std::atomic<size_t> max_mappings{0};
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

size_t Rounded(size_t n) {
  return (n + kPage - 1) / kPage * kPage;
}

// Only a page-aligned pointer can be one of ours; glibc's are almost never page-aligned, so most
// frees never take the lock.
bool MaybeMapped(const void* p) {
  return p != nullptr && reinterpret_cast<uintptr_t>(p) % kPage == 0;
}

// The size asked for when `p` is one of ours, else 0.
size_t MappedSize(const void* p) {
  if (!MaybeMapped(p)) return 0;
  Mappings& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.sizes.find(reinterpret_cast<uintptr_t>(p));
  return it == s.sizes.end() ? 0 : it->second;
}

void Remember(void* p, size_t n) {
  Mappings& s = State();
  std::lock_guard lock(s.mu);
  s.sizes[reinterpret_cast<uintptr_t>(p)] = n;
  s.mapped_bytes += Rounded(n);
}

// Claims one of the mappings allowed; false when all are in use.
bool ClaimMapping() {
  std::atomic<size_t>& count = State().mappings;
  if (count.fetch_add(1) < max_mappings.load(std::memory_order_relaxed)) return true;
  count.fetch_sub(1);
  return false;
}

void Forget(void* p, size_t n) {
  Mappings& s = State();
  std::lock_guard lock(s.mu);
  s.sizes.erase(reinterpret_cast<uintptr_t>(p));
  s.mapped_bytes -= Rounded(n);
}

// The heap serves it when the mappings allowed are in use or the kernel refuses one.
void* Map(size_t n) {
  if (!ClaimMapping()) return std::malloc(n);
  void* p = mmap(nullptr, Rounded(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    State().mappings.fetch_sub(1);
    return std::malloc(n);
  }
  Remember(p, n);
  return p;
}

void Unmap(void* p, size_t n) {
  Forget(p, n);
  munmap(p, Rounded(n));
  State().mappings.fetch_sub(1);
}

// OpenSSL's own allocator returns nullptr for 0 bytes; so do these.
void* Allocate(size_t n, const char*, int) {
  if (n == 0) return nullptr;
  return n >= threshold.load(std::memory_order_relaxed) ? Map(n) : std::malloc(n);
}

void Free(void* p, const char*, int) {
  if (const size_t n = MappedSize(p); n > 0) {
    Unmap(p, n);
    return;
  }
  std::free(p);
}

void* Reallocate(void* p, size_t n, const char* file, int line) {
  if (p == nullptr) return Allocate(n, file, line);
  if (n == 0) {
    Free(p, file, line);
    return nullptr;
  }
  const size_t old_mapped = MappedSize(p);
  const bool map_new = n >= threshold.load(std::memory_order_relaxed);
  if (old_mapped == 0 && !map_new) return std::realloc(p, n);
  const size_t old_size = old_mapped > 0 ? old_mapped : malloc_usable_size(p);
  void* q = Allocate(n, file, line);
  if (q == nullptr) return nullptr;  // OpenSSL keeps `p`, as after a failed realloc
  std::memcpy(q, p, std::min(old_size, n));
  if (old_mapped > 0) {
    Unmap(p, old_mapped);
  } else {
    std::free(p);
  }
  return q;
}

// Half of the kernel's per-process limit on mappings.
size_t DefaultMaxMappings() {
  size_t limit = 65'530;
  if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r"); f != nullptr) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1 && v > 0) limit = static_cast<size_t>(v);
    std::fclose(f);
  }
  return limit / 2;
}

}  // namespace

Status MapLargeOpenSslBuffers(const TlsBufferMappingOptions& options) {
  if (options.threshold_bytes < kPage) {
    return InvalidArgumentError("TLS buffer mapping: the threshold must be at least one page (" +
                                std::to_string(kPage) + " bytes), not " +
                                std::to_string(options.threshold_bytes));
  }
  // OpenSSL only refuses once its own allocator has run: a second install would route the frees
  // of these mappings elsewhere.
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) {
    return FailedPreconditionError("TLS buffer mapping: already installed");
  }
  threshold = options.threshold_bytes;
  max_mappings = options.max_mappings > 0 ? options.max_mappings : DefaultMaxMappings();
  if (CRYPTO_set_mem_functions(Allocate, Reallocate, Free) != 1) {
    threshold = SIZE_MAX;
    installed = false;
    return FailedPreconditionError(
        "TLS buffer mapping: OpenSSL has already allocated memory; install it first thing in "
        "main()");
  }
  return OkStatus();
}

size_t MappedOpenSslBytes() {
  return State().mapped_bytes.load();
}

}  // namespace rdmastack::agenthub
