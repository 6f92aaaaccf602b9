#include "tests/harness/node-runtime/pod_worker.h"

#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "operator/k8s/api_error.h"
#include "tests/harness/node-runtime/container_command.h"
#include "tests/harness/node-runtime/exec_path.h"
#include "tests/harness/node-runtime/launch_spec.h"
#include "tests/harness/node-runtime/oci_config.h"
#include "tests/harness/node-runtime/process_util.h"
#include "tests/harness/node-runtime/security_context.h"
#include "tests/harness/node-runtime/spawn.h"

namespace rdmastack::sim {
namespace fs = std::filesystem;
using std::chrono::seconds;

namespace {

// How long a container that could not be created waits before the next try.
constexpr seconds kCreateRetry{5};

std::string RestartPolicy(const k8s::JsonObject& pod) {
  return pod.GetString({"spec", "restartPolicy"}).value_or("Always");
}

seconds PodGrace(const k8s::JsonObject& pod) {
  if (auto g = pod.GetInt({"metadata", "deletionGracePeriodSeconds"})) return seconds(*g);
  return seconds(pod.GetInt({"spec", "terminationGracePeriodSeconds"}).value_or(30));
}

// The kubelet's FallbackToLogsOnError: the end of a failed container's log, at most 2048 bytes and
// 80 lines.
std::string LogTail(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 2048);
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  size_t lines = 0, at = tail.size();
  while (at > 0 && tail[at - 1] == '\n') --at;
  for (size_t i = at; i > 0; --i) {
    if (tail[i - 1] == '\n' && ++lines == 80) return tail.substr(i);
  }
  return tail;
}

std::string FormatDelay(Clock::Duration d) {
  return std::to_string(std::chrono::duration_cast<seconds>(d).count()) + "s";
}

}  // namespace

struct PodWorker::Run {
  k8s::JsonObject spec;  // the container
  std::string name;
  std::string image;
  bool init = false;
  ContainerView::State state = ContainerView::State::kWaiting;
  std::string waiting_reason = "ContainerCreating";
  std::string waiting_message;
  std::optional<ContainerProcess> process;
  Clock::WallTime started_at{};
  Clock::TimePoint started_mono{};
  std::string container_id;
  std::string runc_id;  // the runc container of an OCI image's run; empty otherwise
  TerminatedView terminated;
  std::optional<TerminatedView> last_termination;
  int restart_count = 0;
  int restarts_in_window = 0;
  bool restart_pending = false;  // a terminated run that will start again
  Clock::TimePoint next_start{};
  bool started = false;
  bool ready = false;
  bool killing = false;
  Clock::TimePoint kill_deadline{};
  std::optional<ProbeTracker> startup, readiness, liveness;
};

PodWorker::PodWorker(PodWorkerDeps deps, PodWorkerConfig config, runtime::ObjectPtr pod)
    : deps_(deps),
      config_(std::move(config)),
      uid_(pod->Uid()),
      key_(pod->Key()),
      volumes_(config_.node.host_root, config_.pod_dir + "/volumes", deps.reader, deps.tokens,
               deps.clock),
      pod_(std::move(pod)) {
  auto add = [&](const char* field, bool init, std::vector<std::unique_ptr<Run>>& into) {
    for (const k8s::JsonObject& c : pod_->GetArray({"spec", field})) {
      auto run = std::make_unique<Run>();
      run->spec = c;
      run->name = c.GetString({"name"}).value_or("");
      run->image = c.GetString({"image"}).value_or("");
      run->init = init;
      if (init) run->waiting_reason = "PodInitializing";
      into.push_back(std::move(run));
    }
  };
  add("initContainers", true, init_);
  add("containers", false, main_);
  if (!init_.empty()) {
    init_.front()->waiting_reason = "ContainerCreating";
    for (auto& r : main_) r->waiting_reason = "PodInitializing";
  }
  initialized_ = init_.empty();
  start_time_ = deps_.clock.WallNow();
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] { Loop(); });
}

