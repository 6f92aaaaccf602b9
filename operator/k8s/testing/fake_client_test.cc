// The fake API server answers as the real one does where a controller can tell: versions,
// conflicts, patches, apply, the status subresource, finalizers, selectors, and the action log.
#include "operator/k8s/testing/fake_client.h"

#include <gtest/gtest.h>

#include "operator/k8s/api_error.h"

namespace rdmastack::k8s::testing {
namespace {

JsonObject Parse(std::string_view text) {
  auto o = JsonObject::Parse(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return o.ok() ? *o : JsonObject();
}

JsonObject ConfigMap(const std::string& ns, const std::string& name) {
  JsonObject o = Parse(R"({"data": {"a": "1"}})");
  o.SetNamespace(ns);
  o.SetName(name);
  return o;
}

ListOptions Labels(std::string selector) {
  ListOptions o;
  o.label_selector = std::move(selector);
  return o;
}

ListOptions Fields(std::string selector) {
  ListOptions o;
  o.field_selector = std::move(selector);
  return o;
}

ListOptions Limit(int64_t limit) {
  ListOptions o;
  o.limit = limit;
  return o;
}

PatchOptions Manager(std::string name) {
  PatchOptions o;
  o.field_manager = std::move(name);
  return o;
}

TEST(FakeClientTest, CreateFillsServerFieldsAndRefusesASecondCopy) {
  FakeClient api;
  auto created = api.Create(kinds::ConfigMap(), ConfigMap("ml", "a"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->ApiVersion(), "v1");
  EXPECT_EQ(created->Kind(), "ConfigMap");
  EXPECT_FALSE(created->Uid().empty());
  EXPECT_EQ(created->ResourceVersion(), "1");
  EXPECT_EQ(created->CreationTimestamp(), "2026-01-01T00:00:00Z");
  auto again = api.Create(kinds::ConfigMap(), ConfigMap("ml", "a"));
  EXPECT_TRUE(IsAlreadyExists(again.status())) << again.status().ToString();
  EXPECT_EQ(again.status().message(), "configmaps \"a\" already exists");

  auto got = api.Get(kinds::ConfigMap(), "ml", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, *created);
  EXPECT_TRUE(IsNotFound(api.Get(kinds::ConfigMap(), "other", "a").status()));
  EXPECT_EQ(api.Get(kinds::ConfigMap(), "other", "a").status().message(),
            "configmaps \"a\" not found");
}

TEST(FakeClientTest, GenerateNameAndClusterScopedKinds) {
  FakeClient api;
  JsonObject event = Parse(R"({"metadata": {"generateName": "pool-", "namespace": "ml"}})");
  auto created = api.Create(kinds::ConfigMap(), event);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->Name(), "pool-00001");
  JsonObject node = Parse(R"({"metadata": {"name": "n1", "namespace": "ignored"}})");
  ASSERT_TRUE(api.Create(kinds::Node(), node).ok());
  auto got = api.Get(kinds::Node(), "", "n1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->Namespace(), "");
  EXPECT_TRUE(IsBadRequest(api.Create(kinds::ConfigMap(), ConfigMap("", "x")).status()));
}

TEST(FakeClientTest, UpdateWithAStaleResourceVersionIsAConflict) {
  FakeClient api;
  JsonObject first = *api.Create(kinds::ConfigMap(), ConfigMap("ml", "a"));
  JsonObject changed = first;
  (void)changed.SetString({"data", "a"}, "2");
  auto updated = api.Update(kinds::ConfigMap(), changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->ResourceVersion(), "2");
  EXPECT_EQ(updated->Generation(), 2);

  // `changed` still carries version 1.
  (void)changed.SetString({"data", "a"}, "3");
  auto stale = api.Update(kinds::ConfigMap(), changed);
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status().ToString();
  EXPECT_EQ(stale.status().message(),
            "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; "
            "please apply your changes to the latest version and try again");
  EXPECT_EQ(api.Find(kinds::ConfigMap(), "ml", "a")->GetString({"data", "a"}), "2");

  // Labels are metadata: no new generation. An unchanged object: no new version either.
  JsonObject labelled = *updated;
  labelled.SetLabel("x", "y");
  auto relabelled = api.Update(kinds::ConfigMap(), labelled);
  ASSERT_TRUE(relabelled.ok());
  EXPECT_EQ(relabelled->Generation(), 2);
  EXPECT_EQ(relabelled->ResourceVersion(), "3");
  EXPECT_EQ(api.Update(kinds::ConfigMap(), *relabelled)->ResourceVersion(), "3");
  EXPECT_TRUE(IsNotFound(api.Update(kinds::ConfigMap(), ConfigMap("ml", "b")).status()));
}

TEST(FakeClientTest, MergePatchFollowsRfc7386AndChecksAResourceVersionInIt) {
  FakeClient api;
  (void)api.Create(kinds::ConfigMap(), Parse(R"({"metadata": {"name": "a", "namespace": "ml",
      "labels": {"keep": "1", "drop": "1"}}, "data": {"a": "1", "b": "2"}})"));
  auto patched = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge,
                           R"({"metadata": {"labels": {"drop": null, "new": "2"}},
                               "data": {"b": null}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->Labels(), (std::map<std::string, std::string>{{"keep", "1"}, {"new", "2"}}));
  EXPECT_EQ(patched->Keys({"data"}), std::vector<std::string>{"a"});

  auto stale = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge,
                         R"({"metadata": {"resourceVersion": "1", "finalizers": ["f"]}})");
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status().ToString();
  auto current =
      api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge,
                R"({"metadata": {"resourceVersion": ")" + std::string(patched->ResourceVersion()) +
                    R"(", "finalizers": ["f"]}})");
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(current->Finalizers(), std::vector<std::string>{"f"});
  // The server owns the identity: a patch cannot rename or re-uid.
  auto renamed = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge,
                           R"({"metadata": {"uid": "other", "creationTimestamp": "x"}})");
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->Uid(), patched->Uid());
  EXPECT_TRUE(
      IsNotFound(api.Patch(kinds::ConfigMap(), "ml", "zz", PatchType::kMerge, "{}").status()));
}

