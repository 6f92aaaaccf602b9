#include "tests/harness/node-runtime/node_runtime.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "operator/runtime/compact_object.h"
#include "tests/harness/node-runtime/spawn.h"

namespace rdmastack::sim {

NodeRuntime::NodeRuntime(k8s::Client& client, Clock& clock, const ImageTable& images,
                         NodeRuntimeConfig config)
    : client_(client),
      clock_(clock),
      images_(images),
      config_(std::move(config)),
      reader_(client),
      tokens_(client, clock),
      prober_(config_.shim) {
  if (!config_.oci_archive_dir.empty()) {
    oci_images_ =
        std::make_unique<OciImageStore>(config_.oci_archive_dir, config_.state_dir + "/images");
  }
}

NodeRuntime::~NodeRuntime() {
  Stop();
}

Status NodeRuntime::Start() {
  if (oci_images_) DeleteStaleRuncContainers();
  runtime::InformerOptions options;
  options.type = k8s::kinds::Pod();
  options.label_selector = std::string(kSimulateLabel) + "=run";
  informer_ = std::make_unique<runtime::Informer>(client_, clock_, options);
  informer_->AddEventHandler(runtime::EventHandler{
      [this](const runtime::ObjectPtr& pod) { Dispatch(pod); },
      [this](const runtime::ObjectPtr&, const runtime::ObjectPtr& pod) { Dispatch(pod); },
      [this](const runtime::ObjectPtr& pod) { Removed(pod); }});
  informer_->Start();
  if (!informer_->WaitForSync(clock_.Now() + std::chrono::seconds(60))) {
    return DeadlineExceededError("the pod informer did not sync within 60s");
  }
  return OkStatus();
}

std::string NodeRuntime::RuncRoot() const {
  return config_.state_dir + "/runc";
}

// Containers of an earlier runtime that was killed (its shims and their runc died with it):
// runc's state and cgroups would otherwise stay.
void NodeRuntime::DeleteStaleRuncContainers() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(RuncRoot(), ec)) {
    const std::string id = entry.path().filename().string();
    Status s = RunToCompletion({config_.runc, "--root", RuncRoot(), "delete", "--force", id},
                               config_.state_dir + "/runc-delete.log");
    spdlog::info("removed container {} of an earlier run{}", id,
                 s.ok() ? "" : " (runc: " + s.message() + ")");
  }
}

void NodeRuntime::Dispatch(const runtime::ObjectPtr& pod) {
  const std::string node = pod->GetString({"spec", "nodeName"}).value_or("");
  auto served = config_.nodes.find(node);
  if (served == config_.nodes.end()) return;
  const std::string uid(pod->Uid());
  std::lock_guard lock(mu_);
  if (stopping_ || finished_.count(uid) != 0) return;
  if (auto it = workers_.find(uid); it != workers_.end()) {
    it->second->Update(pod);
    return;
  }
  const std::string phase = pod->GetString({"status", "phase"}).value_or("");
  if (phase == "Succeeded" || phase == "Failed") {
    // Finished before this runtime started: nothing to run, only a deletion to complete.
    if (pod->IsBeingDeleted()) to_finalize_.push_back(pod);
    return;
  }
  PodWorkerConfig wc;
  wc.node = served->second;
  wc.pod_dir = config_.state_dir + "/pods/" + uid;
  wc.log_dir = config_.log_dir + "/" + std::string(pod->Namespace()) + "_" +
               std::string(pod->Name()) + "_" + uid;
  wc.shim = config_.shim;
  wc.runc = config_.runc;
  wc.runc_root = RuncRoot();
  wc.service_env = config_.service_env;
  wc.dns = config_.dns;
  wc.backoff = config_.backoff;
  wc.volume_resync = config_.volume_resync;
  PodWorkerDeps deps{client_, clock_, images_, oci_images_.get(), reader_, tokens_, prober_};
  workers_.emplace(uid, std::make_unique<PodWorker>(deps, std::move(wc), pod));
}

void NodeRuntime::Removed(const runtime::ObjectPtr& pod) {
  const std::string uid(pod->Uid());
  std::lock_guard lock(mu_);
  finished_.erase(uid);
  if (auto it = workers_.find(uid); it != workers_.end()) it->second->Gone();
}

void NodeRuntime::Collect() {
  std::vector<std::unique_ptr<PodWorker>> done;
  std::vector<runtime::ObjectPtr> finalize;
  {
    std::lock_guard lock(mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (it->second->Done()) {
        finished_.insert(it->first);
        done.push_back(std::move(it->second));
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    finalize.swap(to_finalize_);
  }
  if (!done.empty()) {
    done.clear();  // joins outside the lock
    // A finished pod's worker thread leaves its malloc arena's free memory behind; hand it back,
    // or the runtime's resident size keeps the high-water mark of every pod it ever ran.
    runtime::ReleaseFreeMemory();
  }
  for (const runtime::ObjectPtr& pod : finalize) {
    k8s::DeleteOptions options;
    options.grace_period_seconds = 0;
    options.precondition_uid = std::string(pod->Uid());
    StatusOr<k8s::JsonObject> r =
        client_.Delete(k8s::kinds::Pod(), pod->Namespace(), pod->Name(), options);
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      spdlog::warn("pod {}: delete failed: {}", pod->Key(), r.status().ToString());
    }
  }
}

void NodeRuntime::Stop() {
  std::map<std::string, std::unique_ptr<PodWorker>> workers;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  if (informer_) informer_->Stop();
  for (auto& [uid, worker] : workers) worker->Shutdown();
  workers.clear();  // each destructor joins its worker once its containers are stopped
}

runtime::ObjectPtr NodeRuntime::Pod(const std::string& ns, const std::string& name) const {
  return informer_ ? informer_->store().Get(ns + "/" + name) : nullptr;
}

size_t NodeRuntime::PodCount() const {
  std::lock_guard lock(mu_);
  return workers_.size();
}

}  // namespace rdmastack::sim
