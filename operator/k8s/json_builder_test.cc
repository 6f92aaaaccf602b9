#include "operator/k8s/json_builder.h"

#include <gtest/gtest.h>

#include "operator/k8s/testing/json_text.h"

namespace rdmastack::k8s {
namespace {

// The renderers moved from JsonObject's setters to the builder: the same writes must give the same
// bytes, member order included.
TEST(JsonBuilderTest, WritesWhatJsonObjectWrites) {
  const JsonObject item = testing::JsonText(R"({"name":"a","readOnly":true})");
  JsonObject o;
  ASSERT_TRUE(o.SetString({"metadata", "name"}, "x").ok());
  ASSERT_TRUE(o.SetInt({"spec", "replicas"}, -3).ok());
  ASSERT_TRUE(o.SetBool({"spec", "paused"}, false).ok());
  ASSERT_TRUE(o.SetNull({"metadata", "labels", "gone"}).ok());
  ASSERT_TRUE(o.Set({"spec", "template"}, item).ok());
  ASSERT_TRUE(o.SetStringMap({"metadata", "annotations"}, {{"b", "2"}, {"a", "1"}}).ok());
  ASSERT_TRUE(o.SetArray({"spec", "list"}, {item, item}).ok());
  ASSERT_TRUE(o.Append({"spec", "volumes"}, item).ok());
  ASSERT_TRUE(o.Append({"spec", "volumes"}, item).ok());
  ASSERT_TRUE(o.SetString({"metadata", "name"}, "y").ok());  // replaced in place
  o.SetLabel("app", "web");

  JsonBuilder b;
  b.SetString({"metadata", "name"}, "x");
  b.SetInt({"spec", "replicas"}, -3);
  b.SetBool({"spec", "paused"}, false);
  b.SetNull({"metadata", "labels", "gone"});
  b.Set({"spec", "template"}, item);
  b.SetStringMap({"metadata", "annotations"}, {{"b", "2"}, {"a", "1"}});
  b.SetArray({"spec", "list"}, {item, item});
  b.Append({"spec", "volumes"}, item);
  b.Append({"spec", "volumes"}, item);
  b.SetString({"metadata", "name"}, "y");
  b.SetLabel("app", "web");
  EXPECT_EQ(b.object().Serialize(), o.Serialize());
}

TEST(JsonBuilderTest, MetadataSettersAndLiterals) {
  JsonBuilder b(testing::JsonText(R"({"kind":"old","spec":{}})"));
  b.SetApiVersion("v1");
  b.SetKind("ConfigMap");
  b.SetName("n");
  b.SetNamespace("ns");
  b.SetAnnotation("a/b.c", "d");
  EXPECT_EQ(std::move(b).Build().Serialize(),
            R"({"kind":"ConfigMap","spec":{},"apiVersion":"v1",)"
            R"("metadata":{"name":"n","namespace":"ns","annotations":{"a/b.c":"d"}}})");
}

TEST(JsonBuilderTest, ListsAndFragments) {
  JsonBuilder entry;
  entry.SetString({"name"}, "e");
  JsonBuilder list(JsonObject::Array());
  list.Append({}, entry);
  list.Append({}, entry);
  EXPECT_EQ(list.object().Serialize(), R"([{"name":"e"},{"name":"e"}])");

  JsonBuilder pod;
  pod.Set({"spec", "first"}, entry);
  pod.Set({"copy"}, pod);  // itself, as it was
  EXPECT_EQ(pod.object().Serialize(), R"({"spec":{"first":{"name":"e"}},)"
                                      R"("copy":{"spec":{"first":{"name":"e"}}}})");
  pod.Append({"self"}, pod);
  EXPECT_EQ(pod.object().GetArray({"self"}).size(), 1u);
}

// Where JsonObject's setters would fail, the write makes its path: segments are member names, a
// member that is not an object becomes one, and Append starts an array where there is none.
TEST(JsonBuilderTest, EveryWriteSucceeds) {
  JsonBuilder b(testing::JsonText(R"({"a":"text","list":[1,2],"n":5})"));
  b.SetString({"a", "b"}, "x");
  b.SetString({"list", "0"}, "y");
  b.Append({"n"}, testing::JsonText("3"));
  EXPECT_EQ(b.object().Serialize(), R"({"a":{"b":"x"},"list":{"0":"y"},"n":[3]})");

  JsonBuilder scalar(testing::JsonText(R"("just a string")"));
  scalar.SetInt({"x"}, 1);
  EXPECT_EQ(scalar.object().Serialize(), R"({"x":1})");
  scalar.Set({}, testing::JsonText("[]"));
  EXPECT_EQ(scalar.object().Serialize(), "[]");
}

// Strings of an in-situ parse point into that object's buffer; a copy must own its own.
TEST(JsonBuilderTest, CopiesOutlivePartsOfAnotherObject) {
  JsonBuilder b;
  {
    auto source = JsonObject::ParseOwned(R"({"name":"from a buffer","list":["x"]})");
    ASSERT_TRUE(source.ok());
    b.Set({"copy"}, *source);
    b.Append({"items"}, *source);
  }
  EXPECT_EQ(b.object().GetString({"copy", "name"}), "from a buffer");
  EXPECT_EQ(b.object().GetString({"items", "0", "list", "0"}), "x");
}

}  // namespace
}  // namespace rdmastack::k8s
