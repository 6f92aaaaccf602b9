// N simulated agents over TLS against the AgentHub in its own process (agenthub-bench-hub) on
// loopback, with TokenReview and the bound-Pod check against the real API server: the time until
// all are accepted, the hub's resident memory per connection, its CPU at one heartbeat per 10 s per
// agent, and a reconnect storm of all of them (TokenReviews stay at one per distinct token).
// RDMASTACK_AGENTHUB_BENCH_AGENTS sets N (default 1000; docs/benchmarks.md has the 5,000 run).
// A second test runs the real rdmastack-operator as the hub and counts, from the API server's
// audit log, what its node controllers write for N first reports and for N unchanged resent ones.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "crds/types/clientprofile_api.h"
#include "operator/k8s/api_error.h"
#include "tests/bench/scale/bench_manifests.h"
#include "tests/harness/audit_log.h"
#include "tests/harness/hub_flood.h"
#include "tests/harness/hub_hold.h"
#include "tests/harness/memory_cgroup.h"
#include "tests/harness/proc_stat.h"
#include "tests/integration/agenthub/hub_fixture.h"
#include "tests/integration/operator/operator_process.h"

extern char** environ;

namespace rdmastack::agenthub::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

constexpr int kHeartbeatSeconds = 10;
constexpr int kSettleSeconds = 60;

using rdmastack::testing::ProcStat;
using rdmastack::testing::ReadProcStat;
using rdmastack::testing::ReadTaskSwitches;
using rdmastack::testing::TaskSwitches;

// The steady (heartbeat-only) window: 60 s, or RDMASTACK_AGENTHUB_BENCH_STEADY_S (a multiple of
// the heartbeat period) to hold it long enough to attach a profiler (docs/agenthub.md "Where the
// CPU goes").
int SteadySeconds() {
  const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_STEADY_S");
  const int s = v != nullptr ? std::atoi(v) : 60;
  return std::max(kHeartbeatSeconds, s / kHeartbeatSeconds * kHeartbeatSeconds);
}

// One simulated agent: Hello, one report, then a heartbeat whenever Beat() is called.
class LoadAgent final : public grpc::ClientBidiReactor<pb::AgentMessage, pb::HubMessage> {
 public:
  LoadAgent(pb::AgentHub::Stub* stub, const std::string& node, const std::string& token,
            std::atomic<int>* accepted)
      : accepted_(accepted) {
    stub->async()->Connect(&context_, this);
    hello_.mutable_hello()->set_node_name(node);
    hello_.mutable_hello()->set_token(token);
    report_.mutable_report()->set_node_name(node);
    report_.mutable_report()->set_content_hash("bench");
    StartRead(&in_);
    Send(&hello_);
    StartCall();
  }
  void Beat() {
    heartbeat_.mutable_heartbeat()->set_report_hash("bench");
    Send(&heartbeat_);
  }
  void Cancel() { context_.TryCancel(); }
  bool done() {
    std::lock_guard<std::mutex> l(mu_);
    return done_;
  }
  grpc::Status Wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return done_; });
    return status_;
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (in_.has_ack() && in_.ack().report_hash().empty()) {
      ++*accepted_;
      Send(&report_);
    }
    StartRead(&in_);
  }
  void OnWriteDone(bool) override {
    std::lock_guard<std::mutex> l(mu_);
    writing_ = false;
    if (next_ != nullptr) {
      writing_ = true;
      StartWrite(std::exchange(next_, nullptr));
    }
  }
  void OnDone(const grpc::Status& s) override {
    std::lock_guard<std::mutex> l(mu_);
    status_ = s;
    done_ = true;
    cv_.notify_all();
  }

 private:
  void Send(const pb::AgentMessage* m) {
    std::lock_guard<std::mutex> l(mu_);
    if (writing_) {
      next_ = m;  // heartbeats are idempotent: only the latest waiting one matters
      return;
    }
    writing_ = true;
    StartWrite(m);
  }
  grpc::ClientContext context_;
  std::atomic<int>* accepted_;
  pb::AgentMessage hello_, report_, heartbeat_;
  pb::HubMessage in_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool writing_ = false, done_ = false;
  const pb::AgentMessage* next_ = nullptr;
  grpc::Status status_;
};

// Like real agents, every agent heartbeats every kHeartbeatSeconds (spread evenly) while this
// lives; without them the operator would rightly mark the silent nodes Stale, and write that.
class Heartbeats {
 public:
  explicit Heartbeats(const std::vector<std::unique_ptr<LoadAgent>>& agents)
      : thread_([this, &agents] {
          while (beating_) {
            const auto round = SteadyClock::now();
            for (size_t i = 0; i < agents.size() && beating_; ++i) {
              agents[i]->Beat();
              std::this_thread::sleep_until(
                  round + milliseconds((i + 1) * kHeartbeatSeconds * 1000 / agents.size()));
            }
          }
        }) {}
  ~Heartbeats() {
    beating_ = false;
    thread_.join();
  }

 private:
  std::atomic<bool> beating_{true};
  std::thread thread_;
};

class AgentHubBench : public HubFixture {
 protected:
  void TearDown() override {
    if (hub_pid_ > 0) {
      ::kill(hub_pid_, SIGKILL);
      ::waitpid(hub_pid_, nullptr, 0);
    }
    Parallel(nodes_, 8, [&](int i) { (void)admin_->Delete(k8s::kinds::Node(), "", NodeName(i)); });
    if (!agent_daemonset_uid_.empty()) {  // let the namespace go
      (void)admin_->Patch(k8s::kinds::DaemonSet(), ns_, kAgentDaemonSet, k8s::PatchType::kMerge,
                          R"({"metadata":{"finalizers":null}})");
    }
    HubFixture::TearDown();
  }

