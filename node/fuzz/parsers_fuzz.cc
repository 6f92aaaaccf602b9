// libFuzzer target over the agent's parsers (built in the asan preset's tree: clang-14,
// RDMASTACK_FUZZ=ON).
#include "node/fuzz/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmastack::node::FuzzParsersOneInput(data, size);
  return 0;
}
