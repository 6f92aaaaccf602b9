#include "agents/client/commands.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "agents/client/client_plane.h"
#include "agents/client/installer.h"
#include "agents/client/library_digest.h"
#include "agents/client/options.h"
#include "agents/client/remove_dir_pass.h"
#include "agents/client/state.h"
#include "agents/client/uninstall_pass.h"
#include "base/logging.h"
#include "node/probe/host_root.h"
#include "node/probe/prober_choice.h"

namespace rdmastack::client {
namespace {

bool WantsHelp(const std::vector<std::string>& args) {
  return !args.empty() && (args[0] == "--help" || args[0] == "-h");
}

int Help() {
  std::fputs(kUsage, stdout);
  return 0;
}

int UsageError(const Status& st) {
  std::fprintf(stderr, "error: %s\n%s", st.message().c_str(), kUsage);
  return 2;
}

bool StartLogging() {
  if (Status st = InitLogging("info"); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return false;
  }
  return true;
}

// Blocked before any thread starts, so every thread inherits the mask and only sigtimedwait takes
// the signals: a pass is never interrupted half way through a write.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// Waits up to `d` for SIGTERM/SIGINT (blocked in every thread); true when one arrived.
bool WaitForStopSignal(const sigset_t& set, std::chrono::milliseconds d) {
  const auto deadline = std::chrono::steady_clock::now() + d;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::nanoseconds(0);
    timespec ts{static_cast<time_t>(left.count() / 1'000'000'000),
                static_cast<long>(left.count() % 1'000'000'000)};
    const int sig = ::sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT) {
      spdlog::info("received {}; stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
      return true;
    }
    if (sig < 0 && errno == EAGAIN) return false;  // the interval passed
  }
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  if (WantsHelp(args)) return Help();
  const char* node_env = std::getenv("NODE_NAME");
  StatusOr<RunOptions> options = ParseRunOptions(args, node_env != nullptr ? node_env : "");
  if (!options.ok()) return UsageError(options.status());
  if (!StartLogging()) return 2;
  // NVML through this binary in a child (`nvml-bar1`), asked again at most every 5 minutes, as
  // the agent does: BAR1 free only changes as GPU memory gets registered.
  node::LiveProberOptions live;
  live.nvml_helper = "/proc/self/exe";
  live.nvml_cache = std::make_shared<node::NvmlSampleCache>();
  live.nvml_max_age = std::chrono::minutes(5);
  const RunOptions& o = *options;
  auto make_prober = [&o, live] {
    return node::MakeProber(o.root, o.probes_file, o.live_probes, live);
  };
  if (auto prober = make_prober(); !prober.ok()) {  // fail fast on a bad --probes-file
    std::fprintf(stderr, "error: %s\n", prober.status().message().c_str());
    return 2;
  }
  spdlog::info("device probes: {}",
               node::DescribeProbeSource(o.root, o.probes_file, o.live_probes));
  // The library directory is filled once by the init container and does not change while the pod
  // lives: a refused image stays refused, so the client stops before it writes anything and says
  // why on its last line, which the operator reads from the container's termination message
  // (FallbackToLogsOnError) into the profile's LibraryRefused condition.
  // The pinned bytes are checked the same way, first: a library of other bytes is refused
  // whatever its shape (LibraryDigestMismatch).
  if (Status pinned = CheckStagedLibraries(o.library_dir, o.library_sha256); !pinned.ok()) {
    spdlog::default_logger()->flush();
    std::fprintf(stderr, "%s: %s\n", kReasonLibraryDigestMismatch, pinned.message().c_str());
    return 3;
  }
  if (auto library = Installer(o.install_dir, o.library_budget).PlanLibraries(o.library_dir);
      !library.ok() && library.status().code() == StatusCode::kFailedPrecondition) {
    spdlog::default_logger()->flush();
    std::fprintf(stderr, "%s: %s\n", kReasonLibraryRefused, library.status().message().c_str());
    return 3;
  }

  const sigset_t set = BlockStopSignals();
  s3::BeastHttpTransport http;
  std::optional<s3::BeastHttpTransport> https;  // the last pass's CA
  auto https_for = [&https](const s3::TlsOptions& tls) -> s3::HttpTransport* {
    return &https.emplace(tls);
  };
  ClientPlane plane(
      o, PlaneDeps{make_prober, &http, https_for, &RealClock::Instance(), RunWithPathLookup});
  spdlog::info("rdmastack-client: profile {} on node {}, installing into {} (host {}), every {} ms",
               o.profile, o.node, o.install_dir, o.host_install_dir, o.interval.count());
  while (true) {
    const auto start = std::chrono::steady_clock::now();
    plane.RunPass();
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (WaitForStopSignal(set, std::max(o.interval - spent, std::chrono::milliseconds(0)))) break;
  }
  spdlog::info(
      "{} stays installed for the workloads that use it; the operator uninstalls it once "
      "the node has left the profile and no running pod there names the profile",
      o.install_dir);
  return 0;
}

int UninstallCommand(const std::vector<std::string>& args) {
  if (WantsHelp(args)) return Help();
  StatusOr<UninstallOptions> options = ParseUninstallOptions(args);
  if (!options.ok()) return UsageError(options.status());
  if (!StartLogging()) return 2;
  const sigset_t set = BlockStopSignals();
  spdlog::info("rdmastack-client uninstall: removing what a client installed in {}, every {} ms",
               options->install_dir, options->interval.count());
  Installer installer(options->install_dir);
  std::string last;
  while (true) {
    const ClientState st = UninstallPass(installer, std::chrono::system_clock::now());
    if (st.reason + st.message != last) spdlog::info("{}: {}", st.reason, st.message);
    last = st.reason + st.message;
    if (Status w = WriteStateFile(options->state_dir, st); !w.ok())
      spdlog::error("state: {}; the readiness probe will find it stale", w.message());
    if (WaitForStopSignal(set, options->interval)) break;
  }
  return 0;
}

int RemoveDirCommand(const std::vector<std::string>& args) {
  if (WantsHelp(args)) return Help();
  StatusOr<RemoveDirOptions> options = ParseRemoveDirOptions(args);
  if (!options.ok()) return UsageError(options.status());
  if (!StartLogging()) return 2;
  const sigset_t set = BlockStopSignals();
  spdlog::info("rdmastack-client remove-dir: removing {}/{}, every {} ms", options->root,
               options->name, options->interval.count());
  std::string last;
  while (true) {
    const ClientState st =
        RemoveDirPass(options->root, options->name, std::chrono::system_clock::now());
    if (st.reason + st.message != last) spdlog::info("{}: {}", st.reason, st.message);
    last = st.reason + st.message;
    if (Status w = WriteStateFile(options->state_dir, st); !w.ok())
      spdlog::error("state: {}; the readiness probe will find it stale", w.message());
    if (WaitForStopSignal(set, options->interval)) break;
  }
  return 0;
}

int ReadyCommand(const std::vector<std::string>& args) {
  if (WantsHelp(args)) return Help();
  StatusOr<ReadyOptions> options = ParseReadyOptions(args);
  if (!options.ok()) return UsageError(options.status());
  const std::string path = options->state_dir + "/state.json";
  StatusOr<std::string> text = node::ReadLocalFile(path, 1 << 20);
  if (!text.ok()) {
    std::printf("not ready: %s (has `rdmastack-client run` finished a pass?)\n",
                text.status().message().c_str());
    return 1;
  }
  StatusOr<ClientState> state = ParseStateJson(*text);
  if (!state.ok()) {
    std::printf("not ready: %s: %s\n", path.c_str(), state.status().message().c_str());
    return 1;
  }
  const ReadyVerdict verdict =
      JudgeReady(*state, std::chrono::system_clock::now(), options->max_age);
  if (!verdict.ready) {
    std::printf("%s\n", verdict.why.c_str());
    return 1;
  }
  return 0;
}

}  // namespace rdmastack::client