  static constexpr const char* kAgentDaemonSet = "rdmastack-agent";
  static constexpr const char* kBenchFinalizer = "rdmastack.io/agenthub-bench";

  // The operator's hub accepts only pods that its agent DaemonSet (rdmastack-agent in the agent
  // namespace) controls. The bench's pods name such a DaemonSet as their controller, but no
  // DaemonSet controller may act on them (it would delete pods on nodes its selector does not
  // pick, and an operator without pools or profiles deletes the DaemonSet, whose pods the garbage
  // collector then removes). So the DaemonSet is made, then deleted at once, and kept Terminating
  // by a finalizer until TearDown: the DaemonSet controller skips a DaemonSet being deleted, the
  // garbage collector leaves the dependents of an owner that still exists, and the hub still
  // reads its uid. Call before MakeAgents; returns the DaemonSet's uid.
  std::string MakeTerminatingAgentDaemonSet() {
    auto ds = k8s::JsonObject::Parse(R"({"apiVersion": "apps/v1", "kind": "DaemonSet",
      "metadata": {"name": "rdmastack-agent", "finalizers": ["rdmastack.io/agenthub-bench"]},
      "spec": {"selector": {"matchLabels": {"app": "agenthub-bench-agent"}},
        "updateStrategy": {"type": "OnDelete"},
        "template": {"metadata": {"labels": {"app": "agenthub-bench-agent"}},
          "spec": {"nodeSelector": {"rdmastack.io/agenthub-bench-no-node": "none"},
                   "containers": [{"name": "agent", "image": "rdmastack.invalid/agent:1"}]}}}})");
    EXPECT_TRUE(ds.ok());
    ds->SetNamespace(ns_);
    auto created = admin_->Create(k8s::kinds::DaemonSet(), *ds);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (!created.ok()) return "";
    agent_daemonset_uid_ = std::string(created->Uid());
    k8s::DeleteOptions background;
    background.propagation_policy = k8s::PropagationPolicy::kBackground;
    auto deleted = admin_->Delete(k8s::kinds::DaemonSet(), ns_, kAgentDaemonSet, background);
    EXPECT_TRUE(deleted.ok()) << deleted.status().ToString();
    return agent_daemonset_uid_;
  }

  std::string agent_daemonset_uid_;

  std::string NodeName(int i) const { return ns_ + "-node-" + std::to_string(i); }

  // Runs fn(i) for i in [0, n) on `threads` threads.
  static void Parallel(int n, int threads, const std::function<void(int)>& fn) {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (int i = next++; i < n; i = next++) fn(i);
      });
    }
    for (auto& t : pool) t.join();
  }

  static int AgentCount() {
    const char* n_env = std::getenv("RDMASTACK_AGENTHUB_BENCH_AGENTS");
    return n_env != nullptr ? std::atoi(n_env) : 1000;
  }

  // N Node objects that no kubelet (and no kwok) manages, since the hub keeps one stream per node,
  // each with an agent Pod and a TokenRequest token bound to it. The pods tolerate the taints the
  // node lifecycle controller then puts on the nodes, so they are not evicted while the bench runs.
  // `labels_of(i)`: the labels of node i (the memory bench's pools and profiles select by them).
  std::vector<std::string> MakeAgents(
      int n, const std::function<std::map<std::string, std::string>(int)>& labels_of = nullptr) {
    // One socket per agent on each side; the hub inherits the limit.
    rlimit files{};
    EXPECT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
    files.rlim_cur = files.rlim_max;
    EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
    EXPECT_GE(files.rlim_cur, static_cast<rlim_t>(2 * n + 256)) << "raise the open-files limit";
    const auto t0 = SteadyClock::now();
    Parallel(n, 8, [&](int i) {
      k8s::JsonObject node;
      node.SetApiVersion("v1");
      node.SetKind("Node");
      node.SetName(NodeName(i));
      (void)node.SetString({"metadata", "labels", "rdmastack.io/agenthub-bench"}, ns_);
      if (labels_of) {
        for (const auto& [key, value] : labels_of(i)) node.SetLabel(key, value);
      }
      auto r = admin_->Create(k8s::kinds::Node(), node);
      EXPECT_TRUE(r.ok() || k8s::IsAlreadyExists(r.status())) << r.status().ToString();
    });
    nodes_ = n;
    std::vector<std::string> tokens(n);
    Parallel(n, 8, [&](int i) {
      const std::string pod = "agent-" + std::to_string(i);
      // With MakeTerminatingAgentDaemonSet, the pods name that DaemonSet as their controller.
      std::optional<Controller> controller;
      if (!agent_daemonset_uid_.empty())
        controller =
            Controller{kAgentDaemonSet, agent_daemonset_uid_, {{"app", "agenthub-bench-agent"}}};
      const std::string uid = CreatePod(pod, NodeName(i), kAgentServiceAccount, controller);
      tokens[i] = BoundToken(pod, uid);
    });
    for (const auto& t : tokens) EXPECT_FALSE(t.empty());
    std::printf("setup: %d pods and tokens in %.1f s\n", n,
                std::chrono::duration<double>(SteadyClock::now() - t0).count());
    return tokens;
  }

  // Connects one agent per token to the hub on `port` (one TLS connection each) and waits until
  // the hub accepted all; returns the seconds that took.
  double ConnectAll(int port, const std::vector<std::string>& tokens,
                    std::vector<std::unique_ptr<pb::AgentHub::Stub>>& stubs,
                    std::vector<std::unique_ptr<LoadAgent>>& agents, std::atomic<int>& accepted) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = PublishedCa();
    auto creds = grpc::SslCredentials(ssl);
    const int n = static_cast<int>(tokens.size());
    stubs.resize(n);
    agents.resize(n);
    const auto start = SteadyClock::now();
    for (int i = 0; i < n; ++i) {
      grpc::ChannelArguments channel_args;
      channel_args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // one connection per agent
      stubs[i] = pb::AgentHub::NewStub(
          grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), creds, channel_args));
      agents[i] = std::make_unique<LoadAgent>(stubs[i].get(), NodeName(i), tokens[i], &accepted);
    }
    const bool all = rdmastack::testing::Eventually([&] { return accepted == n; }, seconds(600));
    EXPECT_TRUE(all) << accepted << " of " << n << " accepted";
    return std::chrono::duration<double>(SteadyClock::now() - start).count();
  }

  // Every agent drops its connection, as an agent's process would.
  static void DisconnectAll(std::vector<std::unique_ptr<pb::AgentHub::Stub>>& stubs,
                            std::vector<std::unique_ptr<LoadAgent>>& agents) {
    for (auto& a : agents) a->Cancel();
    for (auto& a : agents) (void)a->Wait();
    agents.clear();
    stubs.clear();  // the last reference to each channel: its connection closes
  }

  // agenthub-bench-hub (or RDMASTACK_AGENTHUB_BENCH_HUB: another hub with the same command line
  // and summary line, e.g. the grpc-go peer that tests/bench/agenthub/gohub/build.sh prints) in
  // its own process, with `extra` arguments; returns its port.
  int StartHub(const std::vector<std::string>& extra) {
    port_file_ = "/tmp/" + ns_ + ".port";
    hub_out_ = "/tmp/" + ns_ + ".hub.out";
    const char* hub_env = std::getenv("RDMASTACK_AGENTHUB_BENCH_HUB");
    const std::string hub_binary =
        hub_env != nullptr && *hub_env != '\0'
            ? std::string(hub_env)
            : rdmastack::testing::BinaryDir() + "/bin/agenthub-bench-hub";
    std::printf("hub: %s\n", hub_binary.c_str());
    ours_ = std::filesystem::path(hub_binary).filename() == "agenthub-bench-hub";
    std::vector<std::string> argv = {hub_binary,
                                     rdmastack::testing::GetClusterEnv()->kubeconfig,
                                     ns_,
                                     kAgentServiceAccount,
                                     std::to_string(kHeartbeatSeconds),
                                     port_file_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, hub_out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    EXPECT_EQ(posix_spawn(&hub_pid_, args[0], &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    int port = 0;
    EXPECT_TRUE(rdmastack::testing::Eventually(
        [&] {
          std::ifstream in(port_file_);
          return static_cast<bool>(in >> port) && port > 0;
        },
        seconds(30)));
    std::this_thread::sleep_for(seconds(2));
    return port;
  }
  // SIGTERM to the hub; its summary line ("accepted=... reports=... heartbeats=...
  // token_reviews=...").
  std::string StopHub() {
    ::kill(hub_pid_, SIGTERM);
    int status = 0;
    ::waitpid(hub_pid_, &status, 0);
    hub_pid_ = -1;
    std::ifstream counts_file(hub_out_);
    std::string counts;
    std::getline(counts_file, counts);
    std::printf("hub: %s\n", counts.c_str());
    std::remove(hub_out_.c_str());
    std::remove(port_file_.c_str());
    return counts;
  }
  struct HubCounts {
    long accepted = -1, reports = -1, heartbeats = -1, reviews = -1;
  };
  static HubCounts ParseCounts(const std::string& counts) {
    HubCounts c;
    std::sscanf(counts.c_str(), "accepted=%ld reports=%ld heartbeats=%ld token_reviews=%ld",
                &c.accepted, &c.reports, &c.heartbeats, &c.reviews);
    return c;
  }

  // agenthub-bench-hub (of any build) prints glibc's heap figures on SIGUSR1; another hub is not
  // asked.
  void PrintHubHeap(const char* when) {
    if (hub_pid_ <= 0 || !ours_) return;
    std::printf("%s: ", when);
    std::fflush(stdout);
    ::kill(hub_pid_, SIGUSR1);
    std::this_thread::sleep_for(milliseconds(300));
  }

  // The real operator's flags when it is the hub the load agents dial: all of them from 127.0.0.1,
  // one address for thousands of agents, so no per-address limits, no per-address refusal budget
  // (a few Hellos past their deadline while thousands connect at once on loaded cores would
  // throttle every agent; the load agents do not reconnect) and a Hello deadline of 2 minutes.
  std::vector<std::string> OperatorHubArgs() const {
    return {"--kubeconfig",
            rdmastack::testing::GetClusterEnv()->kubeconfig,
            "--metrics-bind-address=0",
            "--health-probe-bind-address=0",
            "--agent-namespace=" + ns_,
            "--agent-bind-address=127.0.0.1:0",
            "--agent-hub-address=127.0.0.1:9443",
            "--agent-hub-pending-per-address=0",
            "--agent-hub-max-connections-per-address=0",
            "--agent-hub-max-connections=1000000",
            "--agent-hub-failures-per-minute=0",
            "--agent-hub-hello-timeout=120s"};
  }
  // The port the operator's hub says it listens on; 0 when it has not said so `within`.
  static int HubPortOf(rdmastack::testing::OperatorProcess& op, seconds within) {
    int port = 0;
    (void)rdmastack::testing::Eventually(
        [&] {
          const std::string out = op.Output();
          const size_t at = out.find("agenthub: listening on ");
          if (at == std::string::npos) return false;
          const size_t p = out.find("(port ", at);
          return p != std::string::npos && (port = std::atoi(out.c_str() + p + 6)) > 0;
        },
        within);
    return port;
  }

  pid_t hub_pid_ = -1;
  bool ours_ = false;  // the hub is agenthub-bench-hub
  int nodes_ = 0;
  std::string port_file_, hub_out_;
};

TEST_F(AgentHubBench, ThousandsOfAgentsOverTls) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const int n = AgentCount();
  const std::vector<std::string> tokens = MakeAgents(n);
  if (HasFailure()) return;

  const int port = StartHub({});
  ASSERT_GT(port, 0);
  const ProcStat idle = ReadProcStat(hub_pid_);
  PrintHubHeap("idle");

  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs;
  std::vector<std::unique_ptr<LoadAgent>> agents;
  std::atomic<int> accepted{0};
  const double connect_s = ConnectAll(port, tokens, stubs, agents, accepted);
  std::this_thread::sleep_for(seconds(5));
  const ProcStat connected = ReadProcStat(hub_pid_);
  PrintHubHeap("connected");

  // Steady state: every agent heartbeats every 10 s, spread evenly. The line names the hub's pid
  // for a profiler to attach to (perf record -p PID) while it lasts.
  const int steady_seconds = SteadySeconds();
  std::printf("steady: hub pid %d, %d s of heartbeats from now\n", static_cast<int>(hub_pid_),
              steady_seconds);
  std::fflush(stdout);
  const ProcStat before = ReadProcStat(hub_pid_);
  const TaskSwitches switches_before = ReadTaskSwitches(hub_pid_);
  const auto steady_start = SteadyClock::now();
  for (int round = 0; round < steady_seconds / kHeartbeatSeconds; ++round) {
    for (int i = 0; i < n; ++i) {
      agents[i]->Beat();
      std::this_thread::sleep_until(
          steady_start + milliseconds((round * n + i + 1) * kHeartbeatSeconds * 1000 / n));
    }
  }
  const ProcStat after = ReadProcStat(hub_pid_);
  const TaskSwitches switches_after = ReadTaskSwitches(hub_pid_);
  const double steady_s = std::chrono::duration<double>(SteadyClock::now() - steady_start).count();

  if (std::getenv("RDMASTACK_AGENTHUB_BENCH_STORM") != nullptr &&
      std::string(std::getenv("RDMASTACK_AGENTHUB_BENCH_STORM")) == "0") {
    // A trial of the steady state alone (docs/agenthub.md "Where the CPU goes").
    const HubCounts c = ParseCounts(StopHub());
    DisconnectAll(stubs, agents);
    std::printf(
        "agents %d: all accepted in %.1f s; CPU at one heartbeat/%d s each: %.2f%% of a core over "
        "%.0f s; hub threads %d, context switches %.0f/s voluntary, %.0f/s involuntary\n",
        n, connect_s, kHeartbeatSeconds, 100.0 * (after.cpu_s - before.cpu_s) / steady_s, steady_s,
        switches_after.threads, (switches_after.voluntary - switches_before.voluntary) / steady_s,
        (switches_after.involuntary - switches_before.involuntary) / steady_s);
    EXPECT_EQ(c.accepted, static_cast<long>(n));
    EXPECT_GE(c.heartbeats, 5L * n * steady_seconds / 60) << "about one per agent every 10 s";
    return;
  }
  // Reconnect storm: every agent drops its connection and dials again at once.
  DisconnectAll(stubs, agents);
  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs2;
  std::vector<std::unique_ptr<LoadAgent>> agents2;
  std::atomic<int> accepted2{0};
  const double storm_s = ConnectAll(port, tokens, stubs2, agents2, accepted2);
  const ProcStat stormed = ReadProcStat(hub_pid_);
  PrintHubHeap("after the storm");
  // Does the memory come back? The same connections, 60 s later (sampled every 5 s).
  std::string settle;
  long settled_kib = stormed.rss_kib;
  for (int s = 5; s <= kSettleSeconds; s += 5) {
    std::this_thread::sleep_for(seconds(5));
    settled_kib = ReadProcStat(hub_pid_).rss_kib;
    settle += " " + std::to_string(s) + "s:" + std::to_string(settled_kib / 1024);
  }
  PrintHubHeap("60 s after the storm");

  const std::string counts = StopHub();
  DisconnectAll(stubs2, agents2);

  const double per_conn_kib =
      static_cast<double>(connected.rss_kib - idle.rss_kib) / static_cast<double>(n);
  const double cpu_pct = 100.0 * (after.cpu_s - before.cpu_s) / steady_s;
  std::printf(
      "agents %d: all accepted in %.1f s; hub RSS idle %.1f MiB, connected %.1f MiB -> %.1f KiB "
      "per connection; CPU at one heartbeat/%d s each: %.2f%% of a core over %.0f s; reconnect "
      "storm: all accepted again in %.1f s, hub RSS %.1f MiB, %d s later %.1f MiB (%+.1f%% of "
      "before the storm)\n",
      n, connect_s, idle.rss_kib / 1024.0, connected.rss_kib / 1024.0, per_conn_kib,
      kHeartbeatSeconds, cpu_pct, steady_s, storm_s, stormed.rss_kib / 1024.0, kSettleSeconds,
      settled_kib / 1024.0, 100.0 * (settled_kib - connected.rss_kib) / connected.rss_kib);
  std::printf("hub RSS (MiB) after the storm:%s\n", settle.c_str());
  // Wakeups: a thread that blocks and is woken again counts one voluntary switch.
  std::printf(
      "steady state: hub threads %d, context switches %.0f/s voluntary, %.0f/s involuntary "
      "(%.2f voluntary per heartbeat)\n",
      switches_after.threads, (switches_after.voluntary - switches_before.voluntary) / steady_s,
      (switches_after.involuntary - switches_before.involuntary) / steady_s,
      static_cast<double>(switches_after.voluntary - switches_before.voluntary) /
          (steady_s * n / kHeartbeatSeconds));
  const HubCounts c = ParseCounts(counts);
  EXPECT_EQ(c.reports, 2L * n) << "one report per accepted stream";
  EXPECT_EQ(c.accepted, 2L * n);
  EXPECT_GE(c.heartbeats, 5L * n) << "about 6 per agent in 60 s";
  EXPECT_LE(c.reviews, static_cast<long>(n)) << "one TokenReview per distinct token";
}

// A hostile peer floods the hub from the agents' own address (127.0.0.1) for 45 s while N agents
// stay connected and heartbeat: TCP connections that never start TLS, TLS connections that never
// open a stream, and Hellos with made-up tokens or 900 KiB node names (tests/harness/hub_flood.h).
// The hub throttles refused Hellos per address (10 a minute, as the operator's default); the
// figures are its memory and CPU meanwhile and whether any agent's stream was lost.
TEST_F(AgentHubBench, HostileFloodFromOneAddressBesideConnectedAgents) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const int n = AgentCount();
  const std::vector<std::string> tokens = MakeAgents(n);
  if (HasFailure()) return;
  const int port = StartHub({"10"});
  ASSERT_GT(port, 0);
  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs;
  std::vector<std::unique_ptr<LoadAgent>> agents;
  std::atomic<int> accepted{0};
  ConnectAll(port, tokens, stubs, agents, accepted);
  std::this_thread::sleep_for(seconds(5));
  const ProcStat before = ReadProcStat(hub_pid_);

  rdmastack::testing::HubFloodOptions o;
  o.host = "127.0.0.1";
  o.port = static_cast<uint16_t>(port);
  o.ca_pem = PublishedCa();
  for (int i = 0; i < std::min(n, 16); ++i) o.node_names.push_back(NodeName(i));
  rdmastack::testing::HubFlood flood(o);
  std::atomic<bool> flooding{true};
  std::atomic<long> rss_max_kib{before.rss_kib};
  std::thread sampler([&] {
    while (flooding) {
      rss_max_kib = std::max<long>(rss_max_kib, ReadProcStat(hub_pid_).rss_kib);
      std::this_thread::sleep_for(milliseconds(500));
    }
  });
  std::thread attacker([&] { flood.Start(); });
  const auto start = SteadyClock::now();
  constexpr int kFloodSeconds = 45;
  for (int round = 0; round < kFloodSeconds / kHeartbeatSeconds; ++round) {
    for (int i = 0; i < n; ++i) {
      agents[i]->Beat();
      std::this_thread::sleep_until(
          start + milliseconds((round * n + i + 1) * kHeartbeatSeconds * 1000 / n));
    }
  }
  std::this_thread::sleep_until(start + seconds(kFloodSeconds));
  flood.StopHellos();
  attacker.join();
  const ProcStat after = ReadProcStat(hub_pid_);
  const double flood_s = std::chrono::duration<double>(SteadyClock::now() - start).count();
  flooding = false;
  sampler.join();
  int lost = 0;
  for (auto& a : agents) lost += a->done();
  const int silent_closed = flood.SilentSocketsClosed(seconds(15));
  const int idle_open = flood.IdleChannelsReady();
  const HubCounts c = ParseCounts(StopHub());
  DisconnectAll(stubs, agents);

  const auto codes = flood.HelloCodes();
  auto code = [&](grpc::StatusCode s) { return codes.count(s) ? codes.at(s) : 0; };
  std::printf(
      "flood at the agents' address with %d agents connected: %d Hellos in %.0f s (%d "
      "UNAUTHENTICATED, %d INVALID_ARGUMENT, %d RESOURCE_EXHAUSTED), %d of %d TLS connections "
      "made, silent sockets closed %d of %d, idle TLS connections open after %d; hub RSS %.1f MiB "
      "before, %.1f max; hub CPU %.1f%% of a core during the flood; agents lost %d; TokenReviews "
      "%ld (%d for the agents)\n",
      n, flood.hellos(), flood_s, code(grpc::StatusCode::UNAUTHENTICATED),
      code(grpc::StatusCode::INVALID_ARGUMENT), code(grpc::StatusCode::RESOURCE_EXHAUSTED),
      flood.idle_channels_connected(), o.idle_channels, silent_closed, o.silent_sockets, idle_open,
      before.rss_kib / 1024.0, rss_max_kib / 1024.0, 100.0 * (after.cpu_s - before.cpu_s) / flood_s,
      lost, c.reviews, n);
  EXPECT_EQ(lost, 0) << "an agent's stream ended during the flood";
  EXPECT_EQ(c.accepted, static_cast<long>(n));
  EXPECT_LE(c.reviews, static_cast<long>(n) + 14) << "the flood's reviews: one minute's budget";
}

