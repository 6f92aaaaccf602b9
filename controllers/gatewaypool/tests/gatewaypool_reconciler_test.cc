// GatewayPoolReconciler against the in-memory API server: the writes it makes, in order, for pools
// that collide, nodes whose agent goes silent, endpoints that move between slices, and a node's
// SideBySide move.
#include "controllers/gatewaypool/gatewaypool_reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/common/cache_transforms.h"
#include "controllers/common/conditions.h"
#include "controllers/common/testing/fake_caches.h"
#include "controllers/common/testing/owner_refs.h"
#include "controllers/common/testing/recorded_events.h"
#include "controllers/gatewaypool/endpoints.h"
#include "controllers/gatewaypool/pool_index.h"
#include "controllers/gatewaypool/rails.h"
#include "controllers/gatewaypool/tests/test_pools.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::gatewaypool {
namespace {

using controllers::testing::ControllerRef;
using k8s::testing::Action;
using k8s::testing::JsonText;
using k8s::testing::ToStrings;

constexpr char kNs[] = "storage";
constexpr char kStorageLabel[] = "node-role.rdmastack.io/storage";

class GatewayPoolReconcilerTest : public ::testing::Test {
 protected:
  GatewayPoolReconcilerTest() {
    auto compatibility = CompatibilitySource::Create("", nullptr, "");
    EXPECT_TRUE(compatibility.ok()) << compatibility.status().ToString();
    compatibility_ = std::move(*compatibility);
    caches_.AddIndexes(crd::kinds::GatewayPool(), PoolIndexes());
    reconciler_ = MakeReconciler();
  }

  // A reconciler as a new process (a restarted or newly elected operator) starts it.
  std::unique_ptr<GatewayPoolReconciler> MakeReconciler() {
    GatewayPoolStores stores{
        caches_.Store(crd::kinds::GatewayPool()),
        caches_.Store(k8s::kinds::Node(), "", controllers::NodeLabelsAndOperatorAnnotations()),
        caches_.Store(crd::kinds::RdmaNode()),
        caches_.Cache(k8s::kinds::Secret(), "", controllers::SecretKeysOnly()),
        caches_.Cache(k8s::kinds::DaemonSet(), OwnedSelector()),
        caches_.Cache(k8s::kinds::Pod(), OwnedSelector(), controllers::PodReadiness()),
        caches_.Cache(k8s::kinds::Service(), OwnedSelector()),
        caches_.Cache(k8s::kinds::EndpointSlice(), OwnedSelector()),
        node_labels_};
    return std::make_unique<GatewayPoolReconciler>(api_, events_, clock_, reachability_, stores,
                                                   *compatibility_, GatewayRenderOptions{},
                                                   *validator_);
  }

