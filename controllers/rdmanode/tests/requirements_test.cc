#include "controllers/rdmanode/requirements.h"

#include <gtest/gtest.h>

#include "controllers/common/node_selection.h"

namespace rdmastack::rdmanode {
namespace {

crd::GatewayPool Pool(const std::string& name, crd::StringMap selector) {
  crd::GatewayPool p;
  p.metadata.name = name;
  p.metadata.namespace_ = "storage";
  p.spec.node_selector = std::move(selector);
  return p;
}

crd::ClientProfile Profile(const std::string& name, crd::StringMap selector) {
  crd::ClientProfile p;
  p.metadata.name = name;
  p.metadata.namespace_ = "ml";
  p.spec.node_selector = std::move(selector);
  return p;
}

TEST(RequirementsTest, SelectorsMatchByEveryPair) {
  EXPECT_TRUE(controllers::SelectorMatches({}, {}));
  EXPECT_TRUE(controllers::SelectorMatches({}, {{"a", "1"}}));
  EXPECT_TRUE(controllers::SelectorMatches({{"a", "1"}}, {{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(controllers::SelectorMatches({{"a", "1"}, {"c", ""}}, {{"a", "1"}}));
  EXPECT_FALSE(controllers::SelectorMatches({{"a", "1"}}, {{"a", "2"}}));
}

TEST(RequirementsTest, SelectorsMatchACachedObjectsLabels) {
  k8s::JsonObject node;
  node.SetLabel("a", "1");
  node.SetLabel("b", "2");
  EXPECT_TRUE(controllers::SelectorMatchesLabelsOf({}, node));
  EXPECT_TRUE(controllers::SelectorMatchesLabelsOf({}, k8s::JsonObject()));
  EXPECT_TRUE(controllers::SelectorMatchesLabelsOf({{"a", "1"}}, node));
  EXPECT_FALSE(controllers::SelectorMatchesLabelsOf({{"a", "1"}, {"c", ""}}, node));
  EXPECT_FALSE(controllers::SelectorMatchesLabelsOf({{"a", "2"}}, node));
}

TEST(RequirementsTest, UnionOfWhatSelectsTheNode) {
  const std::vector<crd::GatewayPool> pools = {Pool("kv", {{"role", "storage"}}),
                                               Pool("other", {{"role", "nothing"}})};
  auto b = Profile("b-gpudirect", {{"gpu", "yes"}});
  b.spec.transport = crd::Transport::kGPUDirect;
  b.spec.memory_registration = crd::MemoryRegistration::kPeerMem;
  b.spec.max_transfer_size = crd::IntOrString::Str("192Mi");
  b.spec.max_gpu_nic_distance = crd::PcieDistance::kPIX;
  b.spec.gid_index = crd::IntOrString::Int(3);
  auto a = Profile("a-hostmem", {{"gpu", "yes"}});
  a.spec.transport = crd::Transport::kHostMemory;
  auto gone = Profile("gone", {{"gpu", "yes"}});
  gone.metadata.deletion_timestamp = "2026-12-01T00:00:00Z";
  const std::vector<crd::ClientProfile> profiles = {b, a, gone, Profile("cpu", {{"gpu", "no"}})};

  const auto both = ComputeRequirements({{"role", "storage"}, {"gpu", "yes"}}, pools, profiles);
  EXPECT_TRUE(both.gateway());
  ASSERT_EQ(both.clients_size(), 2);
  EXPECT_EQ(both.clients(0).profile(), "ml/a-hostmem");  // sorted
  EXPECT_EQ(both.clients(0).transport(), "HostMemory");
  EXPECT_EQ(both.clients(0).max_transfer_bytes(), 64 << 20);  // the schema default, 64Mi
  EXPECT_EQ(both.clients(0).gid_index(), -1);                 // Auto
  const auto& gd = both.clients(1);
  EXPECT_EQ(gd.profile(), "ml/b-gpudirect");
  EXPECT_EQ(gd.transport(), "GPUDirect");
  EXPECT_EQ(gd.memory_registration(), "PeerMem");
  EXPECT_EQ(gd.max_transfer_bytes(), 192 << 20);
  EXPECT_EQ(gd.max_gpu_nic_distance(), "PIX");
  EXPECT_EQ(gd.gid_index(), 3);

  const auto storage_only = ComputeRequirements({{"role", "storage"}}, pools, profiles);
  EXPECT_TRUE(storage_only.gateway());
  EXPECT_EQ(storage_only.clients_size(), 0);
  const auto nothing = ComputeRequirements({{"role", "web"}}, pools, profiles);
  EXPECT_FALSE(nothing.gateway());
  EXPECT_EQ(nothing.clients_size(), 0);
}

TEST(RequirementsTest, APoolBeingDeletedSelectsNothing) {
  auto pool = Pool("kv", {{"role", "storage"}});
  pool.metadata.deletion_timestamp = "2026-12-01T00:00:00Z";
  EXPECT_FALSE(ComputeRequirements({{"role", "storage"}}, {pool}, {}).gateway());
}

}  // namespace
}  // namespace rdmastack::rdmanode