// Peers that hold the hub's connections for as long as it lets them, each kind for 45 s from 64
// loopback addresses (32 connections each, reopened whenever the hub closes one), while 4 agents
// stay connected and heartbeat: TLS connections that go silent after the handshake, then streams
// whose first message never finishes (its head announces 1 MiB, 60 KiB follow). The hub runs with
// the operator's connection limits (RDMASTACK_AGENTHUB_BENCH_CONNECTIONS, default "10240,8", the operator's; give
// "1000000,0" for none). The figure is the hub's peak RSS during each flood.
TEST_F(AgentHubBench, IdleTlsAndUnfinishedMessageFloodsFromManyAddresses) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  constexpr int kAgents = 4;
  const std::vector<std::string> tokens = MakeAgents(kAgents);
  if (HasFailure()) return;
  const char* limits_env = std::getenv("RDMASTACK_AGENTHUB_BENCH_CONNECTIONS");
  const std::string limits = limits_env != nullptr ? limits_env : "10240,8";
  ::setenv("RDMASTACK_AGENTHUB_BENCH_CONNECTIONS", limits.c_str(), 1);
  const int port = StartHub({"10"});
  ::unsetenv("RDMASTACK_AGENTHUB_BENCH_CONNECTIONS");
  ASSERT_GT(port, 0);
  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs;
  std::vector<std::unique_ptr<LoadAgent>> agents;
  std::atomic<int> accepted{0};
  ConnectAll(port, tokens, stubs, agents, accepted);
  std::this_thread::sleep_for(seconds(5));
  const long idle_kib = ReadProcStat(hub_pid_).rss_kib;
  std::printf("hub limits %s; RSS with %d agents %.1f MiB\n", limits.c_str(), kAgents,
              idle_kib / 1024.0);

  using Kind = rdmastack::testing::HubHoldOptions::Kind;
  for (const Kind kind : {Kind::kIdleTls, Kind::kUnfinishedMessage}) {
    const char* name = kind == Kind::kIdleTls ? "idle TLS" : "unfinished message";
    rdmastack::testing::HubHoldOptions o;
    o.kind = kind;
    o.port = static_cast<uint16_t>(port);
    o.sources = rdmastack::testing::LoopbackSources(64);
    o.per_source = 32;
    const long before_kib = ReadProcStat(hub_pid_).rss_kib;
    rdmastack::testing::HubHold hold(o);
    long peak_kib = before_kib;
    int peak_open = 0;
    const int sockets_before = rdmastack::testing::CountOpenSockets(hub_pid_);
    int peak_sockets = sockets_before;
    hold.Start();
    const auto start = SteadyClock::now();
    for (int round = 0; SteadyClock::now() - start < seconds(45); ++round) {
      for (auto& a : agents) a->Beat();
      for (int i = 0; i < 20; ++i) {  // 10 s between heartbeats, RSS every 500 ms
        peak_kib = std::max(peak_kib, ReadProcStat(hub_pid_).rss_kib);
        peak_open = std::max(peak_open, hold.open());
        peak_sockets = std::max(peak_sockets, rdmastack::testing::CountOpenSockets(hub_pid_));
        std::this_thread::sleep_for(milliseconds(500));
      }
    }
    hold.Stop();
    std::this_thread::sleep_for(seconds(2));
    const long after_kib = ReadProcStat(hub_pid_).rss_kib;
    int lost = 0;
    for (auto& a : agents) lost += a->done();
    std::printf(
        "%s flood from %zu addresses x %d: %d TLS handshakes, %d refused before TLS, %d closed "
        "later by the hub, at most %d held at once by the flood's count and %d more sockets "
        "open in the hub; hub RSS %.1f MiB before, %.1f peak (+%.1f), %.1f after; agents lost "
        "%d\n",
        name, o.sources.size(), o.per_source, hold.handshakes(), hold.refused(),
        hold.closed_later(), peak_open, peak_sockets - sockets_before, before_kib / 1024.0,
        peak_kib / 1024.0, (peak_kib - before_kib) / 1024.0, after_kib / 1024.0, lost);
    std::fflush(stdout);
    EXPECT_EQ(lost, 0) << name << ": an agent's stream ended during the flood";
    if (limits == "10240,8" || limits == "4096,8") {
      // 8 per address, counted where they cost memory: the hub's own sockets (the flood's
      // count includes connections the hub closed that the flood has not read yet), and a few
      // accepted only to be refused and closed at once.
      ASSERT_GE(sockets_before, 0) << "cannot read the hub's /proc/PID/fd";
      EXPECT_LE(peak_sockets - sockets_before, static_cast<int>(o.sources.size()) * 8 + 16) << name;
      EXPECT_GT(hold.refused(), 0) << name << ": nothing over the per-address limit?";
    }
  }
  StopHub();
  DisconnectAll(stubs, agents);
}

