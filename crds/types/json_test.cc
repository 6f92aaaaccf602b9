#include "crds/types/json.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "crds/types/json_codec.h"
#include "crds/types/test_support.h"

namespace rdmastack::crd {
namespace {

using testing::FindKind;
using testing::LoadSourceYaml;
using testing::YamlToJson;

// Sets every member, recursively, to a value different from its default, so that a round trip
// through JSON exercises every field of every type.
template <typename T>
void Fill(T& v, int seed) {
  if constexpr (std::is_same_v<T, std::string>) {
    v = "v" + std::to_string(seed);
  } else if constexpr (std::is_same_v<T, bool>) {
    v = seed % 2 == 0;
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(1000 + seed);
  } else if constexpr (NamedEnum<T>) {
    auto names = EnumNames(T{});
    v = names[static_cast<size_t>(seed) % names.size()].value;
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    v = seed % 2 == 0 ? IntOrString::Int(seed) : IntOrString::Str(std::to_string(seed) + "%");
  } else if constexpr (codec::IsOptional<T>::value) {
    v.emplace();
    Fill(*v, seed);
  } else if constexpr (codec::IsVector<T>::value) {
    v.resize(2);
    Fill(v[0], seed + 1);
    Fill(v[1], seed + 2);
  } else if constexpr (std::is_same_v<T, StringMap>) {
    v = {{"k" + std::to_string(seed), "x"}, {"example.com/role", ""}};
  } else {
    int i = 0;
    std::apply([&](const auto&... f) { (Fill(v.*(f.member), seed + 7 * ++i), ...); },
               fields::FieldsOf<T>());
  }
}

template <typename T>
class RoundTripTest : public ::testing::Test {};
using Kinds = ::testing::Types<GatewayPool, ClientProfile, RdmaNode>;
TYPED_TEST_SUITE(RoundTripTest, Kinds);

TYPED_TEST(RoundTripTest, EveryFieldSurvivesJson) {
  for (int seed : {0, 1, 2}) {
    TypeParam original{};
    Fill(original, seed);
    std::string json = SerializeResource(original);
    StatusOr<TypeParam> parsed = ParseResource<TypeParam>(json);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << json;
    EXPECT_TRUE(*parsed == original) << json;
    EXPECT_EQ(SerializeResource(*parsed), json);
  }
}

TYPED_TEST(RoundTripTest, DefaultsAreWrittenAndOptionalsLeftOut) {
  TypeParam empty{};
  std::string json = SerializeResource(empty);
  EXPECT_EQ(json.find("\"status\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"apiVersion\":\"rdmastack.io/v1alpha1\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":\"" + std::string(KindOf<TypeParam>()) + "\""), std::string::npos);
  StatusOr<TypeParam> parsed = ParseResource<TypeParam>(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(*parsed == empty);
}

TEST(JsonTest, SeedGatewayPoolSample) {
  auto docs = LoadSourceYaml("crds/samples/gatewaypool-kvcache.yaml");
  StatusOr<GatewayPool> pool =
      ParseResource<GatewayPool>(YamlToJson(FindKind(docs, "GatewayPool")));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->metadata.name, "kvcache");
  EXPECT_EQ(pool->spec.node_selector.at("node-role.rdmastack.io/storage"), "");
  EXPECT_EQ(pool->spec.server_library.version, "1.2.0.68");
  EXPECT_EQ(pool->spec.gateway.version, "1.8.0");
  EXPECT_EQ(*EffectiveS3Port(pool->spec), 7071);
  EXPECT_EQ(*EffectiveRdmaPort(pool->spec), 19100);
  EXPECT_EQ(pool->spec.rdma.interface, "bond0");
  EXPECT_EQ(pool->spec.backend.posix.path_template, "/lustre/agent/vol0/kvcache-s3-{nodeName}");
  EXPECT_EQ(pool->spec.s3.credentials_secret.name, "kvcache-s3-root");
  EXPECT_EQ(pool->spec.s3.credentials_secret.access_key_id_key, "accessKeyId");  // schema default
  EXPECT_EQ(*BytesFromIntOrQuantity(pool->spec.rdma.buffer_pool.buffer_size), 1LL << 30);
  EXPECT_EQ(pool->spec.upgrade.strategy, UpgradeStrategy::kSideBySide);
  EXPECT_EQ(pool->spec.upgrade.max_unavailable, IntOrString::Int(1));
}

TEST(JsonTest, MovedPoolUsesTheMajorTwoPorts) {
  auto docs = LoadSourceYaml("crds/samples/gatewaypool-kvcache-2.0.yaml");
  StatusOr<GatewayPool> pool =
      ParseResource<GatewayPool>(YamlToJson(FindKind(docs, "GatewayPool")));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(*LibraryMajor(pool->spec.server_library.version), 2);
  EXPECT_EQ(*EffectiveS3Port(pool->spec), 7072);
  EXPECT_EQ(*EffectiveRdmaPort(pool->spec), 19101);
}

TEST(JsonTest, ClientProfileSamples) {
  auto gpu = ParseResource<ClientProfile>(
      YamlToJson(LoadSourceYaml("crds/samples/clientprofile-gpudirect.yaml").at(0)));
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_EQ(gpu->spec.transport, Transport::kGPUDirect);
  EXPECT_EQ(gpu->spec.memory_registration, MemoryRegistration::kAuto);
  EXPECT_EQ(*BytesFromIntOrQuantity(gpu->spec.max_transfer_size), 192LL << 20);
  EXPECT_EQ(gpu->spec.gid_index, IntOrString::Str("Auto"));
  auto host = ParseResource<ClientProfile>(
      YamlToJson(LoadSourceYaml("crds/samples/clientprofile-hostmem.yaml").at(0)));
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  EXPECT_EQ(host->spec.transport, Transport::kHostMemory);
  EXPECT_EQ(host->spec.gid_index, IntOrString::Int(0));
  EXPECT_EQ(host->spec.max_gpu_nic_distance, PcieDistance::kPXB);  // schema default
}

TEST(JsonTest, RdmaNodeSampleRoundTrips) {
  std::string json = YamlToJson(LoadSourceYaml("crds/samples/rdmanode-gpu-node-0.yaml").at(0));
  StatusOr<RdmaNode> node = ParseResource<RdmaNode>(json);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ASSERT_TRUE(node->status.has_value());
  EXPECT_EQ(node->status->link_layer, LinkLayer::kInfiniBand);
  EXPECT_EQ(node->status->gpus.at(0).bar1_total_bytes, 256LL << 20);
  EXPECT_EQ(node->status->devices.at(0).ports.at(0).gids.at(0).index, 0);
  EXPECT_EQ(node->status->verdicts->gpu_direct->via, "PeerMem");
  StatusOr<RdmaNode> again = ParseResource<RdmaNode>(SerializeResource(*node));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(*again == *node);
}

TEST(JsonTest, StatusPatchCarriesOnlyIdentityAndStatus) {
  RdmaNode node;
  node.metadata.name = "gpu-node-0";
  node.metadata.labels["a"] = "b";
  node.spec.node_name = "gpu-node-0";
  node.status.emplace().link_layer = LinkLayer::kEthernet;
  EXPECT_EQ(
      SerializeStatusPatch(node),
      R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"RdmaNode","metadata":{"name":"gpu-node-0"},)"
      R"("status":{"linkLayer":"Ethernet"}})");
  ClientProfile profile;
  profile.metadata.name = "p";
  profile.metadata.namespace_ = "ns";
  EXPECT_EQ(
      SerializeStatusPatch(profile),
      R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"ClientProfile","metadata":{"name":"p","namespace":"ns"}})");
}