TEST(FakeClientTest, JsonPatchTestsBeforeItRemoves) {
  FakeClient api;
  (void)api.Create(kinds::ConfigMap(), Parse(R"({"metadata": {"name": "a", "namespace": "ml",
                             "finalizers": ["one", "two"]}})"));
  const std::string remove_two =
      R"([{"op": "test", "path": "/metadata/finalizers/1", "value": "two"},
          {"op": "remove", "path": "/metadata/finalizers/1"}])";
  auto patched = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kJsonPatch, remove_two);
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->Finalizers(), std::vector<std::string>{"one"});
  // The test now fails (index 1 is gone): nothing changes.
  auto again = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kJsonPatch, remove_two);
  EXPECT_TRUE(IsInvalid(again.status())) << again.status().ToString();
  EXPECT_EQ(api.Find(kinds::ConfigMap(), "ml", "a")->ResourceVersion(), patched->ResourceVersion());
}

TEST(FakeClientTest, ApplyCreatesThenMergesAndForgetsWhatTheManagerLeftOut) {
  FakeClient api;
  JsonObject desired = Parse(R"({"metadata": {"name": "a", "namespace": "ml",
      "labels": {"tier": "x"}}, "data": {"a": "1", "b": "2"}})");
  auto created = api.Apply(kinds::ConfigMap(), desired, Manager("operator"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::vector<JsonObject> managers = created->GetArray({"metadata", "managedFields"});
  ASSERT_EQ(managers.size(), 1u);
  EXPECT_EQ(managers[0].GetString({"manager"}), "operator");
  EXPECT_EQ(managers[0].GetString({"operation"}), "Apply");

  // The same object again changes nothing.
  auto same = api.Apply(kinds::ConfigMap(), desired, Manager("operator"));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->ResourceVersion(), created->ResourceVersion());

  // Another writer's field stays; the manager's own dropped field goes.
  ASSERT_TRUE(
      api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge, R"({"data": {"other": "o"}})")
          .ok());
  desired.Remove({"data", "b"});
  auto pruned = api.Apply(kinds::ConfigMap(), desired, Manager("operator"));
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->Keys({"data"}), (std::vector<std::string>{"a", "other"}));

  EXPECT_TRUE(IsBadRequest(api.Apply(kinds::ConfigMap(), desired, PatchOptions{}).status()));
}