PodWorker::~PodWorker() {
  Shutdown();
  if (thread_.joinable()) thread_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void PodWorker::Wake() {
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

void PodWorker::Update(runtime::ObjectPtr pod) {
  {
    std::lock_guard lock(mu_);
    pod_ = std::move(pod);
  }
  Wake();
}

void PodWorker::Gone() {
  {
    std::lock_guard lock(mu_);
    gone_ = true;
  }
  Wake();
}

void PodWorker::Shutdown() {
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
  }
  Wake();
}

void PodWorker::Wait() {
  const Clock::TimePoint now = deps_.clock.Now();
  Clock::TimePoint until = now + config_.max_wait;
  std::vector<pollfd> fds = {{wake_fd_, POLLIN, 0}};
  auto sooner = [&](Clock::TimePoint t) { until = std::min(until, t); };
  sooner(last_volume_sync_ + config_.volume_resync);
  auto consider = [&](Run& run, bool may_start) {
    if (run.state == ContainerView::State::kRunning && run.process) {
      if (run.process->exit_fd() >= 0) fds.push_back({run.process->exit_fd(), POLLIN, 0});
      if (run.killing) sooner(run.kill_deadline);
      // The probes that RunProbes would run: startup until it passed, then the other two.
      if (run.killing) return;
      if (run.startup && !run.started) {
        sooner(run.startup->next());
        return;
      }
      if (run.liveness) sooner(run.liveness->next());
      if (run.readiness) sooner(run.readiness->next());
    } else if (may_start && (run.state == ContainerView::State::kWaiting || run.restart_pending)) {
      sooner(run.next_start);
    }
  };
  for (size_t i = 0; i < init_.size(); ++i) consider(*init_[i], i == init_index_ && !init_failed_);
  for (auto& run : main_) consider(*run, initialized_ && sandbox_ready_);
  const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
  ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait_ms)));
  uint64_t drained = 0;
  (void)!::read(wake_fd_, &drained, sizeof(drained));
}

bool PodWorker::Done() const {
  std::lock_guard lock(mu_);
  return done_;
}

bool PodWorker::ShuttingDown() const {
  std::lock_guard lock(mu_);
  return shutdown_;
}

std::string PodWorker::Describe() const {
  return "pod " + key_ + " on " + config_.node.name;
}

PodFacts PodWorker::Facts(const k8s::JsonObject& pod) const {
  return PodFacts{&pod, config_.node.address, config_.node.address};
}

bool PodWorker::Partitioned() const {
  std::error_code ec;
  return fs::exists(fs::path(config_.node.host_root).parent_path() / "partitioned", ec);
}

void PodWorker::Loop() {
  spdlog::info("{}: starting", Describe());
  for (bool first = true;; first = false) {
    const bool cut = Partitioned();
    if (cut != partitioned_) {
      spdlog::info("{}: node {} (cluster.sh {})", Describe(),
                   cut ? "cut off: no probes, no API writes" : "reconnected",
                   cut ? "partition" : "heal");
      partitioned_ = cut;
    }
    if (cut) {
      // Only the runtime's own shutdown still counts (a pod deleted meanwhile is not heard of).
      pollfd wake{wake_fd_, POLLIN, 0};
      ::poll(&wake, 1, 1000);
      std::lock_guard lock(mu_);
      if (!shutdown_) continue;
    } else if (!first) {
      Wait();
    }
    runtime::ObjectPtr pod;
    bool gone = false, shutdown = false;
    {
      std::lock_guard lock(mu_);
      pod = pod_;
      gone = gone_;
      shutdown = shutdown_;
    }
    if (shutdown) {
      StopAll(config_.shutdown_grace);
      break;
    }
    if (gone) {
      StopAll(PodGrace(*pod));
      spdlog::info("{}: removed from the API; containers stopped", Describe());
      break;
    }
    if (pod->IsBeingDeleted()) {
      StopAll(PodGrace(*pod));
      if (ShuttingDown()) break;
      WriteStatus(*pod, /*final_view=*/true);
      DeleteFromApi(*pod);
      break;
    }
    Step(*pod);
    WriteStatus(*pod, /*final_view=*/false);
  }
  std::error_code ec;
  fs::remove_all(config_.pod_dir, ec);
  std::lock_guard lock(mu_);
  done_ = true;
}

