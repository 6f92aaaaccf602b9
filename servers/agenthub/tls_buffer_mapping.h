#pragma once
// Gives OpenSSL's large buffers (each TLS connection's ~17 KiB BIO pair and record buffers) a
// mapping of their own, every time. glibc maps a block of at least M_MMAP_THRESHOLD only when its
// arena cannot serve it; after a reconnect storm the old connections' freed small objects leave
// holes that glibc fills with the new connections' buffers, whose every page is then resident
// (pages the old objects had touched). A fresh mapping holds only the pages OpenSSL writes: a
// connection that moves a few dozen bytes a heartbeat touches a page or two of each buffer.
// docs/agenthub.md "The reconnect storm's memory".
//
// Installs process-wide through CRYPTO_set_mem_functions, so it must run before OpenSSL allocates
// anything: first thing in main().

#include <cstddef>

#include "base/status.h"

namespace rdmastack::agenthub {

struct TlsBufferMappingOptions {
  // OpenSSL allocations of at least this many bytes get their own mapping.
  size_t threshold_bytes = 16 * 1024;
  // Past this many mappings the heap serves them: every mapping is one of the kernel's
  // vm.max_map_count (65,530 by default) per process, which thread stacks and glibc need too, and
  // a TLS connection holds four. 0 = half of vm.max_map_count as read at install.
  size_t max_mappings = 0;
};

// FailedPrecondition when OpenSSL has already allocated or this is the second install;
// InvalidArgument for a threshold below one page. Nothing changes on error.
Status MapLargeOpenSslBuffers(const TlsBufferMappingOptions& options = {});

// Bytes held in such mappings now (page-rounded), for tests and the bench.
size_t MappedOpenSslBytes();

}  // namespace rdmastack::agenthub
