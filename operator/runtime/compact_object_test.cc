#include "operator/runtime/compact_object.h"

#include <gtest/gtest.h>

#include "operator/runtime/testing/mock_client.h"

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

TEST(CompactCopyTest, CopiesOfACompactObjectAreOrdinaryObjects) {
  auto compact = CompactCopy(testing::MakeObject("ns", "a", "1"));
  k8s::JsonObject copy = *compact;
  copy.SetLabel("edited", "yes");
  EXPECT_EQ(copy.Name(), "a");
  EXPECT_FALSE(compact->Label("edited").has_value());
}

}  // namespace
}  // namespace rdmastack::runtime
