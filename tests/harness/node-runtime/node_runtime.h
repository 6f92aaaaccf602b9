#pragma once
// The node runtime: watches the pods labelled rdmastack.io/simulate=run, and for each one bound to
// a simulated node it serves, runs a PodWorker. kwok keeps every other pod (its stages skip the
// label), so the two never write the same pod's status.

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/informer.h"
#include "tests/harness/node-runtime/dns_config.h"
#include "tests/harness/node-runtime/image_table.h"
#include "tests/harness/node-runtime/node_table.h"
#include "tests/harness/node-runtime/oci_image_store.h"
#include "tests/harness/node-runtime/pod_worker.h"

namespace rdmastack::sim {

inline constexpr char kSimulateLabel[] = "rdmastack.io/simulate";

struct NodeRuntimeConfig {
  NodeTable nodes;
  std::string state_dir;  // pods/<uid>/ while a pod runs
  std::string log_dir;    // <namespace>_<pod>_<uid>/<container>/<restartCount>.log
  std::string shim;
  // The OCI archives of the images this project builds (scripts/images.sh); empty = none, every
  // image then comes from the image table. They run with runc (a path or a name in PATH).
  std::string oci_archive_dir;
  std::string runc = "runc";
  EnvList service_env;
  ClusterDns dns;  // resolv.conf of ClusterFirst pods
  RestartBackoffPolicy backoff;
  Clock::Duration volume_resync = std::chrono::seconds(30);
};

class NodeRuntime {
 public:
  NodeRuntime(k8s::Client& client, Clock& clock, const ImageTable& images,
              NodeRuntimeConfig config);
  ~NodeRuntime();

  // Starts watching; returns once the first list is in (or the error).
  Status Start();
  // Joins the workers of pods that are finished; call it now and then.
  void Collect();
  // Stops every container of every pod and returns when all are stopped.
  void Stop();
  size_t PodCount() const;
  // The pod as the runtime's informer holds it (labelled pods only), or null; for the log server.
  runtime::ObjectPtr Pod(const std::string& ns, const std::string& name) const;

 private:
  void Dispatch(const runtime::ObjectPtr& pod);
  void Removed(const runtime::ObjectPtr& pod);
  std::string RuncRoot() const;
  void DeleteStaleRuncContainers();

  k8s::Client& client_;
  Clock& clock_;
  const ImageTable& images_;
  NodeRuntimeConfig config_;
  ApiObjectReader reader_;
  ApiTokenIssuer tokens_;
  ProbeRunner prober_;
  std::unique_ptr<OciImageStore> oci_images_;
  std::unique_ptr<runtime::Informer> informer_;

  mutable std::mutex mu_;
  bool stopping_ = false;
  std::map<std::string, std::unique_ptr<PodWorker>> workers_;  // by pod UID
  std::set<std::string> finished_;                             // UIDs whose worker has ended
  std::vector<runtime::ObjectPtr> to_finalize_;  // terminal pods being deleted, no worker
};

}  // namespace rdmastack::sim
