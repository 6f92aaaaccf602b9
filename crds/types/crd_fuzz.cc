// Fuzzes the CRD decoders: whatever the bytes, parsing never crashes, a parsed object serialises
// and parses back to itself, and the semantic validator and quantity parser accept any value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/quantity.h"
#include "crds/types/json.h"
#include "crds/types/validate.h"

namespace {

template <typename T>
void Exercise(std::string_view input) {
  rdmastack::StatusOr<T> parsed = rdmastack::crd::ParseResource<T>(input);
  if (!parsed.ok()) return;
  rdmastack::StatusOr<T> again =
      rdmastack::crd::ParseResource<T>(rdmastack::crd::SerializeResource(*parsed));
  if (!again.ok() || !(*again == *parsed)) std::abort();  // the round trip must be exact
  (void)rdmastack::crd::Validate(*parsed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)rdmastack::ParseQuantity(input);
  Exercise<rdmastack::crd::GatewayPool>(input);
  Exercise<rdmastack::crd::ClientProfile>(input);
  Exercise<rdmastack::crd::RdmaNode>(input);
  return 0;
}