  // The kvcache sample as `name`, created at `created`, with its Secret.
  void PutPool(const std::string& name, const std::string& created) {
    crd::GatewayPool pool = testing::SamplePool();
    if (spec_edit_) spec_edit_(pool.spec);
    pool.metadata.name = name;
    pool.metadata.uid = "uid-" + name;
    pool.metadata.creation_timestamp = created;
    ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), JsonText(crd::SerializeResource(pool))).ok());
    ASSERT_TRUE(
        api_.Put(k8s::kinds::Secret(),
                 JsonText(R"({"metadata": {"name": "kvcache-s3-root", "namespace": "storage"},
                                  "data": {"accessKeyId": "YQ==", "secretAccessKey": "Yg=="}})"))
            .ok());
  }

  // A storage node and its agent's report: reporting (and gateway capable) or silent.
  void PutNode(const std::string& name, const std::string& rdma_ip, bool reporting = true) {
    k8s::JsonObject node;
    node.SetName(name);
    node.SetLabel(kStorageLabel, "");
    if (auto current = api_.Find(k8s::kinds::Node(), "", name)) node = *current;
    ASSERT_TRUE(api_.Put(k8s::kinds::Node(), node).ok());
    crd::RdmaNode report;
    report.metadata.name = name;
    std::vector<std::string> addresses = {"bond0 " + rdma_ip + "/24"};
    if (second_rail_)
      addresses.push_back("bond1 " + rdma_ip.substr(0, 3) + "1" + rdma_ip.substr(3) + "/24");
    report.status = testing::AgentStatus(true, addresses);
    if (!reporting) {
      report.status->conditions[0].status = crd::ConditionStatus::kFalse;
      report.status->conditions[0].reason = "Stale";
      report.status->conditions[0].message = "no heartbeat for 5m";
    }
    ASSERT_TRUE(api_.Put(crd::kinds::RdmaNode(), JsonText(crd::SerializeResource(report))).ok());
  }

  // What the DaemonSet controller and the kubelet would make of pool `pool`'s DaemonSet on
  // `node`: its pod, Ready or not, at `ip`.
  void PutGatewayPod(const std::string& pool, const std::string& node, const std::string& ip,
                     bool ready, const std::string& track = "v1") {
    const auto ds = api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName(pool, track));
    ASSERT_TRUE(ds.has_value()) << "no DaemonSet of " << pool << " for " << track;
    k8s::JsonObject pod;
    pod.SetName(DaemonSetName(pool, track) + "-" + node);
    pod.SetNamespace(kNs);
    for (const auto& [k, v] : ds->GetStringMap({"spec", "template", "metadata", "labels"}))
      pod.SetLabel(k, v);
    (void)pod.SetString({"spec", "nodeName"}, node);
    (void)pod.SetString({"status", "podIP"}, ip);
    (void)pod.Append({"status", "conditions"},
                     JsonText(std::string(R"({"type": "Ready", "status": ")") +
                              (ready ? "True" : "False") + "\"}"));
    // The DaemonSet controller makes its DaemonSet the pod's controller.
    (void)pod.Append(
        {"metadata", "ownerReferences"},
        ControllerRef("apps/v1", "DaemonSet", std::string(ds->Name()), std::string(ds->Uid())));
    ASSERT_TRUE(api_.Put(k8s::kinds::Pod(), pod).ok());
  }

  // An object of `type` in the pool's namespace with pool `pool`'s labels (so the caches hold
  // it) and `controller_uid` as its controller ("" = none): what anyone who may create the kind
  // there can make.
  void PutLookAlike(const k8s::ResourceType& type, const std::string& name, const std::string& pool,
                    const std::string& controller_uid, std::string json = "{}") {
    k8s::JsonObject o = JsonText(json);
    o.SetName(name);
    o.SetNamespace(kNs);
    o.SetLabel(kPoolLabel, pool);
    o.SetLabel(kComponentLabel, kGatewayComponent);
    o.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
    o.SetLabel(kTrackLabel, "v1");
    if (!controller_uid.empty())
      (void)o.Append({"metadata", "ownerReferences"},
                     ControllerRef("v1", "ConfigMap", "someone-else", controller_uid));
    ASSERT_TRUE(api_.Put(type, o).ok());
  }

  // One pass over pool `name` with the caches as the API server is now; only its writes stay in
  // the log.
  std::vector<Action> Reconcile(const std::string& name) {
    caches_.Sync();
    api_.ClearActions();
    auto result = reconciler_->Reconcile({kNs, name});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return api_.writes();
  }

  crd::GatewayPoolStatus StatusOf(const std::string& name) {
    auto pool = crd::ParseResource<crd::GatewayPool>(
        api_.Find(crd::kinds::GatewayPool(), kNs, name)->value());
    EXPECT_TRUE(pool.ok()) << pool.status().ToString();
    return pool.ok() && pool->status ? *pool->status : crd::GatewayPoolStatus{};
  }

  // Two verified nodes serving pool kvcache from Ready gateways.
  void ServeOnTwoNodes() {
    PutPool("kvcache", "2026-01-01T00:00:00Z");
    PutNode("stg-a", "10.0.0.1");
    PutNode("stg-b", "10.0.0.2");
    Reconcile("kvcache");
    PutGatewayPod("kvcache", "stg-a", "10.0.0.1", true);
    PutGatewayPod("kvcache", "stg-b", "10.0.0.2", true);
    Reconcile("kvcache");
    const crd::GatewayPoolStatus status = StatusOf("kvcache");
    const crd::Condition* ready = controllers::FindCondition(status.conditions, kReady);
    ASSERT_NE(ready, nullptr);
    ASSERT_EQ(ready->reason, "GatewaysReady") << ready->message;
  }

  // The user edits pool kvcache to the 2.0 sample (keeping what the server has in metadata and
  // status); `drain_seconds` < 0 keeps the sample's.
  void EditToVersion2(int drain_seconds = -1) {
    crd::GatewayPool next = testing::SamplePool("gatewaypool-kvcache-2.0.yaml");
    if (spec_edit_) spec_edit_(next.spec);
    next.metadata.name = "kvcache";
    next.metadata.uid = "uid-kvcache";
    next.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
    if (drain_seconds >= 0) next.spec.upgrade.drain_seconds = drain_seconds;
    const k8s::JsonObject current = *api_.Find(crd::kinds::GatewayPool(), kNs, "kvcache");
    k8s::JsonObject updated = JsonText(crd::SerializeResource(next));
    (void)updated.Set({"metadata"}, *current.Get({"metadata"}));
    (void)updated.Set({"status"}, *current.Get({"status"}));
    ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), updated).ok());
  }

  // Pool kvcache on two nodes, edited to 2.0 with `drain_seconds`: stg-a goes as far as Drain.
  void DrainStgA(int drain_seconds = 10) {
    ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
    ASSERT_NO_FATAL_FAILURE(EditToVersion2(drain_seconds));
    Reconcile("kvcache");  // stg-a starts
    PutGatewayPod("kvcache", "stg-a", "10.0.0.1", true, "v2");
    clock_.Advance(std::chrono::seconds(2));
    Reconcile("kvcache");  // Switch, its endpoint published, Drain
    ASSERT_EQ(PhaseOf("stg-a"), "Drain");
  }

  // stg-a, in Drain now, is still there `after` minus a second later and in StopOld at `after`.
  void ExpectStgALeavesDrainAfter(std::chrono::seconds after) {
    clock_.Advance(after - std::chrono::seconds(1));
    Reconcile("kvcache");
    EXPECT_EQ(PhaseOf("stg-a"), "Drain");
    clock_.Advance(std::chrono::seconds(1));
    Reconcile("kvcache");
    EXPECT_EQ(PhaseOf("stg-a"), "StopOld");
  }

  // Another writer changes `node`'s upgrade state in pool kvcache on the API server.
  void RewriteState(const std::string& node, const std::function<void(NodeUpgradeState&)>& edit) {
    k8s::JsonObject n = *api_.Find(k8s::kinds::Node(), "", node);
    auto state =
        ParseNodeUpgradeState(n.Annotation(NodeUpgradeAnnotation(kNs, "kvcache")).value_or(""));
    ASSERT_TRUE(state.ok());
    edit(*state);
    n.SetAnnotation(NodeUpgradeAnnotation(kNs, "kvcache"), SerializeNodeUpgradeState(*state));
    ASSERT_TRUE(api_.Put(k8s::kinds::Node(), n).ok());
  }

  // The phase of `node`'s move in pool kvcache, as the API server has it; "none" without one.
  std::string PhaseOf(const std::string& node) {
    auto state = ParseNodeUpgradeState(api_.Find(k8s::kinds::Node(), "", node)
                                           ->Annotation(NodeUpgradeAnnotation(kNs, "kvcache"))
                                           .value_or(""));
    return state.ok() ? std::string(PhaseName(state->phase)) : "none";
  }

  // Applied to every pool spec PutPool and EditToVersion2 write (e.g. rails).
  std::function<void(crd::GatewayPoolSpec&)> spec_edit_;
  bool second_rail_ = false;  // PutNode adds bond1 at 10.1... beside bond0's 10.0...
  k8s::testing::FakeClient api_;
  controllers::testing::FakeCaches caches_{api_};
  controllers::testing::FakeNodeLabelCoverage node_labels_;
  controllers::testing::RecordedEvents events_;
  FakeClock clock_;
  runtime::ApiReachability reachability_{clock_};
  std::unique_ptr<CompatibilitySource> compatibility_;
  std::unique_ptr<GatewayValidator> validator_ = MakePodReadyValidator();
  std::unique_ptr<GatewayPoolReconciler> reconciler_;
};

