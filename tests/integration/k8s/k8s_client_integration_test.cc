// The Kubernetes client against the real local control plane (scripts/cluster.sh): CRUD, the three
// patch types, server-side apply and /status on a CRD of our own, RBAC errors, TLS verification,
// TokenReview/TokenRequest, and watches. The restart/compaction test changes the cluster, so it
// runs only on a private cluster (RDMASTACK_CLUSTER set and not "default").

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::k8s {
namespace {

using rdmastack::testing::ClusterEnv;
using rdmastack::testing::Eventually;
using rdmastack::testing::RunCommand;
using rdmastack::testing::UniqueName;

constexpr char kManager[] = "rdmastack-k8s-test";

JsonObject Parse(std::string_view text) {
  auto parsed = JsonObject::Parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : JsonObject();
}

ClientPtr AdminClient(const ClusterEnv& env) {
  auto config = LoadKubeconfig(env.kubeconfig);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto client = NewRestClient(*config);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(*client);
}

std::string CreateNamespace(Client& client) {
  const std::string name = UniqueName("k8sclient");
  JsonObject ns;
  ns.SetName(name);
  auto created = client.Create(kinds::Namespace(), ns);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return name;
}

JsonObject ConfigMap(const std::string& ns, const std::string& name,
                     const std::map<std::string, std::string>& data) {
  JsonObject cm;
  cm.SetName(name);
  cm.SetNamespace(ns);
  cm.SetLabel("app", "k8s-client-test");
  EXPECT_TRUE(cm.SetStringMap({"data"}, data).ok());
  return cm;
}

class K8sClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = rdmastack::testing::GetClusterEnv();
    if (env_ == nullptr) {
      const char* req = std::getenv("RDMASTACK_REQUIRE_CLUSTER");
      if (req != nullptr && std::string(req) == "1") FAIL() << "no cluster configured";
      GTEST_SKIP() << "no cluster: run through scripts/test.sh or export RDMASTACK_KUBECONFIG";
    }
    client_ = AdminClient(*env_);
    ns_ = CreateNamespace(*client_);
  }
  void TearDown() override {
    if (client_ && !ns_.empty()) (void)client_->Delete(kinds::Namespace(), "", ns_);
  }

  const ClusterEnv* env_ = nullptr;
  ClientPtr client_;
  std::string ns_;
};

TEST_F(K8sClientIntegrationTest, CrudWithTypedErrors) {
  Client& c = *client_;
  auto created = c.Create(kinds::ConfigMap(), ConfigMap(ns_, "a", {{"k", "1"}}));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(created->Uid().empty());

  auto duplicate = c.Create(kinds::ConfigMap(), ConfigMap(ns_, "a", {}));
  EXPECT_TRUE(IsAlreadyExists(duplicate.status())) << duplicate.status().ToString();
  EXPECT_NE(duplicate.status().message().find("already exists"), std::string::npos);

  auto got = c.Get(kinds::ConfigMap(), ns_, "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->GetString({"data", "k"}), "1");

  JsonObject changed = *got;
  ASSERT_TRUE(changed.SetString({"data", "k"}, "2").ok());
  auto updated = c.Update(kinds::ConfigMap(), changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_NE(updated->ResourceVersion(), got->ResourceVersion());

  // `changed` still carries the old resourceVersion: optimistic concurrency says Conflict.
  auto stale = c.Update(kinds::ConfigMap(), changed);
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status().ToString();

  auto invalid = c.Create(kinds::ConfigMap(), ConfigMap(ns_, "Not_A_Valid_Name", {}));
  ASSERT_TRUE(IsInvalid(invalid.status())) << invalid.status().ToString();
  auto invalid_error = GetApiError(invalid.status());
  ASSERT_TRUE(invalid_error.has_value());
  ASSERT_FALSE(invalid_error->causes.empty());
  EXPECT_EQ(invalid_error->causes[0].field, "metadata.name");

  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "page-" + std::to_string(i), {})).ok());
  }
  ListOptions paged;
  paged.limit = 2;
  paged.label_selector = "app=k8s-client-test";
  auto first_page = c.List(kinds::ConfigMap(), ns_, paged);
  ASSERT_TRUE(first_page.ok()) << first_page.status().ToString();
  EXPECT_EQ(first_page->items.size(), 2u);
  EXPECT_FALSE(first_page->continue_token.empty());
  auto all = c.ListAll(kinds::ConfigMap(), ns_, paged);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->items.size(), 6u);  // "a" + 5 pages
  ListOptions by_field;
  by_field.field_selector = "metadata.name=page-3";
  auto one = c.List(kinds::ConfigMap(), ns_, by_field);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->items.size(), 1u);
  EXPECT_EQ(one->items[0].Name(), "page-3");
  EXPECT_EQ(one->items[0].Kind(), "ConfigMap");

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  auto refused = c.Delete(kinds::ConfigMap(), ns_, "a", wrong_uid);
  EXPECT_TRUE(IsConflict(refused.status())) << refused.status().ToString();
  DeleteOptions right;
  right.precondition_uid = std::string(updated->Uid());
  right.propagation_policy = PropagationPolicy::kBackground;
  ASSERT_TRUE(c.Delete(kinds::ConfigMap(), ns_, "a", right).ok());
  auto gone = c.Get(kinds::ConfigMap(), ns_, "a");
  EXPECT_TRUE(IsNotFound(gone.status())) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find(R"("a" not found)"), std::string::npos);
}

