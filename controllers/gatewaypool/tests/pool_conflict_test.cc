#include "controllers/gatewaypool/pool_conflict.h"

#include <gtest/gtest.h>

namespace rdmastack::gatewaypool {
namespace {

// Each pool's hostPath is its own directory unless a test says otherwise.
PoolFootprint Pool(std::string ns, std::string name, std::string created,
                   std::set<std::string> nodes, std::set<int32_t> ports,
                   std::string path = "/lustre/vol0/{namespace}-{poolName}/{nodeName}",
                   std::string host_path = "") {
  if (host_path.empty()) host_path = "/lustre/vol0/" + ns + "-" + name;
  return PoolFootprint{std::move(ns),    std::move(name), std::move(created),  std::move(nodes),
                       std::move(ports), std::move(path), std::move(host_path)};
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
  const std::string vol0 = "/lustre/agent/vol0";
  const auto older = Pool("a", "kvcache", "2026-12-01T00:00:00Z", {"n1"}, {7071}, seed, vol0);
  auto same = FindConflictWithOlderPool(
      Pool("b", "kvcache", "2026-12-02T00:00:00Z", {"n1"}, {7072}, seed, vol0), {older});
  ASSERT_TRUE(same);
  EXPECT_NE(same->message.find("gateway root /lustre/agent/vol0/kvcache-s3-n1 on node n1 is the "
                               "same directory as its gateway root"),
            std::string::npos)
      << same->message;
  auto inside =
      FindConflictWithOlderPool(Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072},
                                     "/lustre/agent/vol0/kvcache-s3-{nodeName}/{namespace}", vol0),
                                {older});
  ASSERT_TRUE(inside);
  EXPECT_NE(inside->message.find("lies inside"), std::string::npos) << inside->message;
  auto holds = FindConflictWithOlderPool(
      Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072}, vol0, vol0), {older});
  ASSERT_TRUE(holds);
  EXPECT_NE(holds->message.find("holds its gateway root"), std::string::npos) << holds->message;
  // A sibling whose name only starts the same is not inside (and its hostPath is its own).
  EXPECT_FALSE(FindConflictWithOlderPool(
      Pool("b", "x", "2026-12-02T00:00:00Z", {"n1"}, {7072},
           "/lustre/agent/vol0-b/kvcache-s3-{nodeName}-b", "/lustre/agent/vol0-b"),
      {older}));
}

// A metadata sidecar is a directory the gateway writes as much as its root: it may not overlap
// another pool's root or sidecar on a shared node.
TEST(PoolConflictTest, AMetadataSidecarCollidesLikeARoot) {
  const std::string vol0 = "/lustre/agent/vol0";
  auto older = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071},
                    "/lustre/agent/vol0/kv-{nodeName}", vol0);
  older.sidecar_template = "/lustre/agent/vol0/kv-{nodeName}.meta";
  auto newer = Pool("b", "other", "2026-12-02T00:00:00Z", {"n1"}, {7072},
                    "/lustre/agent/vol0/kv-{nodeName}.meta/x", vol0);
  auto c = FindConflictWithOlderPool(newer, {older});
  ASSERT_TRUE(c);
  EXPECT_NE(c->message.find("gateway root /lustre/agent/vol0/kv-n1.meta/x on node n1 lies inside "
                            "its metadata sidecar /lustre/agent/vol0/kv-n1.meta"),
            std::string::npos)
      << c->message;
  newer.path_template = "/lustre/agent/vol0/other-{nodeName}";
  newer.sidecar_template = "/lustre/agent/vol0/kv-{nodeName}";
  c = FindConflictWithOlderPool(newer, {older});
  ASSERT_TRUE(c);
  EXPECT_NE(c->message.find("metadata sidecar /lustre/agent/vol0/kv-n1 on node n1 is the same "
                            "directory as its gateway root"),
            std::string::npos)
      << c->message;
  EXPECT_NE(c->message.find("sidecarPathTemplate"), std::string::npos) << c->message;
}

// The kernel walks "//", "/./", ".." and a trailing '/' away: so does the comparison. Each row is
// a newer pool's pathTemplate and hostPath beside an older pool at /lustre/vol0/kv (root
// /lustre/vol0/kv/<node>), on a shared node and other ports.
TEST(PoolConflictTest, DirectoriesAreComparedAsTheKernelResolvesThem) {
  const auto older = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071},
                          "/lustre/vol0/kv/{nodeName}", "/lustre/vol0/kv");
  struct Case {
    std::string path_template, host_path, want;  // want "" = no conflict
  };
  const Case cases[] = {
      {"/lustre//vol0/kv/{nodeName}", "/lustre//vol0/kv", "is the same directory as"},
      {"/lustre/./vol0/kv/{nodeName}/", "/lustre/./vol0/kv/", "is the same directory as"},
      {"/lustre/x/../vol0/kv/{nodeName}", "/lustre/x/../vol0/kv", "is the same directory as"},
      {"/lustre/vol0/kv/{nodeName}/./sub", "/lustre/vol0/kv/", "lies inside"},
      // Separate gateway roots, but one hostPath holds the other's: the container mounts it all.
      {"/lustre/vol0/{nodeName}-b", "/lustre/vol0", "hostPath /lustre/vol0 holds it"},
      {"/lustre/vol0/kv/b/{nodeName}", "/lustre/vol0/kv/b",
       "hostPath /lustre/vol0/kv/b lies inside"},
      {"/lustre//vol0/kv-b/{nodeName}", "/lustre//vol0/kv/../kv-b", ""},
      {"/lustre/vol0/kv2/{nodeName}", "/lustre/vol0/kv2", ""},
  };
  for (const Case& c : cases) {
    auto conflict = FindConflictWithOlderPool(
        Pool("b", "kv", "2026-12-02T00:00:00Z", {"n1"}, {7072}, c.path_template, c.host_path),
        {older});
    if (c.want.empty()) {
      EXPECT_FALSE(conflict) << c.host_path << ": " << conflict->message;
      continue;
    }
    ASSERT_TRUE(conflict) << c.path_template << " in " << c.host_path;
    EXPECT_NE(conflict->message.find(c.want), std::string::npos) << conflict->message;
  }
}

TEST(PoolConflictTest, ASharedHostPathIsACollisionOnlyOnASharedNode) {
  const auto older = Pool("a", "kv", "2026-12-01T00:00:00Z", {"n1"}, {7071},
                          "/lustre/vol0/{poolName}-{nodeName}", "/lustre/vol0");
  auto shared =
      FindConflictWithOlderPool(Pool("b", "kv", "2026-12-02T00:00:00Z", {"n1", "n2"}, {7072},
                                     "/lustre/vol0/b-{poolName}-{nodeName}", "/lustre/vol0"),
                                {older});
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->message,
            "pool a/kv, created before this one, holds backend.posix.hostPath /lustre/vol0 on n1, "
            "and this pool's hostPath /lustre/vol0 is the same directory as it (each gateway "
            "mounts its whole hostPath, so either pool's server library could read and delete "
            "the other's buckets); give this pool a hostPath of its own that neither holds nor "
            "lies inside the other's, or a nodeSelector that leaves those nodes out");
  EXPECT_FALSE(
      FindConflictWithOlderPool(Pool("b", "kv", "2026-12-02T00:00:00Z", {"n2"}, {7072},
                                     "/lustre/vol0/b-{poolName}-{nodeName}", "/lustre/vol0"),
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