TEST(FakeClientTest, TheStatusSubresourceIsWrittenApart) {
  FakeClient api;
  JsonObject pool = Parse(R"({"metadata": {"name": "p", "namespace": "ml"},
      "spec": {"x": 1}, "status": {"phase": "ignored"}})");
  JsonObject created = *api.Create(kinds::ConfigMap(), pool);
  EXPECT_FALSE(created.Has({"status"})) << "status is not written on create";

  JsonObject with_status = created;
  (void)with_status.SetString({"status", "phase"}, "Ready");
  (void)with_status.SetInt({"spec", "x"}, 2);
  auto status_written = api.UpdateStatus(kinds::ConfigMap(), with_status);
  ASSERT_TRUE(status_written.ok()) << status_written.status().ToString();
  EXPECT_EQ(status_written->GetString({"status", "phase"}), "Ready");
  EXPECT_EQ(status_written->GetInt({"spec", "x"}), 1) << "a status write leaves the spec";
  EXPECT_EQ(status_written->Generation(), 1);

  JsonObject spec_write = *status_written;
  (void)spec_write.SetString({"status", "phase"}, "Lost");
  (void)spec_write.SetInt({"spec", "x"}, 3);
  auto spec_written = api.Update(kinds::ConfigMap(), spec_write);
  ASSERT_TRUE(spec_written.ok());
  EXPECT_EQ(spec_written->GetString({"status", "phase"}), "Ready");
  EXPECT_EQ(spec_written->Generation(), 2);

  auto applied =
      api.ApplyStatus(kinds::ConfigMap(), Parse(R"({"metadata": {"name": "p", "namespace": "ml"},
                                    "status": {"phase": "Applied"}})"),
                      Manager("operator"));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->GetString({"status", "phase"}), "Applied");
  EXPECT_TRUE(IsNotFound(api.ApplyStatus(kinds::ConfigMap(),
                                         Parse(R"({"metadata": {"name": "q", "namespace": "ml"},
                                                   "status": {}})"),
                                         Manager("operator"))
                             .status()));
  EXPECT_TRUE(api.PatchStatus(kinds::ConfigMap(), "ml", "p", PatchType::kMerge,
                              R"({"status": {"more": true}, "spec": {"x": 9}})")
                  .ok());
  const JsonObject now = *api.Find(kinds::ConfigMap(), "ml", "p");
  EXPECT_EQ(now.GetBool({"status", "more"}), true);
  EXPECT_EQ(now.GetInt({"spec", "x"}), 3);
}

TEST(FakeClientTest, DeleteWaitsForTheFinalizers) {
  FakeClient api;
  api.SetNow("2026-02-02T10:00:00Z");
  JsonObject o = ConfigMap("ml", "a");
  (void)o.Append({"metadata", "finalizers"}, Parse(R"("rdmastack.io/cleanup")"));
  const JsonObject created = *api.Create(kinds::ConfigMap(), o);

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "someone-else";
  EXPECT_TRUE(IsConflict(api.Delete(kinds::ConfigMap(), "ml", "a", wrong_uid).status()));

  DeleteOptions right_uid;
  right_uid.precondition_uid = std::string(created.Uid());
  auto deleting = api.Delete(kinds::ConfigMap(), "ml", "a", right_uid);
  ASSERT_TRUE(deleting.ok()) << deleting.status().ToString();
  EXPECT_EQ(deleting->DeletionTimestamp(), "2026-02-02T10:00:00Z");
  ASSERT_TRUE(api.Find(kinds::ConfigMap(), "ml", "a").has_value());

  auto added = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kMerge,
                         R"({"metadata": {"finalizers": ["rdmastack.io/cleanup", "more"]}})");
  EXPECT_TRUE(IsInvalid(added.status())) << added.status().ToString();

  auto released = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kJsonPatch,
                            R"([{"op": "remove", "path": "/metadata/finalizers/0"}])");
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_FALSE(api.Find(kinds::ConfigMap(), "ml", "a").has_value());
  EXPECT_TRUE(IsNotFound(api.Delete(kinds::ConfigMap(), "ml", "a").status()));

  // Without finalizers an object goes at once.
  ASSERT_TRUE(api.Create(kinds::ConfigMap(), ConfigMap("ml", "b")).ok());
  ASSERT_TRUE(api.Delete(kinds::ConfigMap(), "ml", "b").ok());
  EXPECT_FALSE(api.Find(kinds::ConfigMap(), "ml", "b").has_value());
}