void PodWorker::Step(const k8s::JsonObject& pod) {
  const Clock::TimePoint now = deps_.clock.Now();
  if (!sandbox_ready_ || now - last_volume_sync_ >= config_.volume_resync) {
    Status synced = volumes_.Sync(Facts(pod));
    last_volume_sync_ = now;
    if (!synced.ok()) {
      if (synced.message() != sandbox_error_) {
        spdlog::warn("{}: {}", Describe(), synced.message());
      }
      sandbox_error_ = synced.message();
      if (!sandbox_ready_) return;  // kubelet: the pod stays ContainerCreating
    } else {
      sandbox_error_.clear();
      sandbox_ready_ = true;
    }
  }
  ReapAll(pod);
  if (!initialized_) StepInit(pod);
  if (initialized_) StepMain(pod);
  RunProbes(pod);
}

void PodWorker::StepInit(const k8s::JsonObject& pod) {
  while (init_index_ < init_.size() && !init_failed_) {
    Run& run = *init_[init_index_];
    if (run.state == ContainerView::State::kRunning) return;
    if (run.state == ContainerView::State::kTerminated && !run.restart_pending) {
      if (run.terminated.exit_code != 0) {
        init_failed_ = true;  // restartPolicy Never
        return;
      }
      ++init_index_;
      if (init_index_ < init_.size()) init_[init_index_]->waiting_reason = "ContainerCreating";
      continue;
    }
    if (deps_.clock.Now() >= run.next_start) Start(pod, run);
    return;
  }
  if (init_index_ == init_.size() && !initialized_) {
    initialized_ = true;
    for (auto& r : main_) r->waiting_reason = "ContainerCreating";
  }
}

void PodWorker::StepMain(const k8s::JsonObject& pod) {
  const Clock::TimePoint now = deps_.clock.Now();
  for (auto& run : main_) {
    if (run->state == ContainerView::State::kRunning) {
      if (run->killing && now >= run->kill_deadline) run->process->Signal(SIGKILL);
      continue;
    }
    if (run->state == ContainerView::State::kTerminated && !run->restart_pending) continue;
    if (now >= run->next_start) Start(pod, *run);
  }
}

