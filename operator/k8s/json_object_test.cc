#include "operator/k8s/json_object.h"

#include <gtest/gtest.h>

#include "operator/k8s/testing/json_text.h"

namespace rdmastack::k8s {
namespace {

constexpr std::string_view kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-0", "namespace": "prod", "uid": "u-1", "resourceVersion": "42",
               "generation": 3, "labels": {"app.kubernetes.io/name": "web", "tier": "front"},
               "annotations": {"note": "x", "count": 5},
               "finalizers": ["rdmastack.io/cleanup"],
               "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                    "uid": "rs-1", "controller": true}],
               "managedFields": [{"manager": "kubectl"}]},
  "spec": {"containers": [{"name": "a", "ports": [{"containerPort": 80}]}, {"name": "b"}]}
})";

struct ReadCase {
  std::string name;
  JsonPath path;
  std::optional<std::string> string_value;
  std::optional<int64_t> int_value;
};

TEST(JsonObjectTest, ReadsByPath) {
  const JsonObject pod = testing::JsonText(kPod);
  const std::vector<ReadCase> cases = {
      {"top-level string", {"kind"}, "Pod", std::nullopt},
      {"nested string", {"metadata", "name"}, "web-0", std::nullopt},
      {"label key with dots and slash",
       {"metadata", "labels", "app.kubernetes.io/name"},
       "web",
       std::nullopt},
      {"array index", {"spec", "containers", "1", "name"}, "b", std::nullopt},
      {"deep array", {"spec", "containers", "0", "ports", "0", "containerPort"}, std::nullopt, 80},
      {"index out of range", {"spec", "containers", "7", "name"}, std::nullopt, std::nullopt},
      {"non-numeric index", {"spec", "containers", "x"}, std::nullopt, std::nullopt},
      {"missing", {"status", "phase"}, std::nullopt, std::nullopt},
      {"through a scalar", {"kind", "x"}, std::nullopt, std::nullopt},
      {"number is not a string", {"metadata", "generation"}, std::nullopt, 3},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(pod.GetString(c.path), c.string_value) << c.name;
    EXPECT_EQ(pod.GetInt(c.path), c.int_value) << c.name;
  }
  EXPECT_TRUE(pod.Has({"spec", "containers"}));
  EXPECT_FALSE(pod.Has({"spec", "volumes"}));
  EXPECT_EQ(pod.GetArray({"spec", "containers"}).size(), 2u);
  EXPECT_EQ(pod.Keys({"metadata", "labels"}),
            (std::vector<std::string>{"app.kubernetes.io/name", "tier"}));
}

TEST(JsonObjectTest, TypedMetadata) {
  JsonObject pod = testing::JsonText(kPod);
  EXPECT_EQ(pod.ApiVersion(), "v1");
  EXPECT_EQ(pod.Kind(), "Pod");
  EXPECT_EQ(pod.Name(), "web-0");
  EXPECT_EQ(pod.Namespace(), "prod");
  EXPECT_EQ(pod.Uid(), "u-1");
  EXPECT_EQ(pod.ResourceVersion(), "42");
  EXPECT_EQ(pod.Generation(), 3);
  EXPECT_EQ(pod.Key(), "prod/web-0");
  EXPECT_FALSE(pod.IsBeingDeleted());
  // Non-string annotations are skipped, not turned into strings.
  EXPECT_EQ(pod.Annotations(), (std::map<std::string, std::string>{{"note", "x"}}));
  EXPECT_EQ(pod.Label("tier"), "front");
  EXPECT_EQ(pod.Label("absent"), std::nullopt);
  EXPECT_EQ(pod.Finalizers(), std::vector<std::string>{"rdmastack.io/cleanup"});
  auto owners = pod.OwnerReferences();
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0].kind, "ReplicaSet");
  EXPECT_TRUE(owners[0].controller);
  EXPECT_FALSE(owners[0].block_owner_deletion);
  pod.StripManagedFields();
  EXPECT_FALSE(pod.Has({"metadata", "managedFields"}));

  JsonObject node;
  node.SetName("n1");
  EXPECT_EQ(node.Key(), "n1");
  EXPECT_EQ(node.Generation(), 0);
  EXPECT_EQ(node.Namespace(), "");
}

