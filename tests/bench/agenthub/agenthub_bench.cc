// N simulated agents over TLS against the AgentHub in its own process (agenthub-bench-hub) on
// loopback, with TokenReview and the bound-Pod check against the real API server: the time until
// all are accepted, the hub's resident memory per connection, its CPU at one heartbeat per 10 s per
// agent, and a reconnect storm of all of them (TokenReviews stay at one per distinct token).
// RDMASTACK_AGENTHUB_BENCH_AGENTS sets N (default 1000; docs/benchmarks.md has the 5,000 run).
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "operator/k8s/api_error.h"
#include "tests/harness/proc_stat.h"
#include "tests/integration/agenthub/hub_fixture.h"

extern char** environ;

namespace rdmastack::agenthub::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

constexpr int kHeartbeatSeconds = 10;
constexpr int kSteadySeconds = 60;

using rdmastack::testing::ProcStat;
using rdmastack::testing::ReadProcStat;

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

class AgentHubBench : public HubFixture {
 protected:
  void TearDown() override {
    if (hub_pid_ > 0) {
      ::kill(hub_pid_, SIGKILL);
      ::waitpid(hub_pid_, nullptr, 0);
    }
    Parallel(nodes_, 8, [&](int i) { (void)admin_->Delete(k8s::kinds::Node(), "", NodeName(i)); });
    HubFixture::TearDown();
  }

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

  pid_t hub_pid_ = -1;
  int nodes_ = 0;
};

