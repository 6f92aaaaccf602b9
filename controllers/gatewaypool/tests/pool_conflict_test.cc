#include "controllers/gatewaypool/pool_conflict.h"

#include <gtest/gtest.h>

namespace rdmastack::gatewaypool {
namespace {

PoolFootprint Pool(std::string ns, std::string name, std::string created,
                   std::set<std::string> nodes, std::set<int32_t> ports,
                   std::string path = "/lustre/vol0/{namespace}-{poolName}-{nodeName}") {
  return PoolFootprint{std::move(ns),    std::move(name),  std::move(created),
                       std::move(nodes), std::move(ports), std::move(path)};
}

TEST(PoolConflictTest, SamePortOnASharedNodeRefusesTheNewerPoolOnly) {
  const auto older = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1", "n2"}, {7071, 19100});
  const auto newer = Pool("b", "kv", "2026-12-02T00:00:00Z", {"n2", "n3"}, {7071, 19200});
  auto c = FindConflictWithOlderPool(newer, {older, newer});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->other, "a/kv");
  EXPECT_EQ(c->message,
            "pool a/kv, created before this one, holds port 7071 on n2, which both pools select; "
            "give this pool its own s3.port and rdma.port, or a nodeSelector that leaves those "
            "nodes out");
  EXPECT_FALSE(FindConflictWithOlderPool(older, {older, newer}));
}

TEST(PoolConflictTest, DisjointNodesOrPortsAndOwnRootsDoNotCollide) {
  const auto a = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071, 19100});
  EXPECT_FALSE(FindConflictWithOlderPool(
      Pool("b", "kv", "2026-12-02T00:00:00Z", {"n2"}, {7071, 19100}), {a}));
  EXPECT_FALSE(FindConflictWithOlderPool(
      Pool("b", "kv", "2026-12-02T00:00:00Z", {"n1"}, {7072, 19101}), {a}));
}

// The seed's template names neither the pool nor the namespace: a copy of the pool in another
// namespace would serve (and could delete) the first pool's buckets.
TEST(PoolConflictTest, TheSameOrANestedGatewayRootIsACollision) {
  const std::string seed = "/lustre/agent/vol0/kvcache-s3-{nodeName}";
  const auto older = Pool("a", "kvcache", "2026-12-01T00:00:00Z", {"n1"}, {7071}, seed);
  auto same = FindConflictWithOlderPool(
      Pool("b", "kvcache", "2026-12-02T00:00:00Z", {"n1"}, {7072}, seed), {older});
  ASSERT_TRUE(same);
  EXPECT_NE(same->message.find("gateway root /lustre/agent/vol0/kvcache-s3-n1 on node n1 is the "
                               "same directory as its gateway root"),
            std::string::npos)
      << same->message;
  auto inside =
      FindConflictWithOlderPool(Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072},
                                     "/lustre/agent/vol0/kvcache-s3-{nodeName}/{namespace}"),
                                {older});
  ASSERT_TRUE(inside);
  EXPECT_NE(inside->message.find("lies inside"), std::string::npos) << inside->message;
  auto holds = FindConflictWithOlderPool(
      Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072}, "/lustre/agent/vol0"), {older});
  ASSERT_TRUE(holds);
  EXPECT_NE(holds->message.find("holds its gateway root"), std::string::npos) << holds->message;
  // A sibling whose name only starts the same is not inside.
  EXPECT_FALSE(FindConflictWithOlderPool(Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072},
                                              "/lustre/agent/vol0/kvcache-s3-{nodeName}-b"),
                                         {older}));
}

TEST(PoolConflictTest, AgeThenNameDecidesWhichIsOlder) {
  const auto a = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071});
  const auto b = Pool("b", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071});
  EXPECT_FALSE(FindConflictWithOlderPool(a, {a, b}));
  ASSERT_TRUE(FindConflictWithOlderPool(b, {a, b}));
  // Of several older pools, the oldest is named.
  const auto c = Pool("c", "kv", "2026-12-03T00:00:00Z", {"n1"}, {7071});
  EXPECT_EQ(FindConflictWithOlderPool(c, {b, a, c})->other, "a/kv");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