TEST_F(K8sClientIntegrationTest, ThreePatchTypesAndServerSideApply) {
  Client& c = *client_;
  ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "p", {{"a", "1"}, {"b", "2"}})).ok());

  auto merged =
      c.Patch(kinds::ConfigMap(), ns_, "p", PatchType::kMerge, R"({"data":{"a":null,"c":"3"}})");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->GetStringMap({"data"}),
            (std::map<std::string, std::string>{{"b", "2"}, {"c", "3"}}));

  auto json_patched = c.Patch(
      kinds::ConfigMap(), ns_, "p", PatchType::kJsonPatch,
      R"([{"op":"test","path":"/data/b","value":"2"},{"op":"replace","path":"/data/b","value":"20"}])");
  ASSERT_TRUE(json_patched.ok()) << json_patched.status().ToString();
  EXPECT_EQ(json_patched->GetString({"data", "b"}), "20");
  auto failed_test = c.Patch(kinds::ConfigMap(), ns_, "p", PatchType::kJsonPatch,
                             R"([{"op":"test","path":"/data/b","value":"nope"}])");
  EXPECT_FALSE(failed_test.ok());
  EXPECT_EQ(failed_test.status().code(), StatusCode::kInvalidArgument)
      << failed_test.status().ToString();

  auto strategic = c.Patch(kinds::ConfigMap(), ns_, "p", PatchType::kStrategicMerge,
                           R"({"metadata":{"labels":{"tier":"x"}}})");
  ASSERT_TRUE(strategic.ok()) << strategic.status().ToString();
  EXPECT_EQ(strategic->Label("tier"), "x");
  EXPECT_EQ(strategic->Label("app"), "k8s-client-test");

  // Server-side apply: create through apply, then a second manager conflicts unless forced.
  JsonObject desired = ConfigMap(ns_, "applied", {{"owned", "by-us"}});
  auto applied = c.Apply(kinds::ConfigMap(), desired, {kManager, false, false});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  auto managers = applied->GetArray({"metadata", "managedFields"});
  ASSERT_FALSE(managers.empty());
  EXPECT_EQ(managers[0].GetString({"manager"}), kManager);
  EXPECT_EQ(managers[0].GetString({"operation"}), "Apply");

  JsonObject rival = ConfigMap(ns_, "applied", {{"owned", "by-them"}});
  auto conflict = c.Apply(kinds::ConfigMap(), rival, {"rival-manager", false, false});
  ASSERT_TRUE(IsConflict(conflict.status())) << conflict.status().ToString();
  EXPECT_NE(conflict.status().message().find(kManager), std::string::npos)
      << conflict.status().message();
  auto forced = c.Apply(kinds::ConfigMap(), rival, {"rival-manager", true, false});
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(forced->GetString({"data", "owned"}), "by-them");

  auto dry = c.Patch(kinds::ConfigMap(), ns_, "p", PatchType::kMerge, R"({"data":{"dry":"run"}})",
                     {"", false, true});
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->GetString({"data", "dry"}), "run");
  EXPECT_FALSE(c.Get(kinds::ConfigMap(), ns_, "p")->Has({"data", "dry"}));
}

