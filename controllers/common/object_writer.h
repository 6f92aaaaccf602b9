#pragma once
// The writes a reconciler of a custom resource makes for the objects it owns: server-side apply
// only when the rendered content changed, deletion with a UID precondition, its finalizer, and
// merge patches of Node metadata. Each write is remembered, so that a reconcile which runs before
// the informer has delivered the write does not make it again.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controllers/common/write_memo.h"
#include "operator/k8s/client.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers {

class ObjectWriter {
 public:
  // `log_name` starts each log line ("gatewaypool", "clientprofile").
  ObjectWriter(k8s::Client& client, std::string log_name)
      : client_(client), log_name_(std::move(log_name)) {}

  // Applies `desired` (which carries the applied-hash annotation) unless `existing` has the same
  // hash or this process applied it and the cache has not caught up. With no `existing`, an
  // object of that name is first read from the server: the caches select by our labels, and a
  // server-side apply would merge into one made by someone else (keeping its extra containers,
  // volumes, owners) and make it ours. One whose controller is not `desired`'s is refused
  // (FailedPrecondition), as CheckNameFree refuses a labelled one.
  Status ApplyIfChanged(const k8s::ResourceType& type, const k8s::JsonObject& desired,
                        const runtime::ObjectPtr& existing);
  // Deletes `object` (its UID as precondition, dependents in the background); nothing when it is
  // null or already being deleted.
  Status Delete(const k8s::ResourceType& type, const runtime::ObjectPtr& object);
  // An owned object left the cache: the next ApplyIfChanged writes it again if still wanted.
  void Forget(const k8s::JsonObject& object);

  // Adds `finalizer` (resourceVersion as precondition) when the object lacks it.
  Status EnsureFinalizer(const k8s::ResourceType& type, const k8s::JsonObject& object,
                         std::string_view finalizer);
  // Removes `finalizer` (a JSON patch that tests its position first); gone objects are fine.
  Status RemoveFinalizer(const k8s::ResourceType& type, const k8s::JsonObject& object,
                         std::string_view finalizer);

  // Whether the merge patch `body` for `node` is what this process last sent and the cached
  // Node (at `cached_rv`) predates it.
  bool NodePatchPending(const std::string& node, const std::string& body,
                        std::string_view cached_rv) const {
    return node_patches_.Pending(node, body, cached_rv);
  }
  // The merge patch this process last sent to `node` when the cached Node (at `cached_rv`)
  // predates it: what the server has beyond the cache.
  std::optional<std::string> UnseenNodePatch(const std::string& node,
                                             std::string_view cached_rv) const {
    return node_patches_.Unseen(node, cached_rv);
  }
  // The resourceVersion a patch of `node` planned from the cache (at `cached_rv`) expects: the
  // cache's, or the one this process's last patch of it was answered with when newer. A merge
  // patch carrying it as metadata.resourceVersion fails with a conflict if anyone wrote the node
  // since (an upgrade-state precondition: gatewaypool_reconciler.cc).
  std::string ExpectedNodeVersion(const std::string& node, std::string_view cached_rv) const {
    return node_patches_.LatestVersion(node, cached_rv);
  }
  // Sends merge patches (node, body) to Nodes, `parallel` at a time; the first error is returned
  // after all were tried.
  Status PatchNodes(const std::vector<std::pair<std::string, std::string>>& patches,
                    size_t parallel);

 private:
  Status CheckNotForeign(const k8s::ResourceType& type, const k8s::JsonObject& desired);
  k8s::Client& client_;
  const std::string log_name_;
  WriteMemo<std::string> applied_;       // object key -> applied hash
  WriteMemo<std::string> node_patches_;  // node -> last merge patch
};

}  // namespace rdmastack::controllers
