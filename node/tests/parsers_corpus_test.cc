// Replays the fuzz corpus (node/fuzz/corpus) through the same entry point the
// libFuzzer target uses, so a plain gcc build exercises every parser on every seed (and on any
// crash input saved there).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "node/fuzz/fuzz_entry.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

TEST(ParsersCorpusTest, EverySeedRunsThroughEveryParser) {
  const std::filesystem::path dir = testing::SourceDir() + "/node/fuzz/corpus";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    FuzzParsersOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    // Truncations are the commonest malformed sysfs input: every prefix must be survivable too.
    for (size_t n = 0; n < bytes.size(); n += 7) {
      FuzzParsersOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), n);
    }
    ++files;
  }
  EXPECT_GE(files, 15);
}

}  // namespace
}  // namespace rdmastack::node
