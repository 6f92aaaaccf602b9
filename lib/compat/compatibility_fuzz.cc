// Fuzz target: the compatibility file comes from a ConfigMap an operator edits by hand; any text
// must parse or be rejected with a status, never crash or throw past the seam.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lib/compat/compatibility.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto m = rdmastack::compat::ParseCompatibility(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (m.ok()) {
    for (const auto& b : m->gateway_builds()) {
      for (const auto& l : m->server_libraries()) (void)m->CheckGatewayLibrary(b.name, l.version);
    }
    for (const auto& c : m->client_interop())
      (void)m->CheckClientServer(c.client_version_prefix, 1);
  }
  return 0;
}
