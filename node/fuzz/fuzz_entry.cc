#include "node/fuzz/fuzz_entry.h"

#include <string_view>

#include "base/quantity.h"
#include "node/probe/device_prober.h"
#include "node/probe/ip_source.h"
#include "node/probe/parsers.h"

namespace rdmastack::node {

void FuzzParsersOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto lines = ParsePciResource(text); lines.ok()) {
    if (auto bar1 = FindGpuBar1(*lines); bar1.ok() && bar1->size == 0)
      __builtin_trap();  // a BAR has a size
  }
  if (auto gid = ParseGid(text); gid.ok()) {
    // Whatever parses must format back to a string that parses to the same bytes.
    auto again = ParseGid(FormatGid(*gid));
    if (!again.ok() || *again != *gid) __builtin_trap();
  }
  (void)GidFromIpoibAddress(text);
  (void)Ipv4MappedGid(text);
  (void)ParseNumberedState(text);
  (void)ParseProcModules(text);
  (void)ParseOfedVersion(text);
  (void)ParseKernelRelease(text);
  (void)ParseNvidiaVersionFile(text);
  (void)ParseByteQuantity(text);
  (void)ParseHex(text);
  (void)ParseDecimal(text);
  (void)ParseIpsFile(text);
  (void)ParseRecordedProbes(text, "fuzz");
}

}  // namespace rdmastack::node