// The writes behind the agents' reports, through the real operator: its hub accepts N agents, its
// node controllers turn their first reports into RdmaNodes and node labels, and the same reports
// resent after a reconnect storm change nothing.
TEST_F(AgentHubBench, OperatorWritesForThousandsOfReports) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_EQ(rdmastack::testing::InstallCrds(*env).exit_code, 0);
  const int n = AgentCount();
  ASSERT_FALSE(MakeTerminatingAgentDaemonSet().empty());
  const std::vector<std::string> tokens = MakeAgents(n);
  if (HasFailure()) return;
  // The agent ServiceAccount the hub accepts is the fixture's, in its namespace; the hub's
  // certificate names 127.0.0.1 (the host of the address agents would be told to dial).
  rdmastack::testing::OperatorProcess op("agenthub-bench-operator", OperatorHubArgs());
  const std::string identity = op.Identity();
  ASSERT_FALSE(identity.empty()) << op.Output();
  const int port = HubPortOf(op, seconds(60));
  ASSERT_GT(port, 0) << op.Output();
  using Counts = std::map<std::string, int>;  // "verb resource" -> writes
  auto writes = [&] {
    Counts by;
    for (const auto& w : WritesByAgent(rdmastack::testing::ReadAuditedWrites(), identity)) {
      ++by[w.verb + " " + w.resource];
    }
    return by;
  };
  auto total = [](const Counts& by, std::string_view resource = "") {
    int t = 0;
    for (const auto& [k, v] : by) t += resource.empty() || k.ends_with(resource) ? v : 0;
    return t;
  };
  // Until the operator's writes stop growing for 10 s.
  auto settle = [&] {
    Counts last = writes();
    auto stable_since = SteadyClock::now();
    while (SteadyClock::now() - stable_since < seconds(10)) {
      std::this_thread::sleep_for(seconds(2));
      Counts now = writes();
      if (total(now) != total(last)) stable_since = SteadyClock::now();
      last = std::move(now);
    }
    return last;
  };
  auto describe = [](const Counts& a, const Counts& b) {
    std::string out;
    for (const auto& [k, v] : b) {
      const auto it = a.find(k);
      const int d = v - (it == a.end() ? 0 : it->second);
      if (d != 0) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(d);
    }
    return out.empty() ? std::string("none") : out;
  };
  const Counts before = writes();

  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs;
  std::vector<std::unique_ptr<LoadAgent>> agents;
  std::optional<Heartbeats> beats;
  std::atomic<int> accepted{0};
  const auto start = SteadyClock::now();
  const double connect_s = ConnectAll(port, tokens, stubs, agents, accepted);
  beats.emplace(agents);
  const Counts first = settle();
  const double settled_s = std::chrono::duration<double>(SteadyClock::now() - start).count() - 10.0;
  const ProcStat loaded = ReadProcStat(op.pid());
  beats.reset();

  DisconnectAll(stubs, agents);
  std::atomic<int> accepted2{0};
  const double storm_s = ConnectAll(port, tokens, stubs, agents, accepted2);
  beats.emplace(agents);
  const Counts resent = settle();
  beats.reset();
  DisconnectAll(stubs, agents);
  op.Signal(SIGTERM);
  EXPECT_EQ(op.WaitExit(seconds(60)), 0);

  const int first_writes = total(first) - total(before);
  std::printf(
      "operator: %d agents accepted in %.1f s, writes settled %.1f s after the first connect; "
      "operator RSS %.1f MiB\n"
      "writes for %d first reports: %d (%.2f per report): %s\n"
      "after the reconnect storm (all accepted again in %.1f s), writes for %d unchanged "
      "reports: %d: %s\n",
      n, connect_s, settled_s, loaded.rss_kib / 1024.0, n, first_writes,
      static_cast<double>(first_writes) / n, describe(before, first).c_str(), storm_s, n,
      total(resent) - total(first), describe(first, resent).c_str());
  // Each node: its RdmaNode (create, then its status) and one label patch; nothing per heartbeat.
  EXPECT_GE(total(first, " rdmanodes") - total(before, " rdmanodes"), n);
  EXPECT_LE(total(first, " rdmanodes") - total(before, " rdmanodes"), 2 * n);
  EXPECT_LE(first_writes, 3 * n + 20);
  EXPECT_EQ(total(resent) - total(first), 0) << "unchanged reports are not written again";
}

