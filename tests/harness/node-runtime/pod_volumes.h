#pragma once
// A pod's volumes on a simulated node, as host directories the shim binds into its containers:
//   hostPath   -> the same path below the node's host root (its fixture tree), with the kubelet's
//                 type checks (DirectoryOrCreate creates it, Directory must exist, ...)
//   emptyDir   -> a directory of the pod
//   configMap, secret, downwardAPI, projected (serviceAccountToken, configMap, secret,
//              downwardAPI) -> files written atomically into a directory of the pod, refreshed on
//              every Sync when their source changed; tokens renewed when due
// Any other volume type is an error that names it.

#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/node-runtime/atomic_writer.h"
#include "tests/harness/node-runtime/launch_spec.h"
#include "tests/harness/node-runtime/node_table.h"
#include "tests/harness/node-runtime/object_reader.h"
#include "tests/harness/node-runtime/pod_env.h"
#include "tests/harness/node-runtime/service_account_token.h"

namespace rdmastack::sim {

// `path` (absolute, as in hostPath.path) below `root`, normalised (so it cannot leave `root`).
StatusOr<std::string> HostPathBelowRoot(const std::string& root, const std::string& path);

class PodVolumes {
 public:
  PodVolumes(std::string host_root, std::string volumes_dir, ObjectReader& reader,
             TokenIssuer& tokens, Clock& clock)
      : host_root_(std::move(host_root)),
        volumes_dir_(std::move(volumes_dir)),
        reader_(reader),
        tokens_(tokens),
        clock_(clock) {}

  // Makes every volume of the pod exist and brings the API-backed ones up to date.
  Status Sync(const PodFacts& facts);
  // The bind mounts of one container's volumeMounts, in mount-path order (after Sync).
  StatusOr<std::vector<BindMount>> MountsFor(const k8s::JsonObject& container) const;

 private:
  Status SyncOne(const PodFacts& facts, const k8s::JsonObject& volume);
  StatusOr<VolumePayload> ProjectedPayload(const PodFacts& facts, const std::string& volume,
                                           const k8s::JsonObject& projected);
  StatusOr<std::string> Token(const PodFacts& facts, const std::string& key,
                              const k8s::JsonObject& source);

  std::string host_root_;
  std::string volumes_dir_;
  ObjectReader& reader_;
  TokenIssuer& tokens_;
  Clock& clock_;
  std::map<std::string, std::string> host_paths_;  // volume name -> host path
  std::map<std::string, AtomicDirWriter> writers_;
  std::map<std::string, IssuedToken> issued_;  // "volume/path" -> token
};

}  // namespace rdmastack::sim