TEST_F(GatewayPoolReconcilerTest, WaitsWithoutWritingWhileTheNodeCacheLacksASelectorKey) {
  ServeOnTwoNodes();
  const crd::GatewayPoolStatus before = StatusOf("kvcache");
  // The Node cache is re-listing to hold a key the selector names: the cached Nodes would look
  // unselected, so the pass decides nothing and writes nothing.
  node_labels_.covered = false;
  node_labels_.asked.clear();
  caches_.Sync();
  api_.ClearActions();
  auto result = reconciler_->Reconcile({kNs, "kvcache"});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->requeue_after, controllers::kNodeCacheWait);
  EXPECT_TRUE(api_.writes().empty());
  EXPECT_EQ(node_labels_.asked.count(kStorageLabel), 1u);
  EXPECT_EQ(StatusOf("kvcache"), before);
  // Once the re-list is in, the pass goes on as before.
  node_labels_.covered = true;
  Reconcile("kvcache");
  EXPECT_EQ(StatusOf("kvcache").node_counts->selected, 2);
}

TEST_F(GatewayPoolReconcilerTest, APoolStartsWithItsFinalizerThenItsGatewaysAndStatus) {
  PutPool("kvcache", "2026-01-01T00:00:00Z");
  PutNode("stg-a", "10.0.0.1");
  EXPECT_EQ(ToStrings(Reconcile("kvcache")),
            (std::vector<std::string>{"patch GatewayPool storage/kvcache", "patch Node stg-a",
                                      "apply DaemonSet storage/kvcache-gateway-v1",
                                      "apply Service storage/kvcache-gateway",
                                      "apply EndpointSlice storage/kvcache-gateway-v1-0",
                                      "apply/status GatewayPool storage/kvcache"}));
  EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "stg-a")->Label(NodeTrackLabel(kNs, "kvcache", "v1")),
            "true");
  // Nothing changed: nothing is written.
  EXPECT_EQ(ToStrings(Reconcile("kvcache")), std::vector<std::string>{});
}

TEST_F(GatewayPoolReconcilerTest, TheLaterOfTwoPoolsOnTheSamePortsIsRefusedAndCreatesNothing) {
  PutPool("first", "2026-01-01T00:00:00Z");
  PutPool("second", "2026-01-02T00:00:00Z");  // the sample's ports: 7071 and 19100 again
  PutNode("stg-a", "10.0.0.1");

  const std::vector<Action> first = Reconcile("first");
  EXPECT_EQ(api_.writes("DaemonSet").size(), 1u) << "the older pool starts";
  const std::vector<Action> second = Reconcile("second");
  EXPECT_EQ(ToStrings(second),
            (std::vector<std::string>{"patch GatewayPool storage/second",
                                      "apply/status GatewayPool storage/second"}))
      << "only its finalizer and its status";
  EXPECT_FALSE(api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName("second", "v1")));
  EXPECT_FALSE(api_.Find(k8s::kinds::Service(), kNs, ServiceName("second")));

  const crd::GatewayPoolStatus status = StatusOf("second");
  const crd::Condition* verified = controllers::FindCondition(status.conditions, kNodesVerified);
  ASSERT_NE(verified, nullptr);
  EXPECT_EQ(verified->reason, "PoolConflict");
  EXPECT_NE(verified->message.find("pool storage/first, created before this one, holds port "
                                   "7071, 19100 on stg-a"),
            std::string::npos)
      << verified->message;
  EXPECT_EQ(controllers::FindCondition(status.conditions, kReady)->reason, "PoolConflict");
  // The older pool is not held back by the newer one.
  const crd::GatewayPoolStatus first_status = StatusOf("first");
  const crd::Condition* first_ready = controllers::FindCondition(first_status.conditions, kReady);
  ASSERT_NE(first_ready, nullptr);
  EXPECT_NE(first_ready->reason, "PoolConflict");
}