TEST(FakeClientTest, ListSelectsByNamespaceLabelsAndFieldsAndPages) {
  FakeClient api;
  auto pod = [&](const std::string& ns, const std::string& name,
                 std::map<std::string, std::string> labels, const std::string& node) {
    JsonObject o = ConfigMap(ns, name);
    for (const auto& [k, v] : labels) o.SetLabel(k, v);
    (void)o.SetString({"spec", "nodeName"}, node);
    ASSERT_TRUE(api.Put(kinds::Pod(), o).ok());
  };
  pod("a", "gw-1", {{"component", "gateway"}, {"pool", "p"}}, "n1");
  pod("a", "gw-2", {{"component", "gateway"}, {"pool", "q"}}, "n2");
  pod("a", "client", {{"component", "client"}, {"profile", "c"}}, "n1");
  pod("b", "gw-3", {{"component", "gateway"}, {"pool", "p"}}, "n1");
  pod("b", "other", {}, "n3");
  auto names = [&](std::string_view ns, ListOptions options) {
    std::vector<std::string> out;
    auto list = api.List(kinds::Pod(), ns, options);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (list.ok()) {
      for (const auto& o : list->items) out.push_back(o.Key());
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("a", {}), (V{"a/client", "a/gw-1", "a/gw-2"}));
  EXPECT_EQ(names("", Labels("component=gateway,pool")), (V{"a/gw-1", "a/gw-2", "b/gw-3"}));
  EXPECT_EQ(names("", Labels("component in (gateway, client),pool!=q")),
            (V{"a/client", "a/gw-1", "b/gw-3"}));
  EXPECT_EQ(names("", Labels("component notin (gateway),!profile")), (V{"b/other"}));
  EXPECT_EQ(names("", Labels("pool==p")), (V{"a/gw-1", "b/gw-3"}));
  EXPECT_EQ(names("", Fields("spec.nodeName=n1,metadata.namespace!=b")), (V{"a/client", "a/gw-1"}));
  EXPECT_TRUE(IsBadRequest(api.List(kinds::Pod(), "", Labels("component in (gateway")).status()));

  auto first = api.List(kinds::Pod(), "", Limit(2));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->items.size(), 2u);
  EXPECT_EQ(first->kind, "PodList");
  EXPECT_EQ(first->resource_version, "5");
  auto all = api.ListAll(kinds::Pod(), "", Limit(2));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 5u);
}

TEST(FakeClientTest, RecordsEveryRequestInOrder) {
  FakeClient api;
  ASSERT_TRUE(api.Put(kinds::Node(), Parse(R"({"metadata": {"name": "n1"}})")).ok());
  EXPECT_TRUE(api.actions().empty()) << "setup is not recorded";
  (void)api.Get(kinds::Node(), "", "n1");
  (void)api.List(kinds::Pod(), "ml");
  (void)api.Apply(kinds::ConfigMap(), ConfigMap("ml", "a"), Manager("m"));
  (void)api.Patch(kinds::Node(), "", "n1", PatchType::kMerge, R"({"metadata": {}})");
  (void)api.ApplyStatus(kinds::ConfigMap(), ConfigMap("ml", "a"), Manager("m"));
  (void)api.Delete(kinds::ConfigMap(), "ml", "missing");
  std::vector<std::string> all;
  for (const Action& a : api.actions()) all.push_back(a.ToString());
  EXPECT_EQ(all, (std::vector<std::string>{"get Node n1", "list Pod ml/", "apply ConfigMap ml/a",
                                           "patch Node n1", "apply/status ConfigMap ml/a",
                                           "delete ConfigMap ml/missing"}));
  std::vector<std::string> writes;
  for (const Action& a : api.writes("ConfigMap")) writes.push_back(a.ToString());
  EXPECT_EQ(writes, (std::vector<std::string>{"apply ConfigMap ml/a", "apply/status ConfigMap ml/a",
                                              "delete ConfigMap ml/missing"}));
  api.ClearActions();
  EXPECT_TRUE(api.actions().empty());
}

