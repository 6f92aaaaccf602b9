#pragma once
// Two GatewayPools must not share what a node can give only once: a port (each gateway binds its
// S3 and RDMA ports on the host network), a gateway root (a pool's buckets are its directory;
// two pools in one directory, or one inside the other's, could read and delete each other's
// objects) or a backend hostPath (the gateway container mounts the whole hostPath, so the server
// library a pool author picks can reach everything below it). Directories are compared as the
// kernel walks them ("//", "/./", a trailing '/' and ".." normalised away). Of two pools that
// collide on some node, the older (created first; on a tie, the smaller namespace/name) keeps
// everything and the newer is refused: it starts nothing until the collision is gone, and whatever
// it already serves stays as it is. Pure.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rdmastack::gatewaypool {

// What a pool holds or would take on its nodes.
struct PoolFootprint {
  std::string namespace_, name;
  std::string created;           // metadata.creationTimestamp (RFC 3339, UTC: sorts as text)
  std::set<std::string> nodes;   // the nodes its selector matches
  std::set<int32_t> ports;       // S3 and RDMA ports of every track it runs or would start
  std::string path_template;     // backend.posix.pathTemplate
  std::string host_path;         // backend.posix.hostPath
  std::string sidecar_template;  // backend.posix.sidecarPathTemplate ("" unless metadata Sidecar)
  std::string Key() const { return namespace_ + "/" + name; }
};

struct PoolConflict {
  std::string other;    // namespace/name of the older pool
  std::string message;  // what collides where, and what to change
};

// The first older pool of `others` that `pool` collides with (pools are taken in age order), or
// nullopt. `pool` itself may be among `others`.
std::optional<PoolConflict> FindConflictWithOlderPool(const PoolFootprint& pool,
                                                      const std::vector<PoolFootprint>& others);

}  // namespace rdmastack::gatewaypool
