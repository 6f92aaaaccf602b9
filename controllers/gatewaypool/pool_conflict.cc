#include "controllers/gatewaypool/pool_conflict.h"

#include <algorithm>
#include <tuple>

#include "crds/types/path_template.h"

namespace rdmastack::gatewaypool {
namespace {

bool Older(const PoolFootprint& a, const PoolFootprint& b) {
  return std::tie(a.created, a.namespace_, a.name) < std::tie(b.created, b.namespace_, b.name);
}

std::string NodeList(const std::vector<std::string>& nodes) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < 3; ++i) out += (i ? ", " : "") + nodes[i];
  if (nodes.size() > 3) out += " and " + std::to_string(nodes.size() - 3) + " more";
  return out;
}

// How `mine` relates to `theirs`, which overlap, as the kernel resolves them.
const char* How(std::string_view mine, std::string_view theirs) {
  const std::string a = crd::LexicallyNormal(mine), b = crd::LexicallyNormal(theirs);
  return a == b ? "is the same directory as" : crd::PathIsWithin(a, b) ? "lies inside" : "holds";
}

// The directories a pool's gateway writes on `node`, named as its spec names them. A template
// that does not render is refused on its own and left out here.
std::vector<std::pair<std::string, std::string>> BackendDirsOn(const PoolFootprint& pool,
                                                               const std::string& node) {
  std::vector<std::pair<std::string, std::string>> dirs;
  const crd::PathTemplateValues values{node, pool.name, pool.namespace_};
  if (auto root = crd::RenderPathTemplate(pool.path_template, values); root.ok())
    dirs.emplace_back("gateway root", *root);
  if (pool.sidecar_template.empty()) return dirs;
  if (auto sidecar = crd::RenderPathTemplate(pool.sidecar_template, values); sidecar.ok())
    dirs.emplace_back("metadata sidecar", *sidecar);
  return dirs;
}

std::optional<std::string> Collision(const PoolFootprint& pool, const PoolFootprint& older) {
  std::vector<std::string> shared;
  std::set_intersection(pool.nodes.begin(), pool.nodes.end(), older.nodes.begin(),
                        older.nodes.end(), std::back_inserter(shared));
  if (shared.empty()) return std::nullopt;
  std::vector<int32_t> ports;
  std::set_intersection(pool.ports.begin(), pool.ports.end(), older.ports.begin(),
                        older.ports.end(), std::back_inserter(ports));
  if (!ports.empty()) {
    std::string list;
    for (int32_t p : ports) list += (list.empty() ? "" : ", ") + std::to_string(p);
    return "port " + list + " on " + NodeList(shared) +
           ", which both pools select; give this pool its own s3.port and rdma.port, or a "
           "nodeSelector that leaves those nodes out";
  }
  for (const std::string& node : shared) {
    for (const auto& [what, mine] : BackendDirsOn(pool, node)) {
      for (const auto& [their_what, theirs] : BackendDirsOn(older, node)) {
        if (!crd::PathsOverlap(mine, theirs)) continue;
        return what + " " + mine + " on node " + node + " " + How(mine, theirs) + " its " +
               their_what + " " + theirs + "; give this pool a backend.posix.pathTemplate" +
               (pool.sidecar_template.empty() ? "" : " and sidecarPathTemplate") +
               " of its own (e.g. with {poolName} and {namespace}) inside a hostPath of its own";
      }
    }
  }
  if (crd::PathsOverlap(pool.host_path, older.host_path)) {
    return "backend.posix.hostPath " + older.host_path + " on " + NodeList(shared) +
           ", and this pool's hostPath " + pool.host_path + " " +
           How(pool.host_path, older.host_path) +
           " it (each gateway mounts its whole hostPath, so either pool's server library could "
           "read and delete the other's buckets); give this pool a hostPath of its own that "
           "neither holds nor lies inside the other's, or a nodeSelector that leaves those nodes "
           "out";
  }
  return std::nullopt;
}

}  // namespace

std::optional<PoolConflict> FindConflictWithOlderPool(const PoolFootprint& pool,
                                                      const std::vector<PoolFootprint>& others) {
  std::vector<const PoolFootprint*> older;
  for (const PoolFootprint& o : others) {
    if (o.Key() != pool.Key() && Older(o, pool)) older.push_back(&o);
  }
  std::sort(older.begin(), older.end(),
            [](const PoolFootprint* a, const PoolFootprint* b) { return Older(*a, *b); });
  for (const PoolFootprint* o : older) {
    if (auto what = Collision(pool, *o)) {
      return PoolConflict{o->Key(),
                          "pool " + o->Key() + ", created before this one, holds " + *what};
    }
  }
  return std::nullopt;
}

}  // namespace rdmastack::gatewaypool
