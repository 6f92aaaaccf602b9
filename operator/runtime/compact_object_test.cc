#include "operator/runtime/compact_object.h"

#include <gtest/gtest.h>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

TEST(CompactCopyTest, EqualContentIndependentOfTheSource) {
  struct Case {
    const char* what;
    std::string json;
  };
  const Case cases[] = {
      {"empty object", "{}"},
      {"nested",
       R"({"metadata":{"name":"a","labels":{"x/y":"z"}},"spec":{"n":[1,2.5,true,null]}})"},
      {"escaped strings", R"({"note":"line\nbreak \"quoted\" \u00e9"})"},
      {"large", "{\"data\":\"" + std::string(100'000, 'x') + "\"}"},
  };
  for (const Case& c : cases) {
    auto source = k8s::JsonObject::Parse(c.json);
    ASSERT_TRUE(source.ok()) << c.what;
    auto copy = CompactCopy(*source);
    EXPECT_EQ(*copy, *source) << c.what;
    EXPECT_EQ(copy->Serialize(), source->Serialize()) << c.what;
    source = k8s::JsonObject();  // the copy owns its memory
    EXPECT_FALSE(copy->Serialize().empty()) << c.what;
  }
}

// The copy's pool is sized before copying: one block, filled exactly. A pool that grew a second
// block, or kept bytes it never used, would show here (and in the informer's memory per object).
TEST(CompactCopyTest, OneBlockOfExactlyTheSizeNeeded) {
  const std::string cases[] = {
      "{}",
      R"({"a":1})",
      R"({"short":"13 characters","longer":"fourteen chars","n":[1,-2,3.5e300,18446744073709551615]})",
      R"({"metadata":{"name":"gpu-node-4321","labels":{"kubernetes.io/hostname":"gpu-node-4321",)"
      R"("a":"","b":"x"}},"spec":{"taints":[],"podCIDRs":["10.0.0.0/24"]},"status":{"conditions":)"
      R"([{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}]}})",
  };
  for (const std::string& json : cases) {
    auto source = k8s::JsonObject::ParseOwned(json);  // strings in situ, as a watch event's are
    ASSERT_TRUE(source.ok()) << json;
    auto copy = CompactCopy(*source);
    EXPECT_EQ(*copy, *source) << json;
    // Reading the pool needs the document; nothing is written.
    auto& pool = const_cast<k8s::JsonObject&>(*copy).document().GetAllocator();
    // Sized too big, or too small (a second block): bytes never used.
    EXPECT_EQ(pool.Size(), pool.Capacity()) << json;
    source = k8s::JsonObject();  // the copy does not point into the source's parse buffer
    EXPECT_EQ(copy->Serialize(), k8s::JsonObject::Parse(json)->Serialize()) << json;
  }
}

TEST(CompactCopyTest, CopiesOfACompactObjectAreOrdinaryObjects) {
  auto compact = CompactCopy(k8s::testing::MakeObject("ns", "a", "1"));
  k8s::JsonObject copy = *compact;
  copy.SetLabel("edited", "yes");
  EXPECT_EQ(copy.Name(), "a");
  EXPECT_FALSE(compact->Label("edited").has_value());
}

}  // namespace
}  // namespace rdmastack::runtime