TEST_F(AgentHubBench, ThousandsOfAgentsOverTls) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const char* n_env = std::getenv("RDMASTACK_AGENTHUB_BENCH_AGENTS");
  const int n = n_env != nullptr ? std::atoi(n_env) : 1000;
  // One socket per agent on each side; the hub inherits the limit.
  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  files.rlim_cur = files.rlim_max;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  ASSERT_GE(files.rlim_cur, static_cast<rlim_t>(2 * n + 256)) << "raise the open-files limit";
  // The hub keeps one stream per node, so every agent needs a node of its own: Node objects
  // that no kubelet (and no kwok) manages. The pods tolerate the taints the node lifecycle
  // controller then puts on them, so they are not evicted while the bench runs.
  auto t0 = SteadyClock::now();
  Parallel(n, 8, [&](int i) {
    k8s::JsonObject node;
    node.SetApiVersion("v1");
    node.SetKind("Node");
    node.SetName(NodeName(i));
    (void)node.SetString({"metadata", "labels", "rdmastack.io/agenthub-bench"}, ns_);
    auto r = admin_->Create(k8s::kinds::Node(), node);
    EXPECT_TRUE(r.ok() || k8s::IsAlreadyExists(r.status())) << r.status().ToString();
  });
  nodes_ = n;
  std::vector<std::string> tokens(n);
  Parallel(n, 8, [&](int i) {
    const std::string pod = "agent-" + std::to_string(i);
    tokens[i] = BoundToken(pod, CreatePod(pod, NodeName(i)));
  });
  for (const auto& t : tokens) ASSERT_FALSE(t.empty());
  std::printf("setup: %d pods and tokens in %.1f s\n", n,
              std::chrono::duration<double>(SteadyClock::now() - t0).count());

  // The hub, in its own process.
  const std::string port_file = "/tmp/" + ns_ + ".port";
  // RDMASTACK_AGENTHUB_BENCH_HUB names another hub with the same command line and summary line
  // (the grpc-go peer: tests/bench/agenthub/gohub/build.sh prints its path).
  const char* hub_env = std::getenv("RDMASTACK_AGENTHUB_BENCH_HUB");
  const std::string hub_binary = hub_env != nullptr && *hub_env != '\0'
                                     ? std::string(hub_env)
                                     : rdmastack::testing::BinaryDir() + "/bin/agenthub-bench-hub";
  std::printf("hub: %s\n", hub_binary.c_str());
  std::vector<std::string> argv = {
      hub_binary, env->kubeconfig, ns_, kAgentServiceAccount, std::to_string(kHeartbeatSeconds),
      port_file};
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const std::string hub_out = "/tmp/" + ns_ + ".hub.out";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, hub_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  ASSERT_EQ(posix_spawn(&hub_pid_, args[0], &actions, nullptr, args.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  int port = 0;
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] {
        std::ifstream in(port_file);
        return static_cast<bool>(in >> port) && port > 0;
      },
      seconds(30)));
  std::this_thread::sleep_for(seconds(2));
  const ProcStat idle = ReadProcStat(hub_pid_);

  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = PublishedCa();
  auto creds = grpc::SslCredentials(ssl);
  auto connect_all = [&](std::vector<std::unique_ptr<pb::AgentHub::Stub>>& stubs,
                         std::vector<std::unique_ptr<LoadAgent>>& agents,
                         std::atomic<int>& accepted) {
    const auto start = SteadyClock::now();
    for (int i = 0; i < n; ++i) {
      grpc::ChannelArguments channel_args;
      channel_args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // one connection per agent
      stubs[i] = pb::AgentHub::NewStub(
          grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), creds, channel_args));
      agents[i] = std::make_unique<LoadAgent>(stubs[i].get(), NodeName(i), tokens[i], &accepted);
    }
    const bool all = rdmastack::testing::Eventually([&] { return accepted == n; }, seconds(600));
    const double s = std::chrono::duration<double>(SteadyClock::now() - start).count();
    EXPECT_TRUE(all) << accepted << " of " << n << " accepted";
    return s;
  };

  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs(n);
  std::vector<std::unique_ptr<LoadAgent>> agents(n);
  std::atomic<int> accepted{0};
  const double connect_s = connect_all(stubs, agents, accepted);
  std::this_thread::sleep_for(seconds(5));
  const ProcStat connected = ReadProcStat(hub_pid_);

  // Steady state: every agent heartbeats every 10 s, spread evenly.
  const ProcStat before = ReadProcStat(hub_pid_);
  const auto steady_start = SteadyClock::now();
  for (int round = 0; round < kSteadySeconds / kHeartbeatSeconds; ++round) {
    for (int i = 0; i < n; ++i) {
      agents[i]->Beat();
      std::this_thread::sleep_until(
          steady_start + milliseconds((round * n + i + 1) * kHeartbeatSeconds * 1000 / n));
    }
  }
  const ProcStat after = ReadProcStat(hub_pid_);
  const double steady_s = std::chrono::duration<double>(SteadyClock::now() - steady_start).count();

  // Reconnect storm: every agent drops its connection and dials again at once.
  for (auto& a : agents) a->Cancel();
  for (auto& a : agents) (void)a->Wait();
  agents.clear();
  stubs.clear();  // the last reference to each channel: its connection closes, as an agent's would
  std::vector<std::unique_ptr<pb::AgentHub::Stub>> stubs2(n);
  std::vector<std::unique_ptr<LoadAgent>> agents2(n);
  std::atomic<int> accepted2{0};
  const double storm_s = connect_all(stubs2, agents2, accepted2);
  const ProcStat stormed = ReadProcStat(hub_pid_);

  ::kill(hub_pid_, SIGTERM);
  int status = 0;
  ::waitpid(hub_pid_, &status, 0);
  hub_pid_ = -1;
  for (auto& a : agents2) a->Cancel();
  for (auto& a : agents2) (void)a->Wait();

  const double per_conn_kib =
      static_cast<double>(connected.rss_kib - idle.rss_kib) / static_cast<double>(n);
  const double cpu_pct = 100.0 * (after.cpu_s - before.cpu_s) / steady_s;
  std::printf(
      "agents %d: all accepted in %.1f s; hub RSS idle %.1f MiB, connected %.1f MiB -> %.1f KiB "
      "per connection; CPU at one heartbeat/%d s each: %.2f%% of a core over %.0f s; reconnect "
      "storm: all accepted again in %.1f s, hub RSS %.1f MiB\n",
      n, connect_s, idle.rss_kib / 1024.0, connected.rss_kib / 1024.0, per_conn_kib,
      kHeartbeatSeconds, cpu_pct, steady_s, storm_s, stormed.rss_kib / 1024.0);
  std::ifstream counts_file(hub_out);
  std::string counts;
  std::getline(counts_file, counts);
  std::printf("hub: %s\n", counts.c_str());
  long accepted_by_hub = -1, reports = -1, heartbeats = -1, reviews = -1;
  std::sscanf(counts.c_str(), "accepted=%ld reports=%ld heartbeats=%ld token_reviews=%ld",
              &accepted_by_hub, &reports, &heartbeats, &reviews);
  EXPECT_EQ(reports, 2L * n) << "one report per accepted stream";
  EXPECT_EQ(accepted_by_hub, 2L * n);
  EXPECT_GE(heartbeats, 5L * n) << "about 6 per agent in 60 s";
  EXPECT_LE(reviews, static_cast<long>(n)) << "one TokenReview per distinct token";
  std::remove(hub_out.c_str());
  std::remove(port_file.c_str());
}

}  // namespace
}  // namespace rdmastack::agenthub::testing
