#pragma once
// Every way the launcher (and the probe) can refuse, each with its own exit code, so a pod's
// termination message and exit status tell the operator which class of problem it is.

#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::gateway {

enum class RefusalClass {
  kUsage = 64,        // a flag or environment value is missing or malformed
  kCredentials = 65,  // root keys absent from the environment
  kLibraryPin = 66,   // pinned libcuobjserver missing, SONAME/major mismatch, stale mixed build
  kRdmaAddress = 67,  // interface/CIDR yields no usable IPv4, or it is not on an active RDMA port
  kMemoryLock = 68,   // neither CAP_IPC_LOCK nor RLIMIT_MEMLOCK covers the buffer pool
  kFilesystem = 69,   // gateway root missing, config directory not writable
  kExec = 70,         // the gateway binary could not be executed
  kTls = 71,          // the TLS certificate or key cannot be read, does not parse or does not match
  kLibraryDigest = 72,    // the pinned libcuobjserver's bytes differ from the pinned sha256
  kBackendMetadata = 73,  // metadata Xattr on a root whose file system keeps no user xattrs
};

struct Refusal {
  RefusalClass cls;
  std::string message;  // says what is wrong and what to do; one line

  int exit_code() const { return static_cast<int>(cls); }
  // "rdmastack-gateway: refused (library-pin): <message>"
  std::string ToLine() const;
};

std::string_view RefusalClassName(RefusalClass cls);

inline Refusal Refuse(RefusalClass cls, const Status& status) {
  return {cls, status.message()};
}

}  // namespace rdmastack::gateway