// Ownership is the controller reference, not the label (controllers/common/owned_objects.h):
// objects with the pool's labels but another controller, or none, are not adopted, counted,
// published or deleted, and a Warning event names each.
TEST_F(GatewayPoolReconcilerTest, LookAlikesWithThePoolsLabelsAreIgnoredAndNamed) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  PutNode("stg-c", "10.0.0.3");
  // A DaemonSet of nobody's, a Ready "gateway" pod it controls at an address of the author's
  // choosing, a pod with no controller, and an EndpointSlice that lists that address.
  ASSERT_NO_FATAL_FAILURE(
      PutLookAlike(k8s::kinds::DaemonSet(), "kvcache-gateway-v9", "kvcache", ""));
  const std::string fake_ds_uid(
      api_.Find(k8s::kinds::DaemonSet(), kNs, "kvcache-gateway-v9")->Uid());
  ASSERT_NO_FATAL_FAILURE(
      PutLookAlike(k8s::kinds::Pod(), "kvcache-gateway-v1-evil", "kvcache", fake_ds_uid,
                   R"({"spec": {"nodeName": "stg-c"}, "status": {"podIP": "10.6.6.6",
          "conditions": [{"type": "Ready", "status": "True"}]}})"));
  ASSERT_NO_FATAL_FAILURE(
      PutLookAlike(k8s::kinds::Pod(), "kvcache-gateway-v1-orphan", "kvcache", "",
                   R"({"spec": {"nodeName": "stg-c"}, "status": {"podIP": "10.6.6.7",
          "conditions": [{"type": "Ready", "status": "True"}]}})"));
  ASSERT_NO_FATAL_FAILURE(
      PutLookAlike(k8s::kinds::EndpointSlice(), "kvcache-gateway-v1-7", "kvcache", "uid-of-another",
                   R"({"addressType": "IPv4", "ports": [{"name": "s3", "port": 7071}],
          "endpoints": [{"addresses": ["10.6.6.6"], "nodeName": "stg-c",
                         "conditions": {"ready": true}}]})"));
  const std::string slice_before =
      api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-7")->Serialize();
  const size_t related_before = events_.related().size();

  for (const Action& a : Reconcile("kvcache")) {
    EXPECT_NE(a.name, "kvcache-gateway-v9") << a.ToString();
    EXPECT_NE(a.name, "kvcache-gateway-v1-evil") << a.ToString();
    EXPECT_NE(a.name, "kvcache-gateway-v1-orphan") << a.ToString();
    EXPECT_NE(a.name, "kvcache-gateway-v1-7") << a.ToString();
  }
  EXPECT_EQ(api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-7")->Serialize(),
            slice_before);
  // The pool's own slice lists its own gateways only.
  EXPECT_EQ(ReadyNodes(*api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-0")),
            (std::set<std::string>{"stg-a", "stg-b"}));
  EXPECT_EQ(api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-0")
                ->Serialize()
                .find("10.6.6."),
            std::string::npos);
  // Not counted: two of the three selected nodes serve.
  const crd::GatewayPoolStatus status = StatusOf("kvcache");
  ASSERT_TRUE(status.node_counts.has_value());
  EXPECT_EQ(status.node_counts->ready, 2);
  std::vector<std::string> related = events_.related();
  related.erase(related.begin(), related.begin() + static_cast<long>(related_before));
  for (const std::string name :
       {"DaemonSet storage/kvcache-gateway-v9", "Pod storage/kvcache-gateway-v1-evil",
        "Pod storage/kvcache-gateway-v1-orphan", "EndpointSlice storage/kvcache-gateway-v1-7"}) {
    EXPECT_TRUE(std::any_of(related.begin(), related.end(),
                            [&](const std::string& r) {
                              return r.rfind("NotOwnedIgnored ", 0) == 0 &&
                                     r.find(": " + name +
                                            " carries gatewaypool.rdmastack.io/name=kvcache") !=
                                         std::string::npos;
                            }))
        << name << " in " << ::testing::PrintToString(related);
  }
  const std::vector<std::string> events = events_.events();
  EXPECT_NE(std::find(events.begin(), events.end(), "Warning NotOwnedIgnored storage/kvcache"),
            events.end());

  // Deleting the pool deletes its own objects and leaves the look-alikes.
  k8s::JsonObject pool = *api_.Find(crd::kinds::GatewayPool(), kNs, "kvcache");
  ASSERT_TRUE(api_.Delete(crd::kinds::GatewayPool(), kNs, "kvcache").ok());
  for (const Action& a : Reconcile("kvcache")) {
    if (a.verb != "delete") continue;
    EXPECT_TRUE(a.name == "kvcache-gateway-v1" || a.name == "kvcache-gateway" ||
                a.name == "kvcache-gateway-v1-0")
        << a.ToString();
  }
  EXPECT_TRUE(api_.Find(k8s::kinds::DaemonSet(), kNs, "kvcache-gateway-v9"));
  EXPECT_TRUE(api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-7"));
  EXPECT_FALSE(api_.Find(k8s::kinds::DaemonSet(), kNs, "kvcache-gateway-v1"));
}

// An object of the name the pool would create, not the pool's: nothing is written over it (an
// apply would adopt it with whatever else its author put in), and the pass fails naming it.
TEST_F(GatewayPoolReconcilerTest, AnObjectOfTheSameNameThatIsNotThePoolsIsNotWrittenOver) {
  PutPool("kvcache", "2026-01-01T00:00:00Z");
  PutNode("stg-a", "10.0.0.1");
  ASSERT_NO_FATAL_FAILURE(
      PutLookAlike(k8s::kinds::DaemonSet(), DaemonSetName("kvcache", "v1"), "kvcache", ""));
  const std::string before =
      api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName("kvcache", "v1"))->Serialize();
  caches_.Sync();
  api_.ClearActions();
  auto result = reconciler_->Reconcile({kNs, "kvcache"});
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("DaemonSet storage/kvcache-gateway-v1 exists but is "
                                           "not this one's (its controller is none)"),
            std::string::npos)
      << result.status().ToString();
  for (const Action& a : api_.writes()) EXPECT_NE(a.kind, "DaemonSet") << a.ToString();
  EXPECT_EQ(api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName("kvcache", "v1"))->Serialize(),
            before);
}