// An empty string_view may hold a null pointer, on which RapidJSON asserts (the must-gather
// fuzzer found the plugin crashing on a Secret without a namespace).
TEST(JsonObjectTest, AnEmptyViewWithoutStorageIsAnEmptyString) {
  JsonObject o;
  ASSERT_TRUE(o.SetString({"a"}, std::string_view()).ok());
  o.SetNamespace(std::string_view());
  EXPECT_EQ(o.GetString({"a"}), "");
  EXPECT_EQ(o.Serialize(), R"({"a":"","metadata":{"namespace":""}})");
}

TEST(JsonObjectTest, WritesCreateIntermediateObjects) {
  JsonObject o;
  ASSERT_TRUE(o.SetString({"spec", "template", "metadata", "labels", "a.b/c"}, "v").ok());
  ASSERT_TRUE(o.SetInt({"spec", "replicas"}, 3).ok());
  ASSERT_TRUE(o.SetBool({"spec", "paused"}, true).ok());
  ASSERT_TRUE(o.SetDouble({"spec", "ratio"}, 0.5).ok());
  EXPECT_EQ(o.GetString({"spec", "template", "metadata", "labels", "a.b/c"}), "v");
  EXPECT_EQ(o.GetInt({"spec", "replicas"}), 3);
  EXPECT_EQ(o.GetBool({"spec", "paused"}), true);
  EXPECT_EQ(o.GetDouble({"spec", "ratio"}), 0.5);
  // Overwrite keeps one member.
  ASSERT_TRUE(o.SetInt({"spec", "replicas"}, 4).ok());
  EXPECT_EQ(o.Keys({"spec"}).size(), 4u);
  EXPECT_EQ(
      o.Serialize(),
      R"({"spec":{"template":{"metadata":{"labels":{"a.b/c":"v"}}},"replicas":4,"paused":true,"ratio":0.5}})");
}

TEST(JsonObjectTest, WriteThroughScalarFailsClearly) {
  JsonObject o = testing::JsonText(R"({"spec": "oops"})");
  Status s = o.SetString({"spec", "x"}, "v");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("'spec' is not an object"), std::string::npos) << s.message();
  EXPECT_EQ(o.GetString({"spec"}), "oops");  // untouched
}