TEST(JsonTest, ReportsEveryProblemWithItsPath) {
  StatusOr<GatewayPool> pool = ParseResource<GatewayPool>(R"({
    "apiVersion": "rdmastack.io/v1alpha1", "kind": "GatewayPool",
    "metadata": {"name": "p", "labels": {"a": 1}},
    "spec": {"s3": {"port": "7071"}, "upgrade": {"strategy": "Sideways", "maxUnavailable": true},
             "tolerations": [{"key": "a"}, {"tolerationSeconds": "x"}],
             "nodeSelector": []}})");
  ASSERT_FALSE(pool.ok());
  const std::string& m = pool.status().message();
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  for (const char* want :
       {"metadata.labels[a]: expected a string", "spec.s3.port: expected a 32-bit integer",
        "spec.upgrade.strategy: expected one of \"SideBySide\", \"InPlace\"",
        "spec.upgrade.maxUnavailable: expected an integer or a string",
        "spec.tolerations[1].tolerationSeconds: expected a 64-bit integer",
        "spec.nodeSelector: expected a map of strings"}) {
    EXPECT_NE(m.find(want), std::string::npos) << "missing \"" << want << "\" in: " << m;
  }
}

TEST(JsonTest, RejectsWrongKindAndMalformedJson) {
  auto wrong = ParseResource<ClientProfile>(
      R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"GatewayPool"})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("kind: expected \"ClientProfile\""), std::string::npos);
  auto old = ParseResource<RdmaNode>(R"({"apiVersion":"rdmastack.io/v1beta9","kind":"RdmaNode"})");
  EXPECT_FALSE(old.ok());
  auto broken = ParseResource<RdmaNode>(R"({"metadata": {"name": )");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("invalid JSON at byte"), std::string::npos);
  EXPECT_FALSE(ParseResource<RdmaNode>("[]").ok());
  EXPECT_FALSE(ParseResource<RdmaNode>("").ok());
}

TEST(JsonTest, NullsAndUnknownFieldsAreIgnored) {
  auto node = ParseResource<RdmaNode>(
      R"({"metadata":{"name":"n","managedFields":[{}]},"spec":{"nodeName":"n","extra":1},"status":null})");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->spec.node_name, "n");
  EXPECT_FALSE(node->status.has_value());
}

TEST(JsonTest, ParsesFromARapidJsonValue) {
  rapidjson::Document doc;
  doc.Parse(R"({"items":[{"metadata":{"name":"n1"},"spec":{"nodeName":"n1"}}]})");
  auto node = ParseResource<RdmaNode>(doc["items"][0]);
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->metadata.name, "n1");
}

}  // namespace
}  // namespace rdmastack::crd