// The same without our labels: the caches never see it, and a server-side apply would merge the
// pool's gateway into it (keeping its extra container) and make it the pool's. It is read from the
// server before the first apply and refused the same way.
TEST_F(GatewayPoolReconcilerTest, AnUnlabelledObjectOfTheSameNameIsNotAdoptedEither) {
  PutPool("kvcache", "2026-01-01T00:00:00Z");
  PutNode("stg-a", "10.0.0.1");
  const std::string name = DaemonSetName("kvcache", "v1");
  ASSERT_TRUE(api_.Put(k8s::kinds::DaemonSet(),
                       *k8s::JsonObject::Parse(
                           R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":")" +
                           name + R"(","namespace":")" + kNs +
                           R"("},"spec":{"template":{"spec":{"containers":[{"name":"miner",)"
                           R"("image":"evil"}]}}}})"))
                  .ok());
  const std::string before = api_.Find(k8s::kinds::DaemonSet(), kNs, name)->Serialize();
  caches_.Sync();
  api_.ClearActions();
  auto result = reconciler_->Reconcile({kNs, "kvcache"});
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("DaemonSet storage/kvcache-gateway-v1 exists but is "
                                           "not this one's (its controller is none)"),
            std::string::npos)
      << result.status().ToString();
  for (const Action& a : api_.writes()) EXPECT_NE(a.kind, "DaemonSet") << a.ToString();
  EXPECT_EQ(api_.Find(k8s::kinds::DaemonSet(), kNs, name)->Serialize(), before);

  // Once it is gone, the pool's own is created.
  ASSERT_TRUE(api_.Erase(k8s::kinds::DaemonSet(), kNs, name));
  caches_.Sync();
  EXPECT_TRUE(reconciler_->Reconcile({kNs, "kvcache"}).ok());
  ASSERT_TRUE(api_.Find(k8s::kinds::DaemonSet(), kNs, name).has_value());
  EXPECT_EQ(api_.Find(k8s::kinds::DaemonSet(), kNs, name)->OwnerReferences().size(), 1u);
}

TEST_F(GatewayPoolReconcilerTest, ANodeWhoseAgentWentSilentKeepsItsGateway) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  PutNode("stg-b", "10.0.0.2", /*reporting=*/false);

  const std::vector<Action> writes = Reconcile("kvcache");
  for (const Action& a : writes) {
    EXPECT_NE(a.verb, "delete") << a.ToString();
    EXPECT_NE(a.kind, "Node") << a.ToString() << ": the node's track label must stay";
    EXPECT_NE(a.kind, "EndpointSlice") << a.ToString() << ": its endpoint must stay";
  }
  EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "stg-b")->Label(NodeTrackLabel(kNs, "kvcache", "v1")),
            "true");
  const crd::GatewayPoolStatus status = StatusOf("kvcache");
  EXPECT_EQ(status.node_counts->ready_of_selected, "2/2");
  ASSERT_EQ(status.endpoints.size(), 2u);
}

TEST_F(GatewayPoolReconcilerTest, ASliceThatGainsAReadyEndpointIsWrittenBeforeOneThatLosesOne) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  // The slices as an earlier layout left them: stg-a in slice 0, stg-b in slice 1 (not Ready).
  const k8s::JsonObject slice =
      *api_.Find(k8s::kinds::EndpointSlice(), kNs, DaemonSetName("kvcache", "v1") + "-0");
  auto endpoint_of = [&](const std::string& node, bool ready) {
    for (k8s::JsonObject e : slice.GetArray({"endpoints"})) {
      if (e.GetString({"nodeName"}) != node) continue;
      (void)e.SetBool({"conditions", "ready"}, ready);
      return e;
    }
    ADD_FAILURE() << "no endpoint of " << node;
    return k8s::JsonObject();
  };
  k8s::JsonObject zero = slice, one = slice;
  (void)zero.SetArray({"endpoints"}, {endpoint_of("stg-a", true)});
  (void)zero.Remove({"metadata", "annotations"});  // not what the operator applied: rewritten
  one.SetName(DaemonSetName("kvcache", "v1") + "-1");
  (void)one.SetArray({"endpoints"}, {endpoint_of("stg-b", false)});
  (void)one.Remove({"metadata", "annotations"});
  ASSERT_TRUE(api_.Put(k8s::kinds::EndpointSlice(), zero).ok());
  ASSERT_TRUE(api_.Put(k8s::kinds::EndpointSlice(), one).ok());
  // Now stg-a's gateway stops being Ready and stg-b's turns Ready.
  PutGatewayPod("kvcache", "stg-a", "10.0.0.1", false);
  PutGatewayPod("kvcache", "stg-b", "10.0.0.2", true);

  Reconcile("kvcache");
  EXPECT_EQ(ToStrings(api_.writes("EndpointSlice")),
            (std::vector<std::string>{"apply EndpointSlice storage/kvcache-gateway-v1-1",
                                      "apply EndpointSlice storage/kvcache-gateway-v1-0"}))
      << "slice 1 gains stg-b, slice 0 loses stg-a: clients must never be left without one";
}