void PodWorker::Start(const k8s::JsonObject& pod, Run& run) {
  const Clock::TimePoint now = deps_.clock.Now();
  auto fail = [&](const std::string& reason, const std::string& message) {
    if (run.waiting_message != message) {
      spdlog::warn("{}: container {}: {}: {}", Describe(), run.name, reason, message);
    }
    if (run.restart_pending) {
      run.last_termination = run.terminated;
      run.restart_pending = false;
    }
    run.state = ContainerView::State::kWaiting;
    run.waiting_reason = reason;
    run.waiting_message = message;
    run.next_start = now + kCreateRetry;
  };
  // An image this project builds runs from its OCI archive; any other from the image table.
  std::optional<OciImage> oci;
  StatusOr<const ImageSpec*> image = static_cast<const ImageSpec*>(nullptr);
  if (StatusOr<OciImage> pulled = deps_.oci_images ? deps_.oci_images->Pull(run.image)
                                                   : StatusOr<OciImage>(NotFoundError(""));
      pulled.ok()) {
    oci = std::move(*pulled);
    image = &oci->config;
  } else if (pulled.status().code() != StatusCode::kNotFound) {
    return fail("ErrImagePull", pulled.status().message());
  } else {
    image = deps_.images.Lookup(run.image);
    if (!image.ok()) {
      return fail("ErrImagePull",
                  image.status().message() +
                      (pulled.status().message().empty() ? "" : "; " + pulled.status().message()));
    }
    if (Status files = CheckImageFiles(**image, run.image); !files.ok()) {
      return fail("ErrImagePull", files.message());
    }
  }
  const bool host_network = pod.GetBool({"spec", "hostNetwork"}).value_or(false);
  EnvList base;
  base.Set("PATH", kDefaultPath);
  for (const auto& [k, v] : (*image)->env) base.Set(k, v);
  base.Set("HOSTNAME", host_network ? config_.node.name : std::string(pod.Name()));
  for (const auto& [k, v] : config_.service_env.entries()) base.Set(k, v);
  StatusOr<EnvList> env = BuildContainerEnv(Facts(pod), run.spec, base, deps_.reader);
  if (!env.ok()) return fail("CreateContainerConfigError", env.status().message());
  StatusOr<std::vector<std::string>> argv = ContainerArgv(run.spec, **image, *env);
  if (!argv.ok()) return fail("CreateContainerError", argv.status().message());
  StatusOr<std::vector<BindMount>> volume_mounts = volumes_.MountsFor(run.spec);
  if (!volume_mounts.ok()) return fail("CreateContainerError", volume_mounts.status().message());

  const int restart_count = run.restart_pending ? run.restart_count + 1 : run.restart_count;
  const std::string dir = config_.pod_dir + "/containers/" + run.name;
  const std::string log_dir = config_.log_dir + "/" + run.name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::create_directories(log_dir, ec);
  LaunchSpec spec;
  spec.netns_path = config_.node.NetnsPath();
  spec.hostname = host_network ? config_.node.name : std::string(pod.Name());
  spec.host_pid = pod.GetBool({"spec", "hostPID"}).value_or(false);
  spec.scratch_dir = dir + "/scratch-" + std::to_string(restart_count);
  spec.mounts = (*image)->files;
  spec.mounts.insert(spec.mounts.end(), volume_mounts->begin(), volume_mounts->end());
  spec.argv = *argv;
  spec.env = env->ToStrings();
  spec.working_dir = run.spec.GetString({"workingDir"}).value_or((*image)->working_dir);
  if (spec.working_dir.empty()) spec.working_dir = "/";
  spec.log_file = log_dir + "/" + std::to_string(restart_count) + ".log";
  spec.pid_file = dir + "/pid";
  spec.error_file = dir + "/error";
  fs::remove(spec.pid_file, ec);
  fs::remove(spec.error_file, ec);
  fs::create_directories(spec.scratch_dir, ec);
  if (oci) {
    if (Status s = PrepareOciBundle(pod, run, *oci, &spec); !s.ok()) {
      return fail(s.code() == StatusCode::kFailedPrecondition ? "CreateContainerConfigError"
                                                              : "CreateContainerError",
                  s.message());
    }
  }
  const std::string spec_file = dir + "/launch-" + std::to_string(restart_count) + ".json";
  {
    std::ofstream out(spec_file, std::ios::trunc);
    out << LaunchSpecToJson(spec);
    if (!out) return fail("CreateContainerError", "cannot write " + spec_file);
  }
  StatusOr<ContainerProcess> process =
      ContainerProcess::Start(config_.shim, spec_file, spec.pid_file);
  if (!process.ok()) return fail("CreateContainerError", process.status().message());

  if (run.restart_pending) {
    run.last_termination = run.terminated;
    run.restart_count = restart_count;
    ++run.restarts_in_window;
    run.restart_pending = false;
  }
  run.process = std::move(*process);
  run.runc_id = spec.container_id;
  // The shim writes the container's PID right after its fork; wait for it (briefly) so that the
  // first status already names the container.
  for (int i = 0; i < 50 && run.process->MainPid() <= 0 && !run.process->TryReap(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  run.container_id =
      run.process->MainPid() > 0 ? "rdmastack-sim://" + std::to_string(run.process->MainPid()) : "";
  run.state = ContainerView::State::kRunning;
  run.waiting_message.clear();
  run.started_at = deps_.clock.WallNow();
  run.started_mono = now;
  run.killing = false;
  run.ready = false;
  auto tracker = [&](const char* field, ProbeType type) -> std::optional<ProbeTracker> {
    const std::optional<k8s::JsonObject> probe = run.spec.Get({field});
    if (!probe || run.init) return std::nullopt;
    StatusOr<ProbeSpec> parsed = ParseProbe(*probe, run.spec);
    if (!parsed.ok()) {
      spdlog::warn("{}: container {}: {} ignored: {}", Describe(), run.name, field,
                   parsed.status().message());
      return std::nullopt;
    }
    ProbeTracker t(type, *parsed);
    t.Reset(now);
    return t;
  };
  run.startup = tracker("startupProbe", ProbeType::kStartup);
  run.readiness = tracker("readinessProbe", ProbeType::kReadiness);
  run.liveness = tracker("livenessProbe", ProbeType::kLiveness);
  run.started = !run.startup.has_value();
  spdlog::info("{}: container {} started (restart {}): {}", Describe(), run.name, restart_count,
               spec.argv.front());
}

void PodWorker::ReapAll(const k8s::JsonObject& pod) {
  for (auto* list : {&init_, &main_}) {
    for (auto& run : *list) {
      if (run->state != ContainerView::State::kRunning || !run->process) continue;
      if (run->container_id.empty() && run->process->MainPid() > 0) {
        run->container_id = "rdmastack-sim://" + std::to_string(run->process->MainPid());
      }
      if (std::optional<int> code = run->process->TryReap()) OnExit(pod, *run, *code);
    }
  }
}

void PodWorker::OnExit(const k8s::JsonObject& pod, Run& run, int exit_code) {
  const Clock::TimePoint now = deps_.clock.Now();
  const std::string dir = config_.pod_dir + "/containers/" + run.name;
  const std::string start_error = ReadSmallFile(dir + "/error");
  run.terminated = TerminatedView{};
  run.terminated.exit_code = exit_code;
  run.terminated.reason = exit_code == 0                                             ? "Completed"
                          : exit_code == kStartErrorExitCode && !start_error.empty() ? "StartError"
                                                                                     : "Error";
  run.terminated.message = run.terminated.reason == "StartError" ? start_error : "";
  if (run.terminated.reason == "Error" &&
      run.spec.GetString({"terminationMessagePolicy"}) == "FallbackToLogsOnError") {
    run.terminated.message = LogTail(config_.log_dir + "/" + run.name + "/" +
                                     std::to_string(run.restart_count) + ".log");
  }
  run.terminated.container_id = run.container_id;
  run.terminated.started_at = run.started_at;
  run.terminated.finished_at = deps_.clock.WallNow();
  run.state = ContainerView::State::kTerminated;
  run.ready = false;
  run.started = false;
  run.killing = false;
  DeleteRuncState(run);
  std::error_code ec;
  fs::remove_all(dir + "/scratch-" + std::to_string(run.restart_count), ec);
  spdlog::info("{}: container {} exited with {} ({})", Describe(), run.name, exit_code,
               run.terminated.reason);

  const std::string policy = RestartPolicy(pod);
  const bool restart = policy == "Always"      ? !run.init || exit_code != 0
                       : policy == "OnFailure" ? exit_code != 0
                                               : false;
  if (!restart || ShuttingDown()) return;
  if (now - run.started_mono >= config_.backoff.forgive_after) run.restarts_in_window = 0;
  run.restart_pending = true;
  run.next_start = now + RestartDelay(run.restarts_in_window, config_.backoff);
}

void PodWorker::Kill(const k8s::JsonObject& pod, Run& run, const std::string& why,
                     std::optional<int64_t> probe_grace) {
  if (run.killing || !run.process) return;
  const seconds grace =
      probe_grace ? seconds(*probe_grace)
                  : seconds(pod.GetInt({"spec", "terminationGracePeriodSeconds"}).value_or(30));
  spdlog::info("{}: container {} {}, will be restarted; stopping it ({}s grace)", Describe(),
               run.name, why, grace.count());
  run.killing = true;
  run.kill_deadline = deps_.clock.Now() + grace;
  run.process->Signal(SIGTERM);
}

void PodWorker::RunProbes(const k8s::JsonObject& pod) {
  for (auto& run : main_) {
    if (run->state != ContainerView::State::kRunning || run->killing) continue;
    const pid_t pid = run->process->MainPid();
    auto probe = [&](ProbeTracker& t) -> std::optional<ProbeResult> {
      const Clock::TimePoint now = deps_.clock.Now();
      if (!t.Due(now)) return std::nullopt;
      std::string detail;
      const bool ok = deps_.prober.Run(t.spec(), config_.node.address, pid, &detail);
      const ProbeResult before = t.verdict();
      const ProbeResult after = t.Record(ok, deps_.clock.Now());
      if (!ok) spdlog::debug("{}: container {}: probe failed: {}", Describe(), run->name, detail);
      if (after != before && after == ProbeResult::kFailure) {
        spdlog::warn("{}: container {}: {} probe failed: {}", Describe(), run->name,
                     t.type() == ProbeType::kReadiness  ? "readiness"
                     : t.type() == ProbeType::kLiveness ? "liveness"
                                                        : "startup",
                     detail);
      }
      return after;
    };
    if (run->startup && !run->started) {
      std::optional<ProbeResult> r = probe(*run->startup);
      if (r == ProbeResult::kSuccess) run->started = true;
      if (r == ProbeResult::kFailure) {
        Kill(pod, *run, "failed its startup probe",
             run->spec.GetInt({"startupProbe", "terminationGracePeriodSeconds"}));
      }
      if (!run->started) continue;
    }
    if (run->liveness && probe(*run->liveness) == ProbeResult::kFailure) {
      Kill(pod, *run, "failed its liveness probe",
           run->spec.GetInt({"livenessProbe", "terminationGracePeriodSeconds"}));
      continue;
    }
    if (run->readiness) {
      probe(*run->readiness);
      run->ready = run->readiness->verdict() == ProbeResult::kSuccess;
    } else {
      run->ready = true;
    }
  }
}

void PodWorker::StopAll(Clock::Duration grace) {
  std::vector<Run*> running;
  for (auto* list : {&init_, &main_}) {
    for (auto& run : *list) {
      if (run->state == ContainerView::State::kRunning && run->process)
        running.push_back(run.get());
    }
  }
  if (running.empty()) return;
  spdlog::info("{}: stopping {} container(s), {}s grace", Describe(), running.size(),
               std::chrono::duration_cast<seconds>(grace).count());
  for (Run* run : running) run->process->Signal(SIGTERM);
  Clock::TimePoint deadline = deps_.clock.Now() + grace;
  bool shortened = false;
  for (;;) {
    bool all = true;
    for (Run* run : running) all = run->process->TryReap().has_value() && all;
    if (all) break;
    if (!shortened && ShuttingDown()) {
      deadline = std::min(deadline, deps_.clock.Now() + config_.shutdown_grace);
      shortened = true;
    }
    if (deps_.clock.Now() >= deadline) {
      for (Run* run : running) run->process->Signal(SIGKILL);
      for (Run* run : running) run->process->Wait();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const k8s::JsonObject pod = [&] {
    std::lock_guard lock(mu_);
    return *pod_;
  }();
  for (Run* run : running) {
    DeleteRuncState(*run);
    run->restart_pending = false;
    const int code = run->process->TryReap().value_or(137);
    // Record the termination without scheduling a restart.
    run->state = ContainerView::State::kTerminated;
    run->terminated = TerminatedView{code,
                                     code == 0 ? "Completed" : "Error",
                                     "",
                                     run->container_id,
                                     run->started_at,
                                     deps_.clock.WallNow()};
    run->ready = false;
    run->started = false;
  }
}

ConditionView PodWorker::Condition(const std::string& type, bool status, const std::string& reason,
                                   const std::string& message) {
  auto it = conditions_.find(type);
  if (it == conditions_.end() || it->second.first != status) {
    conditions_[type] = {status, deps_.clock.WallNow()};
  }
  return ConditionView{type, status, conditions_[type].second, status ? "" : reason,
                       status ? "" : message};
}

PodView PodWorker::View(const k8s::JsonObject& pod, bool final_view) {
  const Clock::TimePoint now = deps_.clock.Now();
  PodView view;
  view.host_ip = config_.node.address;
  view.pod_ip = sandbox_ready_ ? config_.node.address : "";
  view.start_time = start_time_;
  auto container = [&](Run& run) {
    ContainerView c;
    c.name = run.name;
    c.image = run.image;
    c.state = run.state;
    c.waiting_reason = run.waiting_reason;
    c.waiting_message = run.waiting_message;
    if (!sandbox_error_.empty() && !sandbox_ready_ && run.state == ContainerView::State::kWaiting) {
      c.waiting_message = sandbox_error_;
    }
    c.running_since = run.started_at;
    c.terminated = run.terminated;
    c.last_termination = run.last_termination;
    c.container_id = run.state == ContainerView::State::kTerminated ? run.terminated.container_id
                                                                    : run.container_id;
    c.ready = run.ready;
    c.started = run.started;
    c.restart_count = run.restart_count;
    if (run.restart_pending && now < run.next_start) {
      c.state = ContainerView::State::kWaiting;
      c.waiting_reason = "CrashLoopBackOff";
      c.waiting_message =
          "back-off " + FormatDelay(RestartDelay(run.restarts_in_window, config_.backoff)) +
          " restarting failed container=" + run.name + " pod=" + std::string(pod.Name()) + "_" +
          std::string(pod.Namespace()) + "(" + uid_ + ")";
      c.last_termination = run.terminated;
      c.container_id.clear();
    }
    return c;
  };
  std::vector<std::string> incomplete, unready;
  for (auto& run : init_) {
    view.init_containers.push_back(container(*run));
    if (!(run->state == ContainerView::State::kTerminated && run->terminated.exit_code == 0)) {
      incomplete.push_back(run->name);
    }
  }
  for (auto& run : main_) {
    view.containers.push_back(container(*run));
    if (!run->ready) unready.push_back(run->name);
  }
  const bool containers_ready = unready.empty() && !final_view;
  view.conditions.push_back(
      Condition("PodReadyToStartContainers", sandbox_ready_ && !final_view, "", ""));
  view.conditions.push_back(Condition("Initialized", initialized_, "ContainersNotInitialized",
                                      ContainerListMessage("incomplete", incomplete)));
  view.conditions.push_back(Condition("ContainersReady", containers_ready, "ContainersNotReady",
                                      ContainerListMessage("unready", unready)));
  view.conditions.push_back(Condition("Ready", containers_ready, "ContainersNotReady",
                                      ContainerListMessage("unready", unready)));
  if (final_view) {
    bool all_ok = true;
    for (auto& run : main_) all_ok = all_ok && run->terminated.exit_code == 0;
    view.phase = all_ok ? "Succeeded" : "Failed";
  } else {
    view.phase = PodPhase(RestartPolicy(pod), initialized_, init_failed_, view.containers);
  }
  return view;
}

void PodWorker::WriteStatus(const k8s::JsonObject& pod, bool final_view) {
  const PodView view = View(pod, final_view);
  const std::string patch = StatusPatch(view).Serialize();
  // Unchanged since our last write, and the API server still shows our Ready (the node lifecycle
  // controller sets it False on a node that stopped heartbeating; a kubelet that comes back
  // writes its own view again, as this does).
  auto ready_of = [](const std::vector<ConditionView>& conditions) {
    for (const auto& c : conditions)
      if (c.type == "Ready") return c.status;
    return false;
  };
  std::optional<bool> api_ready;
  for (const k8s::JsonObject& c : pod.GetArray({"status", "conditions"})) {
    if (c.GetString({"type"}) == "Ready") api_ready = c.GetString({"status"}) == "True";
  }
  if (patch == last_status_ && (!api_ready || *api_ready == ready_of(view.conditions))) return;
  k8s::PatchOptions options;
  options.field_manager = config_.field_manager;
  StatusOr<k8s::JsonObject> r =
      deps_.client.PatchStatus(k8s::kinds::Pod(), pod.Namespace(), pod.Name(),
                               k8s::PatchType::kStrategicMerge, patch, options);
  if (!r.ok()) {
    spdlog::warn("{}: status update failed (retrying): {}", Describe(), r.status().ToString());
    return;
  }
  last_status_ = patch;
}

void PodWorker::DeleteFromApi(const k8s::JsonObject& pod) {
  k8s::DeleteOptions options;
  options.grace_period_seconds = 0;
  options.precondition_uid = uid_;
  for (int attempt = 1;; ++attempt) {
    StatusOr<k8s::JsonObject> r =
        deps_.client.Delete(k8s::kinds::Pod(), pod.Namespace(), pod.Name(), options);
    if (r.ok() || r.status().code() == StatusCode::kNotFound) break;
    spdlog::warn("{}: final delete failed (attempt {}): {}", Describe(), attempt,
                 r.status().ToString());
    if (attempt == 10 || ShuttingDown()) return;
    std::this_thread::sleep_for(seconds(1));
  }
  spdlog::info("{}: deleted", Describe());
}

StatusOr<std::vector<BindMount>> PodWorker::PodEtcFiles(const k8s::JsonObject& pod) {
  const bool host_network = pod.GetBool({"spec", "hostNetwork"}).value_or(false);
  const std::string hostname = host_network ? config_.node.name : std::string(pod.Name());
  const std::string dir = config_.pod_dir + "/etc";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
                    config_.node.address + "\t" + hostname + "\n"},
      {"hostname", hostname + "\n"},
      {"resolv.conf", RenderResolvConf(pod, config_.dns, ReadSmallFile("/etc/resolv.conf"))},
  };
  std::vector<BindMount> mounts;
  for (const auto& [name, content] : files) {
    const std::string path = dir + "/" + name;
    std::ofstream out(path, std::ios::trunc);
    out << content;
    if (!out) return InternalError("cannot write " + path);
    mounts.push_back({path, "/etc/" + name, false});
  }
  return mounts;
}

Status PodWorker::PrepareOciBundle(const k8s::JsonObject& pod, const Run& run,
                                   const OciImage& image, LaunchSpec* spec) {
  RDMASTACK_ASSIGN_OR_RETURN(
      ContainerSecurity security,
      ResolveSecurity(pod, run.spec, image.user, ReadSmallFile(image.rootfs + "/etc/passwd"),
                      ReadSmallFile(image.rootfs + "/etc/group"), BoundingCapabilities()));
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<BindMount> etc, PodEtcFiles(pod));
  const std::string id =
      uid_ + "-" + run.name + "-" + spec->scratch_dir.substr(spec->scratch_dir.rfind('-') + 1);
  OciContainerConfig c;
  c.argv = spec->argv;
  c.env = spec->env;
  c.working_dir = spec->working_dir;
  c.hostname = spec->hostname;
  c.netns_path = spec->netns_path;
  c.host_pid = spec->host_pid;
  c.security = security;
  // The pod's /etc files, then its volumes (an OCI image brings no table files).
  c.mounts = etc;
  c.mounts.insert(c.mounts.end(), spec->mounts.begin(), spec->mounts.end());
  c.cgroups_path = "/rdmastack-sim/" + id;
  const std::string bundle = spec->scratch_dir + "/bundle";
  std::error_code ec;
  fs::create_directories(bundle, ec);
  {
    std::ofstream out(bundle + "/config.json", std::ios::trunc);
    out << RenderOciConfig(c);
    if (!out) return InternalError("cannot write " + bundle + "/config.json");
  }
  spec->mounts = c.mounts;
  spec->oci_bundle = bundle;
  spec->oci_lower_root = image.rootfs;
  spec->runc = config_.runc;
  spec->runc_root = config_.runc_root;
  spec->container_id = id;
  return OkStatus();
}

void PodWorker::DeleteRuncState(Run& run) {
  if (run.runc_id.empty()) return;
  const std::string id = std::exchange(run.runc_id, "");
  std::error_code ec;
  if (!fs::exists(config_.runc_root + "/" + id, ec)) return;
  const std::string out = config_.pod_dir + "/runc-delete.log";
  Status s =
      RunToCompletion({config_.runc, "--root", config_.runc_root, "delete", "--force", id}, out);
  if (!s.ok()) spdlog::warn("{}: container {}: {}", Describe(), run.name, s.message());
}

}  // namespace rdmastack::sim
