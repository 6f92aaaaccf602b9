#include "controllers/gatewaypool/track.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/tests/test_pools.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;
using testing::ShippedMatrix;

TEST(TrackTest, SeedSamplesMapToTheirMajorsAndPorts) {
  const TrackDecision v1 = DecideTrack(SamplePool().spec, ShippedMatrix());
  ASSERT_TRUE(v1.track) << v1.message;
  EXPECT_EQ(v1.reason, "Compatible");
  EXPECT_EQ(v1.track->name, "v1");
  EXPECT_EQ(v1.track->gateway_build, "vgwrdma-v1.8.0");
  EXPECT_EQ(v1.track->s3_port, 7071);
  EXPECT_EQ(v1.track->rdma_port, 19100);
  const TrackDecision v2 =
      DecideTrack(SamplePool("gatewaypool-kvcache-2.0.yaml").spec, ShippedMatrix());
  ASSERT_TRUE(v2.track) << v2.message;
  EXPECT_EQ(v2.track->name, "v2");
  EXPECT_EQ(v2.track->gateway_build, "vgwrdma-cuobj2");
  EXPECT_EQ(v2.track->s3_port, 7072);
  EXPECT_EQ(v2.track->rdma_port, 19101);
}

TEST(TrackTest, PortsDefaultByMajor) {
  crd::GatewayPoolSpec spec = SamplePool().spec;
  spec.s3.port.reset();
  spec.rdma.port.reset();
  const TrackDecision d = DecideTrack(spec, ShippedMatrix());
  ASSERT_TRUE(d.track);
  EXPECT_EQ(d.track->s3_port, 7071);
  EXPECT_EQ(d.track->rdma_port, 19100);
}

TEST(TrackTest, RefusalsSayWhatToChange) {
  crd::GatewayPoolSpec spec = SamplePool().spec;
  spec.server_library.version = "2.0.0.109";  // vgwrdma 1.8.0 builds only against 1.x
  TrackDecision d = DecideTrack(spec, ShippedMatrix());
  EXPECT_FALSE(d.track);
  EXPECT_EQ(d.reason, "IncompatiblePair");
  EXPECT_NE(d.message.find("links libcuobjserver 1.x, not 2.0.0.109"), std::string::npos)
      << d.message;

  spec = SamplePool().spec;
  spec.gateway.version = "9.9.9";
  d = DecideTrack(spec, ShippedMatrix());
  EXPECT_EQ(d.reason, "UnknownGatewayBuild");
  EXPECT_NE(d.message.find("9.9.9"), std::string::npos);

  spec = SamplePool().spec;
  spec.server_library.version = "1.3.0.1";
  d = DecideTrack(spec, ShippedMatrix());
  EXPECT_EQ(d.reason, "UnknownServerLibrary");
}

TEST(TrackTest, EveryMetadataModeAndTlsAreServed) {
  // The gateway DaemonSet test checks how each reaches the launcher.
  for (crd::BackendMetadata m : {crd::BackendMetadata::kXattr, crd::BackendMetadata::kSidecar,
                                 crd::BackendMetadata::kNone}) {
    crd::GatewayPoolSpec spec = SamplePool().spec;
    spec.backend.posix.metadata = m;
    EXPECT_TRUE(DecideTrack(spec, ShippedMatrix()).track) << crd::ToString(m);
  }
  crd::GatewayPoolSpec spec = SamplePool().spec;
  spec.s3.tls_secret = crd::LocalSecretRef{"kvcache-tls"};
  EXPECT_TRUE(DecideTrack(spec, ShippedMatrix()).track);
}

TEST(TrackTest, NodeLabelsAreValidAndNeverShared) {
  EXPECT_EQ(NodeTrackLabel("storage", "kvcache", "v1"), "gwp.rdmastack.io/storage.kvcache.v1");
  EXPECT_TRUE(IsNodeTrackLabelOf("gwp.rdmastack.io/storage.kvcache.v2", "storage", "kvcache"));
  // "storage.kv" must not claim the labels of "storage.kvcache", nor of "storage.kv.cache".
  EXPECT_FALSE(IsNodeTrackLabelOf("gwp.rdmastack.io/storage.kvcache.v1", "storage", "kv"));
  EXPECT_FALSE(IsNodeTrackLabelOf("gwp.rdmastack.io/storage.kv.cache.v1", "storage", "kv"));
  EXPECT_FALSE(IsNodeTrackLabelOf("rdmastack.io/gateway-capable", "storage", "kvcache"));

  const std::string ns(63, 'n');
  const std::string a = NodeTrackLabel(ns, std::string(200, 'p') + "a", "v1");
  const std::string b = NodeTrackLabel(ns, std::string(200, 'p') + "b", "v1");
  EXPECT_NE(a, b);
  const std::string name = a.substr(std::string(kNodeTrackLabelPrefix).size());
  EXPECT_LE(name.size(), 63u) << a;
  EXPECT_EQ(name.substr(name.size() - 3), ".v1");
  EXPECT_TRUE(IsNodeTrackLabelOf(a, ns, std::string(200, 'p') + "a"));
  EXPECT_FALSE(IsNodeTrackLabelOf(a, ns, std::string(200, 'p') + "b"));

  // The matcher a pass uses over every node answers as IsNodeTrackLabelOf, the first time a key
  // is seen and every time after.
  NodeTrackLabelMatcher kv("storage", "kv"), long_a(ns, std::string(200, 'p') + "a");
  for (int round = 0; round < 2; ++round) {
    for (const std::string& key : {std::string("gwp.rdmastack.io/storage.kv.v1"),
                                   std::string("gwp.rdmastack.io/storage.kv.v2"),
                                   std::string("gwp.rdmastack.io/storage.kvcache.v1"),
                                   std::string("gwp.rdmastack.io/storage.kv.cache.v1"),
                                   std::string("rdmastack.io/gateway-capable"), a, b}) {
      EXPECT_EQ(kv(key), IsNodeTrackLabelOf(key, "storage", "kv")) << key;
      EXPECT_EQ(long_a(key), IsNodeTrackLabelOf(key, ns, std::string(200, 'p') + "a")) << key;
    }
  }
  EXPECT_TRUE(kv("gwp.rdmastack.io/storage.kv.v1"));
  EXPECT_TRUE(long_a(a));
  EXPECT_FALSE(long_a(b));
}

TEST(TrackTest, ObjectNames) {
  EXPECT_EQ(DaemonSetName("kvcache", "v1"), "kvcache-gateway-v1");
  EXPECT_EQ(ServiceName("kvcache"), "kvcache-gateway");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