TEST(FakeClientTest, InjectedFailuresAndAnswers) {
  FakeClient api;
  api.FailOn("apply", "ConfigMap", ApiErrorFromResponse(500, "boom").ToStatus(), 1);
  EXPECT_TRUE(
      IsInternalError(api.Apply(kinds::ConfigMap(), ConfigMap("ml", "a"), Manager("m")).status()));
  EXPECT_FALSE(api.Find(kinds::ConfigMap(), "ml", "a").has_value());
  EXPECT_TRUE(api.Apply(kinds::ConfigMap(), ConfigMap("ml", "a"), Manager("m")).ok())
      << "the failure was for one request";
  EXPECT_EQ(api.writes().size(), 2u);

  api.FailOn("", "Node", ApiErrorFromResponse(403, R"({"reason":"Forbidden"})").ToStatus());
  EXPECT_TRUE(IsForbidden(api.List(kinds::Node(), "").status()));
  EXPECT_TRUE(IsForbidden(api.Get(kinds::Node(), "", "n1").status()));

  int reviews = 0;
  api.Answer("create", "TokenReview", [&](const JsonObject& review) -> StatusOr<JsonObject> {
    ++reviews;
    JsonObject out;
    (void)out.SetBool({"status", "authenticated"}, review.GetString({"spec", "token"}) == "t");
    return out;
  });
  auto reviewed = ReviewToken(api, "t");
  ASSERT_TRUE(reviewed.ok()) << reviewed.status().ToString();
  EXPECT_EQ(reviewed->GetBool({"authenticated"}), true);
  EXPECT_EQ(reviews, 1);
  EXPECT_TRUE(api.Objects(kinds::TokenReview()).empty()) << "a review is not stored";
}

TEST(FakeClientTest, JsonPatchOperations) {
  FakeClient api;
  ASSERT_TRUE(api.Put(kinds::ConfigMap(), Parse(R"({"metadata": {"name": "a", "namespace": "ml"},
      "data": {"list": "x"}, "spec": {"items": [1, 3], "from": {"k": "v"}}})"))
                  .ok());
  auto patched = api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kJsonPatch,
                           R"([{"op": "add", "path": "/spec/items/1", "value": 2},
                               {"op": "add", "path": "/spec/items/-", "value": 4},
                               {"op": "replace", "path": "/data/list", "value": "y"},
                               {"op": "copy", "from": "/spec/from", "path": "/spec/copied"},
                               {"op": "move", "from": "/spec/from", "path": "/spec/moved"},
                               {"op": "add", "path": "/metadata/labels",
                                "value": {"a~b/c": "1"}},
                               {"op": "remove", "path": "/metadata/labels/a~0b~1c"}])");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->Get({"spec"})->Serialize(),
            R"({"items":[1,2,3,4],"copied":{"k":"v"},"moved":{"k":"v"}})");
  EXPECT_EQ(patched->GetString({"data", "list"}), "y");
  EXPECT_TRUE(patched->Labels().empty());
  for (const char* bad : {R"([{"op": "remove", "path": "/spec/none"}])",
                          R"([{"op": "add", "path": "/no/parent", "value": 1}])",
                          R"([{"op": "replace", "path": "/spec/items/9", "value": 1}])",
                          R"([{"op": "frobnicate", "path": "/spec"}])", R"({"op": "add"})"}) {
    EXPECT_TRUE(
        IsInvalid(api.Patch(kinds::ConfigMap(), "ml", "a", PatchType::kJsonPatch, bad).status()))
        << bad;
  }
}

}  // namespace
}  // namespace rdmastack::k8s::testing
