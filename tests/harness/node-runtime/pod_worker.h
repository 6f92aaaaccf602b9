#pragma once
// Runs one pod on a simulated node, as the kubelet's pod worker does: volumes first, then init
// containers one by one to completion, then every container; probes drive `started` and `ready`,
// liveness/startup failures and crashes restart containers with crash-loop backoff, and the
// pod's status follows. Deletion stops the containers (SIGTERM, the grace period, SIGKILL) and
// removes the pod from the API. One thread per pod.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/store.h"
#include "tests/harness/node-runtime/container_process.h"
#include "tests/harness/node-runtime/dns_config.h"
#include "tests/harness/node-runtime/env_list.h"
#include "tests/harness/node-runtime/image_table.h"
#include "tests/harness/node-runtime/node_table.h"
#include "tests/harness/node-runtime/oci_image_store.h"
#include "tests/harness/node-runtime/pod_status.h"
#include "tests/harness/node-runtime/pod_volumes.h"
#include "tests/harness/node-runtime/probe_runner.h"
#include "tests/harness/node-runtime/probe_spec.h"
#include "tests/harness/node-runtime/restart_backoff.h"

namespace rdmastack::sim {

struct PodWorkerDeps {
  k8s::Client& client;
  Clock& clock;
  const ImageTable& images;
  // The images this project builds, run by runc from their own root (nullptr: none; every image
  // then comes from the table).
  OciImageStore* oci_images;
  ObjectReader& reader;
  TokenIssuer& tokens;
  ProbeRunner& prober;
};

struct PodWorkerConfig {
  SimulatedNode node;
  std::string pod_dir;    // volumes, launch specs and scratch space; removed when the pod ends
  std::string log_dir;    // <container>/<restartCount>.log; kept
  std::string shim;       // rdmastack-node-shim
  std::string runc;       // for containers from OCI images
  std::string runc_root;  // runc's state directory, shared by the node runtime's pods
  EnvList service_env;    // KUBERNETES_SERVICE_HOST/PORT, when nodes can reach the API server
  ClusterDns dns;
  RestartBackoffPolicy backoff;
  Clock::Duration volume_resync = std::chrono::seconds(30);
  // Longest sleep between two looks at the pod; a worker wakes earlier for a pod update, a
  // container exit, a due probe, restart or kill deadline.
  Clock::Duration max_wait = std::chrono::seconds(5);
  // Time given to containers when the runtime itself stops.
  Clock::Duration shutdown_grace = std::chrono::seconds(2);
  std::string field_manager = "rdmastack-node-runtime";
};

class PodWorker {
 public:
  PodWorker(PodWorkerDeps deps, PodWorkerConfig config, runtime::ObjectPtr pod);
  ~PodWorker();
  PodWorker(const PodWorker&) = delete;
  PodWorker& operator=(const PodWorker&) = delete;

  void Update(runtime::ObjectPtr pod);
  // The pod is gone from the API (force-deleted): stop its containers, write nothing.
  void Gone();
  // The runtime is stopping: stop the containers quickly, write nothing.
  void Shutdown();
  bool Done() const;

 private:
  struct Run;  // one container, init or not

  void Loop();
  void Step(const k8s::JsonObject& pod);
  void StepInit(const k8s::JsonObject& pod);
  void StepMain(const k8s::JsonObject& pod);
  void Start(const k8s::JsonObject& pod, Run& run);
  // The runc bundle of a container from an OCI image: config.json in `spec`'s scratch directory.
  Status PrepareOciBundle(const k8s::JsonObject& pod, const Run& run, const OciImage& image,
                          LaunchSpec* spec);
  // Files the kubelet gives every container: /etc/hosts, /etc/hostname, /etc/resolv.conf.
  StatusOr<std::vector<BindMount>> PodEtcFiles(const k8s::JsonObject& pod);
  // Removes what runc kept of a container whose runc was killed (its state and cgroups).
  void DeleteRuncState(Run& run);
  void ReapAll(const k8s::JsonObject& pod);
  void OnExit(const k8s::JsonObject& pod, Run& run, int exit_code);
  void RunProbes(const k8s::JsonObject& pod);
  void Kill(const k8s::JsonObject& pod, Run& run, const std::string& why,
            std::optional<int64_t> probe_grace);
  void StopAll(Clock::Duration grace);
  PodView View(const k8s::JsonObject& pod, bool final_view);
  ConditionView Condition(const std::string& type, bool status, const std::string& reason,
                          const std::string& message);
  void WriteStatus(const k8s::JsonObject& pod, bool final_view);
  void DeleteFromApi(const k8s::JsonObject& pod);
  PodFacts Facts(const k8s::JsonObject& pod) const;
  // Sleeps until something is due or happens; see PodWorkerConfig::max_wait.
  void Wait();
  // `cluster.sh partition NODE` cut this pod's node off the network (a file beside its host
  // root): a kubelet there would hear nothing from the API server and write nothing to it, so the
  // worker only waits (what runs goes on running) until `cluster.sh heal`.
  bool Partitioned() const;
  void Wake();
  std::string Describe() const;
  bool ShuttingDown() const;

  PodWorkerDeps deps_;
  PodWorkerConfig config_;
  const std::string uid_;
  const std::string key_;  // namespace/name
  PodVolumes volumes_;

  std::vector<std::unique_ptr<Run>> init_;
  std::vector<std::unique_ptr<Run>> main_;
  size_t init_index_ = 0;
  bool initialized_ = false;
  bool init_failed_ = false;
  bool sandbox_ready_ = false;
  std::string sandbox_error_;
  Clock::TimePoint last_volume_sync_{};
  Clock::WallTime start_time_{};
  std::map<std::string, std::pair<bool, Clock::WallTime>> conditions_;
  std::string last_status_;
  bool partitioned_ = false;  // as last seen, to log the changes

  mutable std::mutex mu_;
  int wake_fd_ = -1;  // eventfd: Update/Gone/Shutdown
  runtime::ObjectPtr pod_;
  bool gone_ = false;
  bool shutdown_ = false;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace rdmastack::sim