// A namespaced CRD of our own with the status subresource; unique per run, deleted at the end.
class CrdTest : public K8sClientIntegrationTest {
 protected:
  void SetUp() override {
    K8sClientIntegrationTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::string suffix = UniqueName("w");
    suffix.erase(std::remove(suffix.begin(), suffix.end(), '-'), suffix.end());
    type_ = ResourceType{"k8stest.rdmastack.io", "v1", "Widget" + suffix, "widget" + suffix + "s",
                         true};
    std::string crd_json =
        R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"PLURAL.k8stest.rdmastack.io"},
      "spec":{"group":"k8stest.rdmastack.io","scope":"Namespaced",
        "names":{"plural":"PLURAL","singular":"SINGULAR","kind":"KIND","listKind":"KINDList"},
        "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
          "schema":{"openAPIV3Schema":{"type":"object","properties":{
            "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1},"color":{"type":"string"}}},
            "status":{"type":"object","properties":{"phase":{"type":"string"},"observedGeneration":{"type":"integer"}}}}}}}]}})";
    auto replace = [&crd_json](const std::string& from, const std::string& to) {
      for (size_t pos; (pos = crd_json.find(from)) != std::string::npos;)
        crd_json.replace(pos, from.size(), to);
    };
    replace("PLURAL", type_.plural);
    replace("SINGULAR", "widget" + suffix);
    replace("KIND", type_.kind);
    auto created = client_->Create(kinds::CustomResourceDefinition(), Parse(crd_json));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    crd_name_ = std::string(created->Name());
    ASSERT_TRUE(Eventually(
        [&] {
          auto crd = client_->Get(kinds::CustomResourceDefinition(), "", crd_name_);
          if (!crd.ok()) return false;
          for (const auto& cond : crd->GetArray({"status", "conditions"})) {
            if (cond.GetString({"type"}) == "Established" && cond.GetString({"status"}) == "True")
              return true;
          }
          return false;
        },
        std::chrono::seconds(60)));
    // Discovery of the new resource can lag behind Established by a moment.
    ASSERT_TRUE(
        Eventually([&] { return client_->List(type_, ns_).ok(); }, std::chrono::seconds(30)));
  }
  void TearDown() override {
    if (!crd_name_.empty()) (void)client_->Delete(kinds::CustomResourceDefinition(), "", crd_name_);
    K8sClientIntegrationTest::TearDown();
  }

  ResourceType type_;
  std::string crd_name_;
};

TEST_F(CrdTest, ApplyAndStatusSubresource) {
  Client& c = *client_;
  JsonObject widget;
  widget.SetName("w1");
  widget.SetNamespace(ns_);
  ASSERT_TRUE(widget.SetInt({"spec", "size"}, 3).ok());
  auto applied = c.Apply(type_, widget, {kManager, false, false});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->Generation(), 1);
  EXPECT_EQ(applied->ApiVersion(), "k8stest.rdmastack.io/v1");

  // Schema validation (minimum: 1) comes back as Invalid with the field.
  JsonObject bad = widget;
  ASSERT_TRUE(bad.SetInt({"spec", "size"}, 0).ok());
  auto invalid = c.Apply(type_, bad, {kManager, false, false});
  ASSERT_TRUE(IsInvalid(invalid.status())) << invalid.status().ToString();
  EXPECT_EQ(GetApiError(invalid.status())->causes.at(0).field, "spec.size");

  // The main endpoint ignores status; /status takes it and does not bump the generation.
  JsonObject with_status = *applied;
  ASSERT_TRUE(with_status.SetString({"status", "phase"}, "Ignored").ok());
  auto main_write = c.Update(type_, with_status);
  ASSERT_TRUE(main_write.ok()) << main_write.status().ToString();
  EXPECT_FALSE(main_write->Has({"status", "phase"}));

  JsonObject status_write = *main_write;
  ASSERT_TRUE(status_write.SetString({"status", "phase"}, "Ready").ok());
  auto status_updated = c.UpdateStatus(type_, status_write);
  ASSERT_TRUE(status_updated.ok()) << status_updated.status().ToString();
  EXPECT_EQ(status_updated->GetString({"status", "phase"}), "Ready");
  EXPECT_EQ(status_updated->Generation(), 1);

  auto merged_status =
      c.PatchStatus(type_, ns_, "w1", PatchType::kMerge, R"({"status":{"observedGeneration":1}})");
  ASSERT_TRUE(merged_status.ok()) << merged_status.status().ToString();
  EXPECT_EQ(merged_status->GetInt({"status", "observedGeneration"}), 1);

  JsonObject status_apply;
  status_apply.SetName("w1");
  status_apply.SetNamespace(ns_);
  ASSERT_TRUE(status_apply.SetString({"status", "phase"}, "Degraded").ok());
  auto applied_status =
      c.ApplyStatus(type_, status_apply, {kManager + std::string("-status"), true, false});
  ASSERT_TRUE(applied_status.ok()) << applied_status.status().ToString();
  EXPECT_EQ(applied_status->GetString({"status", "phase"}), "Degraded");
  EXPECT_EQ(applied_status->GetInt({"spec", "size"}), 3);  // spec untouched

  // Spec changes through apply bump the generation.
  ASSERT_TRUE(widget.SetString({"spec", "color"}, "blue").ok());
  auto reapplied = c.Apply(type_, widget, {kManager, false, false});
  ASSERT_TRUE(reapplied.ok());
  EXPECT_EQ(reapplied->Generation(), 2);
  EXPECT_EQ(reapplied->GetString({"status", "phase"}), "Degraded");
}

