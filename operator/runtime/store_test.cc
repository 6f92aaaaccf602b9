#include "operator/runtime/store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using k8s::testing::MakeObject;

ObjectPtr Obj(const std::string& ns, const std::string& name, const std::string& rv,
              std::map<std::string, std::string> labels = {},
              std::vector<k8s::OwnerReference> owners = {}) {
  k8s::JsonObject o = MakeObject(ns, name, rv);
  for (const auto& [k, v] : labels) o.SetLabel(k, v);
  for (const auto& ref : owners) k8s::testing::AddOwnerReference(o, ref);
  return std::make_shared<const k8s::JsonObject>(std::move(o));
}

std::vector<std::string> Names(const StatusOr<std::vector<ObjectPtr>>& objects) {
  std::vector<std::string> out;
  if (!objects.ok()) return {"<" + objects.status().ToString() + ">"};
  for (const auto& o : *objects) out.emplace_back(o->Name());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StoreTest, KeysAreNamespaceSlashNameOrNameForClusterScoped) {
  Store s;
  s.Upsert(Obj("ns", "a", "1"));
  s.Upsert(Obj("", "node-1", "1"));
  EXPECT_EQ(s.ListKeys(), (std::vector<std::string>{"node-1", "ns/a"}));
  EXPECT_NE(s.Get("ns/a"), nullptr);
  EXPECT_EQ(s.Get("a"), nullptr);
}

TEST(StoreTest, UpsertAndDeleteReturnThePreviousObject) {
  Store s;
  EXPECT_EQ(s.Upsert(Obj("ns", "a", "1")), nullptr);
  auto old = s.Upsert(Obj("ns", "a", "2"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->ResourceVersion(), "1");
  EXPECT_EQ(s.Get("ns/a")->ResourceVersion(), "2");
  EXPECT_EQ(s.Delete("ns/a")->ResourceVersion(), "2");
  EXPECT_EQ(s.Delete("ns/a"), nullptr);
  EXPECT_EQ(s.Size(), 0u);
}

TEST(StoreTest, IndexesFollowUpdatesAndDeletes) {
  Store s;
  ASSERT_TRUE(s.AddIndex("app", IndexByLabel("app")).ok());
  ASSERT_TRUE(s.AddIndex("ns", IndexByNamespace()).ok());
  EXPECT_EQ(s.AddIndex("app", IndexByLabel("x")).code(), StatusCode::kAlreadyExists);

  s.Upsert(Obj("n1", "a", "1", {{"app", "web"}}));
  s.Upsert(Obj("n1", "b", "1", {{"app", "web"}}));
  s.Upsert(Obj("n2", "c", "1", {{"app", "db"}}));
  s.Upsert(Obj("n2", "d", "1"));

  struct Case {
    std::string index, value;
    std::vector<std::string> want;
  };
  const Case before[] = {{"app", "web", {"a", "b"}},
                         {"app", "db", {"c"}},
                         {"app", "none", {}},
                         {"ns", "n2", {"c", "d"}}};
  for (const Case& c : before) EXPECT_EQ(Names(s.ByIndex(c.index, c.value)), c.want) << c.value;

  s.Upsert(Obj("n1", "b", "2", {{"app", "db"}}));  // relabelled
  s.Delete("n2/c");
  const Case after[] = {{"app", "web", {"a"}}, {"app", "db", {"b"}}, {"ns", "n2", {"d"}}};
  for (const Case& c : after) EXPECT_EQ(Names(s.ByIndex(c.index, c.value)), c.want) << c.value;
  EXPECT_EQ(s.ByIndex("missing", "x").status().code(), StatusCode::kNotFound);
  // A value no object is filed under any more is gone from the values.
  s.Delete("n1/b");
  EXPECT_EQ(*s.IndexValues("app"), std::vector<std::string>{"web"});
  EXPECT_EQ(*s.IndexValues("ns"), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(s.IndexValues("missing").status().code(), StatusCode::kNotFound);
}

TEST(StoreTest, IndexAddedLaterCoversExistingObjects) {
  Store s;
  s.Upsert(Obj("n", "a", "1", {}, {{"apps/v1", "DaemonSet", "ds", "uid-ds", true, false}}));
  s.Upsert(Obj("n", "b", "1", {}, {{"v1", "ConfigMap", "cm", "uid-cm", false, false}}));
  ASSERT_TRUE(s.AddIndex("owner", IndexByOwnerUid()).ok());
  ASSERT_TRUE(s.AddIndex("controller", IndexByOwnerUid(/*only_controller=*/true)).ok());
  EXPECT_EQ(Names(s.ByIndex("owner", "uid-ds")), std::vector<std::string>{"a"});
  EXPECT_EQ(Names(s.ByIndex("owner", "uid-cm")), std::vector<std::string>{"b"});
  EXPECT_EQ(Names(s.ByIndex("controller", "uid-cm")), std::vector<std::string>{});
}

TEST(StoreTest, ReplaceReportsAddsChangedUpdatesAndDeletesWithLastState) {
  Store s;
  ASSERT_TRUE(s.AddIndex("app", IndexByLabel("app")).ok());
  s.Upsert(Obj("n", "same", "1"));
  s.Upsert(Obj("n", "changed", "1"));
  s.Upsert(Obj("n", "gone", "7", {{"app", "x"}}));

  auto changes = s.Replace({Obj("n", "same", "1"), Obj("n", "changed", "2"), Obj("n", "new", "3")});
  std::vector<std::string> seen;
  for (const auto& c : changes) {
    if (!c.old)
      seen.push_back("add " + std::string(c.current->Name()));
    else if (!c.current)
      seen.push_back("delete " + std::string(c.old->Name()) + "@" +
                     std::string(c.old->ResourceVersion()));
    else
      seen.push_back("update " + std::string(c.current->Name()));
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"add new", "delete gone@7", "update changed"}));
  EXPECT_EQ(s.ListKeys(), (std::vector<std::string>{"n/changed", "n/new", "n/same"}));
  EXPECT_EQ(Names(s.ByIndex("app", "x")), std::vector<std::string>{});
}

}  // namespace
}  // namespace rdmastack::runtime