// The chart's memory limit for the operator (values.yaml operator.resources.limits.memory).
StatusOr<int64_t> ChartOperatorMemoryLimit() {
  const std::string values = rdmastack::testing::SourceDir() + "/charts/rdmastack/values.yaml";
  try {
    const YAML::Node limit = YAML::LoadFile(values)["operator"]["resources"]["limits"]["memory"];
    if (!limit) return NotFoundError(values + " has no operator.resources.limits.memory");
    return rdmastack::testing::ParseMemoryQuantity(limit.as<std::string>());
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(values + ": " + e.what());
  }
}

// The operator at the advertised scale under the chart's own memory limit (issue 53 item 4): N
// nodes (RDMASTACK_AGENTHUB_BENCH_AGENTS, 5,000 for the published run), each with an agent
// connected to the operator's hub and heartbeating, one in five a storage node of one of 5
// GatewayPools, the others GPU nodes of one of 5 ClientProfiles, each with a workload pod
// labelled for its profile. The operator runs in a memory cgroup limited as its container is
// (RDMASTACK_MEMORY_BENCH_LIMIT, e.g. 512Mi, to try another); through the first reports and a
// reconnect storm of every agent. Reported: the cgroup's peak, the OOM kills, the RSS. The
// chart's limit must leave 25% of itself above the peak.
TEST_F(AgentHubBench, OperatorMemoryAtScaleUnderTheChartLimit) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_EQ(rdmastack::testing::InstallCrds(*env).exit_code, 0);
  constexpr int kGroups = 5;
  const int n = AgentCount();
  ASSERT_GE(n, 5 * kGroups);
  StatusOr<int64_t> limit = ChartOperatorMemoryLimit();
  if (const char* v = std::getenv("RDMASTACK_MEMORY_BENCH_LIMIT"); v != nullptr && *v != '\0')
    limit = rdmastack::testing::ParseMemoryQuantity(v);
  ASSERT_TRUE(limit.ok()) << limit.status().ToString();
  auto group = [](int i) { return std::to_string((i / 5) % kGroups); };
  ASSERT_FALSE(MakeTerminatingAgentDaemonSet().empty());
  const std::vector<std::string> tokens = MakeAgents(n, [&](int i) {
    return i % 5 == 0
               ? std::map<std::string, std::string>{{"rdmastack.io/gateway-capable", "true"},
                                                    {"bench.rdmastack.io/pool", "p" + group(i)}}
               : std::map<std::string, std::string>{{"node-role.rdmastack.io/gpu", ""},
                                                    {"bench.rdmastack.io/profile", "c" + group(i)}};
  });
  if (HasFailure()) return;
  // A workload pod on every GPU node, labelled for its profile (the operator caches them to
  // place the profile's client), bound to its node and tolerating its taints.
  Parallel(n, 8, [&](int i) {
    if (i % 5 == 0) return;
    auto pod = k8s::JsonObject::Parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {},
      "spec": {"tolerations": [{"operator": "Exists"}],
               "containers": [{"name": "app", "image": "rdmastack.invalid/app:1"}]}})");
    ASSERT_TRUE(pod.ok());
    pod->SetName("workload-" + std::to_string(i));
    pod->SetNamespace(ns_);
    pod->SetLabel(clientprofile::kWorkloadLabel, "c" + group(i));
    (void)pod->SetString({"spec", "nodeName"}, NodeName(i));
    auto r = admin_->Create(k8s::kinds::Pod(), *pod);
    EXPECT_TRUE(r.ok() || k8s::IsAlreadyExists(r.status())) << r.status().ToString();
  });
  std::string manifests = bench::RootSecretManifest();
  for (int k = 0; k < kGroups; ++k) {
    const std::string p = "p" + std::to_string(k);
    manifests +=
        bench::GatewayPoolManifest(p, "", "bench.rdmastack.io/pool") +
        bench::ClientProfileManifest("c" + std::to_string(k), "bench.rdmastack.io/profile", p);
  }
  rdmastack::testing::CommandResult applied =
      env->Kubectl({"apply", "-n", ns_, "-f", "-"}, manifests);
  ASSERT_EQ(applied.exit_code, 0) << applied.err;

  auto cgroup = rdmastack::testing::MemoryCgroup::Create("rdmastack-bench-" + ns_, *limit);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status().ToString();
  rdmastack::testing::OperatorProcess op("agenthub-bench-operator", OperatorHubArgs());
  ASSERT_TRUE((*cgroup)->Add(op.pid()).ok());
  const std::string identity = op.Identity();
  ASSERT_FALSE(identity.empty()) << op.Output();
  const int port = HubPortOf(op, seconds(120));
  ASSERT_GT(port, 0) << op.Output();
  // Until the operator's writes hold still for 20 s.
  auto settle = [&] {
    size_t last = 0;
    for (auto still = SteadyClock::now(); SteadyClock::now() - still < seconds(20);) {
      std::this_thread::sleep_for(seconds(5));
      const size_t now = WritesByAgent(rdmastack::testing::ReadAuditedWrites(), identity).size();
      if (now != last) still = SteadyClock::now();
      last = now;
    }
  };
  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs;
  std::vector<std::unique_ptr<LoadAgent>> agents;
  std::optional<Heartbeats> beats;
  std::atomic<int> accepted{0};
  const double connect_s = ConnectAll(port, tokens, stubs, agents, accepted);
  beats.emplace(agents);
  settle();
  const ProcStat reported = ReadProcStat(op.pid());
  beats.reset();
  DisconnectAll(stubs, agents);
  std::atomic<int> accepted2{0};
  const double storm_s = ConnectAll(port, tokens, stubs, agents, accepted2);
  beats.emplace(agents);
  settle();
  beats.reset();
  const ProcStat stormed = ReadProcStat(op.pid());
  const StatusOr<int64_t> peak = (*cgroup)->PeakBytes();
  const StatusOr<int64_t> oom = (*cgroup)->OomKills();
  DisconnectAll(stubs, agents);
  op.Signal(SIGTERM);
  const int exit_code = op.WaitExit(seconds(60)).value_or(-1);
  ASSERT_TRUE(peak.ok()) << peak.status().ToString();
  ASSERT_TRUE(oom.ok()) << oom.status().ToString();
  const double mib = 1024.0 * 1024.0;
  std::printf(
      "operator under a %.0f MiB limit (cgroup %s), %d nodes with agents (accepted in %.1f s, "
      "again after a storm in %.1f s), 5 pools, 5 profiles, %d workload pods: peak %.1f MiB "
      "(%.0f%% of the limit), OOM kills %lld, RSS %.1f MiB after the first reports, %.1f MiB "
      "after the storm (high-water %.1f MiB), exit %d\n",
      *limit / mib, (*cgroup)->path().c_str(), n, connect_s, storm_s, n - (n + 4) / 5, *peak / mib,
      100.0 * *peak / *limit, static_cast<long long>(*oom), reported.rss_kib / 1024.0,
      stormed.rss_kib / 1024.0, stormed.hwm_kib / 1024.0, exit_code);
  EXPECT_EQ(*oom, 0) << "the operator was killed at its own chart's limit";
  EXPECT_EQ(exit_code, 0);
  EXPECT_LE(*peak, *limit * 3 / 4) << "less than 25% headroom above the peak";
}

}  // namespace
}  // namespace rdmastack::agenthub::testing