// The pass that sees a node's new gateway Ready publishes its new endpoint and, once the API server
// took that write, stops the old gateway in the same pass (drainSeconds 0), instead of a pass
// later when the slice write came back through the watch. The order keeps the node served: the
// new endpoint is written ready before the old gateway's label goes and its endpoint is dropped.
TEST_F(GatewayPoolReconcilerTest, ANewEndpointPublishedInThePassStopsTheOldGatewayInTheSamePass) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  ASSERT_NO_FATAL_FAILURE(EditToVersion2(/*drain_seconds=*/0));
  Reconcile("kvcache");  // stg-a starts (maxParallel 1): its v2 label, the v2 DaemonSet
  ASSERT_EQ(PhaseOf("stg-a"), "StartNew");
  PutGatewayPod("kvcache", "stg-a", "10.0.0.1", true, "v2");
  clock_.Advance(std::chrono::seconds(2));  // the rollout's status is due again

  const std::vector<Action> writes = Reconcile("kvcache");
  std::vector<std::string> order;
  for (const std::string& w : ToStrings(writes)) {
    if (w.find("Node stg-a") != std::string::npos || w.find("EndpointSlice") != std::string::npos)
      order.push_back(w);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"patch Node stg-a",  // Switch
                                             "apply EndpointSlice storage/kvcache-gateway-v2-0",
                                             "patch Node stg-a",  // StopOld: the v1 label goes
                                             "apply EndpointSlice storage/kvcache-gateway-v1-0"}));
  EXPECT_EQ(PhaseOf("stg-a"), "StopOld");
  const k8s::JsonObject node = *api_.Find(k8s::kinds::Node(), "", "stg-a");
  EXPECT_FALSE(node.Label(NodeTrackLabel(kNs, "kvcache", "v1")).has_value());
  EXPECT_TRUE(node.Label(NodeTrackLabel(kNs, "kvcache", "v2")).has_value());
  const crd::GatewayPoolStatus status = StatusOf("kvcache");
  ASSERT_TRUE(status.current_upgrade.has_value());
  EXPECT_EQ(status.current_upgrade->phases.stop_old, 1);
  EXPECT_EQ(status.current_upgrade->phases.switch_, 0);

  // The old pod goes: stg-a is done, stg-b starts. Within 2 s of the last status write the
  // rollout's status waits (the pass asks to be woken when it is due); after, it is written.
  ASSERT_TRUE(api_.Delete(k8s::kinds::Pod(), kNs, DaemonSetName("kvcache", "v1") + "-stg-a").ok());
  clock_.Advance(std::chrono::milliseconds(500));
  caches_.Sync();
  api_.ClearActions();
  auto held = reconciler_->Reconcile({kNs, "kvcache"});
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(PhaseOf("stg-a"), "Done");
  EXPECT_EQ(PhaseOf("stg-b"), "StartNew");
  EXPECT_TRUE(api_.writes("GatewayPool").empty()) << ToStrings(api_.writes("GatewayPool"))[0];
  EXPECT_EQ(held->requeue_after, std::chrono::milliseconds(1500));
  EXPECT_EQ(StatusOf("kvcache").current_upgrade->phases.done, 0);
  clock_.Advance(std::chrono::milliseconds(1500));
  Reconcile("kvcache");
  EXPECT_EQ(StatusOf("kvcache").current_upgrade->phases.done, 1);
}

// Validates every rail of the new track on its own S3 port, as the operator's S3 check would.
class RecordingValidator : public GatewayValidator {
 public:
  bool NeedsCredentials() const override { return false; }
  Validation Validate(const ValidationTarget& t) override {
    std::lock_guard lock(mu_);
    asked_.push_back(t.ip + ":" + std::to_string(t.port));
    if (t.port == refused_port_) return {false, "GatewayUnreachable", "connection refused"};
    return {true, "", ""};
  }
  std::vector<std::string> Asked() {
    std::lock_guard lock(mu_);
    return std::exchange(asked_, {});
  }
  void Refuse(int32_t port) { refused_port_ = port; }

 private:
  std::mutex mu_;
  std::vector<std::string> asked_;
  std::atomic<int32_t> refused_port_{0};
};

