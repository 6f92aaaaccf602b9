#pragma once
// One input through every text parser the agent applies to host files and flag files. Shared by
// the libFuzzer target (parsers_fuzz.cc, fuzz preset) and the corpus replay unit test (gcc).

#include <cstddef>
#include <cstdint>

namespace rdmastack::node {

void FuzzParsersOneInput(const uint8_t* data, size_t size);

}  // namespace rdmastack::node