TEST(JsonObjectTest, ArraysAppendIndexAndRemove) {
  JsonObject o;
  JsonObject item;
  item.SetName("first");
  ASSERT_TRUE(o.Append({"items"}, item).ok());
  item.SetName("second");
  ASSERT_TRUE(o.Append({"items"}, item).ok());
  ASSERT_TRUE(o.SetString({"items", "-", "metadata", "name"}, "third").ok());
  ASSERT_TRUE(o.SetString({"items", "0", "metadata", "name"}, "zeroth").ok());
  EXPECT_EQ(o.GetString({"items", "0", "metadata", "name"}), "zeroth");
  EXPECT_EQ(o.GetString({"items", "2", "metadata", "name"}), "third");
  EXPECT_EQ(o.SetString({"items", "9", "x"}, "v").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(o.Remove({"items", "1"}));
  EXPECT_EQ(o.GetArray({"items"}).size(), 2u);
  EXPECT_FALSE(o.Remove({"items", "5"}));
  EXPECT_FALSE(o.Remove({"nothing", "here"}));
  EXPECT_EQ(o.Append({"items", "0"}, item).code(), StatusCode::kFailedPrecondition);
}

TEST(JsonObjectTest, SetArrayIsTheInverseOfGetArray) {
  auto o = JsonObject::Parse(R"({"spec":{"items":[{"a":1},{"b":[2,3]}],"other":"x"}})");
  ASSERT_TRUE(o.ok());
  std::vector<JsonObject> items = o->GetArray({"spec", "items"});
  ASSERT_TRUE(items[0].SetInt({"a"}, 5).ok());
  items.push_back(items[1]);
  ASSERT_TRUE(o->SetArray({"spec", "items"}, items).ok());
  EXPECT_EQ(o->Serialize(), R"({"spec":{"items":[{"a":5},{"b":[2,3]},{"b":[2,3]}],"other":"x"}})");
  ASSERT_TRUE(o->SetArray({"spec", "items"}, {}).ok());
  EXPECT_EQ(o->Serialize(), R"({"spec":{"items":[],"other":"x"}})");
  ASSERT_TRUE(o->SetArray({"new", "list"}, items).ok());
  EXPECT_EQ(o->GetArray({"new", "list"}).size(), 3u);
  EXPECT_EQ(o->SetArray({"spec", "other", "x"}, items).code(), StatusCode::kFailedPrecondition);
}

TEST(JsonObjectTest, MergePatchFollowsRfc7386) {
  struct Case {
    std::string name, target, patch, want;
  };
  const std::vector<Case> cases = {
      {"replace scalar", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {"add member", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {"null deletes", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {"arrays replace", R"({"a":[1,2]})", R"({"a":[3]})", R"({"a":[3]})"},
      {"nested merge", R"({"a":{"b":1,"c":2}})", R"({"a":{"c":null,"d":3}})",
       R"({"a":{"b":1,"d":3}})"},
      {"object over scalar", R"({"a":"x"})", R"({"a":{"b":null,"c":1}})", R"({"a":{"c":1}})"},
      {"non-object patch replaces", R"({"a":1})", R"(["x"])", R"(["x"])"},
      {"empty patch is a no-op", R"({"a":1})", R"({})", R"({"a":1})"},
  };
  for (const auto& c : cases) {
    JsonObject target = testing::JsonText(c.target);
    target.MergeFrom(testing::JsonText(c.patch));
    EXPECT_EQ(target.Serialize(), c.want) << c.name;
  }
  JsonObject self = testing::JsonText(R"({"a":{"b":1}})");
  self.MergeFrom(self);  // aliasing is safe
  EXPECT_EQ(self.Serialize(), R"({"a":{"b":1}})");
}

TEST(JsonObjectTest, ParseErrorsCarryOffset) {
  auto bad = JsonObject::Parse(R"({"a": tru})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("byte"), std::string::npos);
  EXPECT_FALSE(JsonObject::ParseOwned("").ok());
  EXPECT_FALSE(JsonObject::ParseOwned("{\"a\":1} trailing").ok());
}

TEST(JsonObjectTest, DeepNestingIsAnErrorNotACrash) {
  const std::string hostile(1'000'000, '[');
  for (auto parsed : {JsonObject::Parse(hostile), JsonObject::ParseOwned(hostile)}) {
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("nested deeper than 512"), std::string::npos)
        << parsed.status().message();
  }
  // At the limit it still parses.
  const std::string deep = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  auto ok = JsonObject::Parse(deep);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(JsonObject(*ok).Serialize(), deep);
}

TEST(JsonObjectTest, CopiesOfInSituParsesAreIndependent) {
  std::optional<JsonObject> copy;
  {
    auto owned = JsonObject::ParseOwned(kPod);
    ASSERT_TRUE(owned.ok());
    JsonObject moved = std::move(*owned);
    copy = moved;  // copy must not point into `moved`'s buffer
    auto sub = moved.Get({"metadata", "labels"});
    ASSERT_TRUE(sub.has_value());
    copy->MergeFrom(*sub);
  }
  EXPECT_EQ(copy->Name(), "web-0");
  EXPECT_EQ(copy->GetString({"tier"}), "front");
  EXPECT_EQ(copy->Label("app.kubernetes.io/name"), "web");
}

TEST(JsonObjectTest, SetSubtreeAndEquality) {
  JsonObject a = testing::JsonText(R"({"x":1})");
  JsonObject b;
  ASSERT_TRUE(b.Set({"nested"}, a).ok());
  ASSERT_TRUE(b.Set({"self"}, b).ok());
  EXPECT_EQ(b.Serialize(), R"({"nested":{"x":1},"self":{"nested":{"x":1}}})");
  EXPECT_EQ(*b.Get({"nested"}), a);
  ASSERT_TRUE(b.SetStringMap({"labels"}, {{"k", "v"}}).ok());
  EXPECT_EQ(b.GetStringMap({"labels"}), (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_EQ(JsonPath::Dotted("spec.a.b").segments(), (std::vector<std::string>{"spec", "a", "b"}));
}

}  // namespace
}  // namespace rdmastack::k8s
