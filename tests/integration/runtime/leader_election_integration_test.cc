// Two leader-contender processes against one Lease on the real API server: only one leads; when
// the leader is killed with SIGKILL the other takes over within leaseDuration + retryPeriod
// (15 s + 2 s); when the leader is stopped with SIGTERM it releases the lease and the other takes
// over at its next retry.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/runtime/runtime_cluster.h"

namespace rdmastack::runtime {
namespace {

using Millis = std::chrono::milliseconds;

// build/bin/leader-contender: from RDMASTACK_BINARY_DIR, else next to this test binary
// (build/tests/../bin).
std::string ContenderBinary() {
  return rdmastack::testing::BinaryDir() + "/bin/leader-contender";
}

// A child process whose stdout goes to a file; killed with SIGKILL if still running at the end.
class Contender {
 public:
  Contender(const rdmastack::testing::ClusterEnv& env, const std::string& ns,
            const std::string& identity)
      : identity_(identity),
        out_path_(::testing::TempDir() + ns + "-contender-" + identity + ".out") {
    std::vector<std::string> args = {
        ContenderBinary(), "--kubeconfig", env.kubeconfig, "--namespace", ns,
        "--lease",         "contended",    "--identity",   identity};
    // Created empty before the child starts, so that no stale output is ever read.
    std::ofstream(out_path_, std::ios::trunc).close();
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(out_path_.c_str(), O_WRONLY | O_APPEND);
      dup2(fd, STDOUT_FILENO);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Contender() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // Unix time in ms at which it announced leadership, or 0.
  long long LeadingSince() const {
    std::ifstream in(out_path_);
    std::string word, id;
    long long at = 0;
    while (in >> word >> id >> at) {
      if (word == "LEADING" && id == identity_) return at;
    }
    return 0;
  }
  bool WaitLeading(std::chrono::seconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (LeadingSince() > 0) return true;
      std::this_thread::sleep_for(Millis(50));
    }
    return false;
  }
  void Signal(int sig) { kill(pid_, sig); }
  // Waits for the process to end; returns its exit status (or 128+signal).
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  std::string identity_;
  std::string out_path_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

long long NowMillis() {
  return std::chrono::duration_cast<Millis>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Holder(const rdmastack::testing::ClusterEnv& env, const std::string& ns) {
  auto r =
      env.Kubectl({"-n", ns, "get", "lease", "contended", "-o", "jsonpath={.spec.holderIdentity}"});
  return r.exit_code == 0 ? r.out : "<" + r.err + ">";
}

TEST(LeaderElectionIntegrationTest, KilledLeaderIsReplacedWithinLeaseDurationPlusRetryPeriod) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string ns = integration::CreateNamespace(*env, "rt-lease");
  Contender a(*env, ns, "a");
  ASSERT_TRUE(a.WaitLeading(std::chrono::seconds(30)));
  EXPECT_EQ(Holder(*env, ns), "a");
  Contender b(*env, ns, "b");
  // b syncs and then waits on the lease: it must not lead while a renews.
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_EQ(b.LeadingSince(), 0);

  const long long killed_at = NowMillis();
  a.Signal(SIGKILL);
  EXPECT_EQ(a.Wait(), 128 + SIGKILL);
  ASSERT_TRUE(b.WaitLeading(std::chrono::seconds(30)));
  const long long takeover_ms = b.LeadingSince() - killed_at;
  RecordProperty("takeover_ms", std::to_string(takeover_ms));
  std::printf("takeover after SIGKILL: %lld ms\n", takeover_ms);
  EXPECT_LE(takeover_ms, 15'000 + 2'000);
  EXPECT_EQ(Holder(*env, ns), "b");

  // Graceful stop releases the lease: a new contender takes over at its next retry, not after
  // the lease duration.
  Contender c(*env, ns, "c");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(c.LeadingSince(), 0);
  const long long stopped_at = NowMillis();
  b.Signal(SIGTERM);
  EXPECT_EQ(b.Wait(), 0);
  ASSERT_TRUE(c.WaitLeading(std::chrono::seconds(30)));
  const long long handover_ms = c.LeadingSince() - stopped_at;
  std::printf("handover after SIGTERM: %lld ms\n", handover_ms);
  EXPECT_LE(handover_ms, 2'000 + 1'000);
  integration::DeleteNamespace(*env, ns);
}

}  // namespace
}  // namespace rdmastack::runtime
