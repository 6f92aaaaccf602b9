#include "gateway/launcher/refusal.h"

#include "lib/compat/library_digest.h"
#include "lib/compat/named_refusal.h"

namespace rdmastack::gateway {

std::string_view RefusalClassName(RefusalClass cls) {
  switch (cls) {
    case RefusalClass::kUsage: return "usage";
    case RefusalClass::kCredentials: return "credentials";
    case RefusalClass::kLibraryPin: return "library-pin";
    case RefusalClass::kRdmaAddress: return "rdma-address";
    case RefusalClass::kMemoryLock: return "memory-lock";
    case RefusalClass::kFilesystem: return "filesystem";
    case RefusalClass::kExec: return "exec";
    case RefusalClass::kTls: return "tls";
    case RefusalClass::kLibraryDigest: return compat::kLibraryDigestRefusalClass;
    case RefusalClass::kBackendMetadata: return compat::kBackendMetadataRefusalClass;
  }
  return "unknown";
}

std::string Refusal::ToLine() const {
  std::string line = "rdmastack-gateway: refused (" + std::string(RefusalClassName(cls)) + "): ";
  // One line, whatever the underlying error text contained.
  for (char c : message) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return line;
}

}  // namespace rdmastack::gateway
