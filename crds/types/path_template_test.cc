#include "crds/types/path_template.h"

#include <gtest/gtest.h>

namespace rdmastack::crd {
namespace {

const PathTemplateValues kValues{"stg-node-0", "kvcache", "storage"};

TEST(PathTemplateTest, RendersTheSeedPath) {
  EXPECT_EQ(*RenderPathTemplate("/lustre/agent/vol0/kvcache-s3-{nodeName}", kValues),
            "/lustre/agent/vol0/kvcache-s3-stg-node-0");
  EXPECT_EQ(*RenderPathTemplate("/data/{namespace}/{poolName}/{nodeName}", kValues),
            "/data/storage/kvcache/stg-node-0");
  EXPECT_EQ(*RenderPathTemplate("/plain", kValues), "/plain");
}

TEST(PathTemplateTest, RejectsBadTemplatesWithWhere) {
  EXPECT_NE(RenderPathTemplate("/x/{host}", kValues)
                .status()
                .message()
                .find("unknown placeholder {host}"),
            std::string::npos);
  EXPECT_NE(RenderPathTemplate("/x/{nodeName", kValues)
                .status()
                .message()
                .find("unclosed '{' at offset 3"),
            std::string::npos);
  EXPECT_NE(RenderPathTemplate("/x/}", kValues).status().message().find("stray '}'"),
            std::string::npos);
  EXPECT_FALSE(RenderPathTemplate("/x/{{nodeName}}", kValues).ok());
}

TEST(PathTemplateTest, ValuesCannotEscapeTheirSegment) {
  EXPECT_FALSE(RenderPathTemplate("/x/{nodeName}", {"../etc", "p", "n"}).ok());
  EXPECT_FALSE(RenderPathTemplate("/x/{nodeName}", {"..", "p", "n"}).ok());
  EXPECT_FALSE(RenderPathTemplate("/x/{nodeName}", {"", "p", "n"}).ok());
}

TEST(PathTemplateTest, PathIsWithinComparesWholeSegments) {
  EXPECT_TRUE(PathIsWithin("/lustre/agent/vol0/kvcache", "/lustre/agent/vol0"));
  EXPECT_TRUE(PathIsWithin("/lustre/agent/vol0", "/lustre/agent/vol0/"));
  EXPECT_TRUE(PathIsWithin("/anything", "/"));
  EXPECT_FALSE(PathIsWithin("/lustre/agent/vol01", "/lustre/agent/vol0"));
  EXPECT_FALSE(PathIsWithin("/lustre", "/lustre/agent"));
}

TEST(PathTemplateTest, LexicallyNormalWalksThePathAsTheKernelDoes) {
  const std::pair<const char*, const char*> cases[] = {
      {"/lustre/vol0", "/lustre/vol0"},
      {"/lustre/vol0/", "/lustre/vol0"},
      {"/lustre//vol0", "/lustre/vol0"},
      {"//lustre///vol0//", "/lustre/vol0"},
      {"/lustre/./vol0/.", "/lustre/vol0"},
      {"/lustre/x/../vol0", "/lustre/vol0"},
      {"/lustre/vol0/a/b/../..", "/lustre/vol0"},
      {"/../../lustre", "/lustre"},
      {"/..", "/"},
      {"/", "/"},
      {"", "/"},
      {"lustre/vol0", "/lustre/vol0"},
      {"/lustre/..vol0/...", "/lustre/..vol0/..."},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(LexicallyNormal(in), want) << in;
}

TEST(PathTemplateTest, PathsOverlapAfterNormalising) {
  EXPECT_TRUE(PathsOverlap("/lustre/vol0", "/lustre//vol0/"));
  EXPECT_TRUE(PathsOverlap("/lustre/./vol0/a", "/lustre/vol0"));
  EXPECT_TRUE(PathsOverlap("/lustre/vol0", "/lustre/vol1/../vol0/kv"));
  EXPECT_TRUE(PathsOverlap("/", "/anything"));
  EXPECT_FALSE(PathsOverlap("/lustre/vol0", "/lustre/vol01"));
  EXPECT_FALSE(PathsOverlap("/lustre/vol0/a", "/lustre/vol0/b"));
}

TEST(PathTemplateTest, DotDotSegments) {
  EXPECT_TRUE(HasDotDotSegment("/a/../b"));
  EXPECT_TRUE(HasDotDotSegment("/a/.."));
  EXPECT_FALSE(HasDotDotSegment("/a/..b/c"));
  EXPECT_FALSE(HasDotDotSegment("/a/b..c"));
}

}  // namespace
}  // namespace rdmastack::crd