// A two-rail pool's SideBySide move validates each rail's gateway before the node switches; one
// that does not answer holds the node in Validate, naming the rail.
TEST_F(GatewayPoolReconcilerTest, AMultiRailNodeSwitchesOnlyWhenEveryRailsGatewayAnswers) {
  auto recording = std::make_unique<RecordingValidator>();
  RecordingValidator* validator = recording.get();
  validator_ = std::move(recording);
  reconciler_ = MakeReconciler();
  spec_edit_ = [](crd::GatewayPoolSpec& spec) {
    spec.rdma.interface.reset();
    spec.rdma.cidr.reset();
    spec.rdma.rails = {{"rail-a", "bond0", std::nullopt}, {"rail-b", "bond1", std::nullopt}};
  };
  second_rail_ = true;
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  ASSERT_NO_FATAL_FAILURE(EditToVersion2());
  crd::GatewayPool next = testing::SamplePool("gatewaypool-kvcache-2.0.yaml");
  spec_edit_(next.spec);
  const std::vector<Rail> rails =
      RailsOf(next.spec, *DecideTrack(next.spec, testing::ShippedMatrix()).track);
  ASSERT_EQ(rails.size(), 2u);
  const int32_t s3 = rails[0].s3_port;
  ASSERT_EQ(rails[1].s3_port, s3 + 100);
  Reconcile("kvcache");  // stg-a starts
  PutGatewayPod("kvcache", "stg-a", "10.0.0.1", true, "v2");
  validator->Asked();
  validator->Refuse(s3 + 100);
  clock_.Advance(std::chrono::seconds(2));
  Reconcile("kvcache");
  EXPECT_EQ(validator->Asked(), (std::vector<std::string>{"10.0.0.1:" + std::to_string(s3),
                                                          "10.0.0.1:" + std::to_string(s3 + 100)}));
  EXPECT_EQ(PhaseOf("stg-a"), "Validate");
  validator->Refuse(0);
  clock_.Advance(std::chrono::seconds(2));
  Reconcile("kvcache");
  EXPECT_NE(PhaseOf("stg-a"), "Validate");
}

// After an API server restart the Node informer relists late: a second pass can come before the
// cache has the node's start. It must plan from what it wrote (the move under way), not start
// the move again with a new start time (the upgrade fault e2e saw a node "move twice").
TEST_F(GatewayPoolReconcilerTest, APassBeforeTheCacheHasANodesStartDoesNotStartItAgain) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  ASSERT_NO_FATAL_FAILURE(EditToVersion2());
  Reconcile("kvcache");  // stg-a starts (maxParallel 1)
  const std::string state_key = NodeUpgradeAnnotation(kNs, "kvcache");
  auto state_of = [&](const std::string& node) {
    return api_.Find(k8s::kinds::Node(), "", node)->Annotation(state_key).value_or("");
  };
  const std::string started = state_of("stg-a");
  ASSERT_NE(started.find("StartNew"), std::string::npos) << started;

  // The next pass a second later, the Node cache still without the start.
  clock_.Advance(std::chrono::seconds(1));
  api_.ClearActions();
  auto again = reconciler_->Reconcile({kNs, "kvcache"});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (const std::string& w : ToStrings(api_.writes("Node"))) ADD_FAILURE() << w;
  EXPECT_EQ(state_of("stg-a"), started);
  EXPECT_EQ(state_of("stg-b"), "");
}

// Clients learn of a move through the API server: a drain the API server was away for lasts
// drainSeconds from its first answer after the outage, not from when the drain began.
TEST_F(GatewayPoolReconcilerTest, ADrainLastsDrainSecondsAfterTheApiServerAnswersAgain) {
  ASSERT_NO_FATAL_FAILURE(DrainStgA());

  // The API server stops answering a second in, for 15 s: longer than the drain.
  clock_.Advance(std::chrono::seconds(1));
  reachability_.End(runtime::RequestKind::kStorage,
                    reachability_.Begin(runtime::RequestKind::kStorage),
                    UnavailableError("connection refused"));
  clock_.Advance(std::chrono::seconds(15));
  reachability_.End(runtime::RequestKind::kStorage,
                    reachability_.Begin(runtime::RequestKind::kStorage), OkStatus());
  caches_.Sync();
  auto result = reconciler_->Reconcile({kNs, "kvcache"});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(PhaseOf("stg-a"), "Drain") << "the drain starts over from the answer";
  EXPECT_EQ(result->requeue_after, std::chrono::seconds(10));
  EXPECT_TRUE(api_.Find(k8s::kinds::Node(), "", "stg-a")
                  ->Label(NodeTrackLabel(kNs, "kvcache", "v1"))
                  .has_value())
      << "the old gateway keeps serving";

  ExpectStgALeavesDrainAfter(std::chrono::seconds(10));
}

// Another replica wrote the node's drain start with a wall clock 30 s behind this one's, then
// lost its lease. The successor counts the drain from when it first saw it, on its own monotonic
// clock: the drain is not cut short by the writer's clock.
TEST_F(GatewayPoolReconcilerTest, ASuccessorNeverShortensADrainWrittenByALaggingClock) {
  ASSERT_NO_FATAL_FAILURE(DrainStgA());
  // As the lagging writer had it: since and started 30 s earlier.
  ASSERT_NO_FATAL_FAILURE(RewriteState("stg-a", [](NodeUpgradeState& s) {
    s.since -= 30;
    s.started -= 30;
  }));

  clock_.Advance(std::chrono::seconds(1));
  reconciler_ = MakeReconciler();  // the successor, whose API server has answered all along
  Reconcile("kvcache");
  EXPECT_EQ(PhaseOf("stg-a"), "Drain") << "counted from the successor's first sight of it";
  ExpectStgALeavesDrainAfter(std::chrono::seconds(10));
}