TEST_F(K8sClientIntegrationTest, ForbiddenCarriesServerMessageAndTokenApis) {
  // A ServiceAccount without any RBAC.
  JsonObject sa;
  sa.SetName("nobody");
  sa.SetNamespace(ns_);
  ASSERT_TRUE(client_->Create(kinds::ServiceAccount(), sa).ok());
  auto token = RunCommand({env_->cluster_script, "token", ns_, "nobody"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  std::string bearer = token.out;
  while (!bearer.empty() && (bearer.back() == '\n' || bearer.back() == ' ')) bearer.pop_back();

  auto admin_config = LoadKubeconfig(env_->kubeconfig);
  ASSERT_TRUE(admin_config.ok());
  Config as_sa = *admin_config;
  as_sa.tls.client_cert_pem.clear();
  as_sa.tls.client_key_pem.clear();
  as_sa.token = std::make_shared<StaticTokenSource>(bearer);
  auto sa_client = NewRestClient(as_sa);
  ASSERT_TRUE(sa_client.ok());
  auto listed = (*sa_client)->List(kinds::Pod(), ns_);
  ASSERT_TRUE(IsForbidden(listed.status())) << listed.status().ToString();
  EXPECT_NE(listed.status().message().find("system:serviceaccount:" + ns_ + ":nobody"),
            std::string::npos)
      << listed.status().message();
  EXPECT_NE(listed.status().message().find("cannot list resource \"pods\""), std::string::npos)
      << listed.status().message();

  as_sa.token = std::make_shared<StaticTokenSource>("not-a-token");
  auto bad_token = (*NewRestClient(as_sa))->List(kinds::Pod(), ns_);
  EXPECT_TRUE(IsUnauthorized(bad_token.status())) << bad_token.status().ToString();

  // TokenReview of the SA's token, and a TokenRequest through our own client.
  auto review = ReviewToken(*client_, bearer);
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  EXPECT_EQ(review->GetBool({"authenticated"}), true);
  EXPECT_EQ(review->GetString({"user", "username"}), "system:serviceaccount:" + ns_ + ":nobody");
  auto requested = RequestServiceAccountToken(*client_, ns_, "nobody", {{}, 600});
  ASSERT_TRUE(requested.ok()) << requested.status().ToString();
  auto review2 = ReviewToken(*client_, *requested);
  ASSERT_TRUE(review2.ok());
  EXPECT_EQ(review2->GetBool({"authenticated"}), true);
  auto rejected = ReviewToken(*client_, "garbage");
  ASSERT_TRUE(rejected.ok());
  EXPECT_NE(rejected->GetBool({"authenticated"}), true);
}

TEST_F(K8sClientIntegrationTest, WrongCaFailsVerificationClearly) {
  auto admin = LoadKubeconfig(env_->kubeconfig);
  ASSERT_TRUE(admin.ok());
  const std::string dir = std::filesystem::temp_directory_path() / UniqueName("k8s-wrong-ca");
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = dir + "/kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                            << "clusters:\n- name: x\n  cluster:\n    server: " << admin->server
                            << "\n"
                            << "    certificate-authority: "
                            << rdmastack::testing::SourcePath(
                                   "tests/fixtures/kubeconfigs/pki/other-ca.pem")
                            << "\n"
                            << "users:\n- name: u\n  user:\n    token: whatever\n"
                            << "contexts:\n- name: c\n  context: {cluster: x, user: u}\n";
  auto config = LoadKubeconfig(kubeconfig);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto client = NewRestClient(*config);
  ASSERT_TRUE(client.ok());
  auto got = (*client)->List(kinds::Namespace(), "");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition) << got.status().ToString();
  EXPECT_NE(got.status().message().find("TLS certificate verification"), std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find("check the CA bundle"), std::string::npos);
}

// Reads events until `want` returns true or the stream ends/fails.
StatusOr<std::vector<WatchEvent>> ReadUntil(WatchStream& stream,
                                            const std::function<bool(const WatchEvent&)>& want) {
  std::vector<WatchEvent> seen;
  while (true) {
    RDMASTACK_ASSIGN_OR_RETURN(std::optional<WatchEvent> event, stream.Next());
    if (!event) return seen;
    seen.push_back(*event);
    if (want(*event)) return seen;
  }
}

TEST_F(K8sClientIntegrationTest, WatchFromListResourceVersion) {
  Client& c = *client_;
  auto list = c.List(kinds::ConfigMap(), ns_);
  ASSERT_TRUE(list.ok());
  WatchOptions options;
  options.resource_version = list->resource_version;
  options.timeout_seconds = 60;
  options.inactivity_timeout = std::chrono::seconds(90);
  auto watch = c.Watch(kinds::ConfigMap(), ns_, options);
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "w", {{"v", "1"}})).ok());
  ASSERT_TRUE(
      c.Patch(kinds::ConfigMap(), ns_, "w", PatchType::kMerge, R"({"data":{"v":"2"}})").ok());
  ASSERT_TRUE(c.Delete(kinds::ConfigMap(), ns_, "w").ok());
  auto events = ReadUntil(**watch, [](const WatchEvent& e) {
    return e.type == WatchEventType::kDeleted && e.object.Name() == "w";
  });
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  // The controller-manager adds kube-root-ca.crt to new namespaces at its own pace; only "w"
  // counts.
  std::vector<WatchEventType> types;
  std::vector<WatchEvent> of_w;
  for (const auto& e : *events) {
    if (e.object.Name() != "w") continue;
    types.push_back(e.type);
    of_w.push_back(e);
  }
  EXPECT_EQ(types, (std::vector<WatchEventType>{WatchEventType::kAdded, WatchEventType::kModified,
                                                WatchEventType::kDeleted}));
  ASSERT_EQ(of_w.size(), 3u);
  EXPECT_EQ(of_w[1].object.GetString({"data", "v"}), "2");
}

bool OnPrivateCluster() {
  const char* cluster = std::getenv("RDMASTACK_CLUSTER");
  return cluster != nullptr && *cluster != '\0' && std::string(cluster) != "default";
}

// Re-watches from `rv` until the apiserver answers (it may be restarting).
StatusOr<WatchStreamPtr> WatchWhenUp(Client& c, const std::string& ns, const std::string& rv) {
  WatchOptions options;
  options.resource_version = rv;
  options.timeout_seconds = 120;
  options.inactivity_timeout = std::chrono::seconds(150);
  Status last = UnavailableError("not tried");
  for (int i = 0; i < 120; ++i) {
    auto watch = c.Watch(kinds::ConfigMap(), ns, options);
    if (watch.ok() || GetApiError(watch.status()).has_value()) return watch;  // an API answer
    last = watch.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return last;
}

TEST_F(K8sClientIntegrationTest, WatchSurvivesApiserverRestartAndCompaction) {
  if (!OnPrivateCluster()) {
    GTEST_SKIP() << "restarts the apiserver and compacts etcd: only on a private cluster "
                    "(RDMASTACK_CLUSTER=<name> RDMASTACK_PORT_OFFSET=<n>, as scripts/test.sh does)";
  }
  Client& c = *client_;
  ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "before", {})).ok());
  auto list = c.List(kinds::ConfigMap(), ns_);
  ASSERT_TRUE(list.ok());
  const std::string list_rv = list->resource_version;
  auto watch = WatchWhenUp(c, ns_, list_rv);
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  auto created = c.Create(kinds::ConfigMap(), ConfigMap(ns_, "one", {}));
  ASSERT_TRUE(created.ok());
  auto seen = ReadUntil(**watch, [](const WatchEvent& e) { return e.object.Name() == "one"; });
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  std::string last_rv(seen->back().object.ResourceVersion());

  // 1. apiserver restart: the open watch ends (cleanly or with a transport error) ...
  auto restart = RunCommand({env_->cluster_script, "restart", "apiserver"});
  ASSERT_EQ(restart.exit_code, 0) << restart.err;
  auto after_restart = ReadUntil(**watch, [](const WatchEvent&) { return false; });
  EXPECT_TRUE(!after_restart.ok() || after_restart->empty() ||
              after_restart->back().type == WatchEventType::kBookmark)
      << "the watch should have ended";
  // ... and the caller resumes from its last resourceVersion. The restarted apiserver's watch
  // cache may begin after that version; then the watch reports 410 and the caller relists, as a
  // reflector does. Either way no change is lost.
  auto resumed = WatchWhenUp(c, ns_, last_rv);
  ASSERT_TRUE(resumed.ok() || IsExpired(resumed.status())) << resumed.status().ToString();
  ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "two", {})).ok());
  bool relisted = !resumed.ok();
  if (resumed.ok()) {
    auto seen_two = ReadUntil(**resumed, [](const WatchEvent& e) {
      return e.object.Name() == "two" || e.type == WatchEventType::kError;
    });
    ASSERT_TRUE(seen_two.ok()) << seen_two.status().ToString();
    ASSERT_FALSE(seen_two->empty());
    if (seen_two->back().type == WatchEventType::kError) {
      ASSERT_TRUE(IsExpired(seen_two->back().ErrorStatus()))
          << seen_two->back().ErrorStatus().ToString();
      relisted = true;
    } else {
      EXPECT_EQ(seen_two->back().type, WatchEventType::kAdded);
    }
    (*resumed)->Cancel();
  }
  if (relisted) {
    auto relist = c.List(kinds::ConfigMap(), ns_);
    ASSERT_TRUE(relist.ok()) << relist.status().ToString();
    std::set<std::string> names;
    for (const auto& item : relist->items) names.insert(std::string(item.Name()));
    EXPECT_TRUE(names.count("one") == 1 && names.count("two") == 1);
  }
  RecordProperty("after_restart", relisted ? "410, relisted" : "resumed from last resourceVersion");

  // 2. Compaction: etcd forgets history. Reads at a compacted revision get 410 Expired, and so
  //    does a watch from it once the apiserver's watch cache no longer holds it (restart).
  const std::string old_rv = list_rv;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Patch(kinds::ConfigMap(), ns_, "two", PatchType::kMerge,
                        R"({"data":{"i":")" + std::to_string(i) + R"("}})")
                    .ok());
  }
  auto compact = RunCommand({env_->cluster_script, "compact"});
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  ListOptions exact;
  exact.resource_version = old_rv;
  exact.resource_version_match = "Exact";
  auto old_read = c.List(kinds::ConfigMap(), ns_, exact);
  ASSERT_TRUE(IsExpired(old_read.status())) << old_read.status().ToString();

  ASSERT_EQ(RunCommand({env_->cluster_script, "restart", "apiserver"}).exit_code, 0);
  auto expired_watch = WatchWhenUp(c, ns_, old_rv);
  Status expired = expired_watch.ok() ? OkStatus() : expired_watch.status();
  if (expired_watch.ok()) {
    // Some servers accept the watch and report 410 as an ERROR event instead.
    auto events = ReadUntil(**expired_watch,
                            [](const WatchEvent& e) { return e.type == WatchEventType::kError; });
    ASSERT_TRUE(events.ok() && !events->empty()) << "expected an ERROR event";
    expired = events->back().ErrorStatus();
  }
  ASSERT_TRUE(IsExpired(expired)) << expired.ToString();

  // The caller relists and watches again from the fresh resourceVersion.
  ListOptions ours;
  ours.label_selector = "app=k8s-client-test";  // not kube-root-ca.crt
  auto relist = c.List(kinds::ConfigMap(), ns_, ours);
  ASSERT_TRUE(relist.ok()) << relist.status().ToString();
  EXPECT_EQ(relist->items.size(), 3u);  // before, one, two
  auto rewatch = WatchWhenUp(c, ns_, relist->resource_version);
  ASSERT_TRUE(rewatch.ok()) << rewatch.status().ToString();
  ASSERT_TRUE(c.Create(kinds::ConfigMap(), ConfigMap(ns_, "three", {})).ok());
  auto seen_three =
      ReadUntil(**rewatch, [](const WatchEvent& e) { return e.object.Name() == "three"; });
  ASSERT_TRUE(seen_three.ok()) << seen_three.status().ToString();
  EXPECT_EQ(seen_three->back().type, WatchEventType::kAdded);
}

}  // namespace
}  // namespace rdmastack::k8s