// A deposed leader plans from its cache; the successor moved the node meanwhile. The stale
// writer's state patch carries the resourceVersion it planned from and fails with a conflict,
// leaving the successor's state as it is.
TEST_F(GatewayPoolReconcilerTest, AStaleWritersUpgradeStatePatchFailsInsteadOfUndoingANewerOne) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  ASSERT_NO_FATAL_FAILURE(EditToVersion2(/*drain_seconds=*/10));
  Reconcile("kvcache");  // stg-a starts
  PutGatewayPod("kvcache", "stg-a", "10.0.0.1", true, "v2");
  caches_.Sync();
  // The successor's write lands after this process read the node: stg-a rolled back.
  ASSERT_NO_FATAL_FAILURE(RewriteState("stg-a", [](NodeUpgradeState& s) {
    s.phase = UpgradePhase::kRollBack;
    s.reason = "Halted";
  }));
  const std::string successors = *api_.Find(k8s::kinds::Node(), "", "stg-a")
                                      ->Annotation(NodeUpgradeAnnotation(kNs, "kvcache"));

  api_.ClearActions();
  auto result = reconciler_->Reconcile({kNs, "kvcache"});  // plans Switch from the stale cache
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(k8s::IsConflict(result.status())) << result.status().ToString();
  EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "stg-a")
                ->Annotation(NodeUpgradeAnnotation(kNs, "kvcache"))
                .value_or(""),
            successors);
}

// The same for validationTimeout: a move whose start another replica stamped with a clock far
// behind is not failed at once by the successor.
TEST_F(GatewayPoolReconcilerTest, ASuccessorNeverShortensAValidationTimeout) {
  ASSERT_NO_FATAL_FAILURE(ServeOnTwoNodes());
  ASSERT_NO_FATAL_FAILURE(EditToVersion2());
  Reconcile("kvcache");  // stg-a starts; its new gateway never turns Ready
  ASSERT_EQ(PhaseOf("stg-a"), "StartNew");
  ASSERT_NO_FATAL_FAILURE(RewriteState("stg-a", [](NodeUpgradeState& s) {
    s.since -= 3600;
    s.started -= 3600;
  }));

  reconciler_ = MakeReconciler();
  Reconcile("kvcache");
  EXPECT_EQ(PhaseOf("stg-a"), "StartNew") << "not timed out by the writer's clock";
  clock_.Advance(std::chrono::seconds(599));
  Reconcile("kvcache");
  EXPECT_EQ(PhaseOf("stg-a"), "StartNew");
  clock_.Advance(std::chrono::seconds(1));
  Reconcile("kvcache");
  EXPECT_EQ(PhaseOf("stg-a"), "RollBack")
      << "validationTimeout 10m from the successor's first sight";
}

// The admin's host limits (controllers/common/host_policy.h, defaults here): a port below 1024 or
// a toleration of the control plane refuses the edit with a condition and a Warning event, and the
// gateways of the last accepted spec keep serving.
TEST_F(GatewayPoolReconcilerTest, AnEditOutsideTheHostLimitsIsRefusedAndTheGatewaysKeepServing) {
  ServeOnTwoNodes();
  struct Edit {
    std::vector<std::string> field;
    std::string value, reason, says;
  };
  for (const Edit& e : std::vector<Edit>{
           {{"s3", "port"}, "443", "HostPortNotAllowed", "s3.port 443 is outside"},
           {{"rdma", "port"}, "1023", "HostPortNotAllowed", "rdma.port 1023 is outside"},
           {{"tolerations"},
            R"([{"operator": "Exists"}])",
            "ControlPlaneTolerationNotAllowed",
            "tolerations[0] {operator: Exists} tolerates every taint"},
           {{"tolerations"},
            R"([{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
                 "effect": "NoSchedule"}])",
            "ControlPlaneTolerationNotAllowed",
            "the control plane's taint"}}) {
    k8s::JsonObject pool = *api_.Find(crd::kinds::GatewayPool(), kNs, "kvcache");
    const k8s::JsonObject accepted = pool;
    std::vector<std::string> path = {"spec"};
    path.insert(path.end(), e.field.begin(), e.field.end());
    ASSERT_TRUE(pool.Set(k8s::JsonPath(path), JsonText(e.value)).ok());
    ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), pool).ok());
    const size_t events_before = events_.events().size();

    const std::vector<Action> writes = Reconcile("kvcache");
    for (const Action& a : writes) EXPECT_NE(a.kind, "DaemonSet") << e.value;
    EXPECT_TRUE(api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName("kvcache", "v1")));
    const crd::GatewayPoolStatus status = StatusOf("kvcache");
    const crd::Condition* compatible =
        controllers::FindCondition(status.conditions, kLibraryCompatible);
    ASSERT_NE(compatible, nullptr);
    EXPECT_EQ(compatible->reason, e.reason) << e.value;
    EXPECT_NE(compatible->message.find(e.says), std::string::npos) << compatible->message;
    const std::vector<std::string> events = events_.events();
    ASSERT_GT(events.size(), events_before) << e.value;
    EXPECT_NE(std::find(events.begin() + events_before, events.end(),
                        "Warning " + e.reason + " storage/kvcache"),
              events.end())
        << ::testing::PrintToString(events);
    EXPECT_EQ(status.node_counts->ready_of_selected, "2/2") << "still serving: " << e.value;

    // Back to the accepted spec: served as before.
    k8s::JsonObject back = *api_.Find(crd::kinds::GatewayPool(), kNs, "kvcache");
    ASSERT_TRUE(back.Set({"spec"}, *accepted.Get({"spec"})).ok());
    ASSERT_TRUE(api_.Put(crd::kinds::GatewayPool(), back).ok());
    Reconcile("kvcache");
    const crd::GatewayPoolStatus after = StatusOf("kvcache");
    EXPECT_EQ(controllers::FindCondition(after.conditions, kLibraryCompatible)->reason,
              "Compatible");
  }
}

}  // namespace
}  // namespace rdmastack::gatewaypool
